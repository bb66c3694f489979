# DetachedProcess.pm — a program the test starts and leaves running, as a
# service manager would: in a session of its own (a signal meant for the
# test's terminal does not reach it), stdin from /dev/null, stdout and
# stderr appended to a log.  The HA managers' tests start Patroni, etcd
# and pg_autoctl this way.
package DetachedProcess;

use strict;
use warnings;

use Exporter 'import';
use POSIX ();

our @EXPORT_OK = qw(spawn_detached);

# Starts @command with the variables of %$environment set; returns its pid.
sub spawn_detached
{
	my ($log, $environment, @command) = @_;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0)
	{
		POSIX::setsid();
		open(STDIN, '<', '/dev/null') or POSIX::_exit(127);
		open(STDOUT, '>>', $log) or POSIX::_exit(127);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
		@ENV{ keys %$environment } = values %$environment;
		{ exec(@command) }
		print "exec $command[0]: $!\n";
		# never die here: the child would run the caller's END blocks
		POSIX::_exit(127);
	}
	return $pid;
}

1;
