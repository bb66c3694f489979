# PgbenchRun.pm — one timed pgbench run with progress every second, and
# what it printed read back: the rate (initial connections excluded), the
# transactions and each second's rate.  The HA managers' tests and the
# patroni benchmark judge promotions by these figures.
package PgbenchRun;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;

our @EXPORT_OK = qw(pgbench_run);

# $program for $seconds with @arguments (connection, script and clients,
# the database last).  Returns a hash: ok (pgbench exited 0), tps (undef
# when it printed none), transactions, per_second (array), output.
sub pgbench_run
{
	my ($program, $seconds, @arguments) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ $program, '-n', '-T', $seconds, '-P', 1, @arguments ],
		'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout($seconds + 180));
	my ($tps) = $out =~ /^tps = ([0-9.]+)/m;
	my ($transactions) = $out =~ /^number of transactions actually processed: (\d+)/m;
	my @per_second = $err =~ /^progress: [0-9.]+ s, ([0-9.]+) tps/mg;
	return {
		ok => $ok,
		tps => $tps,
		transactions => $transactions,
		per_second => \@per_second,
		output => "$out$err" };
}

1;
