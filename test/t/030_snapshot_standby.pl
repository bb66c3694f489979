# 030_snapshot_standby.pl
#
# A cache snapshot taken on the primary reaches a streaming standby as rows of
# cachectl.snapshot, and restore() loads it there while replay goes on:
# - snapshot() on the standby fails with 25006 and a hint to take it on the
#   primary;
# - restore() on the standby matches by block number (same system
#   identifier), warms every relation, skips none and remaps none;
# - every block of the snapshot is then on the standby in its layer (at
#   least: replay reads pages too) - or, for the OS layer, was read and has
#   since been reclaimed by the kernel: every page of a block missing there
#   has an eviction entry in the page cache (cachestat's "evicted"), which
#   only reclaim leaves, and which the drop before the restore had cleared.
#   Kernels reclaim page-cache pages that no process touched well before
#   memory runs short (proactive reclaim: the DAMON pageout scheme of the
#   machine this was found on, with 18 GB free, took such pages 1 to 15 s
#   after they were read, on 15.20 and 19~rc1 alike, and an OS-layer
#   restore reads pages without touching them), so a missing page alone
#   says nothing of the restore; a missing page without such an entry was
#   never read (a chunk skipped, a drop of the wrong blocks).  Without
#   cachestat every block must be resident;
# - the restoring backend wrote next to nothing (write_bytes of /proc/<pid>/io,
#   read before and after in the same session: at most 8 pages of PostgreSQL's
#   own, against the megabytes restored);
# - an unlogged table (no data on a standby) is skipped with a NOTICE;
# - it was not cancelled, although the primary kept writing, vacuuming and
#   taking ACCESS EXCLUSIVE locks on the very table being restored (every
#   second) while the standby lets replay wait only 3 s (the default is 30 s):
#   restore commits between relations and between chunks of a quarter of a
#   second's loading, so replay never waits long on it.  (Loading warm_t at
#   6 MB/s takes about 5 s: one transaction for it would be cancelled.)
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CachectlTest qw(cachestat_counts os_page_size);

# ---- the primary and its streaming standby ----

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', q{
shared_buffers = '128MB'
max_connections = 20
wal_keep_size = '256MB'
autovacuum = off
});
$primary->start;

# warm_t: about 40 MB (5,000 blocks); churn_t: dead rows for VACUUM to remove
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE warm_t (id int PRIMARY KEY, payload text) WITH (fillfactor = 100);
INSERT INTO warm_t SELECT g, repeat('w', 1000) FROM generate_series(1, 35000) g;
CREATE TABLE churn_t (id int, n int);
INSERT INTO churn_t SELECT g, 0 FROM generate_series(1, 1000) g;
VACUUM ANALYZE warm_t, churn_t;
CHECKPOINT;
});
my $warm_blocks = $primary->safe_psql('postgres',
	q{SELECT pg_relation_size('warm_t') / current_setting('block_size')::int});
cmp_ok($warm_blocks, '>', 4000, "warm_t has $warm_blocks blocks");

$primary->backup('standby_backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'standby_backup', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', q{
hot_standby = on
shared_buffers = '128MB'
max_connections = 20
# stricter than the default 30s: a query that holds a conflicting snapshot
# or lock for more than 3 s is cancelled
max_standby_streaming_delay = '3s'
hot_standby_feedback = off
});
$standby->start;
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby is in recovery');

# ---- a known cache state on the primary, and its snapshot ----

# Blocks 0-2999 in the OS cache; blocks 1000-1999 (read through a TID scan,
# block by block) also in shared buffers; the primary key index as it is.
$primary->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.evict('warm_t');
SELECT count(*) FROM cachectl.os_drop('warm_t');
SELECT count(*) FROM cachectl.os_prefetch('warm_t', first_block => 0, last_block => 2999, fork => 'main');
SELECT count(*) FROM warm_t
 WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid FROM generate_series(1000, 1999) b));
});
# (the OS blocks but those the host's reclaim took since the prefetch:
# cachestat's evicted count, read after the snapshot)
my $recorded = $primary->safe_psql('postgres',
	q{SELECT relations, shared_blocks >= 1000, os_blocks + e.evicted_pages >= 3000, os_blocks
	  FROM cachectl.snapshot('morning', ARRAY['warm_t'::regclass], cascade => true),
	       LATERAL (SELECT coalesce(sum(os_evicted_pages), 0) AS evicted_pages
	                FROM cachectl.os_residency('warm_t', 'main')) AS e});
like($recorded, qr/^\d+\|t\|t\|\d+$/,
	"snapshot on the primary records both layers (relations|shared|os|os blocks: $recorded)");
my $recorded_os_blocks = (split /\|/, $recorded)[3] // 0;

# ---- snapshot on the standby: 25006 and a hint ----

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my ($ret, $stdout, $stderr) = $standby->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT * FROM cachectl.snapshot('on_standby')");
isnt($ret, 0, 'snapshot on the standby fails');
like($stderr, qr/ERROR:  25006: cannot take a cache snapshot during recovery/,
	'with SQLSTATE 25006');
like($stderr, qr/HINT:  Take it on the primary/, 'and a hint to take it on the primary');

is( $standby->safe_psql('postgres',
		q{SELECT count(*) > 0 FROM cachectl.snapshot WHERE label = 'morning'}),
	't', 'the snapshot rows replicated to the standby');

# ---- the standby cold, then restored while the primary keeps going ----

$standby->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.evict('warm_t', cascade => true);
SELECT count(*) FROM cachectl.os_drop('warm_t', cascade => true);
});
is( $standby->safe_psql('postgres',
		q{SELECT count(*) FROM cachectl_internal.shared_block_runs(ARRAY['warm_t'::regclass])}),
	'0', 'warm_t is not in the standby\'s shared buffers');

# The files of the snapshot's OS-layer forks on the standby, as segments:
# [path, first block, blocks] for each.
my ($block_size, $segment_blocks) = split /\|/, $standby->safe_psql('postgres',
	q{SELECT current_setting('block_size'),
	         pg_size_bytes(current_setting('segment_size')) / current_setting('block_size')::int});
my $page_size = os_page_size();

sub fork_file
{
	my ($relation_path, $fork, $segment) = @_;
	my $path = $standby->data_dir . '/' . $relation_path . ($fork eq 'main' ? '' : "_$fork");
	return $segment == 0 ? $path : "$path.$segment";
}

# cachestat over a block range of a fork, summed over its segment files.
sub block_range_counts
{
	my ($relation_path, $fork, $first, $end) = @_;
	my %sum = (cached => 0, evicted => 0);
	while ($first < $end)
	{
		my $segment = int($first / $segment_blocks);
		my $segment_end = ($segment + 1) * $segment_blocks;
		my $stop = $end < $segment_end ? $end : $segment_end;
		my $counts = cachestat_counts(fork_file($relation_path, $fork, $segment),
			($first - $segment * $segment_blocks) * $block_size, ($stop - $first) * $block_size);
		return undef unless defined $counts;
		$sum{$_} += $counts->{$_} for keys %sum;
		$first = $stop;
	}
	return \%sum;
}

my @os_forks = split /\n/, $standby->safe_psql('postgres',
	q{SELECT DISTINCT pg_relation_filepath(s.relation::regclass) || '|' || s.fork || '|' || s.fork_blocks
	    FROM cachectl.snapshot s WHERE s.label = 'morning' AND s.layer = 'os' AND s.block_count > 0});
my $have_cachestat = 1;
my $entries_before = 0;
for my $os_fork (@os_forks)
{
	my ($relation_path, $fork, $blocks) = split /\|/, $os_fork;
	my $counts = block_range_counts($relation_path, $fork, 0, $blocks);
	if (!defined $counts)
	{
		$have_cachestat = 0;
		last;
	}
	$entries_before += $counts->{evicted};
}
SKIP:
{
	skip 'no cachestat here: every OS block of the snapshot must be resident after the restore', 1
	  unless $have_cachestat;
	is($entries_before, 0,
		'the drop left no eviction entry in the snapshot\'s OS-layer forks (a later one is of a page read since)');
}

my $standby_log_offset = -s $standby->logfile;

# The primary: updates and VACUUM of churn_t (cleanup records conflict with
# old snapshots on the standby) and ACCESS EXCLUSIVE locks on warm_t
# (conflict with the restore's lock), a round every second for 10 s: longer
# than the restore, which starts right after it.
my $load_script = "$PostgreSQL::Test::Utils::tmp_check/primary_load.sql";
open(my $script, '>', $load_script) or die "could not write \"$load_script\": $!";
print $script <<'EOF';
UPDATE churn_t SET n = n + 1;
VACUUM churn_t;
BEGIN;
LOCK TABLE warm_t IN ACCESS EXCLUSIVE MODE;
COMMIT;
\sleep 1 s
EOF
close($script);
my ($load_out, $load_err) = ('', '');
my $load = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '1', '-T', '10', '-f', $load_script,
		'-h', $primary->host, '-p', $primary->port, 'postgres'
	],
	'>', \$load_out, '2>', \$load_err);
# The restore starts once the load's first round has reached the standby
# (churn_t's n is 0 before it): started at once, the restore ran beside the
# load only if pgbench connected in time, and a restore that ended first
# would have seen no conflict to survive.
ok($standby->poll_query_until('postgres', 'SELECT max(n) >= 1 FROM churn_t'),
	'the load on the primary is under way: its first round is replayed on the standby')
  or diag("load: $load_out$load_err");

# on_error_stop off: an error of the restore is reported below, not a silent exit
my $session = $standby->background_psql('postgres', on_error_stop => 0);
# The backend writes its own log lines into the server log (the test clusters
# log every statement to a file): that would count in write_bytes as the
# restore's writes.  Nothing of this session is logged from here on.
$session->query_safe(q{SET log_statement = 'none'});
$session->query_safe(q{SET log_min_messages = 'panic'});
my $pid = $session->query_safe('SELECT pg_backend_pid()');
like($pid, qr/^\d+$/, "the restoring backend is pid $pid");

sub write_bytes
{
	my ($process) = @_;
	my ($bytes) = slurp_file("/proc/$process/io") =~ /^write_bytes: (\d+)$/m;
	return $bytes;
}
my $written_before = write_bytes($pid);

# 6 MB/s: about 5 s of loading, in chunks of a quarter of a second
my $started = time;
my ($restored, $restore_failed) = $session->query(
	q{CALL cachectl.restore('morning', max_mb_per_sec => 6)});
my $elapsed = time - $started;
my $restore_err = $session->{stderr};
my $written_after = write_bytes($pid);
$session->quit;
note("restore took about $elapsed s: $restored");

is($restore_failed, 0, 'restore on the standby ran to the end')
  or diag($restore_err);
unlike($restore_err, qr/conflict with recovery|canceling statement/,
	'restore was not cancelled by a recovery conflict');
unlike($restore_err, qr/were still not read when/,
	'restore waited until every page it asked the kernel for was read');
my ($warmed, $skipped, $remapped, $shared_loaded, $os_loaded, $seconds, $matched_by) =
  split /\|/, $restored;
cmp_ok($seconds // 0, '>', 3,
	'the restore lasted longer than replay may wait for it (3 s): it committed between chunks');
is($matched_by, 'block', 'on a physical standby blocks are matched by number');
cmp_ok($warmed // 0, '>=', 2, "relations warmed: " . ($warmed // 'none'));
is($skipped, 0, 'no relation skipped');
is($remapped, 0, 'no relation remapped');
cmp_ok($shared_loaded // 0, '>=', 1000, "shared blocks loaded: " . ($shared_loaded // 'none'));
cmp_ok($os_loaded // 0, '>=', ($recorded_os_blocks < 3000 ? $recorded_os_blocks : 3000),
	"OS blocks loaded: " . ($os_loaded // 'none') . " (the snapshot recorded $recorded_os_blocks)");
# Nothing of what it loaded: the backend may still write a page or two on
# PostgreSQL's own account (a commit-log page or a buffer that replay made
# dirty, evicted to make room: 8 KB seen in 1 run of 3 under load), never the
# megabytes it restored.
cmp_ok($written_after - $written_before, '<=', 8 * 8192,
	'the restoring backend wrote at most 8 pages (write_bytes of /proc/<pid>/io): '
	  . ($written_after - $written_before) . ' bytes');

$load->finish;
note("load on the primary: $load_out$load_err");
like($load_out, qr/number of transactions actually processed: [1-9]/,
	'the primary kept writing, vacuuming and locking meanwhile');

# ---- every block of the snapshot is on the standby, in its layer ----

my $shared_missing = $standby->safe_psql(
	'postgres', q{
WITH shared_now AS (
    SELECT r.relation::oid AS relation, r.fork,
           range_agg(int8range(r.first_block, r.first_block + r.block_count)) AS blocks
      FROM cachectl_internal.shared_block_runs((SELECT array_agg(DISTINCT s.relation::regclass)
                                         FROM cachectl.snapshot s WHERE s.label = 'morning')) r
     GROUP BY 1, 2)
SELECT string_agg(format('%s %s', s.relation_name, s.fork), ', ')
  FROM cachectl.snapshot s
  LEFT JOIN shared_now n ON n.relation = s.relation AND n.fork = s.fork
 WHERE s.label = 'morning' AND s.layer = 'shared' AND s.block_count > 0
   AND NOT COALESCE(n.blocks @> s.blocks, false)
});
is($shared_missing, '', 'every block the snapshot had in shared buffers is in the standby\'s');

# The OS layer: the runs of each row not in the page cache now, and for each
# whether every one of its pages is either cached or has an eviction entry.
my @os_missing = split /\n/, $standby->safe_psql(
	'postgres', q{
SELECT s.relation_name, pg_relation_filepath(s.relation::regclass), s.fork, lower(m), upper(m)
  FROM cachectl.snapshot s,
       unnest(s.blocks - COALESCE((SELECT range_agg(int8range(o.first_block, o.first_block + o.block_count))
                                     FROM cachectl_internal.os_block_runs(s.relation::regclass, s.fork) o),
                                  '{}'::int8multirange)) AS m
 WHERE s.label = 'morning' AND s.layer = 'os' AND s.block_count > 0
 ORDER BY 1, 4
});
my (@never_read, $reclaimed_pages);
$reclaimed_pages = 0;
for my $run (@os_missing)
{
	my ($name, $relation_path, $fork, $first, $end) = split /\|/, $run;
	my $counts = $have_cachestat ? block_range_counts($relation_path, $fork, $first, $end) : undef;
	my $pages = ($end - $first) * $block_size / $page_size;
	if (defined $counts && $counts->{cached} + $counts->{evicted} == $pages)
	{
		$reclaimed_pages += $pages - $counts->{cached};
		next;
	}
	push @never_read,
	  "$name $fork blocks [$first,$end)"
	  . (defined $counts ? " ($counts->{cached} of $pages pages cached, $counts->{evicted} evicted)" : '');
}
note("OS pages of the snapshot that the kernel reclaimed after the restore read them: $reclaimed_pages");
is(join(', ', @never_read), '',
	'every block the snapshot had in the OS cache is in the standby\'s, or was read and then reclaimed by the kernel');

# ---- an unlogged table has no data on a standby: skipped, with a NOTICE ----

$primary->safe_psql(
	'postgres', q{
CREATE UNLOGGED TABLE unlogged_t AS SELECT g AS id FROM generate_series(1, 10000) g;
SELECT relations FROM cachectl.snapshot('unlogged', ARRAY['unlogged_t'::regclass]);
});
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
($ret, $stdout, $stderr) = $standby->psql('postgres',
	q{CALL cachectl.restore('unlogged')});
is($ret, 0, 'restoring a snapshot of an unlogged table on the standby succeeds');
like($stdout, qr/^0\|1\|0\|0\|0\|[0-9.]+\|block$/, 'the unlogged table is skipped');
like($stderr, qr/skipping relation "public\.unlogged_t": unlogged relations cannot be read during recovery/,
	'with a NOTICE naming it');

# ---- the standby's log ----

my $standby_log = slurp_file($standby->logfile, $standby_log_offset);
unlike($standby_log, qr/conflict with recovery/,
	'the standby cancelled nothing for a recovery conflict');

$standby->stop;
$primary->stop;

done_testing();
