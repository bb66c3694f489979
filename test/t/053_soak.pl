# 053_soak.pl
#
# A soak of every action while pgbench writes: on a cluster with data
# checksums and fsync on, pgbench (scale 20, 6 clients) runs for
# CACHECTL_SOAK_SECONDS (default 90) while 2 more clients loop over every
# action of the extension, one after the other in a random order (seeded:
# CACHECTL_SOAK_SEED, printed) on a random pgbench table or index:
# evict, evict_relations, evict_database, evict_all, os_drop, cold,
# cold_database, prewarm into each target, os_prefetch, os_restore of a map
# taken before the load, snapshot followed by CALL restore.  Each action
# records what it did (buffers evicted and flushed, OS pages dropped,
# blocks loaded) in a table.
#
# Afterwards: every client succeeded; one history row per pgbench
# transaction and the pgbench invariant; amcheck (verify_heapam and
# bt_index_check with heapallindexed) on every table and index of the
# database; no buffer left pinned; no ERROR, PANIC or crash in the server
# log; the same postmaster; and pg_checksums --check on the stopped cluster.
# One line sums it up: transactions, actions by kind, buffers evicted,
# pages dropped.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use CachectlTest qw(start_pgbench finish_pgbench check_pgbench_balances
  check_amcheck log_trouble check_pg_checksums);

my $seconds = $ENV{CACHECTL_SOAK_SECONDS} // 90;
my $seed = $ENV{CACHECTL_SOAK_SEED} // int(rand(2**31));
my $scale = 20;                 # pgbench_accounts: about 260 MB, twice the pool
my $load_clients = 6;
my $action_clients = 2;
note("soak: $seconds s, seed $seed (CACHECTL_SOAK_SEED=$seed repeats the order of the actions)");

my $node = PostgreSQL::Test::Cluster->new('soak');
$node->init(extra => ['--data-checksums']);
$node->append_conf(
	'postgresql.conf', q{
shared_buffers = '128MB'
# Cluster.pm turns fsync off; the evictions' writes and os_drop's fsyncs
# should meet the same durability path as in production.
fsync = on
log_statement = 'none'
checkpoint_timeout = '60s'
});
$node->start;

# The postmaster's pid (from postmaster.pid) and the checkpointer's: a crash
# of any backend makes the postmaster start a new checkpointer.
sub postmaster_and_checkpointer
{
	my ($postmaster) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
	my $checkpointer = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'});
	return "postmaster $postmaster, checkpointer $checkpointer";
}
my $server_processes = postmaster_and_checkpointer();
note("before the soak: $server_processes");

is($node->safe_psql('postgres', 'SHOW data_checksums'),
	'on', 'the cluster has data checksums');
$node->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
$node->safe_psql('postgres', 'CREATE EXTENSION pg_buffercache');
$node->command_ok(
	[
		'pgbench', '-i', '-q', '-s', $scale, '-h', $node->host,
		'-p', $node->port, 'postgres'
	],
	"pgbench -i at scale $scale");

# What the actions did, one row each; and the block maps os_restore puts back.
$node->safe_psql(
	'postgres', q{
CREATE TABLE soak_actions (
    id bigserial PRIMARY KEY,
    kind text NOT NULL,
    target regclass,
    evicted int8 NOT NULL DEFAULT 0,
    flushed int8 NOT NULL DEFAULT 0,
    pages_dropped int8 NOT NULL DEFAULT 0,
    os_blocks_loaded int8 NOT NULL DEFAULT 0);
CREATE TABLE soak_maps AS
    SELECT c.oid::regclass AS rel, cachectl.os_map(c.oid, fork => 'main') AS map
      FROM pg_class AS c
     WHERE c.relname LIKE 'pgbench%' AND c.relkind IN ('r', 'i');
});
my @targets = split /\n/, $node->safe_psql('postgres',
	q{SELECT rel FROM soak_maps ORDER BY rel::text});
note('targets: ' . join(', ', @targets));

# One action per transaction of the action clients: \set picks the kind and
# the relation, the SQL records what the call did.  OS pages dropped are
# the cached pages before, less those left after.
my $target_array = "(ARRAY['" . join("','", @targets) . "']::regclass[])";
my $target = "$target_array\[:target]";
my $cascade = '(:cascade = 1)';
my $cached_before = qq{SELECT coalesce(sum(os_pages), 0) AS before
  FROM cachectl.os_residency_total($target, cascade => $cascade) \\gset};
my @actions = (
	[
		evict => qq{
INSERT INTO soak_actions (kind, target, evicted, flushed)
  SELECT 'evict', $target, sum(buffers_evicted), sum(buffers_flushed)
    FROM cachectl.evict($target, cascade => $cascade);}
	],
	[
		evict_relations => qq{
INSERT INTO soak_actions (kind, evicted, flushed)
  SELECT 'evict_relations', sum(buffers_evicted), sum(buffers_flushed)
    FROM cachectl.evict_relations($target_array, cascade => $cascade);}
	],
	[
		evict_database => q{
INSERT INTO soak_actions (kind, evicted, flushed)
  SELECT 'evict_database', buffers_evicted, buffers_flushed FROM cachectl.evict_database();}
	],
	[
		evict_all => q{
INSERT INTO soak_actions (kind, evicted, flushed)
  SELECT 'evict_all', buffers_evicted, buffers_flushed FROM cachectl.evict_all();}
	],
	[
		os_drop => qq{
INSERT INTO soak_actions (kind, target, pages_dropped)
  SELECT 'os_drop', $target, sum(os_pages_before - os_pages_after)
    FROM cachectl.os_drop($target, cascade => $cascade);}
	],
	[
		cold => qq{$cached_before
INSERT INTO soak_actions (kind, target, evicted, flushed, pages_dropped)
  SELECT 'cold', $target, sum(buffers_evicted), sum(buffers_flushed), :before - sum(os_pages_left)
    FROM cachectl.cold($target, cascade => $cascade);}
	],
	[
		cold_database => q{SELECT coalesce(sum(os_bytes), 0) / cachectl.os_page_size() AS before
  FROM cachectl.database_status \gset
INSERT INTO soak_actions (kind, evicted, flushed, pages_dropped)
  SELECT 'cold_database', buffers_evicted, buffers_flushed, :before - os_pages_left
    FROM cachectl.cold_database();}
	],
	(
		map {
			my $layer = $_;
			[
				"prewarm_$layer" => qq{
INSERT INTO soak_actions (kind, target, os_blocks_loaded)
  SELECT 'prewarm_$layer', $target, sum(shared_blocks_loaded + os_blocks_loaded)
    FROM cachectl.prewarm($target, '$layer', fork => 'main');}
			]
		} qw(os shared both)
	),
	[
		os_prefetch => qq{
INSERT INTO soak_actions (kind, target, os_blocks_loaded)
  SELECT 'os_prefetch', $target, sum(blocks_requested)
    FROM cachectl.os_prefetch($target, fork => 'main');}
	],
	[
		os_restore => qq{
INSERT INTO soak_actions (kind, target, os_blocks_loaded)
  SELECT 'os_restore', $target, r.os_blocks_loaded
    FROM soak_maps AS m, cachectl.os_restore(m.rel, m.map, drop_others => :cascade = 1, fork => 'main') AS r
   WHERE m.rel = $target;}
	],
	[
		snapshot_restore => qq{
SELECT cachectl.snapshot('soak_' || :client_id, ARRAY[$target], cascade => $cascade);
CALL cachectl.restore('soak_' || :client_id);
INSERT INTO soak_actions (kind, target) VALUES ('snapshot_restore', $target);}
	],);

my $script = "\\set action random(1, " . scalar(@actions) . ")\n"
  . "\\set target random(1, " . scalar(@targets) . ")\n"
  . "\\set cascade random(0, 1)\n";
for my $number (1 .. @actions)
{
	$script .= ($number == 1 ? '\if' : '\elif') . " :action = $number\n"
	  . $actions[ $number - 1 ][1] . "\n";
}
$script .= "\\endif\n";
my $action_script = $node->basedir . '/soak_actions.sql';
append_to_file($action_script, $script);

# ---- the soak ----

my $log_offset = -s $node->logfile;
my $history_before =
  $node->safe_psql('postgres', 'SELECT count(*) FROM pgbench_history');
my $load = start_pgbench($node, { PGAPPNAME => 'soak_load' },
	$seconds, '-c', $load_clients, '-j', 2, '-T', $seconds);
my $actor = start_pgbench($node, { PGAPPNAME => 'soak_actions' },
	$seconds, '-c', $action_clients, '-j', 1, '-T', $seconds,
	"--random-seed=$seed", '-f', $action_script);
my ($load_status, $transactions) = finish_pgbench($load);
my ($actor_status, $rounds) = finish_pgbench($actor);
is($load_status, 0, 'the pgbench load succeeded') or diag($load->{stderr});
is($actor_status, 0, 'the action clients succeeded') or diag($actor->{stderr});

# ---- what the actions did ----

my %done = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	q{SELECT kind, count(*) FROM soak_actions GROUP BY kind});
my ($evicted, $flushed, $dropped, $loaded) = split /\|/, $node->safe_psql(
	'postgres', q{
SELECT sum(evicted), sum(flushed), sum(pages_dropped), sum(os_blocks_loaded) FROM soak_actions});
my @kinds = map { $_->[0] } @actions;
my @missing = grep { !$done{$_} } @kinds;
is_deeply(\@missing, [], 'every kind of action ran at least once');
my $actions_done = 0;
$actions_done += $_ foreach values %done;
is($actions_done, $rounds, 'every action the clients completed is recorded');
cmp_ok($evicted, '>', 0, 'the actions evicted buffers');
cmp_ok($flushed, '>', 0, 'the actions wrote dirty buffers first');
cmp_ok($dropped, '>', 0, 'the actions dropped OS pages');

# ---- what must hold ----

ok( $node->poll_query_until(
		'postgres',
		q{SELECT count(*) = 0 FROM pg_buffercache WHERE pinning_backends > 0}),
	'no buffer stays pinned');

my $history = check_pgbench_balances($node, $scale, 'soak');
is($history - $history_before, $transactions,
	'one history row per transaction pgbench completed');

my @tables = split /\n/, $node->safe_psql(
	'postgres', q{
SELECT relname FROM pg_class
 WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY 1});
my $indexes = $node->safe_psql(
	'postgres', q{
SELECT count(*) FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
 WHERE t.relnamespace = 'public'::regnamespace});
is(check_amcheck($node, \@tables, 'soak'), $indexes,
	"bt_index_check saw every index of the public schema ($indexes)");

my @trouble = log_trouble(slurp_file($node->logfile, $log_offset));
is_deeply(\@trouble, [], 'the server log shows no error');
is(postmaster_and_checkpointer(), $server_processes,
	'the same postmaster and checkpointer as before the soak: no crash, no restart');

$node->stop;
check_pg_checksums($node, 'soak');

my $by_kind = join ', ', map { "$_ " . ($done{$_} // 0) } @kinds;
note(sprintf('soak summary: %d pgbench transactions in %d s (scale %d, %d clients, '
	  . '128 MB pool, checksums, fsync on); %d actions (%s); %d buffers evicted '
	  . '(%d written first); %d OS pages dropped; %d blocks loaded; seed %d; '
	  . 'load average %s',
	$transactions, $seconds, $scale, $load_clients, $actions_done, $by_kind,
	$evicted, $flushed, $dropped, $loaded, $seed,
	(split ' ', slurp_file('/proc/loadavg'))[1]));

done_testing();
