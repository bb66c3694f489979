# ChaosRun.pm — random faults across a three-node Patroni cluster under
# write load, and the checks at the end (issue 40): what bench/chaos.sh
# (through bench/chaos.pl) and test/t/094_chaos_short.pl share.
#
# The cluster: one etcd, three Patroni nodes on loopback (PatroniTest.pm),
# data checksums from Patroni's bootstrap initdb, synchronous_mode in the
# DCS, autowarm on every node as in 087 (the worker every 2 s, the
# pre_promote gate asking wait_warm), loads throttled to
# cachectl.autowarm_max_mb_per_sec so that a load lasts long enough to be
# caught by a switchover.  Optionally node3's data directory lies on a
# size-limited tmpfs the caller mounted (needs root).
#
# The load: pgbench (TPC-B, rate-limited) and a checker that inserts
# sequence numbers one transaction at a time and records each whose COMMIT
# returned; both reach the leader through a multi-host connection string
# (target_session_attrs=read-write) and reconnect after every fault.
#
# The faults (fault_kinds()): each one is injected, then the cluster is
# waited for (a deadline) until healthy again — a leader that commits a
# write through the synchronous standby, both replicas streaming, every
# node's autowarm worker waiting for its next step — and one line per fault
# is reported.  At the end: the checker's acknowledged commits against the
# final leader, amcheck on every node, pg_checksums on the stopped nodes,
# the postmaster restarts each node's log shows against those the faults
# explain, the hot-set share of each promoted leader, and every autowarm
# failure (the status view's count) and worker exit (the postmasters' logs)
# matched to the fault that explains it.
#
# Nothing here asserts: run_chaos() returns what it found; the TAP file
# asserts it, the bench prints it and exits non-zero on a missed goal.
package ChaosRun;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use List::Util qw(max min sum0);
use POSIX ();
use Time::HiRes qw(time sleep);
use CachectlRootFixture qw(fill_until_full);
use DetachedProcess qw(spawn_detached);
use PatroniTest qw(start_etcd patroni_cluster add_patroni_node start_patroni patronictl patroni_members
  leader_name sync_standby_name wait_until wait_for_leader wait_for_streaming start_switchover finish_switchover
  kill_postmaster postmaster_running pgbench_init stop_patroni_cluster);

our @EXPORT_OK = qw(run_chaos fault_kinds summary_lines restarts_in_log);

my $bin_dir = do
{
	my $dir = `pg_config --bindir`;
	chomp $dir;
	$dir ne '' ? $dir : '/usr/lib/postgresql/15/bin';
};

# A fault's recovery (and its worker's return to idle) must come within
# this; a cluster that misses it ends the schedule.
my $recovery_deadline = 240;
# The share of each relation's recorded hot set a promoted leader must hold
# after its load.
our $share_goal = 0.8;

# ---- reporting ----

sub report
{
	my ($chaos, $line) = @_;
	$chaos->{say}->($line);
	return;
}

# ---- the cluster ----

sub start_cluster
{
	my ($chaos) = @_;
	my $tag = $chaos->{log_tag};
	my $etcd = start_etcd($chaos->{dir}, "$chaos->{log_dir}/${tag}etcd.log", v2 => $chaos->{dcs_api} eq 'etcd');
	my $cluster = patroni_cluster(
		dir => $chaos->{dir},
		etcd => $etcd,
		scope => 'cachectlchaos',
		log_dir => $chaos->{log_dir},
		log_tag => $tag,
		gate_timeout => 20,
		initdb => ['data-checksums'],
		dcs_api => $chaos->{dcs_api},
		dcs => { synchronous_mode => 'true', ttl => $chaos->{ttl} },
		parameters => {
			shared_preload_libraries => 'pg_cachectl',
			'cachectl.autowarm' => 'on',
			'cachectl.autowarm_interval' => '2s',
			# a load of the hot set takes seconds, long enough for a
			# switchover to meet it
			'cachectl.autowarm_max_mb_per_sec' => $chaos->{load_mb_per_sec},
			shared_buffers => '128MB',
			max_worker_processes => 16,
			# WAL stays small: node3's data directory may be a tmpfs
			max_wal_size => '128MB',
			min_wal_size => '32MB',
			log_min_messages => 'log',
		});
	my %nodes;
	for my $name (qw(node1 node2 node3))
	{
		my %options;
		$options{data_dir} = "$chaos->{tmpfs}/data" if $name eq 'node3' && $chaos->{tmpfs};
		$nodes{$name} = add_patroni_node($cluster, $name, %options);
	}
	$chaos->{cluster} = $cluster;
	$chaos->{nodes} = \%nodes;

	start_patroni($nodes{node1});
	defined wait_for_leader($cluster, 'node1', 120) or die "node1 did not bootstrap as the leader\n";
	prepare_database($chaos, $nodes{node1});
	# both replicas clone at once
	start_patroni($nodes{$_}) for qw(node2 node3);
	for my $name (qw(node2 node3))
	{
		defined wait_for_streaming($cluster, $nodes{node1}, $nodes{$name}, 180)
		  or die "$name did not stream from node1\n";
	}
	# the hot set recorded before any fault: a first fault that promotes
	# must have something to measure the new leader against (make test-all
	# once killed the leader before its worker's first snapshot)
	defined wait_until($recovery_deadline, sub { scalar(keys %{ recorded_hot_set($nodes{node1}) }) > 0 })
	  or die "node1's worker recorded no hot set after the cluster started\n";
	defined wait_until($recovery_deadline, sub { all_idle($chaos) })
	  or die "the autowarm workers did not settle after the cluster started\n";
	return;
}

# The extension, amcheck, pgbench's tables, the checker's table, a table
# the health check writes to and a function that runs amcheck over the
# database where it is called (primary or standby).
sub prepare_database
{
	my ($chaos, $leader) = @_;
	$leader->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl; CREATE EXTENSION amcheck');
	pgbench_init($leader, $chaos->{scale});
	$leader->safe_psql('postgres', q{
CREATE TABLE chaos_acks (n int8 PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
CREATE TABLE chaos_health (id int PRIMARY KEY, at timestamptz);
INSERT INTO chaos_health VALUES (1, now());
-- Every btree index (bt_index_parent_check on a primary; a standby cannot
-- take its ShareLock, so bt_index_check with heapallindexed there) and
-- every table's heap (verify_heapam): one row per problem.
CREATE FUNCTION chaos_amcheck(OUT relation text, OUT problem text) RETURNS SETOF record
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    v record;
BEGIN
    FOR r IN SELECT c.oid, c.oid::regclass::text AS name FROM pg_class c JOIN pg_am a ON a.oid = c.relam
              WHERE c.relkind = 'i' AND a.amname = 'btree' AND c.relpersistence = 'p' LOOP
        BEGIN
            IF pg_is_in_recovery() THEN
                PERFORM bt_index_check(r.oid, true);
            ELSE
                PERFORM bt_index_parent_check(r.oid, true);
            END IF;
        EXCEPTION WHEN OTHERS THEN
            relation := r.name; problem := SQLERRM; RETURN NEXT;
        END;
    END LOOP;
    FOR r IN SELECT c.oid, c.oid::regclass::text AS name FROM pg_class c
              WHERE c.relkind IN ('r', 'm', 't') AND c.relpersistence = 'p' LOOP
        BEGIN
            FOR v IN SELECT * FROM verify_heapam(r.oid) LOOP
                relation := r.name; problem := format('block %s offset %s: %s', v.blkno, v.offnum, v.msg);
                RETURN NEXT;
            END LOOP;
        EXCEPTION WHEN OTHERS THEN
            relation := r.name; problem := SQLERRM; RETURN NEXT;
        END;
    END LOOP;
END $$;
});
	return;
}

# A connection string that finds whichever node accepts writes.
sub leader_conninfo
{
	my ($chaos) = @_;
	my @nodes = map { $chaos->{nodes}{$_} } sort keys %{ $chaos->{nodes} };
	return 'host=' . join(',', map { '127.0.0.1' } @nodes) . ' port=' . join(',', map { $_->{port} } @nodes)
	  . ' user=postgres dbname=postgres target_session_attrs=read-write connect_timeout=3';
}

# ---- the load ----

# pgbench in a loop (each run ends when a fault takes its leader), and the
# checker: one INSERT per psql, its number appended to the acknowledged
# file only when psql returned success (the COMMIT came back).  Both in
# sessions of their own, ended by stop_load().
sub start_load
{
	my ($chaos) = @_;
	my $conninfo = leader_conninfo($chaos);
	my %env = (PATH => "$bin_dir:/usr/bin:/bin");
	$chaos->{acked_file} = "$chaos->{log_dir}/$chaos->{log_tag}acknowledged.txt";
	open(my $truncate, '>', $chaos->{acked_file}) or die "could not create $chaos->{acked_file}: $!";
	close($truncate);
	$chaos->{writer_pid} = spawn_detached(
		"$chaos->{log_dir}/$chaos->{log_tag}pgbench.log", \%env,
		'bash', '-c', qq{while :; do pgbench -n -T 60 -c 2 -j 1 -R 100 '$conninfo'; sleep 1; done});
	$chaos->{checker_pid} = spawn_detached(
		"$chaos->{log_dir}/$chaos->{log_tag}checker.log", \%env,
		'bash', '-c', qq{n=0
while :; do
    n=\$((n + 1))
    if timeout 60 psql -X -q -v ON_ERROR_STOP=1 '$conninfo' -c "INSERT INTO chaos_acks (n) VALUES (\$n)" >/dev/null; then
        echo \$n >>'$chaos->{acked_file}'
    fi
    sleep 0.05
done});
	return;
}

sub stop_load
{
	my ($chaos) = @_;
	for my $key (qw(writer_pid checker_pid))
	{
		my $pid = delete $chaos->{$key} or next;
		kill 'TERM', -$pid;
		waitpid($pid, 0);
	}
	return;
}

# ---- health ----

# The leader commits a write that its synchronous standby confirmed (a
# cancelled wait for it commits locally and only warns: not healthy).
sub leader_commits
{
	my ($chaos, $leader) = @_;
	my ($status, undef, $err) = $leader->psql('postgres',
		"SET statement_timeout = '5s'; UPDATE chaos_health SET at = now() WHERE id = 1");
	return $status == 0 && $err !~ /synchronous replication/;
}

# Both other nodes stream from the leader and Patroni shows them running.
sub replicas_stream
{
	my ($chaos, $leader) = @_;
	my @others = grep { $_ ne $leader->{name} } keys %{ $chaos->{nodes} };
	my $list = join(',', map { "'$_'" } @others);
	my $streaming = $leader->query(
		"SELECT count(*) FROM pg_stat_replication WHERE application_name IN ($list) AND state = 'streaming'") // 0;
	return 0 unless $streaming == @others;
	my $members = patroni_members($chaos->{cluster});
	for my $name (@others)
	{
		my $member = $members->{$name} // {};
		return 0 unless ($member->{State} // '') eq 'running'
		  && ($member->{Role} // '') =~ /^(Replica|Sync Standby)$/;
	}
	return 1;
}

# A leader that commits through its synchronous standby and two replicas
# streaming: the leader's node, or undef.
sub healthy_leader
{
	my ($chaos) = @_;
	my $name = leader_name($chaos->{cluster}) // return undef;
	my $leader = $chaos->{nodes}{$name};
	return undef unless ($leader->query('SELECT NOT pg_is_in_recovery()') // '') eq 't';
	return undef unless replicas_stream($chaos, $leader) && leader_commits($chaos, $leader);
	return $leader;
}

# Every database's worker on the node waits for its next step: idle on a
# primary, following (waiting for the next snapshot) on a standby.  Not
# starting, loading, recording or failed.
sub node_idle
{
	my ($node) = @_;
	my $row = $node->query(q{
SELECT count(*) > 0 AND bool_and(pid IS NOT NULL
       AND state = CASE WHEN pg_is_in_recovery() THEN 'following' ELSE 'idle' END)
  FROM cachectl.autowarm_status});
	return ($row // '') eq 't';
}

sub all_idle
{
	my ($chaos) = @_;
	for my $node (values %{ $chaos->{nodes} })
	{
		return 0 unless node_idle($node);
	}
	return 1;
}

# Waits for a healthy cluster, then for every worker to be idle; returns the
# seconds to each from $since (undef for one not reached by the deadline).
sub wait_for_recovery
{
	my ($chaos, $since) = @_;
	my $healthy = wait_until($recovery_deadline, sub { defined healthy_leader($chaos) });
	return (undef, undef) unless defined $healthy;
	my $recovered = time - $since;
	my $idle = wait_until($recovery_deadline, sub { all_idle($chaos) });
	return ($recovered, defined $idle ? time - $since : undef);
}

# ---- what the faults need ----

sub pick
{
	my (@choices) = @_;
	return $choices[ int(rand(@choices)) ];
}

sub current_leader
{
	my ($chaos) = @_;
	my $name = leader_name($chaos->{cluster}) // die "no leader before the fault\n";
	return $chaos->{nodes}{$name};
}

sub replicas
{
	my ($chaos, $leader) = @_;
	return map { $chaos->{nodes}{$_} } grep { $_ ne $leader->{name} } sort keys %{ $chaos->{nodes} };
}

# The hot set the leader recorded last: per relation of the postgres
# database, the rows of its autowarm snapshot's shared layer (fork and
# block ranges as text).
sub recorded_hot_set
{
	my ($leader) = @_;
	my $rows = $leader->safe_psql('postgres', q{
SELECT relation_name, fork, blocks::text FROM cachectl.snapshot
 WHERE label = 'autowarm' AND layer = 'shared' AND block_count > 0});
	my %hot;
	for my $row (split /\n/, $rows)
	{
		my ($relation, $fork, $blocks) = split /\|/, $row;
		push @{ $hot{$relation} }, { fork => $fork, blocks => $blocks };
	}
	return \%hot;
}

# Of each relation's recorded blocks, the share in the node's shared
# buffers now (relations gone meanwhile are left out).
sub hot_set_shares
{
	my ($node, $hot) = @_;
	my %share;
	for my $relation (sort keys %$hot)
	{
		my ($recorded, $present) = (0, 0);
		for my $part (@{ $hot->{$relation} })
		{
			my $row = $node->query(qq{
WITH resident AS (
    SELECT range_agg(int8range(first_block, first_block + block_count)) AS runs
      FROM cachectl_internal.shared_block_runs(ARRAY[to_regclass('$relation')])
     WHERE fork = '$part->{fork}')
SELECT (SELECT sum(upper(x) - lower(x)) FROM unnest('$part->{blocks}'::int8multirange) AS x),
       COALESCE((SELECT sum(upper(x) - lower(x))
                   FROM unnest('$part->{blocks}'::int8multirange * COALESCE(runs, '{}')) AS x), 0)
  FROM resident WHERE to_regclass('$relation') IS NOT NULL}) // '';
			next unless $row =~ /^(\d+)\|(\d+)$/;
			$recorded += $1;
			$present += $2;
		}
		$share{$relation} = $present / $recorded if $recorded > 0;
	}
	return \%share;
}

# The process group of a process (field 5 of /proc/PID/stat).
sub process_group
{
	my ($pid) = @_;
	open(my $file, '<', "/proc/$pid/stat") or return undef;
	my $stat = <$file>;
	close($file);
	my ($after_name) = $stat =~ /\) (.*)$/ or return undef;
	return (split / /, $after_name)[2];
}

# SIGSTOP or SIGCONT to a whole node: its Patroni's process group and its
# postmaster's (Patroni starts the postmaster in a session of its own).
sub signal_node
{
	my ($node, $signal) = @_;
	my @groups = ($node->{patroni_pid});
	my $postmaster = postmaster_running($node);
	push @groups, process_group($postmaster) // $postmaster if $postmaster;
	kill $signal, map { -$_ } @groups;
	return;
}

# Whether $pid is a client backend of the cluster (its title names the
# scope and the postgres user).
sub backend_of
{
	my ($pid, $cluster) = @_;
	open(my $file, '<', "/proc/$pid/cmdline") or return 0;
	my $title = do { local $/; <$file> } // '';
	close($file);
	return index($title, "postgres: $cluster->{scope}: postgres postgres") == 0;
}

# The pid of the node's autowarm worker of the postgres database.
sub autowarm_worker_pid
{
	my ($node) = @_;
	return $node->query(q{SELECT pid FROM cachectl.autowarm_status WHERE database = 'postgres' AND pid IS NOT NULL});
}

# ---- the faults ----
#
# Each takes ($chaos) and returns a hash: node (where it struck), detail,
# restarts (per node name, the postmaster starts and crash restarts the
# fault explains: {starts => [min, max], crashes => [min, max]}),
# promotion_from (the old leader's recorded hot set, when the fault moves the
# leader) and error_pattern (the autowarm failures it explains).

my $crash_message = qr/terminat|shut ?down|connection|recovery|server closed|conflict/i;

# kill -9 of the leader's postmaster: Patroni promotes the synchronous
# standby (primary_start_timeout 0) and the old leader rejoins (pg_rewind).
sub fault_leader_kill
{
	my ($chaos) = @_;
	my $leader = current_leader($chaos);
	my $hot = recorded_hot_set($leader);
	kill_postmaster($leader);
	return {
		node => $leader->{name},
		detail => 'kill -9 of the postmaster',
		promotion_from => { node => $leader->{name}, hot => $hot },
		restarts => { $leader->{name} => { starts => [ 1, 2 ], crashes => [ 0, 0 ] } },
		error_pattern => $crash_message };
}

# The whole leader frozen (SIGSTOP) past the leader key's TTL, then let go:
# Patroni promotes the synchronous standby, the old leader is demoted when
# it wakes.
sub fault_leader_stop
{
	my ($chaos) = @_;
	my $leader = current_leader($chaos);
	my $hot = recorded_hot_set($leader);
	my $ttl = $chaos->{ttl};
	my $held = $ttl + 10;
	signal_node($leader, 'STOP');
	sleep($held);
	signal_node($leader, 'CONT');
	return {
		node => $leader->{name},
		detail => "SIGSTOP for $held s (TTL $ttl s), then SIGCONT",
		promotion_from => { node => $leader->{name}, hot => $hot },
		restarts => { $leader->{name} => { starts => [ 0, 2 ], crashes => [ 0, 0 ] } },
		error_pattern => $crash_message };
}

# kill -9 of a node's autowarm worker, half the time on a replica while it
# loads (its shared buffers emptied first, so that the next snapshot's load
# has work): the postmaster restarts every server process (a crash restart
# in place).
sub fault_worker_kill
{
	my ($chaos) = @_;
	my $node = pick(map { $chaos->{nodes}{$_} } sort keys %{ $chaos->{nodes} });
	my $when = '';
	if ($node != current_leader($chaos) && rand() < 0.5)
	{
		$node->safe_psql('postgres', 'SELECT cachectl.evict_all()');
		my $loading = wait_until(30, sub {
			($node->query(q{SELECT state FROM cachectl.autowarm_status WHERE database = 'postgres'}) // '') eq 'loading' });
		$when = defined $loading ? ', while it loaded' : ', NOT SEEN LOADING in 30 s';
	}
	my $pid = autowarm_worker_pid($node) or die "$node->{name} has no autowarm worker to kill\n";
	kill 'KILL', $pid;
	return {
		node => $node->{name},
		detail => "kill -9 of the autowarm worker (pid $pid$when)",
		restarts => { $node->{name} => { starts => [ 0, 0 ], crashes => [ 1, 1 ] } },
		error_pattern => $crash_message };
}

# kill -9 of the backend of a running cachectl.snapshot() (on the leader) or
# cachectl.restore() (any node; throttled to 1 MB/s after pgbench_accounts
# left shared buffers and the OS page cache, so that it runs long enough to
# be caught).
sub fault_call_kill
{
	my ($chaos) = @_;
	my $leader = current_leader($chaos);
	my $node = pick(map { $chaos->{nodes}{$_} } sort keys %{ $chaos->{nodes} });
	my $call = $node == $leader && rand() < 0.5 ? 'snapshot' : 'restore';
	for my $attempt (1 .. 20)
	{
		my $sql = $call eq 'snapshot'
		  ? "SELECT * FROM cachectl.snapshot('chaos')"
		  : "SELECT count(*) FROM cachectl.evict('pgbench_accounts'); SELECT count(*) FROM cachectl.os_drop('pgbench_accounts');"
		  . " CALL cachectl.restore('autowarm', 'both', 1)";
		my ($out, $err) = ('', '');
		local $ENV{PGAPPNAME} = 'chaos call';
		my $handle = IPC::Run::start(
			[ "$bin_dir/psql", '-X', '-h', '127.0.0.1', '-p', $node->{port}, '-U', 'postgres', '-d', 'postgres', '-c', $sql ],
			'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(300));
		my $pid;
		my $deadline = time + 30;
		while (time < $deadline && $handle->pumpable)
		{
			# (this query runs under the same application_name)
			$pid = $node->query(q{SELECT pid FROM pg_stat_activity WHERE application_name = 'chaos call'
  AND state = 'active' AND pid <> pg_backend_pid() AND query ~ 'cachectl\.(snapshot|restore)'});
			last if $pid;
			$handle->pump_nb;
			sleep(0.01);
		}
		# the call may have ended (and its pid gone) since it was seen
		if ($pid && backend_of($pid, $chaos->{cluster}) && kill('KILL', $pid))
		{
			eval { $handle->finish };
			return {
				node => $node->{name},
				detail => "kill -9 of the backend of cachectl.$call() (pid $pid, attempt $attempt)",
				restarts => { $node->{name} => { starts => [ 0, 0 ], crashes => [ 1, 1 ] } },
				error_pattern => $crash_message };
		}
		# not caught: the call is cancelled, not waited for
		$node->query(q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'chaos call'});
		eval { $handle->finish };
	}
	die "cachectl.$call() on $node->{name} never ran long enough to be killed\n";
}

# A replica's data directory on a small tmpfs filled up (the WAL it
# receives and the snapshot rows it replays no longer fit) for a while,
# then the room given back.  Node3's is the one on the tmpfs: when it leads,
# a switchover to the synchronous standby comes first.
sub fault_tmpfs_full
{
	my ($chaos) = @_;
	my $node = $chaos->{nodes}{node3};
	my $moved = '';
	if (current_leader($chaos) == $node)
	{
		my $sync = sync_standby_name($chaos->{cluster}) // die "no synchronous standby to move node3's lead to\n";
		my ($status, undef, $out) = finish_switchover(start_switchover($chaos->{cluster}, 'node3', $sync));
		die "patronictl switchover from node3 failed ($status): $out\n" if $status != 0;
		my ($recovered) = wait_for_recovery($chaos, time);
		die "the cluster did not recover from the switchover off node3\n" unless defined $recovered;
		$moved = " (after a switchover from node3 to $sync)";
	}
	my $filler = "$chaos->{tmpfs}/filler";
	my $written = fill_until_full($filler);
	sleep($chaos->{full_seconds});
	unlink $filler or die "could not remove $filler: $!";
	return {
		node => $node->{name},
		detail => sprintf('tmpfs full for %d s (%d MB of filler)%s', $chaos->{full_seconds}, $written / 1048576, $moved),
		# While full, its startup process fails at each write (FATAL) and
		# Patroni starts it again and again: those starts are the fault's;
		# after the room is back, one more start at most.
		unbounded_until => time,
		restarts => { $node->{name} => { starts => [ 0, 1 ], crashes => [ 0, 1 ] } },
		error_pattern => qr/space|could not (write|extend|create)|$crash_message/i };
}

# patronictl switchover to the synchronous standby while its worker loads
# (its shared buffers were emptied, so the next snapshot's load has work;
# the pre_promote gate waits for it).
sub fault_switchover_loading
{
	my ($chaos) = @_;
	my $leader = current_leader($chaos);
	my $name = sync_standby_name($chaos->{cluster}) // die "no synchronous standby to switch over to\n";
	my $candidate = $chaos->{nodes}{$name};
	my $hot = recorded_hot_set($leader);
	$candidate->safe_psql('postgres', 'SELECT cachectl.evict_all()');
	my $loading = wait_until(30, sub {
		($candidate->query(q{SELECT state FROM cachectl.autowarm_status WHERE database = 'postgres'}) // '') eq 'loading' });
	my $run = start_switchover($chaos->{cluster}, $leader->{name}, $name);
	my ($status, $seconds, $out) = finish_switchover($run);
	die "patronictl switchover to $name failed ($status): $out\n" if $status != 0;
	return {
		node => $name,
		detail => sprintf('switchover from %s, candidate %s', $leader->{name},
			defined $loading ? 'loading' : 'NOT SEEN LOADING in 30 s'),
		seen_loading => defined $loading,
		promotion_from => { node => $leader->{name}, hot => $hot },
		restarts => { $leader->{name} => { starts => [ 1, 1 ], crashes => [ 0, 0 ] } },
		error_pattern => $crash_message };
}

# A replica's PostgreSQL restarted by Patroni while it follows.
sub fault_replica_restart
{
	my ($chaos) = @_;
	my $replica = pick(replicas($chaos, current_leader($chaos)));
	my ($status, $out, $err) = patronictl($chaos->{cluster}, 'restart', $chaos->{cluster}{scope}, $replica->{name}, '--force');
	die "patronictl restart of $replica->{name} failed ($status): $out$err\n" if $status != 0;
	return {
		node => $replica->{name},
		detail => 'patronictl restart',
		restarts => { $replica->{name} => { starts => [ 1, 1 ], crashes => [ 0, 0 ] } },
		error_pattern => $crash_message };
}

# Runs $sql on the leader until it succeeds (a worker still connected makes
# RENAME and DROP wait); returns the attempts and the last error.
sub retry_on_leader
{
	my ($leader, $sql, $seconds) = @_;
	my ($attempts, $error) = (0, '');
	my $done = wait_until($seconds, sub {
		$attempts++;
		my ($status, undef, $err) = $leader->psql('postgres', $sql);
		$error = $err if $status != 0;
		return $status == 0;
	});
	die "on $leader->{name}, \"$sql\" failed for $seconds s ($attempts attempts): $error\n" unless defined $done;
	return ($attempts, $error);
}

# A database with the extension created (its workers start on every
# node), renamed and dropped while they run.
sub fault_database_ddl
{
	my ($chaos) = @_;
	my $leader = current_leader($chaos);
	my $name = 'chaos_db_' . ++$chaos->{databases_made};
	$leader->safe_psql('postgres', "CREATE DATABASE $name");
	$leader->safe_psql($name, 'CREATE EXTENSION pg_cachectl; CREATE TABLE t AS SELECT g FROM generate_series(1, 10000) g');
	my $started = wait_until(60, sub {
		for my $node (values %{ $chaos->{nodes} })
		{
			return 0 unless ($node->query(
				"SELECT count(*) FROM cachectl.autowarm_status WHERE database = '$name' AND pid IS NOT NULL") // 0) == 1;
		}
		return 1;
	});
	my ($renames, $rename_error) = retry_on_leader($leader, "ALTER DATABASE $name RENAME TO ${name}_renamed", 60);
	my ($drops, $drop_error) = retry_on_leader($leader, "DROP DATABASE ${name}_renamed", 60);
	return {
		node => $leader->{name},
		detail => sprintf('%s: workers %s; rename in %d attempt(s)%s; drop in %d attempt(s)%s', $name,
			defined $started ? 'started on every node' : 'NOT started on every node in 60 s',
			$renames, $renames > 1 ? " (last error: " . first_line($rename_error) . ")" : '',
			$drops, $drops > 1 ? " (last error: " . first_line($drop_error) . ")" : ''),
		workers_started => defined $started,
		ddl_attempts => $renames + $drops,
		restarts => {},
		error_pattern => qr/database|terminat|recovery|conflict/i };
}

sub first_line
{
	my ($text) = @_;
	($text) = split /\n/, $text // '';
	return $text // '';
}

my %faults = (
	leader_kill => \&fault_leader_kill,
	leader_stop => \&fault_leader_stop,
	worker_kill => \&fault_worker_kill,
	call_kill => \&fault_call_kill,
	tmpfs_full => \&fault_tmpfs_full,
	switchover_loading => \&fault_switchover_loading,
	replica_restart => \&fault_replica_restart,
	database_ddl => \&fault_database_ddl,);

sub fault_kinds { return sort keys %faults }

# Whether the fault can strike (the tmpfs one needs the tmpfs).
sub fault_possible
{
	my ($chaos, $kind) = @_;
	return 1 unless $kind eq 'tmpfs_full';
	return $chaos->{tmpfs} ? 1 : 0;
}

# ---- the autowarm failures ----

# Per node, per database: failures and last_error.
sub autowarm_failures
{
	my ($chaos) = @_;
	my %seen;
	for my $node (values %{ $chaos->{nodes} })
	{
		my $rows = $node->query(q{SELECT database, failures, COALESCE(last_error, '') FROM cachectl.autowarm_status}) // '';
		for my $row (split /\n/, $rows)
		{
			my ($database, $failures, $error) = split /\|/, $row, 3;
			$seen{ $node->{name} }{$database} = { failures => $failures, error => $error };
		}
	}
	return \%seen;
}

# The failures counted since $before, each with the fault's explanation or
# not: a list of hashes (node, database, added, error, explained).
sub new_failures
{
	my ($before, $after, $fault) = @_;
	my @found;
	for my $node (sort keys %$after)
	{
		for my $database (sort keys %{ $after->{$node} })
		{
			my $now = $after->{$node}{$database};
			my $then = $before->{$node}{$database} // { failures => 0 };
			# a crash restart starts the count again
			my $added = $now->{failures} >= $then->{failures} ? $now->{failures} - $then->{failures} : $now->{failures};
			next unless $added > 0;
			push @found, {
				node => $node,
				database => $database,
				added => $added,
				error => $now->{error},
				explained => $now->{error} =~ $fault->{error_pattern} ? 1 : 0 };
		}
	}
	return @found;
}

# ---- postmaster restarts from the logs ----

# The moments (epoch seconds) each node's PostgreSQL log shows a postmaster
# start and a crash restart (every server process ended and started again).
sub restarts_in_log
{
	my ($node) = @_;
	my %moments = (starts => [], crashes => []);
	open(my $file, '<', $node->{logfile}) or return \%moments;
	while (my $line = <$file>)
	{
		my $stamp = log_line_stamp($line) // next;
		my $kind = $line =~ /LOG:  starting PostgreSQL/ ? 'starts'
		  : $line =~ /LOG:  all server processes terminated; reinitializing/ ? 'crashes'
		  : next;
		push @{ $moments{$kind} }, log_epoch($stamp);
	}
	close($file);
	return \%moments;
}

# The %m stamp a server log line starts with, or undef.  Patroni runs
# postgres --single for crash recovery before pg_rewind: its prompt,
# "backend> ", ends without a newline, so the next postmaster's first line
# ("starting PostgreSQL") is glued to it (a run counted 0 starts for a
# killed leader that way).
sub log_line_stamp
{
	my ($line) = @_;
	return $line =~ /^(?:backend> )*(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)/ ? $1 : undef;
}

# A log_line_prefix %m stamp (local time) as epoch seconds.
sub log_epoch
{
	my ($stamp) = @_;
	my ($y, $mo, $d, $h, $mi, $s) = $stamp =~ /^(\d+)-(\d+)-(\d+) (\d+):(\d+):([\d.]+)/;
	return POSIX::mktime(int($s), $mi, $h, $d, $mo - 1, $y - 1900) + ($s - int($s));
}

# Each node's starts and crash restarts after the cluster came up, each
# laid in the window of the fault during which it happened (from its
# injection to its return to idle); returns problems: a count outside what
# the fault explains, or one that no fault explains (a crash loop).
sub restart_problems
{
	my ($chaos) = @_;
	my @problems;
	for my $name (sort keys %{ $chaos->{nodes} })
	{
		my $moments = restarts_in_log($chaos->{nodes}{$name});
		for my $kind (qw(starts crashes))
		{
			my @unexplained;
			my %in_fault;
			for my $moment (@{ $moments->{$kind} })
			{
				next if $moment < $chaos->{cluster_ready};
				my ($fault) = grep { $moment >= $_->{injected} - 1 && $moment <= $_->{window_end} + 1 } @{ $chaos->{faults} };
				if (!$fault) { push @unexplained, $moment }
				elsif ($fault->{node} eq $name && $fault->{unbounded_until} && $moment <= $fault->{unbounded_until}) { next }
				else { $in_fault{ $fault->{number} }++ }
			}
			push @problems, sprintf('%s: %d %s outside any fault (at %s)', $name, scalar @unexplained,
				$kind eq 'starts' ? 'postmaster start(s)' : 'crash restart(s)',
				join(', ', map { POSIX::strftime('%H:%M:%S', localtime $_) } @unexplained)) if @unexplained;
			for my $fault (@{ $chaos->{faults} })
			{
				my $seen = $in_fault{ $fault->{number} } // 0;
				my ($low, $high) = @{ $fault->{restarts}{$name}{$kind} // [ 0, 0 ] };
				$fault->{restarts_seen}{$name}{$kind} = $seen;
				push @problems, sprintf('%s: %d %s during fault %d (%s), which explains %s', $name, $seen, $kind,
					$fault->{number}, $fault->{kind}, $low == $high ? $low : "$low to $high")
				  if $seen < $low || $seen > $high;
			}
		}
	}
	return @problems;
}

# Each autowarm worker's exit the postmaster logged after the cluster came
# up ("exited with exit code N", "was terminated by signal N") that no
# fault explains: outside every fault, or a signal other than the kill -9
# of worker_kill (a crash of the worker's own), or an error exit in a fault
# that does not end workers.
sub unexplained_worker_exits
{
	my ($chaos) = @_;
	my %ends_workers = map { $_ => 1 } qw(database_ddl tmpfs_full leader_kill leader_stop switchover_loading replica_restart);
	my @found;
	for my $name (sort keys %{ $chaos->{nodes} })
	{
		open(my $file, '<', $chaos->{nodes}{$name}{logfile}) or next;
		while (my $line = <$file>)
		{
			my $stamp = log_line_stamp($line) // next;
			my ($how) = $line =~
			  /background worker "pg_cachectl autowarm[^"]*" \(PID \d+\) (exited with exit code \d+|was terminated by signal \d+)/
			  or next;
			my $moment = log_epoch($stamp);
			next if $moment < $chaos->{cluster_ready};
			my ($fault) = grep { $moment >= $_->{injected} - 1 && $moment <= $_->{window_end} + 1 } @{ $chaos->{faults} };
			my $explained = $fault && ($how eq 'was terminated by signal 9' ? $fault->{kind} eq 'worker_kill'
				: $how =~ /exit code 1$/ ? $ends_workers{ $fault->{kind} } : 0);
			chomp $line;
			push @found, "$name: $line" . ($fault ? " (during fault $fault->{number}, $fault->{kind})" : ' (outside any fault)')
			  unless $explained;
		}
		close($file);
	}
	return @found;
}

# ---- the schedule ----

# Injects one fault of $kind, waits for the recovery, reports a line.
sub run_fault
{
	my ($chaos, $kind) = @_;
	my $number = @{ $chaos->{faults} } + 1;
	my $failures_before = autowarm_failures($chaos);
	my $injected = time;
	my $fault = eval { $faults{$kind}->($chaos) };
	unless ($fault)
	{
		chomp(my $error = $@);
		$fault = { node => '-', detail => "NOT INJECTED: $error", restarts => {}, error_pattern => qr/^$/, not_injected => 1 };
	}
	my $injected_until = time;
	@$fault{qw(number kind injected)} = ($number, $kind, $injected);
	my ($recovered, $idle) = wait_for_recovery($chaos, $injected_until);
	$fault->{recovered_seconds} = $recovered;
	$fault->{idle_seconds} = $idle;
	$fault->{window_end} = time;
	$fault->{failures} = [ new_failures($failures_before, autowarm_failures($chaos), $fault) ];
	if ($fault->{promotion_from} && defined $idle)
	{
		my $new_leader = current_leader($chaos);
		$fault->{promotion} = {
			from => $fault->{promotion_from}{node},
			to => $new_leader->{name},
			shares => hot_set_shares($new_leader, $fault->{promotion_from}{hot}) };
	}
	push @{ $chaos->{faults} }, $fault;
	report($chaos, fault_line($fault));
	return defined $idle;
}

sub fault_line
{
	my ($fault) = @_;
	my $line = sprintf('fault %2d  %-18s %-6s recovered %s  idle %s  %s', $fault->{number}, $fault->{kind}, $fault->{node},
		seconds_text($fault->{recovered_seconds}), seconds_text($fault->{idle_seconds}), $fault->{detail});
	if (my $promotion = $fault->{promotion})
	{
		my $shares = $promotion->{shares};
		$line .= sprintf('; %s -> %s, hot-set share min %.2f over %d relations', $promotion->{from}, $promotion->{to},
			min(values %$shares) // 0, scalar keys %$shares);
	}
	$line .= sprintf('; autowarm failures: %s', join(', ', map { "$_->{node}/$_->{database} +$_->{added} "
		  . ($_->{explained} ? '' : 'UNEXPLAINED ') . '"' . first_line($_->{error}) . '"' } @{ $fault->{failures} }))
	  if @{ $fault->{failures} };
	return $line;
}

sub seconds_text
{
	my ($seconds) = @_;
	return defined $seconds ? sprintf('%6.1f s', $seconds) : ' NEVER ';
}

# The faults to inject: the list given (in its order), or random kinds
# until the time is up; a quiet pause before each (pause: the shortest and
# longest, in seconds).
sub run_schedule
{
	my ($chaos) = @_;
	my $end = time + 60 * $chaos->{minutes};
	my @list = @{ $chaos->{fault_list} // [] };
	my $index = 0;
	while (time < $end)
	{
		my $kind;
		if (@list)
		{
			last if $index >= @list;
			$kind = $list[ $index++ ];
		}
		else
		{
			$kind = pick(fault_kinds()) until defined $kind && fault_possible($chaos, $kind);
		}
		if (!fault_possible($chaos, $kind))
		{
			report($chaos, "fault    $kind left out: " . ($chaos->{tmpfs_note} // 'it cannot strike now'));
			push @{ $chaos->{left_out} }, $kind;
			next;
		}
		my ($shortest, $longest) = @{ $chaos->{pause} };
		sleep($shortest + rand($longest - $shortest));
		run_fault($chaos, $kind) or do
		{
			report($chaos, 'the cluster did not recover from the last fault: the schedule ends');
			last;
		};
	}
	return;
}

# ---- the end ----

# The acknowledged numbers the final leader lacks.
sub lost_commits
{
	my ($chaos, $leader) = @_;
	open(my $file, '<', $chaos->{acked_file}) or die "could not read $chaos->{acked_file}: $!";
	my @acked = grep { /^\d+$/ } map { chomp; $_ } <$file>;
	close($file);
	my %present = map { $_ => 1 } split /\n/, $leader->safe_psql('postgres', 'SELECT n FROM chaos_acks');
	return (scalar @acked, [ grep { !$present{$_} } @acked ]);
}

sub amcheck_problems
{
	my ($chaos) = @_;
	my @problems;
	for my $name (sort keys %{ $chaos->{nodes} })
	{
		my ($status, $out, $err) = $chaos->{nodes}{$name}->psql('postgres', 'SELECT relation, problem FROM chaos_amcheck()');
		push @problems, $status == 0 ? map { "$name: $_" } split /\n/, $out : "$name: amcheck did not run: $err";
	}
	return @problems;
}

# pg_checksums --check on each stopped node's data directory.
sub checksum_problems
{
	my ($chaos) = @_;
	my @problems;
	for my $name (sort keys %{ $chaos->{nodes} })
	{
		my ($out, $err) = ('', '');
		IPC::Run::run([ "$bin_dir/pg_checksums", '--check', '-D', $chaos->{nodes}{$name}{data_dir} ],
			'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(300));
		my ($bad) = $out =~ /Bad checksums:\s+(\d+)/;
		push @problems, "$name: pg_checksums exited " . ($? >> 8) . ": $out$err" if $? != 0 || !defined $bad || $bad != 0;
		$chaos->{checksum_output}{$name} = $out;
	}
	return @problems;
}

# Everything: the cluster, the load, the schedule, the checks; the
# cluster stopped at the end whatever happened.  %settings: dir, log_dir,
# log_tag, minutes, seed, faults (a list of kinds, or undef: random), tmpfs
# (a directory on a size-limited tmpfs, or undef) and tmpfs_note (why not),
# scale, pause ([3, 10]: seconds of quiet before each fault), ttl (20),
# full_seconds (20), load_mb_per_sec (20), dcs_api (etcd, the v2 API, by default: Patroni 3.0.2's etcd3 client
# lets a leader that wakes from a freeze overwrite the new leader's key —
# see bench/README.md, "chaos.sh"), say (a sub printing a line).  Returns
# the result hash.
sub run_chaos
{
	my (%settings) = @_;
	my $chaos = {
		scale => 5,
		log_tag => 'chaos_',
		dcs_api => 'etcd',
		pause => [ 3, 10 ],
		# Patroni's leader key lives this long (at least loop_wait 2 + twice
		# retry_timeout 5); a frozen leader is held 10 s past it
		ttl => 20,
		# how long the tmpfs stays full
		full_seconds => 20,
		# cachectl.autowarm_max_mb_per_sec: a load lasts seconds
		load_mb_per_sec => 20,
		%settings,
		faults => [],
		left_out => [],
		databases_made => 0 };
	$chaos->{say} //= sub { print "$_[0]\n" };
	$chaos->{fault_list} = $settings{faults};
	$chaos->{faults} = [];
	srand($chaos->{seed});
	report($chaos, "chaos: seed $chaos->{seed}, $chaos->{minutes} min, Patroni's $chaos->{dcs_api} API, logs in $chaos->{log_dir}");
	report($chaos, 'chaos: no tmpfs fault: ' . $chaos->{tmpfs_note}) unless $chaos->{tmpfs};
	my %result;
	my $ok = eval {
		start_cluster($chaos);
		$chaos->{cluster_ready} = time;
		start_load($chaos);
		run_schedule($chaos);
		stop_load($chaos);
		my $leader = wait_until($recovery_deadline, sub { defined healthy_leader($chaos) })
		  ? healthy_leader($chaos) : current_leader($chaos);
		for my $replica (replicas($chaos, $leader))
		{
			wait_for_streaming($chaos->{cluster}, $leader, $replica, 120);
		}
		($result{acknowledged}, $result{lost}) = lost_commits($chaos, $leader);
		$result{final_leader} = $leader->{name};
		$result{amcheck_problems} = [ amcheck_problems($chaos) ];
		$result{final_failures} = autowarm_failures($chaos);
		1;
	};
	$result{error} = $@ unless $ok;
	stop_load($chaos);
	$result{stopped_cleanly} = $chaos->{cluster} ? stop_patroni_cluster($chaos->{cluster}) : 0;
	$result{checksum_problems} = [ $chaos->{cluster} ? checksum_problems($chaos) : ('no cluster') ];
	$result{restart_problems} = [ $chaos->{cluster_ready} ? restart_problems($chaos) : () ];
	$result{unexplained_worker_exits} = [ $chaos->{cluster_ready} ? unexplained_worker_exits($chaos) : () ];
	$result{faults} = $chaos->{faults};
	$result{left_out} = $chaos->{left_out};
	$result{seed} = $chaos->{seed};
	$result{log_dir} = $chaos->{log_dir};
	$result{goals} = goals(\%result);
	return \%result;
}

# The goals, each true when met.
sub goals
{
	my ($result) = @_;
	my @faults = grep { !$_->{not_injected} } @{ $result->{faults} };
	my @shares = map { values %{ $_->{promotion}{shares} } } grep { $_->{promotion} } @faults;
	return {
		'ran to the end' => !$result->{error},
		'every fault injected' => !grep({ $_->{not_injected} } @{ $result->{faults} }),
		'every fault recovered, workers idle' => !grep({ !defined $_->{idle_seconds} } @faults),
		'0 acknowledged commits lost' => defined $result->{lost} && !@{ $result->{lost} },
		'amcheck clean' => defined $result->{amcheck_problems} && !@{ $result->{amcheck_problems} },
		'pg_checksums clean' => !@{ $result->{checksum_problems} },
		'no crash loop' => !@{ $result->{restart_problems} },
		"hot-set share >= $share_goal after each promotion" =>
		  !grep({ $_->{promotion_from} && !$_->{promotion} } @faults) && !grep({ $_ < $share_goal } @shares)
		  # a promotion with nothing recorded to measure is not a promotion met
		  && !grep({ $_->{promotion} && !%{ $_->{promotion}{shares} } } @faults),
		'every autowarm failure explained' => !grep({ !$_->{explained} } map { @{ $_->{failures} } } @faults),
		'every autowarm worker exit explained' => !@{ $result->{unexplained_worker_exits} },
		'stopped cleanly' => $result->{stopped_cleanly},
	};
}

# The summary table: per kind the faults injected, recovered and the worst
# times; then the goals.
sub summary_lines
{
	my ($result) = @_;
	my @lines = ('', sprintf('%-20s %8s %10s %14s %14s', 'fault', 'injected', 'recovered', 'worst recovery', 'worst to idle'));
	my %by_kind;
	push @{ $by_kind{ $_->{kind} } }, $_ for @{ $result->{faults} };
	for my $kind (sort keys %by_kind)
	{
		my @faults = @{ $by_kind{$kind} };
		my @injected = grep { !$_->{not_injected} } @faults;
		my @recovered = grep { defined $_->{idle_seconds} } @injected;
		push @lines, sprintf('%-20s %8d %10d %12s s %12s s', $kind, scalar @injected, scalar @recovered,
			@recovered ? sprintf('%.1f', max(map { $_->{recovered_seconds} } @recovered)) : '-',
			@recovered ? sprintf('%.1f', max(map { $_->{idle_seconds} } @recovered)) : '-');
	}
	my @all = grep { !$_->{not_injected} && defined $_->{idle_seconds} } @{ $result->{faults} };
	push @lines, sprintf('%-20s %8d %10d %12s s %12s s', 'all', scalar(grep { !$_->{not_injected} } @{ $result->{faults} }),
		scalar @all, @all ? sprintf('%.1f', max(map { $_->{recovered_seconds} } @all)) : '-',
		@all ? sprintf('%.1f', max(map { $_->{idle_seconds} } @all)) : '-');
	push @lines, '';
	push @lines, sprintf('acknowledged commits %s, lost %s (final leader %s)', $result->{acknowledged} // '-',
		defined $result->{lost} ? scalar @{ $result->{lost} } : '-', $result->{final_leader} // '-');
	push @lines, sprintf('amcheck errors %s, checksum errors %d, crash-loop findings %d, unexplained worker exits %d',
		defined $result->{amcheck_problems} ? scalar @{ $result->{amcheck_problems} } : '-',
		scalar @{ $result->{checksum_problems} }, scalar @{ $result->{restart_problems} },
		scalar @{ $result->{unexplained_worker_exits} });
	my @promotions = grep { $_->{promotion} } @{ $result->{faults} };
	my $failures = $result->{final_failures} // {};
	push @lines, 'autowarm failures counted at the end: ' . join(', ', map {
		my $node = $_;
		"$node " . sum0(map { $_->{failures} } values %{ $failures->{$node} })
	} sort keys %$failures) if %$failures;
	push @lines, sprintf('promotions %d, lowest hot-set share %s', scalar @promotions,
		@promotions ? sprintf('%.2f', min(map { values %{ $_->{promotion}{shares} } } @promotions) // 0) : '-');
	push @lines, "  $_" for @{ $result->{amcheck_problems} // [] }, @{ $result->{checksum_problems} },
	  @{ $result->{restart_problems} }, @{ $result->{unexplained_worker_exits} };
	push @lines, "error: $result->{error}" if $result->{error};
	push @lines, '';
	for my $goal (sort keys %{ $result->{goals} })
	{
		push @lines, sprintf('%-45s %s', $goal, $result->{goals}{$goal} ? 'met' : 'MISSED');
	}
	push @lines, "seed $result->{seed} (CHAOS_SEED=$result->{seed} replays the schedule); logs in $result->{log_dir}";
	return @lines;
}

1;
