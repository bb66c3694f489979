# 012_eviction_on_standby.pl
#
# Evicting shared buffers on a hot standby while it replays a write load
# loses nothing and corrupts nothing.  On a standby the pages that need
# writing were dirtied by the startup process, and writing one first flushes
# WAL, which in recovery moves the minimum recovery point instead.
#
# pgbench (tpcb-like, 4 clients) writes on the primary while a second
# pgbench loops over cachectl.evict_all() and cachectl.evict(cascade) on the
# standby, whose small pool keeps replay reading pages back.  Afterwards,
# once the standby has caught up and its pool has been emptied once more (so
# what is read next comes from the files the evictions wrote):
# - the pgbench invariant holds, and both nodes hold the same data
#   (checksums over every table, one of them read through the index);
# - amcheck finds nothing on the standby (bt_index_check with heapallindexed,
#   verify_heapam), and pg_checksums finds nothing in its stopped data
#   directory (the cluster has data checksums, so each eviction's write is
#   checksummed);
# - the standby's log shows no error, PANIC or "invalid page" line.
use strict;
use warnings;

use IPC::Run;
use List::Util qw(sum0);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $workload_seconds = 20;

# ---- the primary and its streaming standby ----

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1, extra => ['--data-checksums']);
$primary->append_conf(
	'postgresql.conf', q{
wal_keep_size = '1GB'
max_wal_size = '1GB'
});
$primary->start;

$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '5', 'postgres' ],
	'pgbench -i -s 5 on the primary');
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION amcheck;
});

$primary->backup('standby_backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'standby_backup', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', q{
hot_standby = on
# smaller than pgbench_accounts: replay keeps reading pages back in
shared_buffers = '32MB'
# let replay wait for the evicting sessions rather than cancel them
max_standby_streaming_delay = -1
});
$standby->start;
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

is( $standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby is in recovery');
is( $standby->safe_psql(
		'postgres',
		q{SELECT extversion FROM pg_extension WHERE extname = 'pg_cachectl'}),
	$primary->safe_psql(
		'postgres',
		q{SELECT extversion FROM pg_extension WHERE extname = 'pg_cachectl'}),
	'the extension replicated to the standby');

# ---- the workloads ----

# One line per round: what evict_all and evict(cascade) reported.
my $rounds_log = "$PostgreSQL::Test::Utils::tmp_check/standby_eviction_rounds.txt";
unlink $rounds_log;
my $eviction_script = "$PostgreSQL::Test::Utils::tmp_check/standby_eviction.sql";
open(my $script, '>', $eviction_script)
  or die "could not write \"$eviction_script\": $!";
print $script <<"EOF";
SELECT buffers_evicted AS all_evicted, buffers_flushed AS all_flushed, buffers_skipped AS all_skipped FROM cachectl.evict_all() \\gset
SELECT coalesce(sum(buffers_evicted), 0) AS rel_evicted, coalesce(sum(buffers_flushed), 0) AS rel_flushed, coalesce(sum(buffers_skipped), 0) AS rel_skipped FROM cachectl.evict('pgbench_accounts', cascade => true) \\gset
\\shell echo :all_evicted :all_flushed :all_skipped :rel_evicted :rel_flushed :rel_skipped >> $rounds_log
EOF
close($script);

my $standby_log_offset = -s $standby->logfile;

my ($writer_out, $writer_err, $evictor_out, $evictor_err) = ('', '', '', '');
my $writer = IPC::Run::start(
	[
		'pgbench', '-c', '4', '-j', '2', '-T', $workload_seconds,
		'-h', $primary->host, '-p', $primary->port, 'postgres'
	],
	'>', \$writer_out, '2>', \$writer_err);
my $evictor = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '1', '-T', $workload_seconds,
		'-f', $eviction_script,
		'-h', $standby->host, '-p', $standby->port, 'postgres'
	],
	'>', \$evictor_out, '2>', \$evictor_err);
my $writer_ok = $writer->finish;
my $evictor_ok = $evictor->finish;
note("pgbench on the primary:\n$writer_out$writer_err");
note("pgbench evicting on the standby:\n$evictor_out$evictor_err");

ok($writer_ok, 'pgbench on the primary ran without error');
ok($evictor_ok, 'the eviction loop on the standby ran without error');
my ($writes) = $writer_out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($writes // 0, '>', 0, 'the primary committed pgbench transactions');
my ($rounds) = $evictor_out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($rounds // 0, '>', 0, 'the standby ran eviction rounds');

my @round_lines =
  -e $rounds_log ? split(/\n/, slurp_file($rounds_log)) : ();
my @columns = qw(all_evicted all_flushed all_skipped rel_evicted rel_flushed rel_skipped);
my %total = map { $_ => 0 } @columns;
foreach my $line (@round_lines)
{
	my @values = split / /, $line;
	die "unexpected round line \"$line\"" unless @values == @columns;
	$total{ $columns[$_] } += $values[$_] foreach 0 .. $#columns;
}
note(sprintf("%d rounds logged: %s", scalar @round_lines,
		join(', ', map { "$_ $total{$_}" } @columns)));
cmp_ok(scalar @round_lines, '>', 0, 'the rounds reported their counts');
cmp_ok($total{all_evicted}, '>', 0, 'evict_all evicted buffers on the standby');
cmp_ok($total{all_flushed}, '>', 0,
	'evict_all wrote pages dirtied by replay before evicting them');
cmp_ok($total{rel_evicted}, '>', 0,
	'evict(pgbench_accounts, cascade) evicted buffers on the standby');

# ---- the same data on both nodes ----

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# From here on the standby reads what the evictions and its restartpoints
# wrote, not what replay left in its buffers.
$standby->safe_psql('postgres', 'SELECT * FROM cachectl.evict_all()');

my $invariant_sql = q{
SELECT (SELECT sum(abalance) FROM pgbench_accounts),
       (SELECT sum(bbalance) FROM pgbench_branches),
       (SELECT sum(tbalance) FROM pgbench_tellers),
       (SELECT sum(delta) FROM pgbench_history),
       (SELECT count(*) FROM pgbench_history)
};
my $primary_invariant = $primary->safe_psql('postgres', $invariant_sql);
my $standby_invariant = $standby->safe_psql('postgres', $invariant_sql);
note("balances (accounts|branches|tellers|history|history rows): "
	  . "primary $primary_invariant, standby $standby_invariant");
my @sums = split /\|/, $standby_invariant;
ok( $sums[0] == $sums[1] && $sums[1] == $sums[2] && $sums[2] == $sums[3],
	'the pgbench invariant holds on the standby');
is($standby_invariant, $primary_invariant,
	'the standby has the primary\'s balances and history');

my $checksum_sql = q{
SELECT (SELECT md5(string_agg(aid || ':' || bid || ':' || abalance, ',' ORDER BY aid))
          FROM pgbench_accounts),
       (SELECT md5(string_agg(bid || ':' || bbalance, ',' ORDER BY bid))
          FROM pgbench_branches),
       (SELECT md5(string_agg(tid || ':' || bid || ':' || tbalance, ',' ORDER BY tid))
          FROM pgbench_tellers),
       (SELECT md5(string_agg(tid || ':' || bid || ':' || aid || ':' || delta || ':' || mtime,
                              ',' ORDER BY mtime, tid, bid, aid, delta))
          FROM pgbench_history)
};
my $primary_checksums = $primary->safe_psql('postgres', $checksum_sql);
is($standby->safe_psql('postgres', $checksum_sql),
	$primary_checksums,
	'every pgbench table has the same contents on both nodes');

my $accounts_by_index = q{
SELECT md5(string_agg(aid || ':' || bid || ':' || abalance, ',' ORDER BY aid))
  FROM (SELECT aid, bid, abalance FROM pgbench_accounts ORDER BY aid) AS by_index
};
my ($index_plan, $index_checksum) = $standby->safe_psql(
	'postgres', qq{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) $accounts_by_index;
$accounts_by_index;
}) =~ /\A(.*)\n([0-9a-f]{32})\z/s;
note("plan of the read through the index:\n" . ($index_plan // ''));
like($index_plan // '', qr/Index (Only )?Scan using pgbench_accounts_pkey/,
	'the accounts are read through their primary key index');
is($index_checksum, (split /\|/, $primary_checksums)[0],
	'read through the index, the standby\'s accounts equal the primary\'s');

# ---- amcheck on the standby ----

my $index_list = $standby->safe_psql(
	'postgres', q{
SELECT string_agg(c.relname, ' ' ORDER BY c.relname)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid::regclass::text LIKE 'pgbench\_%'
});
my @indexes = split / /, $index_list;
cmp_ok(scalar @indexes, '>=', 3, "the pgbench indexes: @indexes");
foreach my $index (@indexes)
{
	my ($ret, $stdout, $stderr) = $standby->psql('postgres',
		"SELECT bt_index_check('$index', heapallindexed => true)");
	is($ret, 0, "bt_index_check('$index', heapallindexed) passes on the standby")
	  or diag($stderr);
}
foreach my $table (
	qw(pgbench_accounts pgbench_branches pgbench_tellers pgbench_history))
{
	my ($ret, $stdout, $stderr) = $standby->psql('postgres',
		"SELECT blkno, offnum, attnum, msg FROM verify_heapam('$table')");
	is($ret, 0, "verify_heapam('$table') runs on the standby")
	  or diag($stderr);
	is($stdout, '', "verify_heapam('$table') finds no corruption")
	  or diag($stdout);
}

# ---- the standby's log ----

my $standby_log = slurp_file($standby->logfile, $standby_log_offset);
my @bad_lines =
  grep { /PANIC|FATAL|ERROR|WARNING|invalid page|could not|TRAP:/ }
  grep { !/ LOG:  statement: / && !/^\t/ } split /\n/, $standby_log;
is_deeply(\@bad_lines, [],
	'the standby logged no error, PANIC, "invalid page" or "could not" line');

# ---- the written files carry valid checksums ----

$standby->stop;
command_ok([ 'pg_checksums', '--check', '-D', $standby->data_dir ],
	'pg_checksums finds no bad block in the standby\'s files');
$primary->stop;

done_testing();
