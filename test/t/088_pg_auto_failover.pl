# 088_pg_auto_failover.pl
#
# Autowarm keeps a planned switchover warm under pg_auto_failover (2.0): a
# monitor and two data nodes run by pg_autoctl on 127.0.0.1, pg_cachectl
# preloaded on both data nodes, the worker recording every 3 s, pgbench's
# tables in the database pg_autoctl creates.  A switchover, from a
# secondary made cold:
# - the secondary restarted as a reboot of its host leaves it (its
#   pg_autoctl stopped, its relation files dropped from the OS page cache,
#   its pg_autoctl started) is the secondary again, streaming, and its
#   worker loads the primary's snapshot;
# - after pgbench -S on the primary (its steady rate), the primary records
#   and the secondary follows; wait_warm('20 s') on the secondary, the gate
#   a user runs before `pg_autoctl perform switchover`, says warm, and the
#   hot set is in the secondary's shared buffers;
# - the switchover completes: the old primary's shutdown, which records the
#   cache once more while synchronous replication is on, does not hang (it
#   once did); the roles swap; the new primary's first 5 s of pgbench -S,
#   started as soon as it takes writes, find nearly every block in shared
#   buffers (at most 1 % read from outside); their rate against the old
#   primary's steady rate is printed (a figure, not a check: see below);
# - the old primary follows as the secondary, streaming; its worker is a
#   standby's, counts no failure and writes nothing; the new primary's
#   worker records.
# The rates are measured on two CPUs that other suites (and here the other
# node, which a real deployment keeps on another host) share: in CI's make
# test-all (2026-12-05) three warm switchovers, each reading at most 1 %
# from outside shared buffers, reached 0.30, 0.31 and 0.50 of the steady
# rate.  So the rate is printed and warmth is judged by where the blocks
# came from: without autowarm the first 5 s read 21 % of their blocks from
# outside shared buffers (and reached 17-25 % of the steady rate).
# At the end: no autowarm process of either node was killed by a signal or
# exited with an error, and every pg_autoctl stops cleanly (the primary's
# shutdown with synchronous replication on and no standby left included),
# leaving no server running.
#
# It runs after the other files, with nothing beside it (run_tap.sh):
# pg_autoctl's timeouts want the two CPUs, and the rates it prints mean
# more undisturbed.
# tap: runs alone
# tap: make test-all only
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use AutowarmTest qw(autowarm_state wait_for_status drop_data_files_from_os_cache shared_share_resident);
use PgbenchRun qw(pgbench_run);
use CachectlTest qw(poll_until server_query_until);
use AutoFailoverTest qw(require_pg_autoctl create_monitor create_data_node start_service stop_service
  wait_for_states start_pg_autoctl server_log);

require_pg_autoctl();

my $db = 'appdb';
my $interval = 3;
# 180 MB: the hot set fits in autowarm's share (0.9) of 256 MB of shared
# buffers, and a cold server reads it for longer than the 5 s measured
my $scale = 12;
my @hot_set = qw(pgbench_accounts pgbench_accounts_pkey);

# pgbench -S on the node for $seconds, one client (a cold server's reads
# then show in full: nothing else runs while the client waits for one): the
# rate it reports (without the connection time), the transactions it made,
# the rates of each second, and the machine's load average then.
sub select_rate
{
	my ($node, $seconds) = @_;
	my $run = pgbench_run('pgbench', $seconds, '-S', '-c', '1', '-h', $node->host, '-p', $node->port, $db);
	diag("pgbench -S failed: $run->{output}") unless $run->{ok} && defined $run->{tps};
	return {
		rate => $run->{ok} ? $run->{tps} : undef,
		transactions => $run->{transactions} // 0,
		each_second => join(' ', map { sprintf('%.0f', $_) } @{ $run->{per_second} }),
		load => load_average(),
	};
}

# The machine's load average over the last minute, where it is known.
sub load_average
{
	open(my $file, '<', '/proc/loadavg') or return '?';
	my ($load) = split / /, <$file>;
	close($file);
	return $load;
}

# The database's block reads (from outside shared buffers), hits and
# commits so far, as pg_stat_database counts them.
sub block_counts
{
	my ($node) = @_;
	return split /\|/, $node->safe_psql($db, q{
SELECT blks_read, blks_hit, xact_commit FROM pg_stat_database WHERE datname = current_database()});
}

# Does the node take a write now?  A local commit: the probe is refused
# while the node is read-only, never held by synchronous replication.
sub accepts_writes
{
	my ($node) = @_;
	my ($ret) = $node->psql($db, q{SET synchronous_commit = local; INSERT INTO switchover_probe VALUES (now())});
	return $ret == 0;
}

# Waits until the standby has replayed what the primary has written so far.
sub wait_for_replay
{
	my ($primary, $standby) = @_;
	my $lsn = $primary->safe_psql($db, 'SELECT pg_current_wal_lsn()');
	return $standby->poll_query_until($db, "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
}

# pg_autoctl runs each server with its logging collector, which writes a
# line after the process that logged it went on (or exited): waits until
# the node's log after $offset has the server's last line at a shutdown,
# and returns that part of the log (all of it then: the collector writes
# the lines in the order they came through its pipe).
sub log_through_shutdown
{
	my ($node, $offset) = @_;
	my $log = '';
	poll_until(
		sub {
			$log = substr(server_log($node), $offset);
			return $log =~ /LOG:  database system is shut down$/m;
		});
	return $log;
}

# The seconds of the day of a server log line (log_line_prefix '%m [%p] ').
sub log_line_seconds
{
	my ($line) = @_;
	my ($hours, $minutes, $seconds) = $line =~ /^\S+ (\d\d):(\d\d):(\d\d\.\d+) /
	  or return undef;
	return 3600 * $hours + 60 * $minutes + $seconds;
}

# The postmaster's lines of a log that say an autowarm process (the leader
# or a database's worker) died of a signal or exited with an error.
sub worker_exits
{
	my ($log) = @_;
	return grep { /background worker "pg_cachectl autowarm[^"]*" \(PID \d+\) (?:was terminated by signal|exited with exit code)/ }
	  split /\n/, $log;
}

# ---- the formation: a monitor, a primary and its secondary ----
# The monitor keeps its default health checks and timeouts: the keepers'
# reports, not they, drive a planned switchover and a restarted node's
# return (checks every second instead of 5 s made neither quicker here).
# pg_autoctl's tuning would give it a quarter of the RAM as shared buffers.
my $monitor = create_monitor('monitor', q{
shared_buffers = '32MB'
});
start_service($monitor);
server_query_until($monitor, 'pg_auto_failover', 'SELECT true')
  or BAIL_OUT('the monitor does not start');

# pg_autoctl's own settings (included from line 1 of postgresql.conf)
# preload pg_stat_statements: this later line replaces the list, so it
# keeps it.  The secondary gets these lines with the primary's
# postgresql.conf in its base backup.
my $node1 = create_data_node($monitor, 'node1', $db, qq{
shared_preload_libraries = 'pg_stat_statements,pg_cachectl'
cachectl.autowarm = on
cachectl.autowarm_interval = '${interval}s'
shared_buffers = '256MB'
autovacuum = off
});
start_service($node1);
ok(defined wait_for_states($monitor, { node1 => 'single' }, 60), 'node1 runs, a single node');
$node1->safe_psql($db, 'CREATE EXTENSION pg_cachectl');
$node1->safe_psql($db, 'CREATE TABLE switchover_probe (at timestamptz)');
# nothing left for the base backup's spread checkpoint to write (it waits
# 100 ms a buffer)
$node1->safe_psql($db, 'CHECKPOINT');
my $node2 = create_data_node($monitor, 'node2', $db);
start_service($node2);
ok(defined wait_for_states($monitor, { node1 => 'primary', node2 => 'secondary' }, 120),
	'node2 joins as the secondary of node1, the primary');
is($node1->safe_psql($db, 'SHOW synchronous_standby_names'), 'ANY 1 (pgautofailover_standby_2)',
	'pg_auto_failover replicates synchronously to it');

$node1->command_ok([ 'pgbench', '-i', '-q', '-s', $scale, $db ], "pgbench -i -s $scale on the primary");
# The primary serves its steady rate from the first second: the hot set in
# shared buffers (pgbench -i wrote it through a ring of a few buffers).
$node1->safe_psql($db, q{
SET cachectl.prewarm_max_share = 0.9;
SELECT count(*) FROM cachectl.prewarm('pgbench_accounts');
SELECT count(*) FROM cachectl.prewarm('pgbench_accounts_pkey');
});
my $taken = autowarm_state($node1, 'snapshots_taken', $db);
ok(defined wait_for_status($node1, "role = 'primary' AND snapshots_taken >= $taken + 2", 10 * $interval, $db),
	'the primary\'s worker recorded the hot set');

# One switchover from $primary to $secondary, made cold first, with the
# checks of each step named after $label; prints the ratio of the new
# primary's first 5 s to the old primary's steady rate.
sub switchover_from_cold
{
	my ($primary, $secondary, $label) = @_;
	my %states = ($primary->name => 'primary', $secondary->name => 'secondary');

	# ---- the secondary made cold, as a reboot of its host leaves it ----
	# A checkpoint replayed before it stops: its start does not replay (read)
	# the pages written since the last one.
	$primary->safe_psql($db, 'CHECKPOINT');
	ok(wait_for_replay($primary, $secondary), "$label: the secondary replayed the primary's checkpoint");
	ok(defined stop_service($secondary, 60), "$label: the secondary's pg_autoctl stops, its server with it");
	my $files = drop_data_files_from_os_cache($secondary);
	note("$label: $files relation files of the secondary dropped from the OS page cache");
	start_service($secondary);
	# its keeper reports the server down at first: the monitor moves it to
	# catchingup, which restarts the server once more, then to secondary
	my $back = wait_for_states($monitor, \%states, 120);
	ok(defined $back,
		sprintf('%s: started again, it is the secondary again (settled %.1f s after its start)', $label, $back // -1));
	ok(server_query_until($secondary, $db, q{SELECT status = 'streaming' FROM pg_stat_wal_receiver}),
		"$label: and streams from the primary");
	ok(defined wait_for_status($secondary, q{role = 'standby' AND loads_done >= 1}, 60, $db),
		"$label: its worker loaded the primary's snapshot at its start");
	note("$label: start load of the secondary: "
		  . $secondary->safe_psql($db, q{
SELECT start_load_shared_blocks || ' shared and ' || start_load_os_blocks || ' OS blocks in '
       || round(start_load_seconds::numeric, 3) || ' s'
  FROM cachectl.autowarm_status WHERE database = current_database()}));

	# ---- the primary's steady rate, and the gate on the secondary ----
	my $steady = select_rate($primary, 10);
	ok(defined $steady->{rate}, "$label: pgbench -S ran 10 s on the primary");
	note(sprintf('%s: the primary\'s steady rate %.0f tps (each second: %s; load average %s)',
			$label, $steady->{rate} // 0, $steady->{each_second}, $steady->{load}));
	my $taken = autowarm_state($primary, 'snapshots_taken', $db);
	ok(defined wait_for_status($primary, "snapshots_taken >= $taken + 2", 10 * $interval, $db),
		"$label: the primary recorded its cache after the load");
	ok(wait_for_replay($primary, $secondary), "$label: the secondary replayed the snapshot");
	# pg_auto_failover has no hook that runs before it promotes a node: this
	# is the call a user makes on the secondary before `pg_autoctl perform
	# switchover`.
	my ($warm, $state, $waited) = split /\|/,
	  $secondary->safe_psql($db, q{SELECT warm, state, waited_seconds FROM cachectl.wait_warm('20 s')});
	is($warm, 't', "$label: wait_warm('20 s') on the secondary: warm (state $state, after $waited s)");
	my ($share, $blocks) = shared_share_resident($secondary, 'autowarm', \@hot_set, $db);
	cmp_ok($share, '>=', 0.95,
		sprintf('%s: %.1f %% of the hot set the primary recorded (%d blocks of pgbench_accounts and its index) is in the secondary\'s shared buffers',
			$label, 100 * $share, $blocks));

	# ---- the switchover ----
	my $old_log_length = length(server_log($primary));
	my ($switch_stdout, $switch_stderr) = ('', '');
	my $switch_started = time;
	my $switchover = start_pg_autoctl(150, \$switch_stdout, \$switch_stderr,
		'perform', 'switchover', '--pgdata', $monitor->data_dir, '--wait', '120');
	# The new primary's first 5 s: pgbench -S from the moment it first takes
	# a write (promoted, and pg_auto_failover no longer keeps it
	# read-only), 5 s long.
	my $writable_after;
	while (time - $switch_started < 120)
	{
		if (accepts_writes($secondary))
		{
			$writable_after = time - $switch_started;
			last;
		}
		usleep(50_000);
	}
	ok(defined $writable_after,
		sprintf('%s: the secondary takes writes %.1f s after the switchover began', $label, $writable_after // -1))
	  or die 'the secondary never took a write';
	my @before = block_counts($secondary);
	# its session named, to be waited for below
	my $first = do { local $ENV{PGAPPNAME} = 'cachectl088 first seconds'; select_rate($secondary, 5) };
	# A session reports its last counters as it exits, after pgbench has
	# ended, and leaves pg_stat_activity only after that: wait until
	# pgbench's session is gone, then for the commits to be counted.  The
	# commit count alone could be reached first with the keeper's own
	# commits, the last second of pgbench's blocks not counted yet.
	ok($secondary->poll_query_until($db, qq{
SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'cachectl088 first seconds')})
		  && $secondary->poll_query_until($db, qq{
SELECT xact_commit >= $before[2] + $first->{transactions} FROM pg_stat_database WHERE datname = current_database()}),
		"$label: pgbench's session on the new primary ended and reported its counters");
	my @after = block_counts($secondary);
	my ($read, $hit) = ($after[0] - $before[0], $after[1] - $before[1]);
	my $switch_finished = eval { $switchover->finish; 1 };
	$switchover->kill_kill unless $switch_finished;
	my $switch_took = time - $switch_started;
	ok($switch_finished && $switchover->result(0) == 0,
		sprintf('%s: pg_autoctl perform switchover completed, in %.1f s', $label, $switch_took))
	  or diag("$@\n$switch_stdout\n$switch_stderr");
	my %swapped = ($primary->name => 'secondary', $secondary->name => 'primary');
	ok(defined wait_for_states($monitor, \%swapped, 120), "$label: the roles swapped");
	is($secondary->safe_psql($db, 'SELECT pg_is_in_recovery()') . $primary->safe_psql($db, 'SELECT pg_is_in_recovery()'),
		'ft', "$label: as the servers say themselves");

	my $ratio = ($first->{rate} // 0) / ($steady->{rate} || 1);
	note(sprintf('%s: the new primary\'s first 5 s %.0f tps (each second: %s; load average %s); ratio to the steady rate %.2f',
			$label, $first->{rate} // 0, $first->{each_second}, $first->{load}, $ratio));
	# how warm it was, whatever CPU time other suites left this one
	my $read_share = $read + $hit > 0 ? $read / ($read + $hit) : 1;
	cmp_ok($read_share, '<=', 0.01,
		sprintf('%s: in its first 5 s the new primary read %d blocks from outside shared buffers, %.2f %% of the %d it asked for',
			$label, $read, 100 * $read_share, $read + $hit));

	# The old primary's fast shutdown recorded the cache, with synchronous
	# replication on, and ended.
	my $old_log = log_through_shutdown($primary, $old_log_length);
	my ($shutdown_request) = $old_log =~ /^(.* LOG:  received fast shutdown request)$/m;
	my ($shut_down) = $old_log =~ /^(.* LOG:  database system is shut down)$/m;
	my $shutdown_seconds =
	  defined $shutdown_request && defined $shut_down
	  ? log_line_seconds($shut_down) - log_line_seconds($shutdown_request)
	  : -1;
	like($old_log,
		qr/recording cache snapshot "autowarm" of database "appdb" \(shutdown\).*recorded cache snapshot "autowarm" of database "appdb": .*database system is shut down/s,
		sprintf('%s: the old primary recorded its cache at its shutdown, which ended %.2f s after it was asked',
			$label, $shutdown_seconds));

	# ---- the old primary follows ----
	ok(server_query_until($primary, $db, q{SELECT status = 'streaming' FROM pg_stat_wal_receiver}),
		"$label: the old primary streams from the new one");
	ok(defined wait_for_status($primary, q{role = 'standby' AND state = 'following'}, 60, $db),
		"$label: its worker is a standby's, following");
	is(autowarm_state($primary, 'failures', $db), '0', "$label: it counts no failure");
	is(autowarm_state($primary, 'snapshots_taken', $db), '0', "$label: and took no snapshot");
	my ($rejoined_log) = substr(server_log($primary), $old_log_length) =~ /database system is shut down\n(.*)\z/s;
	is(scalar(() = ($rejoined_log // '') =~ /recorded cache snapshot/g), 0,
		"$label: its log shows no snapshot recorded since it became a standby");
	ok(defined wait_for_status($secondary, q{role = 'primary' AND snapshots_taken >= 1}, 10 * $interval, $db),
		"$label: the new primary's worker records");
	is(autowarm_state($secondary, 'failures', $db), '0', "$label: and counts no failure");
	return;
}

# ---- a switchover from a secondary made cold ----
my ($primary, $secondary) = ($node1, $node2);
switchover_from_cold($primary, $secondary, 'switchover');
($primary, $secondary) = ($secondary, $primary);

# ---- everything stops ----
# The secondary first: the primary then stops with synchronous replication
# on and no standby, the case whose shutdown snapshot used to hang.
my %log_length = map { $_->name => length(server_log($_)) } ($node1, $node2);
foreach my $node ($secondary, $primary, $monitor)
{
	my $took = stop_service($node, 60);
	ok(defined $took, sprintf('the pg_autoctl of %s stops, in %.1f s', $node->name, $took // -1));
	ok(!-e $node->data_dir . '/postmaster.pid', '  and its server is down');
}
# each data node's log as far as its last shutdown line: what the
# collector wrote after its postmaster exited included
my %last_log = map { $_->name => log_through_shutdown($_, $log_length{ $_->name }) } ($node1, $node2);
like($last_log{ $primary->name },
	qr/recording cache snapshot "autowarm" of database "appdb" \(shutdown\).*recorded cache snapshot "autowarm" of database "appdb": .*database system is shut down/s,
	'the primary recorded its cache at that shutdown');
my @exits = map { worker_exits(server_log($_)) } ($node1, $node2);
is(scalar @exits, 0, 'no autowarm process of either node died of a signal or exited with an error')
  or diag(join("\n", @exits));

done_testing();
