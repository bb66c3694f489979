# 092_advice_lifecycle.pl
#
# The sizing advice's sampler through what a server goes through (issue
# 39), with pg_cachectl preloaded and a pool of 16 MB:
# 1. off by default: the status says "off", the reports 55000 with the way
#    out; a reload turning it on starts a window that says so;
# 2. the bound holds: the blocks it follows are at most
#    cachectl.advice_sample_blocks, the buffers it reads at most 16,384,
#    its memory small and reported;
# 3. reset_advice() and pg_stat_reset() each start a new window, named,
#    over the simulated pools as they were (a reset keeps their blocks);
#    a reload turning it off stops sampling and keeps the last window
#    readable;
# 4. the sampler terminated: the server starts it again, which starts a new
#    window ("the sampler started"), never the old curve; a restart of the
#    server likewise (observed_seconds no longer than the server has run);
# 5. a database dropped while it runs: relation_advice() goes on (the
#    dropped relations are not shown as another database's);
# 6. where the reads would come from: without cachectl.track_reads the
#    device columns are NULL; with it, a table made cold in both layers and
#    read shows device reads per second in both reports, and its page-cache
#    columns are numbers under cachestat (0 <= refaults <= device reads) and
#    NULL under mincore (the kernel cannot tell there); from 18, with
#    io_method = worker, the device columns are NULL (no read's source is
#    known), never 0;
# 7. a standby reports its own reads: its 1x hit ratio is what its own
#    pg_stat_database counted under its own pgbench -S, the primary idle.
use strict;
use warnings;

use CachectlTest qw(start_pgbench finish_pgbench poll_until sqlstate_of);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('advice_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_cachectl'
cachectl.advice_sample_blocks = 1024
shared_buffers = '16MB'
autovacuum = off
track_counts = on
});
$primary->start;
# 18's default io_method = worker reads in other processes, where no
# read's source is known (part 6 checks that case at its end)
my $has_io_method =
  $primary->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000}) >= 18;
if ($has_io_method)
{
	$primary->append_conf('postgresql.conf', "io_method = sync\n");
	$primary->restart;
}
$primary->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '3', '-h', $primary->host, '-p', $primary->port, 'postgres' ],
	'pgbench -i at scale 3 (about 45 MB, 3 times the pool)');

sub status
{
	my ($node, $columns) = @_;
	return $node->safe_psql('postgres', "SELECT $columns FROM cachectl.advice_status");
}

# pgbench -S on two clients for $seconds against $node
sub select_load
{
	my ($node, $seconds) = @_;
	my $run = start_pgbench($node, {}, $seconds, '-S', '-c', '2', '-j', '2', '-T', $seconds);
	my ($status, $transactions) = finish_pgbench($run);
	die "pgbench -S on " . $node->name . " failed: $run->{stderr}" unless $status == 0 && $transactions;
	return $transactions;
}

# ---- 1. off, then on by a reload ----
is(status($primary, 'state'), 'off', 'cachectl.track_advice is off by default, and the status says so');
my ($code, undef, $message) = sqlstate_of($primary, 'SELECT * FROM cachectl.shared_buffers_advice()');
is($code, '55000', 'no window yet: shared_buffers_advice() fails with 55000');
like($message, qr/track_advice is off/, '... saying the setting is off');

$primary->append_conf('postgresql.conf', "cachectl.track_advice = on\n");
$primary->reload;
ok($primary->poll_query_until('postgres', q{
SELECT state = 'sampling' AND window_reason = 'cachectl.track_advice was turned on' FROM cachectl.advice_status}),
	'a reload turning it on starts a window that says why');
select_load($primary, 10);
ok($primary->poll_query_until('postgres', q{
SELECT count(*) = 5 AND bool_and(hit_ratio BETWEEN 0 AND 1) AND bool_and(observed_seconds >= 10)
  FROM cachectl.shared_buffers_advice()}),
	'after 10 s of load: the five default sizes, each a hit ratio, over the window');
is($primary->safe_psql('postgres', q{
SELECT string_agg(round(size_ratio::numeric, 2)::text, ' ' ORDER BY pool_bytes) FROM cachectl.shared_buffers_advice()}),
	'0.25 0.50 1.00 2.00 4.00', 'the default sizes: a quarter to four times shared_buffers');

# ---- 2. the bound ----
my ($sampled, $followed, $memory, $rate) = split /\|/,
  status($primary, 'sampled_blocks, followed_buffers, memory_bytes, sample_rate');
note("the sampler follows $sampled blocks and reads $followed buffers at rate $rate, in $memory bytes");
cmp_ok($sampled, '<=', 1024, 'it follows at most cachectl.advice_sample_blocks (1024) blocks');
ok($sampled > 0 && $followed > 0, 'and follows some');
cmp_ok($followed, '<=', 16384, 'it reads at most 16,384 buffer headers a round');
cmp_ok($memory, '<', 16 * 1024 * 1024, 'its memory, reported, is under 16 MB');

# ---- 3. reset, statistics reset, off ----
my $reset_at = $primary->safe_psql('postgres', 'SELECT cachectl.reset_advice()');
ok($primary->poll_query_until('postgres', qq{
SELECT window_reason = 'reset_advice()' AND window_started >= '$reset_at' FROM cachectl.advice_status}),
	'reset_advice() starts a window at the time it returned or later');
# The 10 s of load before put every block of the 45 MB data set in the
# simulated 64 MB pool; a reset keeps it, so the new window's reads hit at
# 4x (an empty pool would miss each block's first read: about 0.03 here).
select_load($primary, 5);
ok($primary->poll_query_until('postgres', qq{
SELECT hit_ratio >= 0.99 FROM cachectl.shared_buffers_advice()
 WHERE size_ratio = 4 AND observed_seconds >= 5}),
	'the window after the reset starts over the simulated pools as they were: at 4x its reads hit');
$primary->safe_psql('postgres', 'SELECT pg_stat_reset()');
ok($primary->poll_query_until('postgres', q{
SELECT window_reason = 'statistics were reset' FROM cachectl.advice_status}),
	'pg_stat_reset() starts a window too: its anchor counts began again');

$primary->adjust_conf('postgresql.conf', 'cachectl.track_advice', 'off');
$primary->reload;
ok($primary->poll_query_until('postgres', q{SELECT state = 'off' FROM cachectl.advice_status}),
	'a reload turning it off stops the sampling');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM cachectl.shared_buffers_advice()}), '5',
	'the last window stays readable while it is off');
($code) = sqlstate_of($primary, 'SELECT cachectl.reset_advice()');
is($code, '00000', 'reset_advice() while off is no error');
$primary->adjust_conf('postgresql.conf', 'cachectl.track_advice', 'on');
$primary->reload;
ok($primary->poll_query_until('postgres', q{
SELECT state = 'sampling' AND window_reason = 'cachectl.track_advice was turned on' FROM cachectl.advice_status}),
	'on again: a new window');

# ---- 4. the sampler terminated, the server restarted ----
my $pid = status($primary, 'sampler_pid');
ok($pid > 0, "the sampler runs as pid $pid");
$primary->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
ok($primary->poll_query_until('postgres', qq{
SELECT state = 'sampling' AND sampler_pid <> $pid AND window_reason = 'the sampler started'
  FROM cachectl.advice_status}),
	'terminated, the sampler is started again and starts a new window: the old curve is not carried over');

$primary->restart;
my $up_since = $primary->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
ok($primary->poll_query_until('postgres', qq{
SELECT state = 'sampling' AND window_reason = 'the sampler started' AND window_started >= '$up_since'
  FROM cachectl.advice_status}),
	'a restart of the server starts a new window');
is($primary->safe_psql('postgres', q{
SELECT bool_and(observed_seconds <= extract(epoch FROM now() - pg_postmaster_start_time()))
  FROM cachectl.shared_buffers_advice()}),
	't', 'after the restart, observed_seconds is no longer than the server has run');

# ---- 5. a database dropped while it runs ----
$primary->safe_psql('postgres', 'CREATE DATABASE advice_gone');
$primary->safe_psql('advice_gone', q{
CREATE TABLE t AS SELECT g, repeat('x', 500) AS pad FROM generate_series(1, 20000) AS g;
SELECT count(*) FROM t;
});
ok($primary->poll_query_until('postgres', q{SELECT told_accesses > 0 FROM cachectl.advice_status}),
	'the sampler was told of accesses');
$primary->safe_psql('postgres', 'DROP DATABASE advice_gone');
select_load($primary, 3);
ok($primary->poll_query_until('postgres', q{
SELECT count(*) > 0 AND bool_and(relation IS NULL OR relation::text NOT LIKE '%.%' ) FROM cachectl.relation_advice(50)}),
	'relation_advice() goes on after a database it sampled was dropped');
is(status($primary, q{coalesce(last_error, '')}), '', 'and the sampler recorded no error');

# ---- 6. device reads and the page cache's refaults ----
my $accounts_row = q{
SELECT coalesce(device_read_blocks_per_second::text, 'NULL'), coalesce(os_refault_blocks_per_second::text, 'NULL'),
       coalesce(os_recently_evicted_blocks::text, 'NULL'), read_blocks_per_second
  FROM cachectl.relation_advice(50)
 WHERE relation = 'pgbench_accounts'::regclass AND size_ratio = 1};
my ($device, $refault, $evicted) = split /\|/, $primary->safe_psql('postgres', $accounts_row);
is("$device|$refault", 'NULL|NULL', 'without cachectl.track_reads: no device reads and no refaults are claimed');
is($primary->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE device_read_blocks_per_second IS NOT NULL) FROM cachectl.shared_buffers_advice()}),
	'0', '... in shared_buffers_advice() either');

$primary->append_conf('postgresql.conf', "cachectl.track_reads = on\n");
$primary->reload;
ok($primary->poll_query_until('postgres', q{SELECT current_setting('cachectl.track_reads') = 'on'}),
	'cachectl.track_reads turned on by a reload');
my $track_reset = $primary->safe_psql('postgres', 'SELECT cachectl.reset_advice()');
ok($primary->poll_query_until('postgres', qq{
SELECT window_reason = 'reset_advice()' AND window_started >= '$track_reset' FROM cachectl.advice_status}),
	'a new window, which takes track_reads\' counts as its baseline');
$primary->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('pgbench_accounts', cascade => true)});
select_load($primary, 5);
ok($primary->poll_query_until('postgres', q{
SELECT device_read_blocks_per_second > 0 FROM cachectl.relation_advice(50)
 WHERE relation = 'pgbench_accounts'::regclass AND size_ratio = 1}),
	'pgbench_accounts, made cold in both layers and read, shows device reads per second');
my $engine = $primary->safe_psql('postgres', 'SELECT cachectl.os_engine()');
($device, $refault, $evicted, my $reads) = split /\|/, $primary->safe_psql('postgres', $accounts_row);
note("engine $engine: pgbench_accounts at 1x reads $reads blocks/s, $device from the device, refaults $refault, recently evicted $evicted");
cmp_ok($device, '<=', $reads * 1.0001, 'its device reads are at most its reads');
cmp_ok($primary->safe_psql('postgres', q{
SELECT device_read_blocks_per_second FROM cachectl.shared_buffers_advice() WHERE size_ratio = 1}), '>', 0,
	'shared_buffers_advice() shows device reads at 1x too');
SKIP:
{
	skip "the kernel has no cachestat (engine $engine)", 3 unless $engine eq 'cachestat';
	ok($refault ne 'NULL' && $refault >= 0 && $refault <= $device * 1.0001,
		"under cachestat the refaults are a number between 0 and the device reads ($refault)");
	ok($evicted ne 'NULL' && $evicted >= 0, "and the recently evicted pages a count ($evicted)");
	is($primary->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.relation_advice(50)
 WHERE device_read_blocks_per_second IS NOT NULL AND os_refault_blocks_per_second IS NULL}),
		'0', 'every relation with device reads has its refaults');
}
my ($mincore_refault, $mincore_evicted) = split /\|/, $primary->safe_psql('postgres', q{
SET cachectl.os_engine = mincore;
SELECT coalesce(os_refault_blocks_per_second::text, 'NULL'), coalesce(os_recently_evicted_blocks::text, 'NULL')
  FROM cachectl.relation_advice(50)
 WHERE relation = 'pgbench_accounts'::regclass AND size_ratio = 1});
is("$mincore_refault|$mincore_evicted", 'NULL|NULL',
	'under the mincore engine the page cache\'s columns are NULL: the kernel cannot tell');
SKIP:
{
	skip 'io_method came with 18', 2 unless $has_io_method;
	$primary->adjust_conf('postgresql.conf', 'io_method', 'worker');
	$primary->restart;
	ok($primary->poll_query_until('postgres', q{SELECT state = 'sampling' FROM cachectl.advice_status}),
		'io_method = worker: the sampler runs after the restart');
	$primary->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('pgbench_accounts', cascade => true)});
	select_load($primary, 3);
	ok($primary->poll_query_until('postgres', q{
SELECT count(*) = 5 AND bool_and(device_read_blocks_per_second IS NULL) AND bool_and(read_blocks_per_second > 0)
  FROM cachectl.shared_buffers_advice() WHERE observed_seconds >= 3}),
		'io_method = worker: reads counted, their device share NULL (other processes read: not known), never 0');
	$primary->adjust_conf('postgresql.conf', 'io_method', 'sync');
	$primary->restart;
}

# ---- 7. a standby reports its own reads ----
$primary->backup('advice_backup');
my $standby = PostgreSQL::Test::Cluster->new('advice_standby');
$standby->init_from_backup($primary, 'advice_backup', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);
ok($standby->poll_query_until('postgres', q{SELECT state = 'sampling' FROM cachectl.advice_status}),
	'the standby runs a sampler of its own');
select_load($standby, 5);    # warm its pool
my $standby_reset = $standby->safe_psql('postgres', 'SELECT cachectl.reset_advice()');
ok($standby->poll_query_until('postgres', qq{
SELECT window_reason = 'reset_advice()' AND window_started >= '$standby_reset' FROM cachectl.advice_status}),
	'reset_advice() on the standby starts its window');
my ($hit_before, $read_before) = split /\|/,
  $standby->safe_psql('postgres', 'SELECT sum(blks_hit), sum(blks_read) FROM pg_stat_database');
select_load($standby, 15);
ok(poll_until(sub {
	$standby->safe_psql('postgres', q{
SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}) eq 't' }),
	'the standby\'s load ended');
my $mark = $standby->safe_psql('postgres', 'SELECT now()');
ok($standby->poll_query_until('postgres', qq{
SELECT window_started + observed_seconds * interval '1 second' > '$mark'::timestamptz + interval '2 seconds'
  FROM cachectl.advice_status}),
	'the standby\'s sampler published after the load');
my ($hit_after, $read_after) = split /\|/,
  $standby->safe_psql('postgres', 'SELECT sum(blks_hit), sum(blks_read) FROM pg_stat_database');
my $measured = ($hit_after - $hit_before) / (($hit_after - $hit_before) + ($read_after - $read_before));
my $advised = $standby->safe_psql('postgres', q{
SELECT hit_ratio FROM cachectl.shared_buffers_advice() WHERE size_ratio = 1});
note("the standby's window: measured $measured, advised $advised");
cmp_ok(abs($advised - $measured), '<=', 0.01, 'the standby\'s 1x is its own measured hit ratio within 0.01');
cmp_ok($measured, '<', 0.99, '... of a window that read blocks (a pool smaller than the data)');

$standby->stop;
$primary->stop;
done_testing();
