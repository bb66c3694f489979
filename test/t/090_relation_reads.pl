# 090_relation_reads.pl
#
# The cumulative per-relation counters (cachectl.track_reads,
# cachectl.relation_reads), on a server with pg_cachectl preloaded:
# 1. the three constructed states of an 80 MB table read by a seq scan
#    (cold: device reads; only in the OS page cache: page-cache hits, no
#    device byte; in shared buffers: shared hits, nothing read), each
#    checked against PostgreSQL's own per-relation count of blocks read
#    (pg_statio_user_tables), while another session reads another table
#    from the device (its reads never reach t's row);
# 2. an index scan splits its reads between the index and the table exactly
#    as pg_statio counts them;
# 3. a parallel seq scan: each worker counts its own reads, the leader
#    never counts them again (t's reads equal its blocks);
# 4. pgbench -S with 4 clients: every row's parts add up, the accounts'
#    shared hits grow; a session's counts across another's reset; more
#    relations than a backend's 64 slots, counted once while it is
#    connected and after it exits;
# 5. reads outside plan nodes (VACUUM) are not counted; track_reads off
#    counts nothing and is a superuser's setting (42501 for others); a
#    renamed table shows its new name; pg_monitor reads the view, only a
#    superuser (or a grantee) resets it; the bound on relations sends the
#    rest to one row, and nothing is lost;
# 6. 18 and later: io_method = worker counts every block as unsplit.
use strict;
use warnings;

use CachectlTest qw(require_fincore_on_disk start_cache_node start_pgbench finish_pgbench signal_file file_exists_sql);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

require_fincore_on_disk();

my $node = start_cache_node('relation_reads', q{
shared_preload_libraries = 'pg_cachectl'
cachectl.track_reads = on
cachectl.track_reads_max_relations = 100
shared_buffers = '256MB'
max_parallel_workers_per_gather = 0
track_counts = on
stats_fetch_consistency = none
});
my $major = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000});
my $block_size = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});
if ($major >= 18)
{
	$node->append_conf('postgresql.conf', q{io_method = sync});
	$node->restart;
}

$node->safe_psql('postgres', q{
CREATE TABLE t AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 330000) AS g;
CREATE INDEX t_id ON t (id);
CREATE TABLE other AS SELECT g AS id, repeat('y', 200) AS pad FROM generate_series(1, 330000) AS g;
VACUUM ANALYZE t;
VACUUM ANALYZE other;
CHECKPOINT;
});
my $blocks = $node->safe_psql('postgres', q{SELECT pg_relation_size('t') / current_setting('block_size')::int});

# t's row (or index t_id's): shared hits, read, page-cache hits, device blocks, unsplit, device bytes
sub row_of
{
	my ($relation) = @_;
	my $row = $node->safe_psql('postgres', qq{
SELECT coalesce(sum(shared_hit_blocks), 0), coalesce(sum(read_blocks), 0), coalesce(sum(os_hit_blocks), 0),
       coalesce(sum(device_read_blocks), 0), coalesce(sum(unsplit_read_blocks), 0), coalesce(sum(device_read_bytes), 0)
  FROM cachectl.relation_reads WHERE database = current_database() AND relation = '$relation'});
	return split /\|/, $row;
}

# PostgreSQL's own count of the blocks read from the kernel, flushed first
sub statio_reads
{
	my ($relation) = @_;
	return $node->safe_psql('postgres', qq{
SELECT coalesce((SELECT heap_blks_read FROM pg_statio_user_tables WHERE relname = '$relation'),
                (SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = '$relation'))});
}

# Runs a query in a session of its own (its pending statistics flushed at its end), returns t's row's change.
sub reads_of
{
	my ($sql, @relations) = @_;
	my %before = map { $_ => [ row_of($_) ] } @relations;
	my %statio_before = map { $_ => statio_reads($_) } @relations;
	$node->safe_psql('postgres', $sql);
	# the backend flushed its statistics when it exited; wait until they are there
	my %change;
	for my $relation (@relations)
	{
		my @after = row_of($relation);
		$change{$relation} = [ map { $after[$_] - $before{$relation}[$_] } 0 .. 5 ];
		my $statio = statio_reads($relation);
		for (1 .. 50)
		{
			last if $statio - $statio_before{$relation} >= $change{$relation}[1];
			usleep(100_000);
			$statio = statio_reads($relation);
		}
		push @{ $change{$relation} }, $statio - $statio_before{$relation};
	}
	return \%change;
}

sub parts_add_up
{
	my ($what, @row) = @_;
	is($row[2] + $row[3] + $row[4], $row[1], "$what: page-cache hits, device reads and unsplit add up to the reads");
	return;
}

ok($node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads() <= now() + interval '1 s'}),
	'a superuser resets the counters');
is($node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.relation_reads WHERE relation IN ('t', 't_id')}),
	0, 'and t has no row after it');

# ---- 1. constructed states ----
$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('t')});
my $stop_file = signal_file($node, 'stop_other_reader');
my $stop_file_exists = file_exists_sql($stop_file);
my $reader = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-c', qq{
DO \$\$
BEGIN
    FOR i IN 1..200 LOOP
        PERFORM count(*) FROM cachectl.cold('other');
        PERFORM count(pad) FROM other;
        EXIT WHEN $stop_file_exists;
    END LOOP;
END
\$\$} ],
	'>', \my $reader_out, '2>', \my $reader_err);
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%PERFORM count(pad) FROM other%' AND pid <> pg_backend_pid()})
  or die 'the other reader did not start';
my $cold = reads_of(q{SELECT count(pad) FROM t}, 't')->{t};
my ($hits, $read, $os_hits, $device_blocks, $unsplit, $device_bytes, $statio) = @$cold;
is($read, $statio, "cold: t's reads ($read) are pg_statio's heap_blks_read of the scan");
cmp_ok($read, '>=', 0.99 * $blocks, "cold: nearly all of t's $blocks blocks read from the kernel");
cmp_ok($os_hits, '<=', 0.01 * $read, "cold: page-cache hits $os_hits, at most 1 % of $read");
is($unsplit, 0, 'cold: one relation per span, nothing unsplit');
parts_add_up('cold', @$cold);
# a block partly in the page cache counts whole as a device read (089)
cmp_ok($device_bytes, '>=', 0.99 * $device_blocks * $block_size,
	"cold: $device_bytes device bytes for $device_blocks blocks, at least 99 % of them");

# The OS-only state is made again (at most 5 times, for at most 120 s) when
# the host's reclaim took more than 1 % of t between the prefetch and the
# scan: a clean make test-all once saw 512 of 9,706 blocks read from the
# device so, with four majors' clusters on the machine.  Accounting that
# called page-cache hits device reads would fail every attempt.
my $os_only;
my $os_only_deadline = time() + 120;
for my $attempt (1 .. 5)
{
	$node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.evict('t');
SELECT count(*) FROM cachectl.os_prefetch('t', wait => true)});
	$os_only = reads_of(q{SELECT count(pad) FROM t}, 't')->{t};
	last if $os_only->[3] <= 0.01 * $os_only->[1] || time() > $os_only_deadline;
	diag("OS cache only, attempt $attempt: $os_only->[3] of $os_only->[1] blocks from the device (reclaim); again");
}
($hits, $read, $os_hits, $device_blocks, $unsplit, $device_bytes, $statio) = @$os_only;
is($read, $statio, "OS cache only: t's reads ($read) are pg_statio's");
cmp_ok($read, '>=', 0.99 * $blocks, 'OS cache only: nearly every block read from the kernel');
cmp_ok($device_blocks, '<=', 0.01 * $read,
	"OS cache only: $device_blocks device reads (reclaim at most), while another session read from the device");
is($os_hits + $device_blocks, $read, 'OS cache only: the rest are page-cache hits');
IPC::Run::run([ 'touch', $stop_file ]);
$reader->finish;
ok($node->safe_psql('postgres', q{SELECT read_blocks > 0 FROM cachectl.relation_reads WHERE relation = 'other'}),
	'the other session\'s reads went to its own table');

$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.prewarm('t', 'shared')});
my $shared = reads_of(q{SELECT count(pad) FROM t}, 't')->{t};
is("$shared->[1]|$shared->[5]", '0|0', 'in shared buffers: nothing read, no device byte');
cmp_ok($shared->[0], '>=', $blocks, "in shared buffers: $shared->[0] shared hits, every block of t");

# ---- 2. an index scan: the index and the table apart ----
$node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.cold('t');
SELECT count(*) FROM cachectl.cold('t_id')});
my $index_scan = reads_of(q{
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1000 AND 60000}, 't', 't_id');
for my $relation ('t', 't_id')
{
	my @row = @{ $index_scan->{$relation} };
	cmp_ok($row[1], '>', 0, "index scan: $relation read $row[1] blocks");
	# pg_statio also counts the reads outside plan nodes (planning reads the index's metapage and root)
	ok($row[1] <= $row[6] && $row[6] - $row[1] <= 8,
		"index scan: $relation\'s reads ($row[1]) are pg_statio's ($row[6]) less the planner's few");
	parts_add_up("index scan, $relation", @row);
}

# ---- 3. a parallel seq scan ----
$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('t')});
my $parallel = reads_of(q{
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(pad) FROM t}, 't')->{t};
($hits, $read, $os_hits, $device_blocks, $unsplit, $device_bytes) = @$parallel;
cmp_ok($read, '>=', 0.99 * $blocks, "parallel: t's reads ($read) cover its $blocks blocks");
cmp_ok($read, '<=', $blocks + 16, 'parallel: and are not counted twice (the leader\'s jump at the Gather is dropped)');
# one process's readahead serves another's reads (the page cache is shared):
# those are page-cache hits for the process that made them ($os_hits here)
cmp_ok($device_bytes, '>=', 0.99 * $blocks * $block_size,
	"parallel: the processes' device bytes ($device_bytes) cover the cold table, each counting its own");
parts_add_up('parallel', @$parallel);

# ---- 4. pgbench -S ----
command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host, '-p', $node->port, 'postgres' ], 'pgbench -i');

# PostgreSQL's own count of shared hits of the accounts and their key, once its statistics are flushed
sub statio_hits
{
	return split /\|/, $node->safe_psql('postgres', q{
SELECT (SELECT heap_blks_hit FROM pg_statio_user_tables WHERE relname = 'pgbench_accounts'),
       (SELECT idx_blks_hit FROM pg_statio_user_indexes WHERE indexrelname = 'pgbench_accounts_pkey')});
}
# A backend adds its counts to pg_statio on its way out, before it leaves
# pg_stat_activity: once no other session is there, pg_statio holds all of
# theirs (pgbench's, which end after pgbench does; 2 s were slept here).
sub wait_for_other_sessions_to_end
{
	$node->poll_query_until('postgres', q{
SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()})
	  or die 'other sessions are still connected';
	return;
}
wait_for_other_sessions_to_end();
my @statio_before = statio_hits();
my @accounts_before = row_of('pgbench_accounts');
my @key_before = row_of('pgbench_accounts_pkey');
my $run = start_pgbench($node, {}, 5, '-S', '-c', '4', '-j', '2', '-T', '5');
my ($status, $transactions) = finish_pgbench($run);
is($status, 0, "pgbench -S ran ($transactions transactions)");
my @accounts = row_of('pgbench_accounts');
my @key = row_of('pgbench_accounts_pkey');
wait_for_other_sessions_to_end();
my @statio = statio_hits();
my ($heap_hits, $key_hits) = ($accounts[0] - $accounts_before[0], $key[0] - $key_before[0]);
my ($statio_heap, $statio_key) = ($statio[0] - $statio_before[0], $statio[1] - $statio_before[1]);
ok($heap_hits <= $statio_heap && $heap_hits >= 0.99 * $statio_heap && $heap_hits > 0,
	"pgbench -S: pgbench_accounts' shared hits ($heap_hits) are pg_statio's ($statio_heap)");
ok($key_hits <= $statio_key && $key_hits >= 0.99 * $statio_key && $key_hits > 0,
	"pgbench -S: its key's ($key_hits) are pg_statio's ($statio_key) less the planner's");
is($node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.relation_reads
 WHERE read_blocks <> os_hit_blocks + device_read_blocks + unsplit_read_blocks OR read_blocks < 0}), 0,
	'every row\'s parts add up to its reads');

# ---- 4b. a session that knows its entries, across a reset by another ----
# A backend remembers where its relations' rows are; a reset removes them.
# A session that counted before another session's reset must count into
# new rows after it (not into the removed ones).
$node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads()});
my $reset_file = signal_file($node, 'reset_done');
my $reset_file_exists = file_exists_sql($reset_file);
my ($known_out, $known_err) = ('', '');
my $known_session = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-c', qq{
DO \$\$
DECLARE b int;
BEGIN
    SELECT abalance INTO b FROM pgbench_accounts WHERE aid = 1;
    SELECT abalance INTO b FROM pgbench_accounts WHERE aid = 2;
    FOR i IN 1..600 LOOP
        EXIT WHEN $reset_file_exists;
        PERFORM pg_sleep(0.05);
    END LOOP;
    FOR i IN 1..10 LOOP
        SELECT abalance INTO b FROM pgbench_accounts WHERE aid = i * 1000;
    END LOOP;
END \$\$} ],
	'>', \$known_out, '2>', \$known_err);
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM cachectl.relation_reads WHERE relation = 'pgbench_accounts' AND shared_hit_blocks + read_blocks >= 2}),
	'the session counted its first two lookups');
$node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads()});
open(my $done, '>', $reset_file) or die "$reset_file: $!";
close($done);
$known_session->finish;
is($known_err, '', 'the session ended cleanly');
my ($known_rows, $known_hits) = split /\|/, $node->safe_psql('postgres', q{
SELECT count(*), coalesce(sum(shared_hit_blocks + read_blocks), 0) FROM cachectl.relation_reads WHERE relation = 'pgbench_accounts'});
is($known_rows, 1, 'after the reset, its counts are in a new row');
# A lookup's heap block may have left shared buffers (pgbench -i loads through
# a ring): a hit or a read, each lookup counts one block.
ok($known_hits >= 10 && $known_hits <= 20, "its 10 lookups after the reset counted: $known_hits blocks (hits and reads)");

# ---- 4c. more relations than a backend's slots, read while it is connected ----
# A backend keeps its counts in 64 slots of its own (by relation OID) and
# folds a slot into the table when another relation takes it.  70 one-block
# tables, each scanned twice by one session: while that session is still
# connected the view must show each table's 2 block accesses exactly once
# (its live slots added, the folded ones not twice), and the same after it
# exits (its slots folded in).
$node->safe_psql('postgres', join('', map { "CREATE TABLE slot_$_ (id int); INSERT INTO slot_$_ VALUES ($_);\n" } 1 .. 70));
$node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads()});
my $slots_file = signal_file($node, 'slots_read');
my $slots_file_exists = file_exists_sql($slots_file);
my $slots_counted = signal_file($node, 'slots_counted');
my ($slots_out, $slots_err) = ('', '');
my $slots_session = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-c', qq{
DO \$\$
DECLARE n int;
BEGIN
    FOR round IN 1..2 LOOP
        FOR i IN 1..70 LOOP
            EXECUTE format('SELECT count(*) FROM slot_%s', i) INTO n;
        END LOOP;
    END LOOP;
    COPY (SELECT 'counted') TO '$slots_counted';
    FOR i IN 1..6000 LOOP
        EXIT WHEN $slots_file_exists;
        PERFORM pg_sleep(0.05);
    END LOOP;
END \$\$} ],
	'>', \$slots_out, '2>', \$slots_err);
my $slots_query = q{
SELECT count(*), coalesce(sum(shared_hit_blocks + read_blocks), 0),
       count(*) FILTER (WHERE shared_hit_blocks + read_blocks <> 2)
  FROM cachectl.relation_reads WHERE relation LIKE 'slot\_%'};
my $waited = 0;
while (!-e $slots_counted && $waited++ < 1200)
{
	usleep(50_000);
}
ok(-e $slots_counted, 'the session read its 70 tables twice');
is($node->safe_psql('postgres', $slots_query), '70|140|0',
	'while it is connected: each table counted 2 block accesses, once');
open(my $slots_done, '>', $slots_file) or die "$slots_file: $!";
close($slots_done);
$slots_session->finish;
is($slots_err, '', 'the session ended cleanly');
is($node->safe_psql('postgres', $slots_query), '70|140|0', 'after it exits, the same counts (its slots folded in once)');
$node->safe_psql('postgres', join('', map { "DROP TABLE slot_$_;\n" } 1 .. 70));
$node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads()});

# ---- 5. what is not counted, settings, names, privileges, the bound ----
$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('t')});
my $vacuum = reads_of(q{VACUUM t}, 't')->{t};
cmp_ok($vacuum->[6], '>', 0, "VACUUM read $vacuum->[6] blocks of t (pg_statio)");
is($vacuum->[1], 0, 'but reads outside plan nodes are not counted');

my $off = reads_of(q{SET cachectl.track_reads = off; SELECT count(pad) FROM t}, 't')->{t};
is("$off->[0]|$off->[1]", '0|0', 'track_reads off: nothing counted');

$node->safe_psql('postgres', q{
CREATE ROLE watcher LOGIN IN ROLE pg_monitor;
CREATE ROLE plain LOGIN});
my ($ret, $out, $err) = $node->psql('postgres', 'SET cachectl.track_reads = off', extra_params => [ '-U', 'plain' ]);
like($err, qr/permission denied to set parameter/, 'a plain role may not turn track_reads off');
($ret, $out, $err) = $node->psql('postgres', q{SELECT count(*) > 0 FROM cachectl.relation_reads},
	extra_params => [ '-U', 'watcher' ]);
is($out, 't', 'pg_monitor reads the view');
($ret, $out, $err) = $node->psql('postgres', q{SELECT cachectl.reset_relation_reads()},
	extra_params => [ '-U', 'watcher' ]);
like($err, qr/permission denied for function reset_relation_reads/, 'pg_monitor does not reset it');
($ret, $out, $err) = $node->psql('postgres', q{SELECT * FROM cachectl.relation_reads}, extra_params => [ '-U', 'plain' ]);
like($err, qr/permission denied/, 'a plain role does not read it');

$node->safe_psql('postgres', q{ALTER TABLE t RENAME TO t_renamed});
ok($node->safe_psql('postgres', q{SELECT count(*) = 1 FROM cachectl.relation_reads WHERE relation = 't_renamed'}),
	'a renamed table shows its name now');
$node->safe_psql('postgres', q{ALTER TABLE t_renamed RENAME TO t});

# the bound: 100 relations; 120 more tables read cold
$node->safe_psql('postgres', q{SELECT cachectl.reset_relation_reads()});
$node->safe_psql('postgres', join('', map { "CREATE TABLE small_$_ AS SELECT g FROM generate_series(1, 2000) g;\n" } 1 .. 120));
$node->safe_psql('postgres', join('', map { "SELECT count(*) FROM cachectl.evict('small_$_');\n" } 1 .. 120));
my $expected = $node->safe_psql('postgres', q{
SELECT (sum(pg_relation_size(oid)) / current_setting('block_size')::int)::bigint FROM pg_class WHERE relname LIKE 'small\_%'});
$node->safe_psql('postgres', join('', map { "SELECT count(*) FROM small_$_;\n" } 1 .. 120));
my ($rows, $apart, $total) = split /\|/, $node->safe_psql('postgres', q{
SELECT count(*), count(*) FILTER (WHERE kind = 'not counted apart'),
       sum(read_blocks) FILTER (WHERE relation LIKE 'small\_%' OR kind = 'not counted apart')
  FROM cachectl.relation_reads});
cmp_ok($rows, '<=', 101, "at most 100 relations counted apart, and one row for the rest ($rows rows)");
is($apart, 1, 'the rest are in one row');
is($total, $expected, "no read lost: the small tables' $expected blocks are all counted");

# ---- 6. io_method = worker ----
SKIP:
{
	skip 'io_method exists from 18 on', 2 if $major < 18;
	$node->append_conf('postgresql.conf', q{io_method = worker});
	$node->restart;
	$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('t')});
	my $worker = reads_of(q{SELECT count(pad) FROM t}, 't')->{t};
	cmp_ok($worker->[1], '>', 0, 'io_method = worker: t\'s reads are counted');
	is($worker->[4], $worker->[1], 'io_method = worker: every block unsplit (the I/O workers read them)');
}

$node->stop;
done_testing();
