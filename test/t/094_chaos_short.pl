# 094_chaos_short.pl
#
# The short version of bench/chaos.sh (issue 40): a three-node Patroni
# cluster (synchronous_mode, data checksums, autowarm on every node as in
# 087) under pgbench and a checker of acknowledged commits, and a fixed list
# of faults with a fixed seed (test/perl/ChaosRun.pm says how each is
# made): kill -9 of the leader's postmaster, kill -9 of an autowarm worker,
# kill -9 of the backend of a running snapshot()/restore(), node3's data
# directory on a full tmpfs for 8 s (as root, where a tmpfs can be mounted; left
# out with a note elsewhere), a switchover while the candidate loads, the
# leader frozen (SIGSTOP) past the leader key's TTL (12 s here) then let
# go, and a database created, renamed and dropped while the workers run.
# Asserted:
# - after each fault, within a deadline, a leader that commits through its
#   synchronous standby, both replicas streaming, every worker idle again;
# - every acknowledged commit on the final leader;
# - amcheck (bt_index_parent_check / bt_index_check, verify_heapam) clean on
#   every node, pg_checksums clean on every stopped node;
# - each node's postmaster starts and crash restarts, from its log, those
#   the faults explain and no more (no crash loop);
# - after each promotion, the new leader holds >= 0.8 of each relation's
#   hot set the old leader recorded; the frozen leader does not take the
#   lead back when it wakes (Patroni 3.0.2's etcd3 client let it: Patroni
#   speaks etcd's v2 API here);
# - every autowarm failure counted, and every worker exit the postmasters
#   logged, is one its fault explains.
# What it asserts does not depend on timing: each state is polled with a
# deadline.
# tap: runs alone
# tap: make test-all only
# tap: starts as root
use strict;
use warnings;

use CachectlRootFixture qw(run_as_root unmount);

# The tmpfs for node3's data directory, mounted as root before the test
# drops to postgres; a tmpfs that cannot be mounted leaves the fault out.
my $tmpfs;

sub set_up
{
	$tmpfs = File::Temp::tempdir('cachectl-chaos-tmpfs.XXXXXX', TMPDIR => 1);
	my (undef, undef, $uid, $gid) = getpwnam('postgres');
	my ($status, $output) = run_as_root('mount', '-t', 'tmpfs', '-o', "size=1024m,mode=0700,uid=$uid,gid=$gid",
		'cachectl-chaos', $tmpfs);
	if ($status != 0)
	{
		$ENV{CHAOS_TMPFS_NOTE} = "mount of a tmpfs failed: $output";
		rmdir $tmpfs;
		undef $tmpfs;
		return undef;
	}
	$ENV{CHAOS_TMPFS} = $tmpfs;
	return undef;
}

sub tear_down
{
	return unless $tmpfs;
	unmount($tmpfs);
	rmdir $tmpfs;
	return;
}

BEGIN
{
	if ($> == 0)
	{
		require File::Temp;
		CachectlRootFixture::run_as_postgres(\&set_up, \&tear_down, 'a tmpfs');
	}
	else
	{
		$ENV{CHAOS_TMPFS_NOTE} = 'not root: no tmpfs can be mounted';
	}
}

use PostgreSQL::Test::Utils;
use Test::More;
use ChaosRun qw(run_chaos summary_lines restarts_in_log);
use PatroniTest qw(stop_everything);

plan skip_all => 'Patroni or etcd is not installed'
  unless -x '/usr/bin/patroni' && -x '/usr/bin/patronictl' && -x '/usr/bin/etcd';
# as in 087: Debian 12's Patroni 3.0.2 knows PostgreSQL up to 15
my ($major) = `pg_config --version` =~ /PostgreSQL (\d+)/;
plan skip_all => "PostgreSQL $major: Debian 12's Patroni 3.0.2 supports 15 at most (CACHECTL_PATRONI_ANY_MAJOR=1 runs it)"
  if defined $major && $major > 15 && !$ENV{CACHECTL_PATRONI_ANY_MAJOR};

END
{
	local $?;
	stop_everything();
}

# The log reading the crash-loop check rests on.  A 30-minute run counted 0
# starts for a killed leader: Patroni's postgres --single (crash recovery
# before pg_rewind) leaves its prompt "backend> " without a newline, and
# the next postmaster's "starting PostgreSQL" line came glued to it.
{
	my $log = PostgreSQL::Test::Utils::tempdir('chaos_log') . '/server.log';
	open(my $file, '>', $log) or die "cannot write $log: $!";
	print $file <<'LOG';
2026-12-07 03:05:57.688 UTC [27332] LOG:  starting PostgreSQL 15.18 on x86_64-pc-linux-gnu
2026-12-07 03:07:15.543 UTC [27332] LOG:  all server processes terminated; reinitializing
2026-12-07 03:12:17.342 UTC [19420] FATAL:  terminating connection due to unexpected postmaster exit
backend> 2026-12-07 03:12:23.189 UTC [23211] LOG:  starting PostgreSQL 15.18 on x86_64-pc-linux-gnu
backend> backend> 2026-12-07 03:28:03.899 UTC [26589] LOG:  starting PostgreSQL 15.18 on x86_64-pc-linux-gnu
LOG
	close($file);
	my $moments = restarts_in_log({ logfile => $log });
	is(scalar @{ $moments->{starts} }, 3, "the server log's postmaster starts are all counted, those glued to single-user mode's prompt too");
	is(scalar @{ $moments->{crashes} }, 1, "the server log's crash restart is counted");
}

my @faults = qw(leader_kill worker_kill call_kill tmpfs_full switchover_loading leader_stop database_ddl);
my $result = run_chaos(
	dir => PostgreSQL::Test::Utils::tempdir('chaos'),
	log_dir => $PostgreSQL::Test::Utils::log_path,
	log_tag => '094_chaos_',
	minutes => 4,
	seed => 40,
	# shorter than the bench's: quiet, the freeze, the full tmpfs, the loads
	pause => [ 0.5, 1.5 ],
	ttl => 12,
	full_seconds => 8,
	load_mb_per_sec => 40,
	scale => 3,
	faults => \@faults,
	tmpfs => $ENV{CHAOS_TMPFS},
	tmpfs_note => $ENV{CHAOS_TMPFS_NOTE},
	say => sub { note($_[0]) });
note($_) for summary_lines($result);

is($result->{error}, undef, 'the run went to the end');
for my $kind (@faults)
{
	my ($fault) = grep { $_->{kind} eq $kind } @{ $result->{faults} };
  SKIP:
	{
		skip("$kind left out: $ENV{CHAOS_TMPFS_NOTE}", 2) if $kind eq 'tmpfs_full' && !$ENV{CHAOS_TMPFS};
		ok($fault && !$fault->{not_injected}, "$kind: injected" . ($fault ? " ($fault->{detail})" : ''));
		ok($fault && defined $fault->{idle_seconds},
			"$kind: the cluster recovered and every worker is idle again within the deadline");
	}
}
is(scalar @{ $result->{lost} // ['never counted'] }, 0,
	'every acknowledged commit (' . ($result->{acknowledged} // 0) . ') is on the final leader');
cmp_ok($result->{acknowledged} // 0, '>', 0, 'the checker had commits acknowledged');
is_deeply($result->{amcheck_problems}, [], 'amcheck is clean on every node');
is_deeply($result->{checksum_problems}, [], 'pg_checksums is clean on every stopped node');
is_deeply($result->{restart_problems}, [], 'each node restarted only as its faults explain (no crash loop)');
# Patroni 3.0.2's etcd3 client let a leader that woke from a freeze take the
# key back from the node promoted meanwhile, which was rewound: acknowledged
# commits lost (bench/README.md, "chaos.sh").  Through the v2 API it must
# not.
my ($frozen) = grep { $_->{kind} eq 'leader_stop' } @{ $result->{faults} };
ok($frozen && $frozen->{promotion} && $frozen->{promotion}{to} ne $frozen->{node},
	'leader_stop: the frozen leader did not take the lead back when it woke'
	  . ($frozen && $frozen->{promotion} ? " ($frozen->{promotion}{from} -> $frozen->{promotion}{to})" : ''));
for my $kind (qw(leader_kill switchover_loading leader_stop))
{
	my ($fault) = grep { $_->{kind} eq $kind } @{ $result->{faults} };
	my $shares = $fault && $fault->{promotion} ? $fault->{promotion}{shares} : {};
	my @low = grep { $shares->{$_} < $ChaosRun::share_goal } sort keys %$shares;
	ok(%$shares && !@low, "$kind: the new leader holds >= $ChaosRun::share_goal of each relation the old one recorded"
		  . (@low ? ' (not: ' . join(', ', map { sprintf('%s %.2f', $_, $shares->{$_}) } @low) . ')' : ''));
}
my @unexplained = grep { !$_->{explained} } map { @{ $_->{failures} } } @{ $result->{faults} };
is_deeply([ map { "$_->{node}/$_->{database}: $_->{error}" } @unexplained ], [],
	'every autowarm failure is explained by its fault');
is_deeply($result->{unexplained_worker_exits}, [],
	'every autowarm worker exit in the logs is one its fault explains (no crash of its own)');
ok($result->{stopped_cleanly}, 'the cluster stopped cleanly');

done_testing();
