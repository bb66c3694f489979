# 051_sqlsmith.pl
#
# sqlsmith (Debian package) generates random queries from the catalog —
# every type, operator and function it may call, ours among them — against
# a database with the extension and tables of every kind, for
# CACHECTL_SQLSMITH_SECONDS (default 120).  It runs as a role that is no
# superuser: granted EXECUTE on the extension's functions and procedure,
# pg_read_all_stats and SELECT on the tables, so only our functions can act
# on the cluster (core's dangerous ones are refused to it).  sqlsmith has no
# option to keep to one schema (--exclude-catalog only leaves out catalog
# tables), so most of its queries call core functions.
#
# The server logs each error with its SQLSTATE (log_line_prefix %e) and the
# statement: an XX000 from a statement calling cachectl fails the test; so
# do a crash or a different postmaster afterwards.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);

my ($sqlsmith) = grep { -x $_ } ((map { "$_/sqlsmith" } split /:/, $ENV{PATH} // ''), '/usr/bin/sqlsmith');
plan skip_all => 'sqlsmith is not installed (scripts/install_deps.sh installs it)' unless $sqlsmith;

my $seconds = $ENV{CACHECTL_SQLSMITH_SECONDS} // 120;
my $seed = $ENV{CACHECTL_FUZZ_SEED} // 20261130;

my $node = PostgreSQL::Test::Cluster->new('sqlsmith');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
shared_buffers = 64MB
log_line_prefix = '%e %u '
log_min_error_statement = error
log_error_verbosity = terse
});
$node->start;
my $pid_file = $node->data_dir . '/postmaster.pid';
my $first_pid = (split /\n/, slurp_file($pid_file))[0];

# No foreign table: sqlsmith reads every table's columns, and a wrapper
# without a handler makes it fail while loading.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE sm_t (id int PRIMARY KEY, doc text);
INSERT INTO sm_t SELECT g, repeat(md5(g::text), 1 + g % 40) FROM generate_series(1, 5000) g;
CREATE INDEX sm_t_brin ON sm_t USING brin (id);
CREATE TABLE sm_p (id int, b int) PARTITION BY RANGE (id);
CREATE TABLE sm_p1 PARTITION OF sm_p FOR VALUES FROM (0) TO (1000);
CREATE TABLE sm_p2 PARTITION OF sm_p FOR VALUES FROM (1000) TO (2000);
CREATE INDEX sm_p_b ON sm_p (b);
INSERT INTO sm_p SELECT g, g % 13 FROM generate_series(0, 1999) g;
CREATE UNLOGGED TABLE sm_u AS SELECT g AS id FROM generate_series(1, 1000) g;
CREATE MATERIALIZED VIEW sm_mv AS SELECT id FROM sm_t WHERE id % 3 = 0;
CREATE SEQUENCE sm_seq;
CREATE VIEW sm_v AS SELECT id FROM sm_t;
CREATE ROLE smith LOGIN IN ROLE pg_read_all_stats;
GRANT USAGE ON SCHEMA cachectl TO smith;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA cachectl TO smith;
GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA cachectl TO smith;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO smith;
GRANT SELECT, INSERT, DELETE ON cachectl.snapshot TO smith;
ALTER ROLE smith SET statement_timeout = '5s';
});

my $connstr = $node->connstr('postgres') . ' user=smith';
my ($out, $err) = ('', '');
my $run = IPC::Run::start(
	[ $sqlsmith, "--target=$connstr", "--seed=$seed", '--verbose', '--dump-all-queries', '--max-queries=100000000' ],
	'>', \$out, '2>', \$err, IPC::Run::timeout($seconds + 300));
# The clock starts once sqlsmith has loaded the catalog: on a loaded machine
# (an assertion-enabled build, other suites beside it) that alone took 20 s.
my $loaded_by = time + 180;
while (time < $loaded_by && $run->pumpable && $err !~ /Loading aggregate parameters\.\.\.done/) {
	eval { $run->pump_nb; 1 };    # dies if sqlsmith exited since pumpable()
	sleep 0.2;
}
my $end = time + $seconds;
while (time < $end && $run->pumpable) {
	eval { $run->pump_nb; 1 };    # dies if sqlsmith exited since pumpable()
	sleep 1;
}
$run->signal('INT') if $run->pumpable;
eval { $run->finish };

# sqlsmith ends every dumped query with a semicolon at the end of a line
my @queries = grep { /\S/ } split /;[ \t]*$/m, $out;
my $ours = grep { /cachectl\./ } @queries;
cmp_ok(scalar(@queries), '>', 0, 'sqlsmith generated queries') or diag(substr($err, 0, 2000));
like($err, qr/Loading tables\.\.\.done/, 'sqlsmith loaded the schema');

# Errors of smith's sessions, by SQLSTATE; an XX000 is ours when its
# statement calls cachectl.
my $log = slurp_file($node->logfile);
my %by_state;
my @internal_ours;
my @lines = split /\n/, $log;
for my $i (0 .. $#lines) {
	next unless $lines[$i] =~ /^([0-9A-Z]{5}) smith (?:ERROR|FATAL|PANIC):/;
	my $state = $1;
	$by_state{$state}++;
	next unless $state eq 'XX000';
	my $statement = ($i < $#lines && $lines[ $i + 1 ] =~ /STATEMENT:/) ? $lines[ $i + 1 ] : '';
	push @internal_ours, "$lines[$i] | $statement" if $statement =~ /cachectl/ || $lines[$i] =~ /cachectl/;
}
my $errors = 0;
$errors += $_ for values %by_state;
diag(sprintf('sqlsmith: %d queries in %d s (seed %d), %d calling cachectl; %d errors: %s', scalar(@queries), $seconds,
		$seed, $ours, $errors, join(', ', map { "$_ $by_state{$_}" } sort keys %by_state)));

is(scalar(@internal_ours), 0, 'no XX000 from a statement calling cachectl')
  or diag(join("\n", @internal_ours[ 0 .. ($#internal_ours < 10 ? $#internal_ours : 10) ]));
unlike($log, qr/terminated by signal|PANIC|TRAP:/, 'no crash, PANIC or assertion failure in the server log');
is((split /\n/, slurp_file($pid_file))[0], $first_pid, 'the postmaster is the same process');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server answers');

$node->stop;
done_testing();
