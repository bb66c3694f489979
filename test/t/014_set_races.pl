# 014_set_races.pl
#
# Members of a relation set are listed from the catalogs without locks, then
# locked.  A member dropped in between (DROP INDEX CONCURRENTLY, the old
# indexes REINDEX CONCURRENTLY drops, a partition dropped or detached) must
# be left out of the set, never reach the user as XX000 "cache lookup
# failed".
#
# One pgbench client runs that DDL in a loop on a partitioned table with
# indexes, two more create and drop an index and a table, while another
# session keeps calling evict, evict_relations and shared_residency with
# cascade over it, and database_status, shared_block_runs(NULL) and
# snapshot() over the whole database, for a bounded time.  Every error the
# calls raise is counted by SQLSTATE: none may be XX000.  Afterwards the data
# and the indexes are intact.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $race_seconds = 12;

my $node = PostgreSQL::Test::Cluster->new('set_races');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
bgwriter_lru_maxpages = 0
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION amcheck;
CREATE TABLE race_p (id int, b int, doc text) PARTITION BY RANGE (id);
DO $$ BEGIN
    FOR i IN 0..59 LOOP
        EXECUTE format('CREATE TABLE race_p_%s PARTITION OF race_p FOR VALUES FROM (%s) TO (%s)',
                       i, i * 1000, i * 1000 + 1000);
    END LOOP;
END $$;
CREATE INDEX race_p_id ON race_p (id);
CREATE INDEX race_p_b ON race_p (b);
INSERT INTO race_p SELECT g, g % 97, 'doc ' || g FROM generate_series(0, 59999) g;
CREATE TABLE race_t (id int, b int, doc text);
DO $$ BEGIN
    FOR i IN 1..40 LOOP
        EXECUTE format('CREATE INDEX race_t_%s ON race_t (id)', i);
    END LOOP;
END $$;
INSERT INTO race_t SELECT g, g % 97, 'doc ' || g FROM generate_series(1, 1000) g;
});

# The DDL: indexes dropped and created concurrently, whole tables reindexed
# concurrently (which drops every old index), a partition detached, dropped
# and created again.
my $ddl_script = $node->basedir . '/race_ddl.sql';
open(my $ddl, '>', $ddl_script) or die "could not write $ddl_script: $!";
print $ddl <<'EOS';
CREATE INDEX CONCURRENTLY race_extra ON race_p_3 (b, id);
DROP INDEX CONCURRENTLY race_extra;
REINDEX TABLE CONCURRENTLY race_p_1;
REINDEX TABLE CONCURRENTLY race_p_2;
ALTER TABLE race_p DETACH PARTITION race_p_7 CONCURRENTLY;
DROP TABLE race_p_7;
CREATE TABLE race_p_7 PARTITION OF race_p FOR VALUES FROM (7000) TO (8000);
EOS
close($ddl);

# Another client creates and drops an index of a table that has many (the
# more indexes, the longer a set takes to list), as fast as it can.
my $churn_script = $node->basedir . '/race_churn.sql';
open(my $churn, '>', $churn_script) or die "could not write $churn_script: $!";
print $churn <<'EOS';
CREATE INDEX race_churn ON race_t (b);
DROP INDEX race_churn;
EOS
close($churn);

sub start_pgbench
{
	my ($script, $clients, $out, $err) = @_;
	return IPC::Run::start(
		[
			'pgbench', '-n', '-c', $clients, '-T', $race_seconds,
			'-f', $script, '-h', $node->host, '-p', $node->port, 'postgres'
		],
		'>', $out, '2>', $err);
}
# And a third creates and drops a whole table: the reports and snapshot()
# over the whole database list the relations from pg_class without locks,
# then check privileges, by which time the table may be gone.
my $table_script = $node->basedir . '/race_table.sql';
open(my $table_churn, '>', $table_script) or die "could not write $table_script: $!";
print $table_churn <<'EOS';
CREATE TABLE race_dropped (id int PRIMARY KEY);
DROP TABLE race_dropped;
EOS
close($table_churn);

my ($ddl_out, $ddl_err, $churn_out, $churn_err, $table_out, $table_err) = ('', '', '', '', '', '');
my $ddl_run = start_pgbench($ddl_script, 1, \$ddl_out, \$ddl_err);
my $churn_run = start_pgbench($churn_script, 1, \$churn_out, \$churn_err);
my $table_run = start_pgbench($table_script, 1, \$table_out, \$table_err);

# The calls, many per psql session; errors do not stop the session.
my @calls = (
	q{SELECT count(*) FROM cachectl.evict('race_t', cascade => true);},
	q{SELECT count(*) FROM cachectl.evict_relations(ARRAY['race_t', 'race_p']::regclass[], cascade => true);},
	q{SELECT count(*) FROM cachectl.shared_residency('race_t', cascade => true);},
	q{SELECT count(*) FROM cachectl.evict('race_p', cascade => true);},
	q{SELECT count(*) FROM cachectl.evict_relations(ARRAY['race_p', 'race_p_1', 'race_p_2']::regclass[], cascade => true);},
	q{SELECT count(*) FROM cachectl.shared_residency('race_p', cascade => true);},
	q{SELECT count(*) FROM cachectl.os_residency_total('race_p', cascade => true);},
	q{SELECT count(*) FROM cachectl.database_status;},
	q{SELECT count(*) FROM cachectl_internal.shared_block_runs(NULL);},
	q{SELECT relations > 0 FROM cachectl.snapshot('race');});
my $batch = join("\n", map { @calls } 1 .. 10) . "\n";

my %errors;
my $calls_made = 0;
my $members_left_out = 0;
my $deadline = time + $race_seconds;
while (time < $deadline)
{
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres', $batch,
		on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	$calls_made += scalar(@calls) * 10;
	$errors{$1}++ while $stderr =~ /^(?:psql:[^\n]*?)?ERROR:  ([0-9A-Z]{5}):/mg;
	$members_left_out++
	  while $stderr =~ /NOTICE:  00000: skipping relation with OID/g;
	note("XX000 seen: $1") if $stderr =~ /ERROR:  XX000: (.*)$/m;
}
$ddl_run->finish;
$churn_run->finish;
$table_run->finish;
note("pgbench stderr: $ddl_err $churn_err $table_err")
  if "$ddl_err$churn_err$table_err" ne '';
like($ddl_out, qr/number of transactions actually processed: [1-9]/,
	'the concurrent DDL loop ran');
like($churn_out, qr/number of transactions actually processed: [1-9]/,
	'the index churn loop ran');
like($table_out, qr/number of transactions actually processed: [1-9]/,
	'the table churn loop ran');
my ($ddl_count) = $ddl_out =~ /actually processed: (\d+)/;
my ($churn_count) = $churn_out =~ /actually processed: (\d+)/;
note("DDL rounds: $ddl_count concurrent, $churn_count create/drop");

note("$calls_made calls; $members_left_out members left out as dropped meanwhile; "
	  . "errors by SQLSTATE: "
	  . join(', ', map { "$_ x $errors{$_}" } sort keys %errors));
is($errors{XX000} // 0, 0,
	'no call failed with XX000 while members were dropped');
# A named relation that disappears (race_p_1 while its partition is being
# detached never does) would be the only error of ours: none expected.  A
# deadlock (40P01) is PostgreSQL's: the call holds the parent's lock while it
# waits for a partition's, and DETACH ... CONCURRENTLY / DROP wait the other
# way; the detector ends one side cleanly (seen once in about ten runs under
# load).  Anything else fails.
is(join(',', grep { $_ ne '40P01' } sort keys %errors), '',
	'no call failed, but for a deadlock PostgreSQL resolved');

is( $node->safe_psql('postgres', 'SELECT count(*) FROM race_p WHERE id < 7000 OR id >= 8000'),
	59000, 'the rows are all there');
# A REINDEX CONCURRENTLY that lost a deadlock leaves its new index behind,
# invalid (bt_index_check refuses those): the valid ones are checked.
note('invalid indexes left by a failed REINDEX CONCURRENTLY: '
	  . $node->safe_psql('postgres', q{SELECT count(*) FROM pg_index WHERE NOT indisvalid}));
cmp_ok(
	$node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid)
                        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                       WHERE c.relname LIKE 'race_p%' AND c.relkind = 'i'
                         AND i.indisvalid AND i.indisready) AS checked}),
	'>', 0,
	'the indexes pass amcheck');

# Read once the server has stopped: a backend that crashed as it exited,
# after its client had the answer, is logged by the postmaster when it reaps
# it, which the stop waits for.
$node->stop;
my $log = slurp_file($node->logfile);
unlike($log, qr/PANIC|TRAP:|terminated by signal/, 'the server log shows no crash');
done_testing();
