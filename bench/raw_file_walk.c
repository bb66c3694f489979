/*
 * raw_file_walk.c — the kernel's floor under one database walk (bench/metrics.sh):
 * for every relation file of a directory, the calls the walk cannot do
 * without — open, fstat (the size), cachestat (the cached pages), close —
 * timed over the whole directory, and then open + close alone.  Prints
 * "files N calls_ms X open_close_ms Y cached_pages Z".
 *
 *   raw_file_walk DIRECTORY
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range
{
	uint64_t	off;
	uint64_t	len;
};

struct cachestat
{
	uint64_t	nr_cache;
	uint64_t	nr_dirty;
	uint64_t	nr_writeback;
	uint64_t	nr_evicted;
	uint64_t	nr_recently_evicted;
};

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A relation file's name: digits, then an optional _fork and .segment. */
static int
is_relation_file(const char *name)
{
	return name[0] >= '1' && name[0] <= '9';
}

int
main(int argc, char **argv)
{
	DIR		   *dir;
	struct dirent *entry;
	char	  **names;
	size_t		count = 0;
	size_t		capacity = 1024;
	uint64_t	cached = 0;
	double		started;
	double		calls_ms;
	double		open_close_ms;
	int			dir_fd;

	if (argc != 2)
	{
		fprintf(stderr, "usage: raw_file_walk DIRECTORY\n");
		return 2;
	}
	dir = opendir(argv[1]);
	if (dir == NULL)
	{
		perror(argv[1]);
		return 1;
	}
	names = malloc(capacity * sizeof(char *));
	while ((entry = readdir(dir)) != NULL)
	{
		if (!is_relation_file(entry->d_name))
			continue;
		if (count == capacity)
		{
			capacity *= 2;
			names = realloc(names, capacity * sizeof(char *));
		}
		names[count++] = strdup(entry->d_name);
	}
	closedir(dir);
	/* the walk opens paths relative to the data directory; so does this */
	if (chdir(argv[1]) != 0 || (dir_fd = open(".", O_RDONLY | O_DIRECTORY)) < 0)
	{
		perror(argv[1]);
		return 1;
	}
	close(dir_fd);

	started = now_ms();
	for (size_t i = 0; i < count; i++)
	{
		struct stat status;
		struct cachestat_range range = {0, 0};
		struct cachestat counts;
		int			fd = open(names[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

		if (fd < 0)
			continue;
		if (fstat(fd, &status) == 0 && syscall(__NR_cachestat, fd, &range, &counts, 0) == 0)
			cached += counts.nr_cache;
		close(fd);
	}
	calls_ms = now_ms() - started;

	started = now_ms();
	for (size_t i = 0; i < count; i++)
	{
		int			fd = open(names[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

		if (fd >= 0)
			close(fd);
	}
	open_close_ms = now_ms() - started;

	printf("files %zu calls_ms %.1f open_close_ms %.1f cached_pages %llu\n",
		   count, calls_ms, open_close_ms, (unsigned long long) cached);
	return 0;
}
