# bench/chaos.pl — the driver bench/chaos.sh runs (issue 40): random faults
# across a three-node Patroni cluster under write load for CHAOS_MINUTES,
# then the checks (test/perl/ChaosRun.pm, which test/t/094_chaos_short.pl
# shares).  Prints one line per fault and the summary table; exits 1 when a
# goal is missed.
#
# Environment (chaos.sh sets them): CHAOS_MINUTES, CHAOS_SEED, CHAOS_FAULTS
# (kinds separated by spaces, injected in that order, instead of random
# ones), CHAOS_LOG_DIR (kept), CHAOS_WORK (the data directories: removed by
# chaos.sh), CHAOS_TMPFS (a directory on a size-limited tmpfs for node3's
# data, or empty), CHAOS_TMPFS_NOTE (why there is none) and CHAOS_DCS
# (Patroni's etcd section: etcd, the v2 API, or etcd3).  Run as the
# postgres user, with -I for test/perl and PostgreSQL's TAP modules.
use strict;
use warnings;

use PostgreSQL::Test::Utils ();
use ChaosRun qw(run_chaos summary_lines);
use PatroniTest qw(stop_everything);

END
{
	local $?;
	stop_everything();
}

# PostgreSQL::Test::Utils sends STDOUT and STDERR to its log file when it
# starts: the report goes to a copy of the STDOUT we were given.
my $report;
BEGIN
{
	open($report, '>&', \*STDOUT) or die "could not copy STDOUT: $!";
	$report->autoflush(1);
}

my $result = run_chaos(
	dir => $ENV{CHAOS_WORK} // die("CHAOS_WORK is not set\n"),
	log_dir => $ENV{CHAOS_LOG_DIR} // die("CHAOS_LOG_DIR is not set\n"),
	minutes => $ENV{CHAOS_MINUTES} // 30,
	seed => $ENV{CHAOS_SEED} // die("CHAOS_SEED is not set\n"),
	faults => $ENV{CHAOS_FAULTS} ? [ split ' ', $ENV{CHAOS_FAULTS} ] : undef,
	tmpfs => $ENV{CHAOS_TMPFS} || undef,
	tmpfs_note => $ENV{CHAOS_TMPFS_NOTE},
	dcs_api => $ENV{CHAOS_DCS} || 'etcd',
	say => sub { print $report "$_[0]\n" });
print $report "$_\n" for summary_lines($result);
exit(grep({ !$_ } values %{ $result->{goals} }) ? 1 : 0);
