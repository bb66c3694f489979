# AutowarmTest.pm — what the autowarm scenario tests share: a node set up
# for the worker, its status, the hot set's residency compared with what a
# snapshot recorded, and a data directory made cold in the OS page cache as
# a reboot leaves it.
package AutowarmTest;

use strict;
use warnings;

use Exporter 'import';
use File::Find;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

our @EXPORT_OK = qw(autowarm_conf start_autowarm_node cold_restart_loads autowarm_state wait_for_status drop_data_files_from_os_cache
  shared_share_resident os_share_read create_filled_table read_through_index);

# postgresql.conf lines for a node running the worker every $interval seconds.
sub autowarm_conf
{
	my ($interval) = @_;
	return qq{
shared_preload_libraries = 'pg_cachectl'
cachectl.autowarm = on
cachectl.autowarm_interval = '${interval}s'
shared_buffers = '128MB'
max_worker_processes = 12
autovacuum = off
};
}

# A node made, set up by autowarm_conf($interval) and started, with the
# extension in its postgres database.
sub start_autowarm_node
{
	my ($name, $interval) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', autowarm_conf($interval));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
	return $node;
}

# A table of $rows rows of about 900 bytes (8 a block), with a primary key
# on id when $with_key.
sub create_filled_table
{
	my ($node, $table, $rows, $with_key) = @_;
	my $key = $with_key ? ' PRIMARY KEY' : '';
	$node->safe_psql('postgres', qq{
CREATE TABLE $table (id int$key, payload text) WITH (fillfactor = 100);
INSERT INTO $table SELECT g, repeat('x', 900) FROM generate_series(1, $rows) g;
VACUUM ANALYZE $table;
});
}

# Reads ids $first to $last of $table through its primary key: those heap
# blocks and index pages into shared buffers (and the OS page cache).
sub read_through_index
{
	my ($node, $table, $first, $last) = @_;
	return $node->safe_psql('postgres', qq{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(DISTINCT (ctid::text::point)[0]) FROM $table WHERE id BETWEEN $first AND $last;
});
}

# One column of the node's status row for the database.
sub autowarm_state
{
	my ($node, $column, $db) = @_;
	$db //= 'postgres';
	return $node->safe_psql($db,
		"SELECT $column FROM cachectl.autowarm_status WHERE database = current_database()");
}

# Polls until $condition (SQL over cachectl.autowarm_status's row of the
# database) holds, at most $seconds; returns the seconds it took, or undef.
sub wait_for_status
{
	my ($node, $condition, $seconds, $db) = @_;
	$db //= 'postgres';
	my $started = time;
	while (time - $started < $seconds)
	{
		my $holds = $node->safe_psql($db,
			"SELECT count(*) > 0 FROM cachectl.autowarm_status WHERE database = current_database() AND ($condition)");
		return time - $started if $holds eq 't';
		usleep(100_000);
	}
	return undef;
}

# Every relation file of a stopped node out of the OS page cache
# (POSIX_FADV_DONTNEED through dd; a clean shutdown left no dirty page).
sub drop_data_files_from_os_cache
{
	my ($node) = @_;
	my @files;
	find(sub { push @files, $File::Find::name if -f $_ && /^[0-9]+(_[a-z]+)?(\.[0-9]+)?$/ },
		$node->data_dir . '/base');
	system('sync') == 0 or die 'sync failed';
	for my $file (@files)
	{
		system('dd', "if=$file", 'iflag=nocache', 'count=0', 'status=none') == 0
		  or die "could not drop \"$file\" from the page cache";
	}
	return scalar @files;
}

# Stops the node cleanly (its log must say the worker recorded then), drops
# its relation files from the OS page cache, starts it and waits for the
# start load: two assertions, named after $what.
sub cold_restart_loads
{
	my ($node, $what) = @_;
	my $log_offset = -s $node->logfile;
	$node->stop;
	ok($node->log_contains(qr/recording cache snapshot "autowarm" of database "postgres" \(shutdown\)/, $log_offset),
		"$what: the clean shutdown recorded the cache");
	drop_data_files_from_os_cache($node);
	$node->start;
	ok(defined wait_for_status($node, q{loads_done >= 1}, 30),
		"$what: the restarted server loaded the snapshot, with no call");
	return;
}

# Of the blocks the label's snapshot has in shared buffers for these
# relations, the share that are in the node's shared buffers now, and their
# count.
sub shared_share_resident
{
	my ($node, $label, $relations, $db) = @_;
	$db //= 'postgres';
	my $list = join(', ', map { "'$_'::regclass" } @$relations);
	my $row = $node->safe_psql($db, qq{
WITH recorded AS (
    SELECT s.relation, s.fork, s.blocks FROM cachectl.snapshot AS s
     WHERE s.label = '$label' AND s.layer = 'shared' AND s.relation IN ($list)),
resident AS (
    SELECT r.relation::oid AS relation, r.fork,
           range_agg(int8range(r.first_block, r.first_block + r.block_count)) AS runs
      FROM cachectl_internal.shared_block_runs(ARRAY[$list]) AS r GROUP BY 1, 2)
SELECT COALESCE(sum((SELECT sum(upper(x) - lower(x)) FROM unnest(c.blocks) AS x)), 0),
       COALESCE(sum((SELECT sum(upper(x) - lower(x))
                       FROM unnest(c.blocks * COALESCE(n.runs, '{}')) AS x)), 0)
  FROM recorded AS c LEFT JOIN resident AS n ON n.relation = c.relation AND n.fork = c.fork});
	my ($recorded, $present) = split /\|/, $row;
	return ($recorded > 0 ? $present / $recorded : 0, $recorded);
}

# Of the OS pages of the blocks a relation's main fork has in the label's
# OS row, the share the kernel has read since the files were dropped:
# cached now, or evicted by reclaim since (cachestat's eviction entries, which
# the drop cleared; see 030 for why reclaim takes untouched pages within
# seconds on some hosts).  Undef without cachestat.
sub os_share_read
{
	my ($node, $label, $relation, $cachestat_counts, $page_size, $db) = @_;
	$db //= 'postgres';
	my $runs = $node->safe_psql($db, qq{
SELECT lower(x) || ' ' || upper(x) FROM cachectl.snapshot AS s, unnest(s.blocks) AS x
 WHERE s.label = '$label' AND s.layer = 'os' AND s.fork = 'main' AND s.relation = '$relation'::regclass});
	my $path = $node->data_dir . '/'
	  . $node->safe_psql($db, "SELECT pg_relation_filepath('$relation')");
	my ($pages, $read) = (0, 0);
	for my $run (split /\n/, $runs)
	{
		my ($first, $end) = split / /, $run;
		my $counts = $cachestat_counts->($path, $first * 8192, ($end - $first) * 8192);
		return undef unless defined $counts;
		$pages += ($end - $first) * 8192 / $page_size;
		$read += $counts->{cached} + $counts->{evicted};
	}
	return ($pages > 0 ? $read / $pages : 0, $pages);
}

1;
