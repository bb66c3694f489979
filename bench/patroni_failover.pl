# bench/patroni_failover.pl — the patroni part of bench/autowarm.sh: a
# Patroni switchover and a Patroni failover, each with autowarm off and on,
# side by side in one run, on clusters of its own (one etcd, two Patroni
# nodes on loopback: test/perl/PatroniTest.pm, which test/t/087 uses too).
#
# For each variant (off: the library preloaded, cachectl.autowarm = off; on:
# the worker every AUTOWARM_INTERVAL s, and a pre_promote gate that asks
# cachectl.wait_warm()) a cluster is made, pgbench -i at SCALE, then twice
# (switchover, then failover):
#   1. the replica is made cold in both layers (Patroni stopped, which stops
#      PostgreSQL cleanly; its relation files dropped from the OS page
#      cache; Patroni started) and streams again;
#   2. the leader's steady state: pgbench -S for REF_S s, the median of its
#      one-second figures from SKIP_S on (meanwhile the replica's worker, if
#      on, loads and follows);
#   3. the event: `patronictl switchover`, or kill -9 of the leader's
#      postmaster (primary_start_timeout 0 in the DCS, so Patroni promotes
#      the replica instead of restarting the crashed primary);
#   4. from the moment the promoted node accepts writes (polled every 0.1 s),
#      pgbench -S -P 1 on it for MEASURE_S s; the old leader's Patroni is
#      held (SIGSTOP) for that time and runs at nice 19 from the event on,
#      so its rejoin (pg_rewind, restart) takes no CPU from the measure, as
#      on hosts of their own;
#   5. the old leader rejoins and streams before the next event.
#
# Judged as the failover part judges: the first 5 s's mean as a share of
# the steady state, and the seconds until 90 %: the first second t whose
# mean over t, t+1 and t+2 reaches 90 % of the steady state.
#
# Prints the per-second TPS and, for bench/autowarm.sh, lines
# "EMIT<TAB>kind<TAB>fields..." that it passes to bench_emit: samples of
# patroni_switchover_tps and patroni_failover_tps (x = second, a series per
# variant and the steady state before it), patroni_first5_share,
# patroni_seconds_to_90 (-1: not within MEASURE_S) and
# patroni_writable_after (seconds from the event to a writable server).
#
# Environment (bench/autowarm.sh sets them): SHARED_BUFFERS, SCALE, CLIENTS,
# THREADS, REF_S, MEASURE_S, SKIP_S, AUTOWARM_INTERVAL, LOAD_WAIT_S,
# PATRONI_VARIANTS ("off on"), BENCH_WORK (a directory of its own).
# Run as the postgres user (Patroni runs initdb), with -I for test/perl and
# PostgreSQL's TAP modules.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils ();
use List::Util qw(sum);
use Time::HiRes qw(time);
use PatroniTest qw(start_etcd patroni_cluster add_patroni_node start_patroni restart_patroni_cold
  lower_priority hold_patroni release_patroni wait_for_leader wait_for_streaming wait_for_writes
  start_switchover finish_switchover kill_postmaster pgbench_init pgbench_rate stop_patroni_cluster
  stop_everything);

my %setting = (
	SHARED_BUFFERS => '512MB',
	SCALE => 150,
	CLIENTS => 4,
	THREADS => 2,
	REF_S => 20,
	MEASURE_S => 60,
	SKIP_S => 5,
	AUTOWARM_INTERVAL => 10,
	LOAD_WAIT_S => 180,
	PATRONI_VARIANTS => 'off on',);
$setting{$_} = $ENV{$_} // $setting{$_} for keys %setting;
my $work = $ENV{BENCH_WORK} or die "BENCH_WORK is not set\n";
my @select_only = ('-S', '-c', $setting{CLIENTS}, '-j', $setting{THREADS});

END
{
	local $?;
	stop_everything();
}

# PostgreSQL::Test::Utils sends STDOUT and STDERR to its log file when it
# starts (an INIT block): the lines for bench/autowarm.sh go to a copy of
# the STDOUT we were given, made before that.
my $report;
BEGIN
{
	open($report, '>&', \*STDOUT) or die "could not copy STDOUT: $!";
	$report->autoflush(1);
}

sub say_line { print $report "@_\n"; }
sub emit { print $report join("\t", 'EMIT', @_), "\n"; }

sub median
{
	my @sorted = sort { $a <=> $b } @_;
	return 0 unless @sorted;
	return @sorted % 2 ? $sorted[ $#sorted / 2 ] : ($sorted[ @sorted / 2 - 1 ] + $sorted[ @sorted / 2 ]) / 2;
}

# The leader's steady state: the median of its one-second figures from
# SKIP_S on (the first seconds of a run may still be warming connections).
sub steady_rate
{
	my ($leader) = @_;
	my $run = pgbench_rate($leader, $setting{REF_S}, @select_only);
	my @seconds = @{ $run->{per_second} };
	my $skip = $setting{SKIP_S} < @seconds ? $setting{SKIP_S} : 0;
	return median(@seconds[ $skip .. $#seconds ]);
}

# The promoted node's first MEASURE_S seconds, from the moment it accepts
# writes, with the old leader's Patroni held meanwhile.  Returns the
# seconds it took to accept writes and the per-second figures.
sub measure_promotion
{
	my ($candidate, $old_leader) = @_;
	my $waited = wait_for_writes($candidate, 300);
	die "$candidate->{name} never accepted writes\n" unless defined $waited;
	hold_patroni($old_leader);
	my $run = eval { pgbench_rate($candidate, $setting{MEASURE_S}, @select_only) };
	release_patroni($old_leader);
	die $@ unless $run;
	return ($waited, $run->{per_second});
}

# One event on a cluster whose $leader serves and whose $replica streams:
# the replica made cold, the steady state, the event, the measure, the
# rejoin.  Returns the new (leader, replica).
sub run_event
{
	my ($cluster, $variant, $event, $leader, $replica) = @_;
	my $series = "$event, autowarm $variant";
	restart_patroni_cold($replica);
	defined wait_for_streaming($cluster, $leader, $replica, 600)
	  or die "$replica->{name} did not stream again after its cold restart\n";
	my $steady = steady_rate($leader);
	my $gate = '-';
	if ($variant eq 'on')
	{
		# what a planned switchover's gate waits for; after the steady run,
		# so the replica has had the same time as with autowarm off
		my $t0 = time;
		$gate = $replica->safe_psql($cluster->{database},
			"SELECT warm FROM cachectl.wait_warm('$setting{LOAD_WAIT_S} s')") . sprintf(' after %.1f s', time - $t0);
	}
	my $cache = $replica->safe_psql($cluster->{database}, q{
SELECT pg_size_pretty(count(*) * current_setting('block_size')::int8) FROM pg_buffercache
 WHERE relfilenode = pg_relation_filenode('pgbench_accounts')});
	lower_priority($leader);
	my ($waited, $per_second);
	if ($event eq 'switchover')
	{
		my $switch = start_switchover($cluster, $leader->{name}, $replica->{name});
		($waited, $per_second) = measure_promotion($replica, $leader);
		my ($status, $seconds, $output) = finish_switchover($switch);
		die "patronictl switchover failed: $output\n" if $status != 0;
	}
	else
	{
		kill_postmaster($leader);
		($waited, $per_second) = measure_promotion($replica, $leader);
	}
	defined wait_for_leader($cluster, $replica->{name}, 120) or die "Patroni does not show $replica->{name} as the leader\n";
	defined wait_for_streaming($cluster, $replica, $leader, 600) or die "$leader->{name} did not rejoin\n";

	my @first5 = grep { defined } @{$per_second}[ 0 .. 4 ];
	my $first5 = @first5 ? sum(@first5) / @first5 : 0;
	# the first second t whose mean over t, t+1 and t+2 reaches 90 %, as the
	# failover part judges (one second's swing on a shared machine does not
	# decide it)
	my ($t90) = grep {
		my @three = @{$per_second}[ $_ - 1 .. $_ + 1 ];
		(($three[0] + $three[1] + $three[2]) / 3) >= 0.9 * $steady
	} 1 .. @$per_second - 2;
	say_line(sprintf('  %-28s steady %8.0f tps | gate %-16s | pgbench_accounts in shared buffers before: %s',
		$series, $steady, $gate, $cache));
	say_line(sprintf('  %-28s writable %.1f s after the event; first 5 s %.1f %% of steady; 90 %% after %s s',
		'', $waited, 100 * $first5 / $steady, $t90 // "> $setting{MEASURE_S}"));
	say_line('  ' . ' ' x 28 . ' per second: ' . join(' ', map { sprintf '%.0f', $_ } @$per_second));
	for my $s (1 .. @$per_second)
	{
		emit('sample', "patroni_${event}_tps", "autowarm $variant", $s, $per_second->[ $s - 1 ], 'tps');
		emit('sample', "patroni_${event}_tps", "steady state before it (autowarm $variant)", $s, $steady, 'tps');
	}
	emit('sample', 'patroni_first5_share', "autowarm $variant", $event, sprintf('%.1f', 100 * $first5 / $steady), '%');
	emit('sample', 'patroni_seconds_to_90', "autowarm $variant", $event, $t90 // -1, 's');
	emit('sample', 'patroni_writable_after', "autowarm $variant", $event, sprintf('%.1f', $waited), 's');
	return ($replica, $leader);
}

eval { run_variant($_) for split ' ', $setting{PATRONI_VARIANTS}; 1 } or do
{
	print $report "patroni_failover.pl: $@";
	exit 1;
};

sub run_variant
{
	my ($variant) = @_;
	my $dir = "$work/patroni_$variant";
	mkdir $dir or die "could not create $dir: $!\n";
	my $etcd = start_etcd($dir, "$dir/etcd.log");
	my $cluster = patroni_cluster(
		dir => $dir,
		etcd => $etcd,
		scope => "bench_$variant",
		gate_timeout => $variant eq 'on' ? 20 : undef,
		parameters => {
			shared_preload_libraries => 'pg_cachectl,pg_buffercache',
			'cachectl.autowarm' => $variant,
			'cachectl.autowarm_interval' => "$setting{AUTOWARM_INTERVAL}s",
			shared_buffers => $setting{SHARED_BUFFERS},
			max_worker_processes => 16,
			autovacuum => 'off',
		});
	my ($leader, $replica) = map { add_patroni_node($cluster, $_) } qw(node1 node2);
	start_patroni($leader);
	defined wait_for_leader($cluster, 'node1', 120) or die "node1 did not bootstrap\n";
	$leader->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl; CREATE EXTENSION pg_buffercache');
	pgbench_init($leader, $setting{SCALE});
	start_patroni($replica);
	defined wait_for_streaming($cluster, $leader, $replica, 900) or die "node2 was not cloned\n";
	say_line("autowarm $variant: Patroni cluster $cluster->{scope}, scale $setting{SCALE}, shared_buffers $setting{SHARED_BUFFERS}");
	($leader, $replica) = run_event($cluster, $variant, 'switchover', $leader, $replica);
	($leader, $replica) = run_event($cluster, $variant, 'failover', $leader, $replica);
	stop_patroni_cluster($cluster) or say_line("autowarm $variant: a node did not stop cleanly");
}
