# AutoFailoverTest.pm — a pg_auto_failover formation for the scenario tests:
# a monitor and data nodes that pg_autoctl makes and runs on 127.0.0.1 (each
# node's `pg_autoctl run` a child of the test, its output in the node's log
# file), the nodes' states as the monitor sees them, each server's log (kept
# beside its data directory: pg_basebackup and pg_rewind copy the other
# node's log folder over the one inside it), and an END block that stops
# every service the test started, even when the test dies.
package AutoFailoverTest;

use strict;
use warnings;

use Exporter 'import';
use File::Basename qw(dirname);
use IPC::Run;
use POSIX ();
use DetachedProcess qw(spawn_detached);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

our @EXPORT_OK = qw(require_pg_autoctl create_monitor create_data_node start_service stop_service
  wait_for_states formation_states pg_autoctl_ok start_pg_autoctl server_log);

# The server's programs, where pg_autoctl is told to find pg_ctl.
my $bindir;

# The `pg_autoctl run` of each data directory that has one running: its pid
# (also its process group's) and the node.
my %services;

# Every node made, whose server log is copied next to the test's logs at
# the end.
my @nodes;

# Skips the whole test where pg_autoctl or the monitor's extension is not
# installed for this server; otherwise points pg_autoctl at this server's
# programs and keeps its configuration and state files (XDG_CONFIG_HOME,
# XDG_DATA_HOME) in a folder of the test.
sub require_pg_autoctl
{
	my ($found) = run_command([ 'sh', '-c', 'command -v pg_autoctl' ]);
	plan skip_all => 'pg_autoctl (pg_auto_failover) is not installed' unless $found;
	($bindir) = run_command([ 'pg_config', '--bindir' ]);
	my ($sharedir) = run_command([ 'pg_config', '--sharedir' ]);
	plan skip_all => 'the pgautofailover extension is not installed for this server'
	  unless -f "$sharedir/extension/pgautofailover.control";
	my $home = PostgreSQL::Test::Utils::tempdir('pg_autoctl');
	$ENV{XDG_CONFIG_HOME} = "$home/config";
	$ENV{XDG_DATA_HOME} = "$home/data";
	$ENV{PG_CONFIG} = "$bindir/pg_config";
	return;
}

# A data directory made by initdb for pg_autoctl to take over, with the
# test's socket directory, the server log beside the data directory, and
# $conf appended.  pg_autoctl includes its own settings from line 1 of
# postgresql.conf, so these lines, later, win.
sub init_data_directory
{
	my ($node, $conf) = @_;
	system_or_bail('initdb', '-D', $node->data_dir, '-A', 'trust', '-N');
	my $host = $node->host;
	append_to_file($node->data_dir . '/postgresql.conf', qq{
unix_socket_directories = '$host'
log_directory = '../log'
} . $conf);
	return;
}

# Runs pg_autoctl with these arguments, its output in the test's log;
# returns true when it exited with 0.
sub pg_autoctl_ok
{
	my @args = @_;
	return run_log([ 'pg_autoctl', @args ]);
}

# Starts pg_autoctl with these arguments in the background, its output in
# the scalars that $stdout and $stderr point to, killed after $seconds;
# returns the IPC::Run harness (finish it).
sub start_pg_autoctl
{
	my ($seconds, $stdout, $stderr, @args) = @_;
	print('# Starting: pg_autoctl ' . join(' ', @args) . "\n");
	return IPC::Run::start([ 'pg_autoctl', @args ],
		'<', \undef, '>', $stdout, '2>', $stderr, IPC::Run::timeout($seconds));
}

# The monitor: a Cluster node (for its port, socket and psql) whose data
# directory `pg_autoctl create monitor` sets up, listening on 127.0.0.1
# only; $conf: more postgresql.conf lines (the monitor's settings).  Not
# running yet: start_service starts it.
sub create_monitor
{
	my ($name, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	push @nodes, $node;
	init_data_directory($node, $conf);
	pg_autoctl_ok(
		'create', 'monitor',
		'--pgdata', $node->data_dir,
		'--pgctl', "$bindir/pg_ctl",
		'--pgport', $node->port,
		'--hostname', '127.0.0.1',
		'--auth', 'trust',
		'--no-ssl')
	  or BAIL_OUT('pg_autoctl create monitor failed');
	# pg_autoctl starts the monitor with -h from its own configuration: "*"
	pg_autoctl_ok('config', 'set', '--pgdata', $node->data_dir, 'postgresql.listen_addresses', '127.0.0.1')
	  or BAIL_OUT('pg_autoctl config set failed');
	return $node;
}

# The monitor's connection string, as the data nodes are given it.
sub monitor_uri
{
	my ($monitor) = @_;
	return 'postgres://autoctl_node@127.0.0.1:' . $monitor->port . '/pg_auto_failover?sslmode=disable';
}

# A data node registered with the monitor (its service must run), serving
# the database $dbname that pg_autoctl creates.  With $conf, its data
# directory is made by initdb with those postgresql.conf lines and
# registered as it is (the first node, the primary); without, pg_autoctl
# makes it from a base backup of the primary (postgresql.conf included).
# Not running afterwards: start_service starts it.
sub create_data_node
{
	my ($monitor, $name, $dbname, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	push @nodes, $node;
	init_data_directory($node, $conf) if defined $conf;
	pg_autoctl_ok(
		'create', 'postgres',
		'--pgdata', $node->data_dir,
		'--pgctl', "$bindir/pg_ctl",
		'--pgport', $node->port,
		'--hostname', '127.0.0.1',
		'--listen', '127.0.0.1',
		'--auth', 'trust',
		'--no-ssl',
		'--dbname', $dbname,
		'--name', $name,
		'--monitor', monitor_uri($monitor))
	  or BAIL_OUT("pg_autoctl create postgres of $name failed");
	return $node;
}

# Starts `pg_autoctl run` of the node (which starts its server) in the
# background, in a process group of its own, its output appended to the
# node's log file.
sub start_service
{
	my ($node) = @_;
	my $dir = $node->data_dir;
	die "a service of \"$dir\" runs already" if $services{$dir};
	my $pid = spawn_detached($node->logfile, {}, 'pg_autoctl', 'run', '--pgdata', $dir);
	$services{$dir} = { pid => $pid, node => $node };
	return;
}

# Waits up to $seconds for the service's process to exit; true when it did.
sub wait_for_exit
{
	my ($service, $seconds) = @_;
	my $started = time;
	while (time - $started < $seconds)
	{
		my $reaped = waitpid($service->{pid}, POSIX::WNOHANG);
		return 1 if $reaped == $service->{pid} || $reaped == -1;
		usleep(100_000);
	}
	return 0;
}

# Stops the node's service as a user does (`pg_autoctl stop`: its server
# gets a fast shutdown) and waits up to $seconds for it to exit; returns the
# seconds it took, or undef when it did not exit (it is then stopped by
# force, so that nothing is left running).
sub stop_service
{
	my ($node, $seconds) = @_;
	my $dir = $node->data_dir;
	my $service = $services{$dir} or die "no service of \"$dir\" runs";
	my $started = time;
	pg_autoctl_ok('stop', '--pgdata', $dir);
	my $exited = wait_for_exit($service, $seconds);
	my $took = time - $started;
	stop_by_force($service) unless $exited;
	delete $services{$dir};
	return $exited ? $took : undef;
}

# The last resort: an immediate stop (SIGQUIT), then SIGKILL to the
# service's process group (its children and its server), and the server's
# own immediate stop if its postmaster.pid is still there.
sub stop_by_force
{
	my ($service) = @_;
	my $pid = $service->{pid};
	kill('QUIT', $pid);
	kill('KILL', -$pid) unless wait_for_exit($service, 20);
	my $dir = $service->{node}->data_dir;
	system('pg_ctl', '-D', $dir, '-m', 'immediate', 'stop')
	  if -f "$dir/postmaster.pid";
	return;
}

# The monitor's view of the formation: "name reported/goal health" of each
# node, by name.
sub formation_states
{
	my ($monitor) = @_;
	return $monitor->safe_psql('pg_auto_failover', q{
SELECT string_agg(nodename || ' ' || reportedstate || '/' || goalstate || ' ' || health, ', ' ORDER BY nodename)
  FROM pgautofailover.node});
}

# Polls the monitor until each node of %$wanted (name => state) reports the
# state it is assigned, with its server running and its health check
# passed, and that holds for $settle seconds in a row (a restarted keeper
# reports its old state for a moment before the monitor moves it on); at
# most $seconds.  Returns the seconds it took, or undef (the states then in
# a diag).
sub wait_for_states
{
	my ($monitor, $wanted, $seconds, $settle) = @_;
	$settle //= 3;
	my $conditions = join(' OR ',
		map { "(nodename = '$_' AND reportedstate = '$wanted->{$_}' AND goalstate = '$wanted->{$_}')" }
		  sort keys %$wanted);
	my $count = scalar keys %$wanted;
	my $started = time;
	my $held_since;
	while (time - $started < $seconds)
	{
		my ($ret, $holds) = $monitor->psql('pg_auto_failover', qq{
SELECT count(*) = $count FROM pgautofailover.node
 WHERE ($conditions) AND reportedpgisrunning AND health = 1});
		if ($ret == 0 && $holds eq 't')
		{
			$held_since //= time;
			return time - $started if time - $held_since >= $settle;
		}
		else
		{
			undef $held_since;
		}
		usleep(200_000);
	}
	diag('the monitor says: ' . formation_states($monitor));
	return undef;
}

# The node's server log: its files beside the data directory, in the order
# they were written, joined.
sub server_log
{
	my ($node) = @_;
	my $dir = dirname($node->data_dir) . '/log';
	return '' unless -d $dir;
	opendir(my $handle, $dir) or die "could not open \"$dir\": $!";
	my @files = sort grep { /\.log$/ } readdir($handle);
	closedir($handle);
	return join('', map { slurp_file("$dir/$_") } @files);
}

# Every service still running is stopped (a test that died leaves them),
# and each node's server log is copied next to the test's own logs, where
# test/run_tap.sh shows a failed test's logs.
END
{
	my $exit_code = $?;
	foreach my $service (values %services)
	{
		kill('TERM', $service->{pid});
		stop_by_force($service) unless wait_for_exit($service, 60);
	}
	%services = ();
	foreach my $node (@nodes)
	{
		my $copy = $node->logfile =~ s/\.log$/_server.log/r;
		PostgreSQL::Test::Utils::append_to_file($copy, server_log($node));
	}
	$? = $exit_code;
}

1;
