# 081_autowarm_primary.pl
#
# Autowarm on one server, with no SQL call:
# - a clean shutdown records the cache (a LOG line "(shutdown)"), and the
#   server restarted with its relation files dropped from the OS page cache
#   (as a host reboot leaves it) has its hot set back in shared buffers, the
#   load logged at its start and end;
# - an unchanged cache makes a snapshot that writes no row
#   (pg_stat_user_tables of cachectl.snapshot) and under 64 kB of WAL
#   (pg_current_wal_lsn before and after), as the status view reports too;
# - DDL is not blocked by a load: TRUNCATE of the relation the worker is
#   loading (at 4 MB/s, so that it lasts) and DROP TABLE of one it is about
#   to load each complete within 2 s; the dropped one is counted skipped;
# - a database's worker does not stand in the way of the commands that need
#   the database to themselves: CREATE DATABASE copying it as a template and
#   DROP DATABASE succeed while its worker runs (they wait up to 5 s for
#   other sessions to leave; the worker leaves within a second).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CachectlTest qw(poll_until);
use AutowarmTest qw(start_autowarm_node cold_restart_loads autowarm_state wait_for_status drop_data_files_from_os_cache
  shared_share_resident create_filled_table read_through_index);

my $interval = 2;

my $node = start_autowarm_node('primary', $interval);
create_filled_table($node, 'hot_t', 20000, 1);
create_filled_table($node, 'big_t', 24000, 0);
create_filled_table($node, 'drop_t', 28000, 0);
$node->safe_psql('postgres', 'CHECKPOINT');
ok(defined wait_for_status($node, q{state = 'idle'}, 30), 'the worker runs');

# ---- a restart with the OS cache gone: the hot set comes back ----
$node->safe_psql('postgres', q{SELECT count(*) >= 0 FROM cachectl.cold('hot_t', cascade => true)});
read_through_index($node, 'hot_t', 1, 8000);
cold_restart_loads($node, 'restarted cold');
my ($share, $blocks) = shared_share_resident($node, 'autowarm', [ 'hot_t', 'hot_t_pkey' ]);
cmp_ok($blocks, '>=', 500, "the snapshot held the hot set ($blocks shared blocks)");
cmp_ok($share, '>=', 0.95, sprintf('%.1f %% of it is in shared buffers again', 100 * $share));
# The worker logs the load's end just after it counts the load done (which
# cold_restart_loads waited for): wait for the line too.
ok($node->log_contains(qr/loading cache snapshot "autowarm" into database "postgres" \(server start\)/)
	  && poll_until(sub {
			$node->log_contains(qr/loaded cache snapshot "autowarm" into database "postgres": \d+ shared and \d+ OS blocks/);
		}),
	'one LOG line at the start and one at the end of the load');

# ---- an unchanged cache writes nothing ----
# Nothing runs but the worker (and these queries, whose pages are cached);
# a window with one snapshot in it, a few times over, since the kernel may
# reclaim an untouched page between two snapshots and change the cache.
my ($rows_written, $wal_bytes, $status_rows);
for my $attempt (1 .. 5)
{
	my $taken = autowarm_state($node, 'snapshots_taken');
	wait_for_status($node, "snapshots_taken >= $taken + 1", 4 * $interval);
	$taken = autowarm_state($node, 'snapshots_taken');
	my ($tuples_before, $lsn_before) = split /\|/, $node->safe_psql('postgres', q{
SELECT n_tup_ins + n_tup_upd + n_tup_del, pg_current_wal_lsn() FROM pg_stat_user_tables
 WHERE relid = 'cachectl.snapshot'::regclass});
	wait_for_status($node, "snapshots_taken >= $taken + 1", 4 * $interval);
	my ($tuples_after, $wal) = split /\|/, $node->safe_psql('postgres', qq{
SELECT n_tup_ins + n_tup_upd + n_tup_del, pg_current_wal_lsn() - '$lsn_before'::pg_lsn FROM pg_stat_user_tables
 WHERE relid = 'cachectl.snapshot'::regclass});
	($rows_written, $wal_bytes) = ($tuples_after - $tuples_before, $wal);
	$status_rows = autowarm_state($node, 'last_snapshot_rows_written');
	last if $rows_written == 0;
}
is($rows_written, 0, 'a snapshot of an unchanged cache wrote no row (pg_stat_user_tables)');
cmp_ok($wal_bytes, '<', 64 * 1024, "and $wal_bytes bytes of WAL");
is($status_rows, '0', 'the status view says no row was written');

# ---- DDL is not blocked by a load ----
$node->safe_psql('postgres', q{
SELECT count(*) >= 0 FROM cachectl.prewarm('big_t', fork => 'main');
SELECT count(*) >= 0 FROM cachectl.prewarm('drop_t', fork => 'main');
ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 4;
});
my $taken = autowarm_state($node, 'snapshots_taken');
wait_for_status($node, "snapshots_taken >= $taken + 1", 4 * $interval);
$node->stop;
drop_data_files_from_os_cache($node);
$node->start;
ok(defined wait_for_status($node, q{state = 'loading'}, 20), 'the restarted server is loading at 4 MB/s');
# big_t's turn (it comes before drop_t, in each layer: the plan goes smallest
# first): the worker holds its lock, a chunk at a time, a few milliseconds
# each (the load paces itself between transactions), so a session polls
# pg_locks every 2 ms until it sees the lock.
my $worker = autowarm_state($node, 'pid');
$node->safe_psql('postgres', q{
CREATE FUNCTION lock_seen(worker int, rel regclass, seconds float8) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    deadline timestamptz := clock_timestamp() + seconds * interval '1 s';
BEGIN
    WHILE clock_timestamp() < deadline LOOP
        IF EXISTS (SELECT FROM pg_locks AS l WHERE l.pid = worker AND l.relation = rel AND l.granted) THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.002);
    END LOOP;
    RETURN false;
END $$});
is($node->safe_psql('postgres', "SELECT lock_seen($worker, 'big_t', 60)"), 't',
	'the worker is loading big_t (it holds its lock)');
my $started = time;
$node->safe_psql('postgres', 'TRUNCATE big_t');
my $truncate_seconds = time - $started;
cmp_ok($truncate_seconds, '<', 2, sprintf('TRUNCATE of the table being loaded took %.2f s', $truncate_seconds));
$started = time;
$node->safe_psql('postgres', 'DROP TABLE drop_t');
my $drop_seconds = time - $started;
cmp_ok($drop_seconds, '<', 2, sprintf('DROP TABLE of one still to load took %.2f s', $drop_seconds));
ok(defined wait_for_status($node, q{loads_done >= 1 AND state <> 'loading'}, 60), 'the load went on and ended');
cmp_ok(autowarm_state($node, 'start_load_relations_skipped'), '>=', 1, 'the dropped table counted as skipped')
  or diag(join '', grep { /autowarm|drop_t|big_t/ } split /^/, slurp_file($node->logfile));
is(autowarm_state($node, 'failures'), '0', 'and the worker never failed');

# ---- CREATE DATABASE ... TEMPLATE and DROP DATABASE with a worker in it ----
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION pg_cachectl');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'other' AND pid IS NOT NULL}),
	'database other has its worker');
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE DATABASE copied TEMPLATE other');
is($ret, 0, 'CREATE DATABASE copying it as a template succeeds while the worker ran in it')
  or diag($err);
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'other' AND pid IS NOT NULL});
($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE other');
is($ret, 0, 'DROP DATABASE succeeds while its worker ran') or diag($err);
ok($node->log_contains(qr/pg_cachectl autowarm: leaving database "other": another session needs it to itself/),
	'the worker said it left');

$node->stop;
done_testing();
