# 084_autowarm_lifecycle.pl
#
# The autowarm worker run as in production (issue 26): each finding of the
# attack on it, reproduced, on one primary with autowarm on and a 2 s
# interval.  Each check below failed before its fix.
# - One worker per database, found by OID: a renamed database keeps its
#   worker (it was relaunched by the old name, FATAL every 10 s) and a new
#   one with the old name gets its own; ALLOW_CONNECTIONS false then true
#   never leaves two workers in one database (the leader forgot the first).
# - A database owner's DROP DATABASE ... WITH (FORCE) succeeds (42501: the
#   worker runs as a superuser, whom the owner may not terminate).
# - Settings by reload: cachectl.autowarm_role (read only at start before),
#   cachectl.autowarm_interval lowered (the old schedule was kept).
# - Failures that show: a role that does not exist or may not log in counts
#   in failures with its message (the status said failures 0).
# - A primary that is read-only for now (default_transaction_read_only, as
#   pg_auto_failover sets it) is waited for, not counted as a failure.
# - cachectl.autowarm_max_mb_per_sec holds for a whole load of one-block
#   runs (each call throttled only itself: 4x the rate), and at a tiny rate
#   a fast shutdown, a DROP DATABASE and a reload of the rate are honoured
#   within seconds (the wait for the current chunk took 86 s).
# - The "stopped loading" line names the label being loaded, not one a
#   reload set meanwhile; a clean stop logs no FATAL for the leader.
# - A crash during the start load is not followed by the same load at once
#   (shared memory is wiped at a crash restart: it crash-looped 406 times
#   in 45 s); the next server start tries again.
# - With synchronous_standby_names naming a standby that is not there, the
#   worker still records and a fast shutdown ends (it waited forever).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CachectlTest qw(poll_until);
use AutowarmTest qw(start_autowarm_node autowarm_state wait_for_status create_filled_table);

my $node = start_autowarm_node('lifecycle', 2);
# the crash below is to be followed by a restart, as in production
$node->append_conf('postgresql.conf', "restart_after_crash = on\n");
$node->reload;

# ---- helpers ----

# Polls $query (one boolean) in $db until true; seconds taken, or undef.
sub wait_for
{
	my ($seconds, $query, $db) = @_;
	$db //= 'postgres';
	my $started = time;
	# During a crash restart psql may exit before it reads the query from
	# stdin, and IPC::Run then dies of the broken pipe: poll_until counts
	# that as not ready yet.
	my $ready = poll_until(
		sub {
			my ($ret, $out) = $node->psql($db, $query);
			return defined $ret && $ret == 0 && $out eq 't';
		},
		$seconds);
	return $ready ? time - $started : undef;
}

# The autowarm workers running in each database, as "db=count" sorted.
sub workers_per_database
{
	return $node->safe_psql('postgres', q{
SELECT string_agg(datname || '=' || n, ' ' ORDER BY datname)
  FROM (SELECT datname, count(*) AS n FROM pg_stat_activity
         WHERE backend_type = 'pg_cachectl autowarm' GROUP BY 1) AS w});
}

sub status_of
{
	my ($database, $column) = @_;
	return $node->safe_psql('postgres',
		"SELECT $column FROM cachectl.autowarm_status WHERE database = '$database'");
}

sub set_and_reload
{
	my ($setting, $value) = @_;
	$node->safe_psql('postgres',
		defined $value ? "ALTER SYSTEM SET $setting = '$value'" : "ALTER SYSTEM RESET $setting");
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
	return;
}

ok(defined wait_for(20, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE pid IS NOT NULL AND state = 'idle'}),
	'the worker of postgres runs');

# ---- the interval lowered by a reload takes effect at once ----
set_and_reload('cachectl.autowarm_interval', '1h');
sleep 3;
my $taken = autowarm_state($node, 'snapshots_taken');
set_and_reload('cachectl.autowarm_interval', '2s');
ok(defined wait_for_status($node, "snapshots_taken > $taken", 6),
	'1 h lowered to 2 s by a reload: a snapshot within 6 s (the old schedule waited the hour)');

# ---- a primary that may not write yet is waited for ----
create_filled_table($node, 'hot_t', 8000, 1);
my $failures = autowarm_state($node, 'failures');
my $log_offset = -s $node->logfile;
set_and_reload('default_transaction_read_only', 'on');
# The worker tries a snapshot every interval; its first try while
# read-only says so in the log.  From then on it records nothing, so the
# count read after the line cannot move (read after a fixed sleep, it moved
# when the worker had not yet seen the reload).
my $says_it_waits = poll_until(sub {
		$node->log_contains(qr/database "postgres" is read-only for now; the snapshot waits until it may write/,
			$log_offset);
	});
$taken = autowarm_state($node, 'snapshots_taken');
$node->safe_psql('postgres', 'SELECT * FROM cachectl.evict(\'hot_t\'); SELECT count(*) FROM hot_t');
sleep 6;
is(autowarm_state($node, 'failures'), $failures,
	'read-only primary: no failure counted (it was "cannot execute DELETE in a read-only transaction")');
is(autowarm_state($node, 'snapshots_taken'), $taken, 'and no snapshot taken while read-only');
ok($says_it_waits, 'the log says it waits');
$node->safe_psql('postgres', q{SET default_transaction_read_only = off; ALTER SYSTEM RESET default_transaction_read_only});
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok(defined wait_for_status($node, "snapshots_taken > $taken AND failures = $failures", 8),
	'writable again: it records, still no failure');

# ---- one worker per database, found by OID ----
$node->safe_psql('postgres', 'CREATE DATABASE db2');
$node->safe_psql('db2', 'CREATE EXTENSION pg_cachectl');
ok(defined wait_for(25, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'db2' AND pid IS NOT NULL}),
	'db2 has its worker');
$log_offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER DATABASE db2 RENAME TO db2x');
ok(defined wait_for(25, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'db2x' AND pid IS NOT NULL}),
	'renamed to db2x: the status names db2x and its worker is back');
$node->safe_psql('postgres', 'CREATE DATABASE db2');
$node->safe_psql('db2', 'CREATE EXTENSION pg_cachectl');
ok(defined wait_for(25, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'db2' AND pid IS NOT NULL}),
	'a new db2 gets a worker of its own');
is(workers_per_database(), 'db2=1 db2x=1 postgres=1', 'one worker per database (two in the new db2 before)');
is($node->safe_psql('postgres', q{SELECT string_agg(database, ' ' ORDER BY database) FROM cachectl.autowarm_status}),
	'db2 db2x postgres', 'and the status has a row each, by their current names');
ok(!$node->log_contains(qr/database "db2" does not exist/, $log_offset), 'no worker tried the old name');

# ---- connections disallowed, then allowed: never two workers ----
$node->safe_psql('postgres', 'ALTER DATABASE db2x ALLOW_CONNECTIONS false');
ok(defined wait_for(25, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = 'db2x'}),
	'ALLOW_CONNECTIONS false: the worker left db2x');
$node->safe_psql('postgres', 'ALTER DATABASE db2x ALLOW_CONNECTIONS true');
my $most = 0;
my $started = time;
while (time - $started < 25)
{
	my $n = $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_activity WHERE datname = 'db2x' AND backend_type = 'pg_cachectl autowarm'});
	$most = $n if $n > $most;
	usleep(250_000);
}
is($most, 1, 'allowed again: one worker in db2x, never two, over 25 s');
is(workers_per_database(), 'db2=1 db2x=1 postgres=1', 'and one in each database');

# ---- a database owner's DROP DATABASE ... WITH (FORCE) ----
$node->safe_psql('postgres', q{
CREATE ROLE dbowner LOGIN CREATEDB;
CREATE DATABASE db3 OWNER dbowner});
$node->safe_psql('db3', 'CREATE EXTENSION pg_cachectl');
ok(defined wait_for(25, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'db3' AND pid IS NOT NULL}),
	'db3 has its worker');
$started = time;
my ($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE db3 WITH (FORCE)', extra_params => [ '-U', 'dbowner' ]);
my $drop_seconds = time - $started;
is($ret, 0, 'its owner dropped db3 WITH (FORCE) (42501 before: the worker is a superuser\'s)') or diag($err);
cmp_ok($drop_seconds, '<', 6, sprintf('in %.1f s', $drop_seconds));

# ---- cachectl.autowarm_role by reload, and failures at connection counted ----
$node->safe_psql('postgres', q{
CREATE ROLE warm_r LOGIN SUPERUSER;
CREATE ROLE nologin_r NOLOGIN});
set_and_reload('cachectl.autowarm_role', 'warm_r');
ok(defined wait_for(10, q{SELECT count(*) = 1 FROM pg_stat_activity
  WHERE backend_type = 'pg_cachectl autowarm' AND datname = 'postgres' AND usename = 'warm_r'}),
	'a reload of cachectl.autowarm_role: the worker reconnected as warm_r');
$failures = autowarm_state($node, 'failures');
set_and_reload('cachectl.autowarm_role', 'nosuchrole');
ok(defined wait_for_status($node, qq{failures > $failures AND state = 'failed'
  AND last_error LIKE '%role "nosuchrole"%does not exist%'}, 15),
	'a role that does not exist: a failure counted, with its message');
$failures = autowarm_state($node, 'failures');
set_and_reload('cachectl.autowarm_role', 'nologin_r');
ok(defined wait_for_status($node, qq{failures > $failures AND last_error LIKE '%not permitted to log in%'}, 25),
	'a NOLOGIN role: the FATAL at connection counted, with its message (failures 0 before)');
set_and_reload('cachectl.autowarm_role', undef);
ok(defined wait_for(25, q{SELECT count(*) = 1 FROM pg_stat_activity
  WHERE backend_type = 'pg_cachectl autowarm' AND datname = 'postgres' AND usename <> 'warm_r'}),
	'reset: the worker is back as the bootstrap superuser');

# ---- the rate holds for a whole load of one-block runs ----
# 1,500 one-block OS runs (every other block of a 3,000-block table, out of
# shared buffers), recorded by the shutdown snapshot and loaded at start.
create_filled_table($node, 'frag_t', 24000, 0);
$node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.evict('frag_t');
SELECT count(*) FROM cachectl.os_drop('frag_t');
SELECT count(*) FROM generate_series(0, 2999, 2) AS b,
       cachectl.os_prefetch('frag_t', 'main', b, b, NULL, true)});
$node->safe_psql('postgres', q{ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 2});
$node->restart;
ok(defined wait_for_status($node, q{start_load_finished IS NOT NULL AND state <> 'loading'}, 60),
	'the start load at 2 MB/s ended');
my $runs = $node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.snapshot AS s, unnest(s.blocks) AS r
 WHERE s.label = 'autowarm' AND s.relation = 'frag_t'::regclass AND s.layer = 'os' AND upper(r) - lower(r) = 1});
cmp_ok($runs, '>=', 100, "the snapshot holds $runs one-block OS runs of frag_t (1,500 read; host reclaim may take some)");
my ($blocks, $seconds) = split /\|/, $node->safe_psql('postgres', q{
SELECT start_load_shared_blocks + start_load_os_blocks, start_load_seconds
  FROM cachectl.autowarm_status WHERE database = 'postgres'});
my $rate = $blocks * 8192 / 1048576 / $seconds;
cmp_ok($rate, '<=', 2 * 1.15,
	sprintf('%d blocks in %.1f s: %.2f MB/s under a limit of 2 (one throttle per load; 4x the limit before)',
		$blocks, $seconds, $rate));

# ---- a tiny rate: a fast shutdown, a label reloaded meanwhile ----
$node->safe_psql('postgres', q{ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 0.001});
$node->restart;
ok(defined wait_for_status($node, q{state = 'loading'}, 20), 'at 0.001 MB/s the start load runs');
ok(-f $node->data_dir . '/pg_cachectl/autowarm_start_'
	  . $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'postgres'}),
	'and its marker is in the data directory');
set_and_reload('cachectl.autowarm_label', 'another');
sleep 1;
$log_offset = -s $node->logfile;
$started = time;
$node->stop('fast');
my $stop_seconds = time - $started;
cmp_ok($stop_seconds, '<', 10, sprintf('pg_ctl -m fast stop took %.1f s (86 s before)', $stop_seconds));
ok($node->log_contains(qr/stopped loading cache snapshot "autowarm" into database "postgres"/, $log_offset),
	'"stopped loading" names the label loaded, not the one reloaded meanwhile');
ok(!$node->log_contains(qr/FATAL:.*pg_cachectl autowarm leader/, $log_offset), 'no FATAL for the leader at a clean stop');
# the label back as it was, before the server starts (ALTER SYSTEM needs it running)
my $auto_conf = $node->data_dir . '/postgresql.auto.conf';
my $settings = slurp_file($auto_conf);
$settings =~ s/^cachectl\.autowarm_label = .*\n//m;
open(my $fh, '>', $auto_conf) or die "could not write $auto_conf: $!";
print $fh $settings;
close $fh;
$node->start;

# ---- a crash during the start load: not the same load at once ----
ok(defined wait_for_status($node, q{state = 'loading'}, 20), 'the start load runs again (a new server start)');
my $worker = autowarm_state($node, 'pid');
$log_offset = -s $node->logfile;
BAIL_OUT("no worker pid to kill: '$worker'") unless $worker =~ /^[1-9][0-9]*$/;
kill 'KILL', $worker;
ok(defined wait_for(30, q{SELECT count(*) = 1 FROM cachectl.autowarm_status
  WHERE database = 'postgres' AND pid IS NOT NULL AND last_error LIKE '%server crashed during it%'}),
	'after the crash restart the worker is back and says why it does not load');
sleep 3;
my @crashes = (slurp_file($node->logfile) =~ /all server processes terminated; reinitializing/g);
my $after = slurp_file($node->logfile, $log_offset);
my @loads = ($after =~ /loading cache snapshot "autowarm" into database "postgres" \(server start\)/g);
is(scalar @loads, 0, 'no start load after the crash (it crash-looped before)');
isnt(autowarm_state($node, 'state'), 'loading', 'and the worker is not loading');

# ---- a new server start tries again; a reload of the rate wakes the load ----
$node->restart;
ok(defined wait_for_status($node, q{state = 'loading'}, 20), 'a new server start loads again');
$started = time;
set_and_reload('cachectl.autowarm_max_mb_per_sec', undef);
my $waited = wait_for_status($node, q{start_load_finished IS NOT NULL AND state <> 'loading'}, 30);
ok(defined $waited, 'the rate reloaded to none: the load ended');
cmp_ok(time - $started, '<', 10, sprintf('%.1f s after the reload', time - $started));
ok(!-e $node->data_dir . '/pg_cachectl/autowarm_start_'
	  . $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'postgres'}),
	'the marker is gone once the load ended');

# ---- a DROP DATABASE during a load at a tiny rate ----
$node->safe_psql('db2', q{CREATE TABLE t AS SELECT g AS id, repeat('x', 900) AS p FROM generate_series(1, 4000) g});
$node->safe_psql('postgres', q{ALTER SYSTEM SET cachectl.autowarm_max_mb_per_sec = 0.001});
$node->restart;
ok(defined wait_for(20, q{SELECT count(*) = 1 FROM cachectl.autowarm_status WHERE database = 'db2' AND state = 'loading'}),
	'db2\'s start load runs at 0.001 MB/s');
$started = time;
($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE db2');
$drop_seconds = time - $started;
is($ret, 0, 'DROP DATABASE db2 during its load succeeds (55006 before)') or diag($err);
# the worker leaves from inside a chunk's wait for the rate (0.1 s here;
# 4 s before, when it left only between chunks: 6.2 s on a loaded CI)
cmp_ok($drop_seconds, '<', 3, sprintf('in %.1f s', $drop_seconds));
set_and_reload('cachectl.autowarm_max_mb_per_sec', undef);

# ---- synchronous_standby_names with no standby there ----
ok(defined wait_for_status($node, q{state = 'idle'}, 30), 'idle again');
set_and_reload('synchronous_standby_names', 'ANY 1 (nosuch)');
$taken = autowarm_state($node, 'snapshots_taken');
$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.evict('hot_t'); SELECT count(*) FROM frag_t});
ok(defined wait_for_status($node, "snapshots_taken > $taken AND last_snapshot_rows_written > 0", 15),
	'a synchronous standby named but absent: the worker still records (its commits are local)');
$started = time;
$node->stop('fast');
$stop_seconds = time - $started;
cmp_ok($stop_seconds, '<', 15, sprintf('and a fast shutdown took %.1f s (it never ended before)', $stop_seconds));
$node->start;
set_and_reload('synchronous_standby_names', undef);

ok(!$node->log_contains(qr/FATAL:.*terminating background worker "pg_cachectl autowarm leader"/),
	'no clean stop of this run logged a FATAL for the leader');
is(scalar @crashes, 1, 'and the server crashed once in all: the kill');

$node->stop;
done_testing();
