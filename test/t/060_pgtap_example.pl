# 060_pgtap_example.pl
#
# The examples of docs/REGRESSION_TESTING.md as a pgTAP file
# (test/pgtap/cold_assertions.sql), run by pg_prove against a cluster with
# pgtap and pg_cachectl installed, as an extension author's CI would.  The
# cluster keeps PostgreSQL's defaults but for autovacuum, which
# docs/REGRESSION_TESTING.md asks to turn off.  Asserts:
# - pg_prove passes the file, every planned test ran and passed;
# - a copy expecting 4 reads where a cold lookup makes 3 fails, naming the
#   test: the harness does catch a wrong count.
# Skipped when the server under test has no pgtap extension (Debian ships
# postgresql-15-pgtap for its own server; a server built from source has
# none) or pg_prove is missing (libtap-parser-sourcehandler-pgtap-perl).
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my ($sharedir) = run_command([ 'pg_config', '--sharedir' ]);
chomp $sharedir;
plan skip_all => "pgtap is not installed for this server ($sharedir/extension/pgtap.control)"
  unless -f "$sharedir/extension/pgtap.control";
my ($pg_prove) = run_command([ 'sh', '-c', 'command -v pg_prove' ]);
chomp $pg_prove;
plan skip_all => 'pg_prove is not installed (Debian: libtap-parser-sourcehandler-pgtap-perl)'
  unless $pg_prove;

my $example = "$ENV{TESTDIR}/test/pgtap/cold_assertions.sql";
my $example_sql = slurp_file($example);
my ($planned) = $example_sql =~ /^SELECT plan\((\d+)\);$/m;
ok(defined $planned, "the example plans its tests (plan($planned))");

my $node = PostgreSQL::Test::Cluster->new('pgtap');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE DATABASE app_tests;
});
$node->safe_psql(
	'app_tests', q{
CREATE EXTENSION pgtap;
CREATE EXTENSION pg_cachectl;
});

# pg_prove FILE: its exit status, and what it printed.
sub run_pg_prove
{
	my ($file) = @_;
	my ($stdout, $stderr);
	my $passed = IPC::Run::run(
		[
			'pg_prove', '--verbose', '--host', $node->host, '--port', $node->port,
			'--dbname', 'app_tests', $file
		],
		'>', \$stdout, '2>', \$stderr);
	return ($passed, $stdout . $stderr);
}

my ($passed, $output) = run_pg_prove($example);
note($output);
ok($passed, 'pg_prove passes test/pgtap/cold_assertions.sql');
like($output, qr/^ok $planned - /m, "all $planned planned tests ran");
unlike($output, qr/^not ok /m, 'none failed');
like($output, qr/^Result: PASS$/m, 'pg_prove says PASS');

# The same file expecting a wrong count must fail, and say which test.
my $wrong_sql = $example_sql;
my $replaced = $wrong_sql =~ s/\$\$VALUES \('Index Scan', 0::int8, 3::int8\)\$\$/\$\$VALUES ('Index Scan', 0::int8, 4::int8)\$\$/;
is($replaced, 1, 'a copy of the example expects 4 reads of the cold lookup');
my $wrong = $node->basedir . '/wrong_count.sql';
open(my $fh, '>', $wrong) or die "could not write \"$wrong\": $!";
print $fh $wrong_sql;
close($fh);
($passed, $output) = run_pg_prove($wrong);
note($output);
ok(!$passed, 'pg_prove fails the copy');
like($output, qr/^not ok 2 - a cold lookup reads/m, 'and names the lookup test');
like($output, qr/have: \("Index Scan",0,3\)/, 'pgTAP shows the 3 reads the lookup made');

$node->stop;

done_testing();
