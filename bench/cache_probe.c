/*
 * cache_probe.c — the page-cache side of bench/os_prefetch.sh: counts the
 * pages of some files that are in the OS page cache, issues raw WILLNEED
 * advice in fixed chunks (the floor the benchmark compares against), and
 * watches the cache fill while a command runs.
 *
 *   cache_probe count FILE...
 *       prints "CACHED TOTAL": pages whose read has finished (mincore), and
 *       the pages the files span.
 *   cache_probe willneed CHUNK_BYTES FILE...
 *       POSIX_FADV_WILLNEED over each file, CHUNK_BYTES per call, in order;
 *       returns as soon as the calls are made; prints the number of calls.
 *   cache_probe watch TARGET_PAGES TIMEOUT_S STALL_S FILE... -- COMMAND...
 *       maps the files, starts COMMAND (its output is passed through) and
 *       counts their cached pages every few milliseconds until TARGET_PAGES
 *       are cached, or, once the command has ended, until the count has not
 *       moved for STALL_S seconds, or TIMEOUT_S have passed; it always waits
 *       for the command.  Prints one line:
 *       "probe: exit_s=… exit_pages=… target_s=… final_s=… final_pages=…
 *        total_pages=… passes=… status=…"
 *       times in seconds since the command was started, target_s -1 when the
 *       target was never reached.
 *
 * Counting uses mincore(2), which like util-linux fincore counts only pages
 * whose read has completed.  It skips windows already seen complete (pages
 * stay cached here: nothing reclaims them during a run), and windows that
 * cachestat(2) (when the kernel has it) reports empty, so that polling costs
 * little while the benchmark runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451		/* x86_64 and arm64 */
#endif

#define WINDOW_BYTES (8L * 1024 * 1024)

struct cachestat_range
{
	uint64_t	off;
	uint64_t	len;
};

struct cachestat_counts
{
	uint64_t	nr_cache;
	uint64_t	nr_dirty;
	uint64_t	nr_writeback;
	uint64_t	nr_evicted;
	uint64_t	nr_recently_evicted;
};

struct window
{
	int			file;
	off_t		offset;
	size_t		length;
	long		pages;
	long		cached;			/* last count */
	int			complete;
};

struct mapped_file
{
	const char *path;
	int			fd;
	off_t		size;
	unsigned char *map;
};

static long page_size;
static struct mapped_file *files;
static int	file_count;
static struct window *windows;
static long window_count;
static long total_pages;
static int	cachestat_works = 1;
static unsigned char *vector;

static void
fail(const char *what, const char *path)
{
	fprintf(stderr, "cache_probe: %s %s: %s\n", what, path ? path : "",
			strerror(errno));
	exit(2);
}

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static void
open_files(int count, char **paths, int map_them)
{
	file_count = count;
	files = calloc(count, sizeof(*files));
	if (files == NULL)
		fail("calloc", NULL);
	for (int i = 0; i < count; i++)
	{
		struct stat st;

		files[i].path = paths[i];
		files[i].fd = open(paths[i], O_RDONLY);
		if (files[i].fd < 0)
			fail("open", paths[i]);
		if (fstat(files[i].fd, &st) != 0)
			fail("fstat", paths[i]);
		files[i].size = st.st_size;
		total_pages += (st.st_size + page_size - 1) / page_size;
		if (map_them && st.st_size > 0)
		{
			/* never touched: the mapping only serves mincore */
			files[i].map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED,
								files[i].fd, 0);
			if (files[i].map == MAP_FAILED)
				fail("mmap", paths[i]);
		}
	}
}

static void
make_windows(void)
{
	for (int i = 0; i < file_count; i++)
		window_count += (files[i].size + WINDOW_BYTES - 1) / WINDOW_BYTES;
	windows = calloc(window_count ? window_count : 1, sizeof(*windows));
	vector = malloc(WINDOW_BYTES / page_size);
	if (windows == NULL || vector == NULL)
		fail("calloc", NULL);
	long		w = 0;

	for (int i = 0; i < file_count; i++)
		for (off_t offset = 0; offset < files[i].size; offset += WINDOW_BYTES)
		{
			off_t		left = files[i].size - offset;

			windows[w].file = i;
			windows[w].offset = offset;
			windows[w].length = left < WINDOW_BYTES ? left : WINDOW_BYTES;
			windows[w].pages = (windows[w].length + page_size - 1) / page_size;
			w++;
		}
}

/* Pages of the window whose read has finished. */
static long
count_window(struct window *win)
{
	struct mapped_file *file = &files[win->file];

	if (cachestat_works)
	{
		struct cachestat_range range = {win->offset, win->length};
		struct cachestat_counts counts;

		if (syscall(__NR_cachestat, file->fd, &range, &counts, 0) == 0)
		{
			if (counts.nr_cache == 0)
				return 0;
		}
		else
			cachestat_works = 0;	/* ENOSYS, EPERM: mincore alone */
	}
	if (mincore(file->map + win->offset, win->length, vector) != 0)
		fail("mincore", file->path);
	long		cached = 0;

	for (long p = 0; p < win->pages; p++)
		cached += vector[p] & 1;
	return cached;
}

static long
count_pass(void)
{
	long		cached = 0;

	for (long w = 0; w < window_count; w++)
	{
		struct window *win = &windows[w];

		if (!win->complete)
		{
			win->cached = count_window(win);
			win->complete = win->cached == win->pages;
		}
		cached += win->cached;
	}
	return cached;
}

static int
do_count(int argc, char **argv)
{
	open_files(argc, argv, 1);
	make_windows();
	printf("%ld %ld\n", count_pass(), total_pages);
	return 0;
}

static int
do_willneed(int argc, char **argv)
{
	if (argc < 2)
		return 1;
	long		chunk = atol(argv[0]);
	long		calls = 0;

	if (chunk <= 0)
		return 1;
	open_files(argc - 1, argv + 1, 0);
	for (int i = 0; i < file_count; i++)
		for (off_t offset = 0; offset < files[i].size; offset += chunk)
		{
			int			rc = posix_fadvise(files[i].fd, offset, chunk,
										   POSIX_FADV_WILLNEED);

			if (rc != 0)
			{
				errno = rc;
				fail("posix_fadvise", files[i].path);
			}
			calls++;
		}
	printf("%ld\n", calls);
	return 0;
}

static int
do_watch(int argc, char **argv)
{
	int			separator = -1;

	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
		{
			separator = i;
			break;
		}
	if (argc < 4 || separator < 4 || separator == argc - 1)
		return 1;

	long		target = atol(argv[0]);
	double		timeout = atof(argv[1]);
	double		stall = atof(argv[2]);

	open_files(separator - 3, argv + 3, 1);
	make_windows();

	struct timespec start;

	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid_t		child = fork();

	if (child < 0)
		fail("fork", NULL);
	if (child == 0)
	{
		execvp(argv[separator + 1], argv + separator + 1);
		fail("exec", argv[separator + 1]);
	}

	double		exit_s = -1,
				target_s = -1,
				last_change_s = 0,
				now_s = 0;
	long		cached = 0,
				exit_pages = -1,
				passes = 0;
	int			status = 0;
	const struct timespec pause = {0, 5 * 1000 * 1000};

	for (;;)
	{
		long		previous = cached;

		if (exit_s < 0 && waitpid(child, &status, WNOHANG) == child)
		{
			exit_s = seconds_since(&start);
			exit_pages = count_pass();
			cached = exit_pages;
		}
		else
			cached = count_pass();
		passes++;
		now_s = seconds_since(&start);
		if (cached != previous)
			last_change_s = now_s;
		if (target_s < 0 && cached >= target)
			target_s = now_s;
		if (exit_s >= 0 &&
			(target_s >= 0 || now_s - last_change_s >= stall || now_s >= timeout))
			break;
		if (exit_s < 0 && now_s >= timeout && target_s < 0)
		{
			/* the command overran: stop counting, wait for it */
			if (waitpid(child, &status, 0) == child)
			{
				exit_s = seconds_since(&start);
				exit_pages = cached = count_pass();
			}
			break;
		}
		nanosleep(&pause, NULL);
	}
	printf("probe: exit_s=%.3f exit_pages=%ld target_s=%.3f final_s=%.3f "
		   "final_pages=%ld total_pages=%ld passes=%ld status=%d\n",
		   exit_s, exit_pages, target_s, now_s, cached, total_pages, passes,
		   WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int
main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (argc >= 3 && strcmp(argv[1], "count") == 0)
		return do_count(argc - 2, argv + 2);
	if (argc >= 4 && strcmp(argv[1], "willneed") == 0)
		return do_willneed(argc - 2, argv + 2);
	if (argc >= 3 && strcmp(argv[1], "watch") == 0)
	{
		int			rc = do_watch(argc - 2, argv + 2);

		if (rc == 0)
			return 0;
	}
	fprintf(stderr,
			"usage: cache_probe count FILE...\n"
			"       cache_probe willneed CHUNK_BYTES FILE...\n"
			"       cache_probe watch TARGET_PAGES TIMEOUT_S STALL_S FILE... -- COMMAND...\n");
	return 1;
}
