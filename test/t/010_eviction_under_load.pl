# 010_eviction_under_load.pl
#
# Evicting shared buffers while pgbench writes must lose no committed write
# and corrupt no page, also when the evicting backend or the postmaster dies
# in the middle of an eviction loop.  On a cluster with data checksums, a
# small pool (so the evictions compete with pgbench for every buffer) runs
# three scenarios, each with 6 pgbench clients writing while one more session
# loops evict_all() and evict('pgbench_accounts', cascade => true):
#
#   1. the load runs to its end;
#   2. the evicting backend is killed with SIGKILL half way (the postmaster
#      then restarts every backend and recovers from WAL);
#   3. the postmaster is killed with SIGKILL half way, then started again.
#
# After each: no buffer of a pgbench relation is left pinned, an idle
# eviction of every pgbench relation leaves nothing behind (so what follows
# reads the pages back from disk), the pgbench invariant holds
# (sum(abalance) = sum(tbalance) = sum(bbalance) = sum(delta)) and every
# acknowledged transaction is there, amcheck finds nothing in any table or
# index, the server log shows no sign of trouble, and pg_checksums --check
# passes on the cleanly stopped cluster.
#
# It runs beside the other files but never beside another heavy one
# (run_tap.sh): it kills the evictor while pgbench writes, which needs the
# evictor to get the CPU in time.
# tap: heavy
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

use CachectlTest qw(start_pgbench finish_pgbench check_pgbench_balances
  check_amcheck log_trouble check_pg_checksums);

my $scale = 5;                  # pgbench_accounts: about 64 MB, twice the pool
my $load_clients = 6;
my $load_threads = 2;           # the machine has two cores
my $main_seconds = 30;
my $kill_seconds = 16;          # the kill comes after half of it
my $evictor_name = 'cachectl_evictor';
my @pgbench_tables =
  qw(pgbench_accounts pgbench_branches pgbench_history pgbench_tellers);
my @checked_tables = (@pgbench_tables, 'eviction_rounds');

# ---- the node ----

my $node = PostgreSQL::Test::Cluster->new('eviction_load');
$node->init(extra => ['--data-checksums']);
$node->append_conf(
	'postgresql.conf', q{
shared_buffers = '32MB'
# Cluster.pm turns fsync off and crash restarts off.  With fsync on, the
# writes of evicted buffers go through the same fsync request path as in
# production, and the crash scenarios recover what was really made durable.
fsync = on
restart_after_crash = on
# Cluster.pm logs every statement; pgbench would fill the log.
log_statement = 'none'
# Checkpoints write the same dirty buffers the evictions flush.
checkpoint_timeout = '30s'
});
$node->start;

is($node->safe_psql('postgres', 'SHOW data_checksums'),
	'on', 'the cluster has data checksums');

$node->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
$node->command_ok(
	[
		'pgbench', '-i', '-q', '-s', $scale, '-h', $node->host,
		'-p', $node->port, 'postgres'
	],
	"pgbench -i at scale $scale");

# Each eviction round leaves its totals here: what a scenario evicted can be
# read back after a crash (committed rounds survive it).
$node->safe_psql(
	'postgres', q{
CREATE TABLE eviction_rounds (
    id bigserial PRIMARY KEY,
    target text NOT NULL,
    evicted int8 NOT NULL,
    flushed int8 NOT NULL,
    skipped int8 NOT NULL);
});

# The evicting session's backend as pg_stat_activity shows it (pid, state,
# wait event, the cachectl call of its statement), watched from inside the
# server every millisecond until it is seen running a statement without
# waiting for WAL (which it does mostly to commit), or until patience has
# passed.  A session that loops over two statements is idle between them:
# sampled once, or a hundred times by psql runs that take a while each on a
# loaded machine, it may never be seen in its loop.
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION evicting_backend(app text, patience interval) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    deadline timestamptz := clock_timestamp() + patience;
    seen_pid int4;
    seen_state text;
    seen_wait text;
    seen_call text;
BEGIN
    LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT pid, state, coalesce(wait_event, '-'),
               coalesce(substring(query FROM 'cachectl[.][a-z_]+'), '-')
          INTO seen_pid, seen_state, seen_wait, seen_call
          FROM pg_stat_activity WHERE application_name = app;
        EXIT WHEN seen_state = 'active' AND seen_call <> '-'
              AND seen_wait NOT LIKE 'WAL%';
        EXIT WHEN clock_timestamp() > deadline;
        PERFORM pg_sleep(0.001);
    END LOOP;
    RETURN concat_ws('|', seen_pid, seen_state, seen_wait, seen_call);
END
$$;
});

my $evict_script = $node->basedir . '/evict_round.sql';
append_to_file(
	$evict_script, q{
INSERT INTO eviction_rounds (target, evicted, flushed, skipped)
  SELECT 'all', buffers_evicted, buffers_flushed, buffers_skipped
    FROM cachectl.evict_all();
INSERT INTO eviction_rounds (target, evicted, flushed, skipped)
  SELECT 'pgbench_accounts', sum(buffers_evicted), sum(buffers_flushed),
         sum(buffers_skipped)
    FROM cachectl.evict('pgbench_accounts', cascade => true);
});

my $pool_buffers = $node->safe_psql('postgres',
	q{SELECT setting FROM pg_settings WHERE name = 'shared_buffers'});
my $accounts_blocks = $node->safe_psql('postgres',
	q{SELECT pg_relation_size('pgbench_accounts') / 8192});
note("pool: $pool_buffers buffers; pgbench_accounts: $accounts_blocks blocks");
cmp_ok($accounts_blocks, '>', $pool_buffers,
	'pgbench_accounts does not fit in shared buffers');

# ---- helpers ----

sub scalar_query
{
	my ($sql) = @_;
	return $node->safe_psql('postgres', $sql);
}

sub last_round_id
{
	return scalar_query('SELECT coalesce(max(id), 0) FROM eviction_rounds');
}

sub history_rows
{
	return scalar_query('SELECT count(*) FROM pgbench_history');
}

# The backend of the evicting session: pid, state, wait event and the call
# it runs, once it is seen in an eviction (evicting_backend), so that a kill
# right after lands in one as often as can be arranged.  It waits no longer
# than the session runs: not seen by then, it was not in its loop.
sub evictor_backend
{
	return split /\|/, scalar_query(
		qq{SELECT evicting_backend('$evictor_name', '$kill_seconds s')});
}

# The pids of the processes whose parent is the given one.
sub child_pids
{
	my ($parent) = @_;
	my @children;
	opendir(my $proc, '/proc') or die "could not open /proc: $!";
	foreach my $entry (readdir $proc)
	{
		next unless $entry =~ /^\d+$/;
		open(my $stat_file, '<', "/proc/$entry/stat") or next;
		my $stat = <$stat_file>;
		close $stat_file;
		# the parent pid follows the state, after the last ")"
		push @children, $entry
		  if defined $stat
		  && $stat =~ /.*\)\s+\S\s+(\d+)/s
		  && $1 == $parent;
	}
	closedir $proc;
	return @children;
}

# True once none of the pids is left, not even as a zombie: a new
# postmaster takes a zombie predecessor for a live one, and whatever reaps
# orphans here may take a second to do it.
sub all_gone
{
	my @pids = @_;
	return !grep { -e "/proc/$_" } @pids;
}

# Runs the load and the evicting session together.  $interrupt, if given,
# is called half way through with the scenario name and must bring the
# server back up; pgbench may then fail.  Returns what the load did.
sub run_scenario
{
	my ($scenario, $seconds, $interrupt) = @_;
	my $first_round = last_round_id() + 1;
	my $history_before = history_rows();

	my $load = start_pgbench($node, { PGAPPNAME => 'pgbench_load' },
		$main_seconds, '-c', $load_clients, '-j', $load_threads, '-T', $seconds);
	# The evicting session commits its totals asynchronously, so that it
	# spends its time evicting rather than waiting for WAL flushes (and a
	# kill is more likely to land in an eviction); a crash may lose the
	# totals of its last rounds, nothing else.
	my $evictor = start_pgbench(
		$node,
		{
			PGAPPNAME => $evictor_name,
			PGOPTIONS => '-c synchronous_commit=off'
		},
		$main_seconds, '-c', 1, '-j', 1, '-T', $seconds, '-f', $evict_script);

	if ($interrupt)
	{
		sleep($seconds / 2);
		$interrupt->($scenario);
	}

	my ($load_status, $load_transactions) = finish_pgbench($load);
	my ($evictor_status, $evictor_transactions) = finish_pgbench($evictor);
	note("$scenario: pgbench load exit status $load_status, "
		  . ($load_transactions // 'no') . " transactions");
	note("$scenario: evicting pgbench exit status $evictor_status, "
		  . ($evictor_transactions // 'no') . " rounds");
	if (!$interrupt)
	{
		is($load_status, 0, "$scenario: the pgbench load succeeded")
		  or diag($load->{stderr});
		is($evictor_status, 0,
			"$scenario: the evicting session succeeded")
		  or diag($evictor->{stderr});
	}
	else
	{
		my $aborted = () = $load->{stderr} =~ /client \d+ aborted/g;
		note("$scenario: $aborted of $load_clients pgbench clients aborted "
			  . "after the kill");
	}

	my ($rounds, $evicted, $flushed, $skipped) = split /\|/, scalar_query(
		qq{
SELECT count(*) FILTER (WHERE target = 'all'),
       coalesce(sum(evicted), 0), coalesce(sum(flushed), 0),
       coalesce(sum(skipped), 0)
  FROM eviction_rounds WHERE id >= $first_round});
	note("$scenario: $rounds committed eviction rounds evicted $evicted "
		  . "buffers, flushed $flushed, skipped $skipped");
	cmp_ok($rounds, '>', 0, "$scenario: eviction rounds were committed");
	cmp_ok($evicted, '>', 0, "$scenario: the rounds evicted buffers");
	cmp_ok($flushed, '>', 0,
		"$scenario: the rounds flushed dirty buffers first");
	is($rounds, $evictor_transactions,
		"$scenario: every round the evicting session completed is recorded")
	  unless $interrupt;

	return {
		history_before => $history_before,
		load_transactions => $load_transactions,
		interrupted => defined $interrupt,
	};
}

# Everything that must hold once the load is over, then a clean stop and
# pg_checksums.  The server log is read from $log_offset on.
sub check_cluster
{
	my ($scenario, $load, $log_offset) = @_;

	# A pin left behind by an eviction would never go away (autovacuum may
	# hold one for a moment).
	ok( $node->poll_query_until(
			'postgres', qq{
SELECT coalesce(sum(r.shared_pinned_blocks), 0) = 0
  FROM unnest('{@{[ join ',', @pgbench_tables ]}}'::regclass[]) AS t(rel),
       cachectl.shared_residency(t.rel, cascade => true) AS r}),
		"$scenario: no buffer of a pgbench relation stays pinned");

	# With the load stopped, one eviction of every pgbench relation leaves
	# none of their pages in the pool, so the checks below read them back
	# from the files.
	my $everything = qq{'{@{[ join ',', @checked_tables ]}}'::regclass[]};
	ok( $node->poll_query_until(
			'postgres', qq{
SELECT sum(buffers_skipped) = 0
  FROM cachectl.evict_relations($everything, cascade => true)}),
		"$scenario: an idle eviction skips no buffer");
	my $left = scalar_query(
		qq{
SELECT coalesce(sum(r.shared_blocks), 0)
  FROM unnest($everything) AS t(rel),
       cachectl.shared_residency(t.rel, cascade => true) AS r});
	note("$scenario: pgbench buffers left after the idle eviction: $left");

	my $history = check_pgbench_balances($node, $scale, $scenario);

	my $added = $history - $load->{history_before};
	cmp_ok($added, '>', 0, "$scenario: the load committed transactions");
	if (!$load->{interrupted})
	{
		is($added, $load->{load_transactions},
			"$scenario: one history row per transaction pgbench completed");
	}
	elsif (defined $load->{load_transactions})
	{
		# Acknowledged commits survive the crash; a commit whose
		# acknowledgement was lost may survive as well.
		cmp_ok($added, '>=', $load->{load_transactions},
			"$scenario: every transaction pgbench saw commit survived");
	}

	is(check_amcheck($node, \@checked_tables, $scenario),
		scalar(@checked_tables) - 1,
		"$scenario: bt_index_check saw the four primary keys");

	my $log = slurp_file($node->logfile, $log_offset);
	my @trouble = log_trouble($log);
	is_deeply(\@trouble, [], "$scenario: the server log shows no trouble");

	$node->stop;
	check_pg_checksums($node, $scenario);
	return;
}

# ---- 1. eviction rounds during the whole load ----

my $log_offset = -s $node->logfile;
my $load = run_scenario('load', $main_seconds, undef);
check_cluster('load', $load, $log_offset);

# ---- 2. the evicting backend killed half way ----

$node->start;
$log_offset = -s $node->logfile;
$load = run_scenario(
	'evictor killed',
	$kill_seconds,
	sub {
		my ($scenario) = @_;
		my ($pid, $state, $wait_event, $query) = evictor_backend();
		note("$scenario: evicting backend $pid is $state "
			  . "(wait event $wait_event) running $query");
		is($state, 'active',
			"$scenario: the evicting backend is in its loop when killed");
		ok(kill('KILL', $pid), "$scenario: SIGKILL sent to backend $pid");
		$node->wait_for_log(
			qr/all server processes terminated; reinitializing/,
			$log_offset);
		# Polling before recovery ends can break psql's pipe (IPC::Run then
		# dies): wait until the postmaster says it accepts connections again.
		$node->wait_for_log(
			qr/database system is ready to accept connections/,
			$log_offset);
		ok($node->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()'),
			"$scenario: the server is back after crash recovery");
		my $log = slurp_file($node->logfile, $log_offset);
		like($log,
			qr/(?:server process|client backend) \(PID $pid\) was terminated by signal 9/,
			"$scenario: the postmaster saw the evicting backend die");
		my ($failed) =
		  $log =~ /Failed process was running: .*?(cachectl\.\w+)/s;
		note("$scenario: the killed backend was running the statement "
			  . "calling " . ($failed // '?'));
		like($log, qr/automatic recovery in progress/,
			"$scenario: the server recovered from WAL");
	});
check_cluster('evictor killed', $load, $log_offset);

# ---- 3. the postmaster killed half way ----

$node->start;
$log_offset = -s $node->logfile;
$load = run_scenario(
	'postmaster killed',
	$kill_seconds,
	sub {
		my ($scenario) = @_;
		my ($pid, $state, $wait_event, $query) = evictor_backend();
		note("$scenario: evicting backend $pid is $state "
			  . "(wait event $wait_event) running $query");
		is($state, 'active',
			"$scenario: the evicting backend is in its loop when the "
			  . "postmaster is killed");

		my $postmaster = $node->{_pid};
		my @children = child_pids($postmaster);
		$node->kill9;

		# The orphaned backends notice the postmaster's death and exit; until
		# then they hold the shared memory and a new postmaster would refuse
		# to start.
		my $waited = 0;
		until (all_gone($postmaster, @children)
			  || $waited > 10 * $PostgreSQL::Test::Utils::timeout_default)
		{
			usleep(100_000);
			$waited++;
		}
		ok(all_gone($postmaster, @children),
			"$scenario: the postmaster's "
			  . scalar(@children)
			  . " children exited after it");

		$node->start;
		my $log = slurp_file($node->logfile, $log_offset);
		like($log, qr/automatic recovery in progress/,
			"$scenario: the server recovered from WAL");
	});
check_cluster('postmaster killed', $load, $log_offset);

done_testing();
