# PatroniTest.pm — a Patroni cluster on loopback for the autowarm tests and
# benchmarks: one etcd (v3 API), Patroni nodes with PostgreSQL on ports of
# their own, each node's patroni.yml written from one template (autowarm's
# settings in the DCS, so every node has the same; an optional pre_promote
# gate that asks cachectl.wait_warm() and logs what it returned), the waits
# a scenario needs (leader, streaming replica, a server that accepts
# writes), a switchover, a crash of the leader (with its last writes not
# replicated if asked), a cold restart of a node, pgbench's rate over a few
# seconds with the old leader's rejoin kept out of it, and the end of
# everything, also when the caller dies.
#
# Nothing here asserts: the functions return what they saw or die, so a
# benchmark can use them as they are; test/t/087_patroni.pl asserts.
#
# Patroni starts each postmaster in a session of its own (it outlives a
# Patroni that dies), so the end of a node stops its postmaster through the
# data directory, not through Patroni's process.
package PatroniTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use JSON::PP;
use POSIX ();
use PostgreSQL::Test::Cluster;
use Time::HiRes qw(time usleep);
use AutowarmTest qw(drop_data_files_from_os_cache);
use CachectlTest qw(poll_until);
use DetachedProcess qw(spawn_detached);
use PgbenchRun qw(pgbench_run);

our @EXPORT_OK = qw(start_etcd stop_etcd patroni_cluster add_patroni_node start_patroni stop_patroni
  restart_patroni_cold lower_priority hold_patroni release_patroni patronictl patroni_members
  leader_name wait_until wait_for_leader wait_for_streaming wait_for_writes start_switchover
  finish_switchover switchover hold_walsender kill_postmaster pgbench_init pgbench_rate gate_runs
  postmaster_running cluster_processes stop_patroni_cluster stop_everything sync_standby_name);

# Patroni is a Python program: Debian's interpreter, whatever the PATH
# says (a pyenv python does not see Debian's patroni and etcd modules).
my $python = '/usr/bin/python3';

# The PostgreSQL binaries of the server that runs the tests: those of the
# pg_config first in the PATH (run_tap.sh puts the tested major's first).
my $bin_dir = do
{
	my $dir = `pg_config --bindir`;
	chomp $dir;
	$dir ne '' ? $dir : '/usr/lib/postgresql/15/bin';
};

# What this process started and has not stopped yet: Patroni nodes and etcd
# servers, so that stop_everything() (and the END block below) can end them
# when the caller dies half-way.  Only the process that started them ends
# them (a forked child that exits must not).
my %running_nodes;
my %running_etcd;
my $owner_pid = $$;

# ---- processes ----

# Waits at most $seconds for our child $pid to exit; true if it did.
sub reap
{
	my ($pid, $seconds) = @_;
	my $deadline = time + $seconds;
	while (time < $deadline)
	{
		my $gone = waitpid($pid, POSIX::WNOHANG);
		return 1 if $gone == $pid || $gone == -1;
		usleep(100_000);
	}
	return 0;
}

# Ends our child $pid: SIGTERM, then SIGKILL after $seconds.
sub end_child
{
	my ($pid, $seconds) = @_;
	kill 'TERM', $pid;
	return if reap($pid, $seconds);
	kill 'KILL', $pid;
	reap($pid, 10);
	return;
}

# Polls $condition (a sub returning true when done) through CachectlTest's
# poll_until (every 0.1 s, a check that dies counts as not yet), at most
# $seconds; returns the seconds it took, or undef.
sub wait_until
{
	my ($seconds, $condition) = @_;
	my $started = time;
	return poll_until($condition, $seconds) ? time - $started : undef;
}

# ---- etcd ----

# Starts one etcd member (v3 API, which Patroni's etcd3 section speaks with
# etcd 3.4 as is) on two free loopback ports, its data in $dir/etcd; waits
# until it answers.  Returns a handle for stop_etcd() and patroni_cluster().
# %options: v2 => 1 serves the v2 API too (Patroni's etcd section).
sub start_etcd
{
	my ($dir, $log, %options) = @_;
	$log //= "$dir/etcd.log";
	my %etcd = (
		client_port => PostgreSQL::Test::Cluster::get_free_port(),
		peer_port => PostgreSQL::Test::Cluster::get_free_port(),
		data_dir => "$dir/etcd",
		log => $log);
	my $client = "http://127.0.0.1:$etcd{client_port}";
	my $peer = "http://127.0.0.1:$etcd{peer_port}";
	$etcd{endpoint} = $client;
	$etcd{pid} = spawn_detached(
		$log, {},
		'etcd', '--name', 'etcd0', '--data-dir', $etcd{data_dir},
		'--listen-client-urls', $client, '--advertise-client-urls', $client,
		'--listen-peer-urls', $peer, '--initial-advertise-peer-urls', $peer,
		'--initial-cluster', "etcd0=$peer", '--initial-cluster-state', 'new',
		'--initial-cluster-token', "cachectl-$etcd{client_port}",
		$options{v2} ? ('--enable-v2=true') : ());
	$running_etcd{ $etcd{pid} } = \%etcd;
	my $up = wait_until(
		60,
		sub {
			my ($out, $err) = ('', '');
			local $ENV{ETCDCTL_API} = 3;
			IPC::Run::run([ 'etcdctl', '--endpoints', $client, 'endpoint', 'health' ],
				'<', \undef, '>', \$out, '2>', \$err);
			return "$out$err" =~ /is healthy/;
		});
	die "etcd did not become healthy in 60 s (see $log)" unless defined $up;
	return \%etcd;
}

sub stop_etcd
{
	my ($etcd) = @_;
	return unless $running_etcd{ $etcd->{pid} };
	end_child($etcd->{pid}, 30);
	delete $running_etcd{ $etcd->{pid} };
	return;
}

# ---- the cluster and its nodes ----

# A Patroni cluster's settings, shared by the nodes add_patroni_node()
# makes:
#   dir          where the nodes' data directories and configs go
#   etcd         start_etcd()'s handle
#   scope        the cluster's name in the DCS
#   log_dir, log_tag   each node's Patroni and PostgreSQL logs, and the
#                gate's, go to "$log_dir/${log_tag}NODE_patroni.log" etc.
#                (default: $dir, no tag)
#   dcs          Patroni's dynamic settings over the defaults below
#   parameters   postgresql.conf settings for every node (in the DCS: a
#                standby must have the primary's shared_buffers and
#                max_worker_processes, and each node the same autowarm)
#   gate_timeout the pre_promote gate's wait_warm() timeout in seconds;
#                undef: no gate
#   database     the database the gate and pgbench_rate() use (postgres)
#   initdb       more of Patroni's bootstrap initdb options (['data-checksums'])
#   dcs_api      Patroni's section for etcd: etcd3 (the default) or etcd (the
#                v2 API: start_etcd(..., v2 => 1))
sub patroni_cluster
{
	my (%args) = @_;
	my %cluster = (
		dir => $args{dir},
		etcd => $args{etcd},
		scope => $args{scope} // 'cachectl',
		log_dir => $args{log_dir} // $args{dir},
		log_tag => $args{log_tag} // '',
		gate_timeout => $args{gate_timeout},
		database => $args{database} // 'postgres',
		initdb => $args{initdb} // [],
		dcs_api => $args{dcs_api} // 'etcd3',
		nodes => {},
		# Small timings make a test quick: Patroni's loop every 2 s, a
		# leader key that lives 20 s (Patroni wants loop_wait + 2 *
		# retry_timeout <= ttl).  primary_start_timeout 0: a crashed
		# primary fails over at once, instead of being restarted in
		# place for up to 300 s.
		dcs => {
			ttl => 20,
			loop_wait => 2,
			retry_timeout => 5,
			maximum_lag_on_failover => 16 * 1024 * 1024,
			primary_start_timeout => 0,
			%{ $args{dcs} // {} } },
		parameters => {
			# pg_rewind needs hint bits WAL-logged (or data checksums)
			wal_log_hints => 'on',
			%{ $args{parameters} // {} } });
	return \%cluster;
}

# YAML's single-quoted form of a string: '' for each quote.
sub yaml_quote
{
	my ($text) = @_;
	$text =~ s/'/''/g;
	return "'$text'";
}

# The pre_promote command: Patroni runs it on the node it is about to
# promote, after it took the leader key, and waits for it; a non-zero exit
# cancels the promotion, so the shell always exits 0.  Patroni 3.0 passes
# no arguments: the node's port and the log file are in the command.  The
# log gets one block per run: "begin EPOCH", psql's row (warm|state|
# waited_seconds|shared_blocks_missing|os_blocks_missing) or its error,
# "end EPOCH psql STATUS".
sub gate_command
{
	my ($cluster, $node) = @_;
	my $query = "SELECT warm, state, waited_seconds, shared_blocks_missing, os_blocks_missing"
	  . " FROM cachectl.wait_warm('$cluster->{gate_timeout} s')";
	my $log = $node->{gate_log};
	return qq{/bin/sh -c "echo begin \$(date +%s.%N) >>$log; }
	  . qq{$bin_dir/psql -X -A -t -h 127.0.0.1 -p $node->{port} -U postgres -d $cluster->{database} }
	  . qq{-c \\"$query\\" >>$log 2>&1; }
	  . qq{status=\$?; echo end \$(date +%s.%N) psql \$status >>$log; exit 0"};
}

# A node of the cluster: its ports taken, its patroni.yml written; not
# started (start_patroni()).  Returns a PatroniTest::Node, whose safe_psql,
# data_dir and logfile serve AutowarmTest's helpers as a
# PostgreSQL::Test::Cluster node's would.  %options: data_dir (default
# NODE/data; elsewhere, e.g. on a file system of its own, the directory must
# not exist yet or be empty).
sub add_patroni_node
{
	my ($cluster, $name, %options) = @_;
	my $dir = "$cluster->{dir}/$name";
	mkdir $dir or die "could not create \"$dir\": $!";
	my $tag = "$cluster->{log_dir}/$cluster->{log_tag}$name";
	my $node = bless {
		name => $name,
		dir => $dir,
		data_dir => $options{data_dir} // "$dir/data",
		config => "$dir/patroni.yml",
		port => PostgreSQL::Test::Cluster::get_free_port(),
		rest_port => PostgreSQL::Test::Cluster::get_free_port(),
		patroni_log => "${tag}_patroni.log",
		logfile => "${tag}_postgresql.log",
		gate_log => "${tag}_pre_promote.log",
		cluster => $cluster,
	}, 'PatroniTest::Node';

	my $dcs = $cluster->{dcs};
	my $dcs_settings = join '', map { "    $_: $dcs->{$_}\n" } sort keys %$dcs;
	my $parameters = $cluster->{parameters};
	my $shared_parameters =
	  join '', map { "        $_: " . yaml_quote($parameters->{$_}) . "\n" } sort keys %$parameters;
	my ($log_name) = $node->{logfile} =~ m{([^/]+)$};
	my $initdb_options = join '', map { "  - $_\n" } @{ $cluster->{initdb} };
	my $gate = defined $cluster->{gate_timeout}
	  ? '  pre_promote: ' . yaml_quote(gate_command($cluster, $node)) . "\n"
	  : '';
	my $yaml = <<"YAML";
scope: $cluster->{scope}
name: $name
restapi:
  listen: 127.0.0.1:$node->{rest_port}
  connect_address: 127.0.0.1:$node->{rest_port}
$cluster->{dcs_api}:
  host: 127.0.0.1:$cluster->{etcd}{client_port}
bootstrap:
  dcs:
$dcs_settings    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
$shared_parameters  initdb:
  - encoding: UTF8
  - locale: C
${initdb_options}postgresql:
  listen: 127.0.0.1:$node->{port}
  connect_address: 127.0.0.1:$node->{port}
  data_dir: $node->{data_dir}
  bin_dir: $bin_dir
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  pg_hba:
  - local all all trust
  - local replication all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
  parameters:
    unix_socket_directories: '$dir'
    logging_collector: 'on'
    log_directory: '$cluster->{log_dir}'
    log_filename: '$log_name'
    log_line_prefix: '%m [%p] '
$gate
YAML
	open(my $file, '>', $node->{config}) or die "could not write \"$node->{config}\": $!";
	print $file $yaml;
	close($file);
	$cluster->{nodes}{$name} = $node;
	return $node;
}

# Starts the node's Patroni (which bootstraps, clones or starts its
# PostgreSQL as the DCS says).  The PATH puts the tested server's binaries
# first and leaves out any pyenv shim.
sub start_patroni
{
	my ($node) = @_;
	die "$node->{name}'s Patroni runs already" if $node->{patroni_pid};
	$node->{patroni_pid} = spawn_detached(
		$node->{patroni_log},
		{ PATH => "$bin_dir:/usr/bin:/bin" },
		$python, '/usr/bin/patroni', $node->{config});
	$running_nodes{ $node->{patroni_pid} } = $node;
	return;
}

# The pid in the node's postmaster.pid if that process still runs.
sub postmaster_running
{
	my ($node) = @_;
	open(my $file, '<', "$node->{data_dir}/postmaster.pid") or return undef;
	my $pid = <$file>;
	close($file);
	return undef unless defined $pid && $pid =~ /^(\d+)/;
	$pid = $1;
	return kill(0, $pid) ? $pid : undef;
}

# Stops the node as an operator would: SIGTERM to Patroni, which stops its
# PostgreSQL (a fast shutdown, so the worker records once more on a
# primary) and leaves the DCS.  Waits for both (60 s); what is left then is
# killed, the postmaster by an immediate shutdown.  Returns true when the
# stop was clean.
sub stop_patroni
{
	my ($node) = @_;
	my $pid = delete $node->{patroni_pid};
	return 1 unless $pid;
	kill 'CONT', -$pid;
	kill 'TERM', $pid;
	my $clean = reap($pid, 60);
	unless ($clean)
	{
		kill 'KILL', $pid;
		reap($pid, 10);
	}
	delete $running_nodes{$pid};
	if (!defined wait_until(30, sub { !postmaster_running($node) }))
	{
		$clean = 0;
		system("$bin_dir/pg_ctl", '-D', $node->{data_dir}, '-m', 'immediate', '-w', 'stop');
	}
	return $clean;
}

# On one machine the old leader's rejoin (its restart and start load,
# pg_rewind and its fsync of the data directory) takes the CPU the new
# leader's first seconds are measured with, which on hosts of their own it
# would not.  What measures them runs the old leader's Patroni, and all it
# starts from then on (its next postmaster, pg_rewind, postgres --single),
# at nice 19 from the switchover or the crash on (lower_priority), and
# holds that Patroni (SIGSTOP to its process group) from the moment the
# new leader accepts writes to the end of the measure (hold_patroni,
# release_patroni): its rejoin waits until then.  The hold must not come
# before the new leader has the leader key, which the old leader's Patroni
# releases.  (Patroni leads the process group spawn_detached() gave it; 1 is
# PRIO_PGRP.)
sub lower_priority
{
	my ($node) = @_;
	my $pid = $node->{patroni_pid} or die "$node->{name}'s Patroni is not running";
	setpriority(1, $pid, 19) or die "could not lower the priority of $node->{name}'s Patroni: $!";
	return;
}

sub hold_patroni
{
	my ($node) = @_;
	my $pid = $node->{patroni_pid} or die "$node->{name}'s Patroni is not running";
	kill 'STOP', -$pid;
	return;
}

sub release_patroni
{
	my ($node) = @_;
	my $pid = $node->{patroni_pid} or die "$node->{name}'s Patroni is not running";
	kill 'CONT', -$pid;
	return;
}

# A node made cold in both layers, as a reboot of its host leaves it: its
# Patroni stopped (and its PostgreSQL, cleanly: no dirty page is left),
# every relation file of its data directory dropped from the OS page cache,
# Patroni started again.  Without autowarm it would serve from the device.
sub restart_patroni_cold
{
	my ($node) = @_;
	stop_patroni($node) or die "$node->{name} did not stop cleanly";
	drop_data_files_from_os_cache($node);
	start_patroni($node);
	return;
}

# ---- asking Patroni ----

# patronictl with the node's config (any node's will do: they share the
# DCS); returns its exit status, stdout and stderr.
sub patronictl
{
	my ($cluster, @args) = @_;
	my ($node) = sort { $a->{name} cmp $b->{name} } values %{ $cluster->{nodes} };
	my ($out, $err) = ('', '');
	local $ENV{PATH} = "$bin_dir:/usr/bin:/bin";
	IPC::Run::run([ $python, '/usr/bin/patronictl', '-c', $node->{config}, @args ],
		'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(120));
	return ($? >> 8, $out, $err);
}

# `patronictl list`'s members: a hash per node name of its Role (Leader,
# Replica), State (running, starting, stopped, ...), TL and Lag in MB.
sub patroni_members
{
	my ($cluster) = @_;
	my ($status, $out) = patronictl($cluster, 'list', '-f', 'json');
	return {} if $status != 0 || $out !~ /^\s*\[/;
	return { map { $_->{Member} => $_ } @{ decode_json($out) } };
}

# The name of the member Patroni shows as the running leader, or undef.
sub leader_name
{
	my ($cluster) = @_;
	my $members = patroni_members($cluster);
	my ($leader) = grep { $members->{$_}{Role} eq 'Leader' && $members->{$_}{State} eq 'running' } keys %$members;
	return $leader;
}

# Waits until Patroni shows $name as the running leader and its server
# accepts writes; seconds taken, or undef after $seconds.
sub wait_for_leader
{
	my ($cluster, $name, $seconds) = @_;
	my $node = $cluster->{nodes}{$name};
	return wait_until($seconds,
		sub { ($node->query('SELECT NOT pg_is_in_recovery()') // '') eq 't'
			  && (leader_name($cluster) // '') eq $name });
}

# Waits until the server accepts writes (out of recovery), polling every
# 0.1 s without asking Patroni: the moment a promotion's clients see.
sub wait_for_writes
{
	my ($node, $seconds) = @_;
	return wait_until($seconds, sub { ($node->query('SELECT NOT pg_is_in_recovery()') // '') eq 't' });
}

# Waits until $replica streams from $leader (pg_stat_replication on the
# leader, by the application_name Patroni gives it: the node's name), has
# replayed all the leader wrote up to then (so not under a steady write
# load), and Patroni shows it as a running replica (a synchronous one in
# synchronous_mode); seconds taken, or undef.
sub wait_for_streaming
{
	my ($cluster, $leader, $replica, $seconds) = @_;
	my $name = $replica->{name};
	return wait_until(
		$seconds,
		sub {
			return 0 unless ($leader->query(qq{
SELECT count(*) = 1 FROM pg_stat_replication
 WHERE application_name = '$name' AND state = 'streaming' AND replay_lsn >= pg_current_wal_lsn()}) // '') eq 't'
			  && ($replica->query('SELECT pg_is_in_recovery()') // '') eq 't';
			my $member = patroni_members($cluster)->{$name} // {};
			return ($member->{Role} // '') =~ /^(Replica|Sync Standby)$/ && ($member->{State} // '') eq 'running';
		});
}

# The member Patroni shows as the synchronous standby (synchronous_mode in
# the DCS), or undef.
sub sync_standby_name
{
	my ($cluster) = @_;
	my $members = patroni_members($cluster);
	my ($sync) = grep { $members->{$_}{Role} eq 'Sync Standby' } keys %$members;
	return $sync;
}

# ---- what moves the leader ----

# A planned switchover from $leader to $candidate, in the background (so
# that the caller can watch the candidate meanwhile): finish_switchover()
# waits for patronictl and returns its exit status, its seconds and its
# output.
sub start_switchover
{
	my ($cluster, $leader, $candidate) = @_;
	my ($node) = sort { $a->{name} cmp $b->{name} } values %{ $cluster->{nodes} };
	my %run = (started => time, out => '');
	local $ENV{PATH} = "$bin_dir:/usr/bin:/bin";
	$run{handle} = IPC::Run::start(
		[
			$python, '/usr/bin/patronictl', '-c', $node->{config}, 'switchover', '--leader', $leader,
			'--candidate', $candidate, '--force'
		],
		'<', \undef, '>&', \$run{out}, IPC::Run::timeout(180));
	return \%run;
}

sub finish_switchover
{
	my ($run) = @_;
	$run->{handle}->finish;
	return ($run->{handle}->result(0), time - $run->{started}, $run->{out});
}

# The same, waited for.
sub switchover
{
	my ($cluster, $leader, $candidate) = @_;
	return finish_switchover(start_switchover($cluster, $leader, $candidate));
}

# Stops (SIGSTOP) the walsender that serves $replica on $leader: what the
# leader writes from now on stays on it, as the last transactions of a
# primary under asynchronous replication do when it crashes.  Returns the
# walsender's pid, for kill_postmaster().
sub hold_walsender
{
	my ($leader, $replica) = @_;
	my $pid = $leader->safe_psql($leader->{cluster}{database},
		"SELECT pid FROM pg_stat_replication WHERE application_name = '$replica->{name}'");
	die "no walsender serves $replica->{name} on $leader->{name}" unless $pid =~ /^\d+$/;
	kill 'STOP', $pid;
	return $pid;
}

# A crash of the node's postmaster: kill -9 of it (as the OOM killer
# would), and of the processes in @also (a walsender hold_walsender()
# stopped, which would otherwise send what it holds when let go); the other
# children notice the postmaster's death and exit.  Returns the
# postmaster's pid.
sub kill_postmaster
{
	my ($node, @also) = @_;
	my $pid = postmaster_running($node) or die "$node->{name} has no postmaster running";
	kill 'KILL', $pid, @also;
	return $pid;
}

# ---- load ----

# pgbench's tables at $scale in the cluster's database, through the node
# (the leader), then a checkpoint, so that a standby made cold later finds
# no dirty page to keep it warm.
sub pgbench_init
{
	my ($node, $scale) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run(
		[
			"$bin_dir/pgbench", '-i', '-q', '-s', $scale, '-h', '127.0.0.1', '-p', $node->{port},
			'-U', 'postgres', $node->{cluster}{database}
		],
		'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(600))
	  or die "pgbench -i on $node->{name} failed: $out$err";
	$node->safe_psql($node->{cluster}{database}, 'CHECKPOINT');
	return;
}

# pgbench against the node for $seconds, progress every second; @options
# choose the script and clients (-S, -c ...).  Returns a hash: tps (what
# pgbench reports, initial connections excluded), transactions, per_second
# (the progress figures), output.  Dies when pgbench fails.
sub pgbench_rate
{
	my ($node, $seconds, @options) = @_;
	my $run = pgbench_run("$bin_dir/pgbench", $seconds, '-h', '127.0.0.1', '-p', $node->{port}, '-U', 'postgres',
		@options, $node->{cluster}{database});
	die "pgbench on $node->{name} failed: $run->{output}" unless $run->{ok};
	die "no rate in pgbench's output: $run->{output}" unless defined $run->{tps};
	return $run;
}

# The pre_promote gate's runs on the node, oldest first: a hash each with
# began and ended (epoch seconds), row (psql's row: warm|state|waited),
# messages (what else psql printed: a NOTICE, an error) and psql_status;
# undef for an end not reached.
sub gate_runs
{
	my ($node) = @_;
	open(my $file, '<', $node->{gate_log}) or return ();
	my @runs;
	while (my $line = <$file>)
	{
		chomp $line;
		if ($line =~ /^begin ([0-9.]+)$/)
		{
			push @runs, { began => $1, row => '', messages => '' };
		}
		elsif ($line =~ /^end ([0-9.]+) psql (\d+)$/ && @runs)
		{
			@{ $runs[-1] }{qw(ended psql_status)} = ($1, $2);
		}
		elsif ($line =~ /^[tf]\|/ && @runs)
		{
			$runs[-1]{row} = $line;
		}
		elsif (@runs)
		{
			$runs[-1]{messages} .= "$line\n";
		}
	}
	close($file);
	return @runs;
}

# ---- the end ----

# The processes of the cluster still there, as "PID COMMAND LINE" lines:
# any whose command line names the cluster's directory (etcd, Patroni, a
# postmaster) or whose title is a server process of the cluster (Patroni
# sets cluster_name to the scope: "postgres: SCOPE: ...").
sub cluster_processes
{
	my ($cluster) = @_;
	my @found;
	for my $cmdline (glob '/proc/[0-9]*/cmdline')
	{
		my ($pid) = $cmdline =~ m{^/proc/(\d+)/};
		next if $pid == $$;
		open(my $file, '<', $cmdline) or next;
		my $command = do { local $/; <$file> } // '';
		close($file);
		$command =~ s/\0/ /g;
		$command =~ s/ +$//;
		push @found, "$pid $command"
		  if index($command, $cluster->{dir}) >= 0 || index($command, "postgres: $cluster->{scope}:") >= 0;
	}
	return @found;
}

# Stops the cluster's nodes (replicas first, so that stopping them causes
# no failover), then etcd.  Returns true when every node stopped cleanly.
sub stop_patroni_cluster
{
	my ($cluster) = @_;
	my $leader = leader_name($cluster) // '';
	my @nodes = sort { ($a->{name} eq $leader) <=> ($b->{name} eq $leader) || $a->{name} cmp $b->{name} }
	  values %{ $cluster->{nodes} };
	my $clean = 1;
	for my $node (@nodes)
	{
		$clean = 0 unless stop_patroni($node);
	}
	stop_etcd($cluster->{etcd}) if $cluster->{etcd};
	return $clean;
}

# Ends whatever this process started and did not stop: Patroni nodes (and
# their postmasters), then etcd servers.  For an END block.
sub stop_everything
{
	return unless $$ == $owner_pid;
	for my $node (values %running_nodes)
	{
		stop_patroni($node);
	}
	for my $etcd (values %running_etcd)
	{
		stop_etcd($etcd);
	}
	return;
}

# Loaded after File::Temp (through PostgreSQL::Test::Utils), so this END
# block runs before the temporary directories are removed.
END
{
	local $?;
	stop_everything();
}

# ---- a node ----

package PatroniTest::Node;

use strict;
use warnings;

use IPC::Run;

sub name { return $_[0]{name} }
sub host { return '127.0.0.1' }
sub port { return $_[0]{port} }
sub data_dir { return $_[0]{data_dir} }
sub logfile { return $_[0]{logfile} }

# psql on the node as postgres over TCP: ($status, $stdout, $stderr), the
# output unaligned and without headers as PostgreSQL::Test::Cluster's.  The
# SQL goes in -c, not on stdin: a server that is down makes psql exit
# before it reads, and IPC::Run dies of the broken pipe.  (Several
# statements in one -c run in one transaction.)
sub psql
{
	my ($self, $db, $sql) = @_;
	my ($out, $err) = ('', '');
	local $ENV{PGCONNECT_TIMEOUT} = 5;
	IPC::Run::run(
		[
			"$bin_dir/psql", '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1',
			'-p', $self->{port}, '-U', 'postgres', '-d', $db, '-c', $sql
		],
		'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(300));
	my $status = $? >> 8;
	chomp $out;
	return ($status, $out, $err);
}

# psql that dies on failure; its output.
sub safe_psql
{
	my ($self, $db, $sql) = @_;
	my ($status, $out, $err) = $self->psql($db, $sql);
	die "psql on $self->{name} failed ($status): $err\nquery: $sql" if $status != 0;
	return $out;
}

# One query in the cluster's database; its output, or undef when the
# server is not there or the query failed (for polls).
sub query
{
	my ($self, $sql) = @_;
	my ($status, $out) = $self->psql($self->{cluster}{database}, $sql);
	return $status == 0 ? $out : undef;
}

1;
