# 091_advice_accuracy.pl
#
# The sizing advice (cachectl.track_advice, issue 39) at a small scale: a
# pool of 32 MB (4,096 buffers, the sampler then follows half of them),
# pgbench at scale 8 (about 120 MB of accounts and their index, 3.7 times
# the pool), pgbench -S on two clients, its 30 s run a window of its own
# (reset_advice() before it, nothing else running):
# 1. at 1x, shared_buffers_advice() gives the hit ratio pg_stat_database
#    counted over the same window, within 0.01;
# 2. the prediction for 64 MB (2x) holds against a real run: the server
#    restarted at 64 MB without the advice, warmed, the same load for 30 s,
#    blks_hit / (blks_hit + blks_read) within 0.03 of the prediction
#    (the issue's bound; on this machine it was 0.003: bench/README.md);
# 3. the curve rises with the size, the rows carry the window's length and
#    their basis, relation_advice() ranks pgbench_accounts or its index
#    first and puts its sizes' rows in order.
use strict;
use warnings;

use CachectlTest qw(start_cache_node start_pgbench finish_pgbench poll_until);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $window_seconds = 30;
my $mb = 1024 * 1024;

my $node = start_cache_node('advice_accuracy', q{
shared_preload_libraries = 'pg_cachectl'
cachectl.track_advice = on
cachectl.track_reads = on
shared_buffers = '32MB'
max_parallel_workers_per_gather = 0
track_counts = on
});
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '8', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'pgbench -i at scale 8');
$node->safe_psql('postgres', 'VACUUM ANALYZE; CHECKPOINT');

# The whole database's hits and reads, as the advice's anchor counts them
# (every database and the shared catalogs), flushed by the sessions that
# have ended.
sub database_counts
{
	return split /\|/, $node->safe_psql('postgres', q{
SELECT sum(blks_hit), sum(blks_read) FROM pg_stat_database});
}

# pgbench -S on two clients for $seconds; dies when it fails
sub select_load
{
	my ($seconds) = @_;
	my $run = start_pgbench($node, {}, $seconds, '-S', '-c', '2', '-j', '2', '-T', $seconds);
	my ($status, $transactions) = finish_pgbench($run);
	die "pgbench -S failed: $run->{stderr}" unless $status == 0 && $transactions;
	return $transactions;
}

# Waits until the load's sessions are gone (their counters flushed as they
# exit) and the sampler published after that: its observed_seconds reach
# past the moment they were gone by 2 s.
sub wait_for_window_after_load
{
	my $gone = poll_until(sub {
		$node->safe_psql('postgres', q{
SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}) eq 't' });
	my $mark = $node->safe_psql('postgres', 'SELECT now()');
	return $gone && $node->poll_query_until('postgres', qq{
SELECT window_started + observed_seconds * interval '1 second' > '$mark'::timestamptz + interval '2 seconds'
  FROM cachectl.advice_status});
}

# ---- the window at 32 MB ----
ok($node->poll_query_until('postgres', q{SELECT state = 'sampling' FROM cachectl.advice_status}),
	'the sampler runs');
select_load(15);    # warm: the pool full of the load's blocks
my $reset_at = $node->safe_psql('postgres', 'SELECT cachectl.reset_advice()');
ok($node->poll_query_until('postgres', qq{
SELECT window_reason = 'reset_advice()' AND window_started >= '$reset_at' FROM cachectl.advice_status}),
	'reset_advice() started a window');
my ($hit_before, $read_before) = database_counts();
my $transactions = select_load($window_seconds);
ok(wait_for_window_after_load(), 'the sampler published the window after the load ended');
my ($hit_after, $read_after) = database_counts();
my $measured = ($hit_after - $hit_before) / (($hit_after - $hit_before) + ($read_after - $read_before));

my %row;
for my $line (split /\n/, $node->safe_psql('postgres', q{
SELECT size_ratio, pool_bytes, hit_ratio, read_blocks_per_second, observed_seconds, basis
  FROM cachectl.shared_buffers_advice(ARRAY(SELECT m::bigint * 1048576 FROM unnest(ARRAY[8, 16, 32, 64, 128]) AS m)) ORDER BY pool_bytes}))
{
	my ($ratio, $bytes, $hit_ratio, $reads, $seconds, $basis) = split /\|/, $line;
	$row{ $bytes / $mb } = { hit_ratio => $hit_ratio, reads => $reads, seconds => $seconds, basis => $basis };
	note(sprintf('%4d MB: predicted hit ratio %s, %s reads/s, over %.1f s (%s)',
		$bytes / $mb, $hit_ratio, $reads, $seconds, $basis));
}
note(sprintf('the window: %d transactions, %d hits and %d reads (hit ratio %.4f)',
	$transactions, $hit_after - $hit_before, $read_after - $read_before, $measured));
is_deeply([ sort { $a <=> $b } keys %row ], [ 8, 16, 32, 64, 128 ], 'one row per size asked');
cmp_ok(abs($row{32}{hit_ratio} - $measured), '<=', 0.01,
	"1x: the advice's $row{32}{hit_ratio} is the window's measured $measured within 0.01");
ok($row{8}{hit_ratio} < $row{16}{hit_ratio} && $row{16}{hit_ratio} < $row{32}{hit_ratio}
	  && $row{32}{hit_ratio} < $row{64}{hit_ratio} && $row{64}{hit_ratio} <= $row{128}{hit_ratio},
	'the predicted hit ratio rises with the pool (the data set is 3.7x the pool)');
cmp_ok($row{64}{reads}, '<', $row{32}{reads}, 'a 2x pool reads fewer blocks per second');
cmp_ok($row{32}{seconds}, '>=', $window_seconds, "the rows' window covers the load's $window_seconds s");
like($row{32}{basis}, qr/\S/, 'each row says what it rests on');

my @ranked = split /\n/, $node->safe_psql('postgres', q{
SELECT relation::text, size_ratio, hit_ratio FROM cachectl.relation_advice(3)});
like($ranked[0] // '', qr/^pgbench_accounts(_pkey)?\|/, 'relation_advice() ranks the accounts (or their index) first')
  or diag(join("\n", @ranked));
note("relation_advice(3):\n" . join("\n", @ranked));

# ---- the real run at 64 MB ----
$node->append_conf('postgresql.conf', qq{
shared_buffers = '64MB'
cachectl.track_advice = off
});
$node->restart;
select_load(20);    # warm at the new size
($hit_before, $read_before) = database_counts();
select_load($window_seconds);
ok(poll_until(sub {
	$node->safe_psql('postgres', q{
SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}) eq 't' }),
	'the real run\'s sessions ended');
($hit_after, $read_after) = database_counts();
my $real = ($hit_after - $hit_before) / (($hit_after - $hit_before) + ($read_after - $read_before));
note(sprintf('64 MB: predicted %.4f, measured %.4f (error %+.4f)', $row{64}{hit_ratio}, $real,
	$row{64}{hit_ratio} - $real));
cmp_ok(abs($row{64}{hit_ratio} - $real), '<=', 0.03,
	'2x: the prediction made at 32 MB is the real run at 64 MB within 0.03');

$node->stop;
done_testing();
