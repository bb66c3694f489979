# CommandOutput.pm — run_capturing: a command's exit status and its merged
# output, for the scenario tests that run outside PostgreSQL::Test::Cluster
# (the package and PGXN tests; 040 starts as root, so this module loads
# nothing of PostgreSQL::Test, whose start-up writes into the test folder).
package CommandOutput;

use strict;
use warnings;

use Exporter 'import';
use POSIX ();

our @EXPORT_OK = qw(run_capturing);

# Runs a command; returns its exit status and its output (stdout and stderr).
sub run_capturing
{
	my @command = @_;
	my $pid = open(my $output, '-|') // die "fork: $!";
	if ($pid == 0)
	{
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
		{ exec(@command) }
		# never die here: the child would run the test's END blocks (040's
		# undo removed the parent's work directory when git was missing)
		print "exec $command[0]: $!\n";
		POSIX::_exit(127);
	}
	local $/;
	my $text = <$output> // '';
	close($output);
	return ($? >> 8, $text);
}

1;
