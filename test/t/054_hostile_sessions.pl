# 054_hostile_sessions.pl
#
# Hostile inputs pg_regress cannot make, because they need a second session:
#
# - another session's temporary table (and its index), named by OID: the
#   reports read its files (its pages in that session's local buffers are
#   invisible to shared buffers, which shared_residency says in a NOTICE),
#   the actions refuse it with 0A000, evict_relations leaves it out with a
#   NOTICE; nothing is XX000.
# - a role with no cachectl privilege that holds what snapshot() used to
#   serialise on (an advisory lock of a key anyone can compute), and a
#   pg_read_all_stats member reading the snapshot table in an open
#   transaction: snapshot() goes on; a writer that holds the table (an open
#   transaction) makes it fail with 55P03 within lock_timeout, or 10 s.
# - a relation rewritten, truncated or dropped while a long call runs on it:
#   os_prefetch and prewarm hold their lock to the end, so VACUUM FULL,
#   TRUNCATE and DROP wait (here they time out); restore commits between
#   chunks, so a DROP or a VACUUM FULL gets in between, and restore goes on
#   without an error.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes;

use CachectlTest qw(poll_until);

my $node = PostgreSQL::Test::Cluster->new('hostile_sessions');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = 64MB\n");
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE big (id int, doc text);
INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 70000) g;
CREATE TABLE small AS SELECT g AS id FROM generate_series(1, 1000) g;
});

# ---- another session's temporary table
my $holder_script = $node->basedir . '/holder.sql';
open(my $fh, '>', $holder_script) or die "could not write $holder_script: $!";
print $fh "CREATE TEMP TABLE other_tmp AS SELECT g FROM generate_series(1, 10000) g;\n"
  . "CREATE INDEX other_tmp_g ON other_tmp (g);\nSELECT pg_sleep(600);\n";
close($fh);
my ($holder_out, $holder_err) = ('', '');
my $holder = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-f', $holder_script ],
	'>', \$holder_out, '2>', \$holder_err);
$node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM pg_class WHERE relname IN ('other_tmp', 'other_tmp_g')})
  or die 'the other session did not create its temporary table';
my $tmp = $node->safe_psql('postgres', q{SELECT oid FROM pg_class WHERE relname = 'other_tmp'});
my $tmp_index = $node->safe_psql('postgres', q{SELECT oid FROM pg_class WHERE relname = 'other_tmp_g'});

# The outcome of one call: 'ok' or its SQLSTATE.
sub outcome {
	my ($sql) = @_;
	my ($stdout, $stderr) = ('', '');
	$node->psql('postgres', "\\set VERBOSITY sqlstate\n$sql", stdout => \$stdout, stderr => \$stderr);
	return $stderr =~ /ERROR:\s+([0-9A-Z]{5})/ ? $1 : 'ok';
}

my %expected = (
	"SELECT count(*) FROM cachectl.os_residency($tmp)" => 'ok',
	"SELECT count(*) FROM cachectl.os_residency_total($tmp, true)" => 'ok',
	"SELECT count(*) FROM cachectl.shared_residency($tmp, cascade => true)" => 'ok',
	"SELECT count(*) FROM cachectl.status($tmp, true)" => 'ok',
	"SELECT cachectl.draw($tmp)" => 'ok',
	"SELECT length(cachectl.os_map($tmp, fork => 'main'))" => 'ok',
	"SELECT count(*) FROM cachectl_internal.os_block_runs($tmp)" => 'ok',
	"SELECT count(*) FROM cachectl_internal.shared_block_runs(ARRAY[$tmp]::regclass[])" => 'ok',
	"SELECT count(*) FROM cachectl.evict_relations(ARRAY[$tmp]::regclass[])" => 'ok',
	"SELECT count(*) FROM cachectl.os_residency($tmp_index)" => 'ok',
	"SELECT count(*) FROM cachectl.evict($tmp)" => '0A000',
	"SELECT count(*) FROM cachectl.evict($tmp_index)" => '0A000',
	"SELECT count(*) FROM cachectl.os_drop($tmp)" => '0A000',
	"SELECT count(*) FROM cachectl.cold($tmp)" => '0A000',
	"SELECT count(*) FROM cachectl.os_prefetch($tmp, fork => 'main')" => '0A000',
	"SELECT * FROM cachectl.os_restore($tmp, B'1', fork => 'main')" => '0A000',
	"SELECT * FROM cachectl.prewarm($tmp, fork => 'main')" => '0A000',
	"SELECT * FROM cachectl.prewarm($tmp_index, 'shared', fork => 'main')" => '0A000',
	"SELECT * FROM cachectl_internal.prewarm_runs($tmp, 'main', '{[0,3)}')" => '0A000',
	"SELECT * FROM cachectl.snapshot('t', ARRAY[$tmp]::regclass[])" => '0A000',);
for my $sql (sort keys %expected) {
	is(outcome($sql), $expected{$sql}, "another session's temporary table: $sql");
}
my ($notice_out, $notice_err) = ('', '');
$node->psql('postgres', "SELECT count(*) FROM cachectl.evict_relations(ARRAY[$tmp]::regclass[])",
	stdout => \$notice_out, stderr => \$notice_err);
like($notice_err, qr/NOTICE:.*temporary/, 'evict_relations says in a NOTICE that it left the temporary table out');
is($node->safe_psql('postgres', "SELECT count(*) FROM cachectl.database_status WHERE relation = $tmp"),
	'0', 'database_status leaves another session\'s temporary table out');
$holder->kill_kill;

# ---- a slow rate holds when loading shared buffers: 40 blocks at 0.1 MB/s
# take 2.5 s (one short sleep per 16 blocks, whatever the rate, took 0.25 s)
for my $call ("SELECT * FROM cachectl.prewarm('big', 'shared', 'main', 0, 39, 0.1)",
	"SELECT * FROM cachectl_internal.prewarm_runs('big', 'main', '{[0,40)}', 'shared', 0.1)")
{
	$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.evict('big')});
	is(outcome("SET statement_timeout = '1s';\n$call"), '57014', "still loading after 1 s: $call");
}

# ---- DDL racing a long call: the call's lock makes it wait
sub start_long_call {
	my ($sql) = @_;
	my ($stdout, $stderr) = ('', '');
	my $h = IPC::Run::start([ 'psql', '-X', '-d', $node->connstr('postgres'), '-v', 'ON_ERROR_STOP=1', '-c', $sql ],
		'>', \$stdout, '2>', \$stderr);
	return { h => $h, out => \$stdout, err => \$stderr };
}

sub finish_long_call {
	my ($call) = @_;
	my $succeeded = $call->{h}->finish;
	return ($succeeded ? 0 : ($? >> 8) || 1, ${ $call->{out} }, ${ $call->{err} });
}

for my $case (
	[ 'os_prefetch', "SELECT blocks_requested FROM cachectl.os_prefetch('big', max_mb_per_sec => 4, fork => 'main')", 'VACUUM FULL big' ],
	[ 'os_prefetch', "SELECT blocks_requested FROM cachectl.os_prefetch('big', max_mb_per_sec => 4, fork => 'main')", 'TRUNCATE big' ],
	[ 'prewarm', "SELECT shared_blocks_loaded FROM cachectl.prewarm('big', 'shared', max_mb_per_sec => 4, fork => 'main')", 'DROP TABLE big' ],
	[ 'os_restore', "SELECT os_blocks_loaded FROM cachectl.os_restore('big', repeat('1', 2000)::varbit, max_mb_per_sec => 4, fork => 'main')",
		'VACUUM FULL big' ])
{
	my ($name, $call_sql, $ddl) = @$case;
	$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('big')});
	my $call = start_long_call($call_sql);
	# The DDL's lock_timeout is only about the call's lock once the call
	# holds it: seen in pg_stat_activity it may still be planning (0.5 s
	# was waited here, and a loaded machine can take longer).
	$node->poll_query_until('postgres', q{
SELECT count(*) > 0
  FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid
 WHERE a.query LIKE '%max_mb_per_sec => 4%' AND a.pid <> pg_backend_pid()
   AND l.locktype = 'relation' AND l.relation = 'big'::regclass AND l.granted})
	  or die "$name did not take its lock on big";
	my ($ddl_out, $ddl_err) = ('', '');
	$node->psql('postgres', "SET lock_timeout = '500ms'; $ddl", stdout => \$ddl_out, stderr => \$ddl_err);
	like($ddl_err, qr/lock timeout/, "$ddl waits for the lock of a running $name");
	my ($status, $out, $err) = finish_long_call($call);
	is($status, 0, "$name ends without an error while $ddl waited") or diag($err);
	unlike($err, qr/XX000|internal/i, "$name: no internal error");
}

# ---- DDL between restore's chunks: restore commits, the DDL gets in
$node->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.prewarm('big', 'both', fork => 'main');
SELECT count(*) FROM cachectl.prewarm('small', 'both', fork => 'main');
SELECT relations FROM cachectl.snapshot('race', ARRAY['big', 'small']::regclass[]);
SELECT count(*) FROM cachectl.cold('big');
SELECT count(*) FROM cachectl.cold('small');
});
# The DDL must land while restore is under way: not before its first chunk
# (a DDL that ran first proves nothing), not after its last.  So restore
# reports its progress (cachectl.progress: a NOTICE at most once a second,
# the first after a second of loading), and the DDL runs once restore's
# output has one.  At 2 MB/s the OS layer of big (~16 MB) alone takes some
# 8 s, of which the DDL needs a fraction.  That it got in before restore
# was done with big: a VACUUM FULL leaves the rest of big to load, so
# restore's CALL is still running when it has finished (restore only ever
# goes from running to gone: one look then is enough); a DROP makes restore
# skip big's next chunk, with a NOTICE.
my $restore_running_sql = q{SELECT count(*) FROM pg_stat_activity
 WHERE query LIKE 'CALL cachectl.restore%' AND state = 'active' AND pid <> pg_backend_pid()};
for my $ddl ('VACUUM FULL big', 'DROP TABLE big') {
	my ($stdout, $stderr) = ('', '');
	# two -c: a CALL that commits must be a query string of its own
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'), '-v', 'ON_ERROR_STOP=1',
		  '-c', 'SET cachectl.progress = on', '-c', "CALL cachectl.restore('race', 'both', 2)" ],
		'>', \$stdout, '2>', \$stderr);
	my $call = { h => $h, out => \$stdout, err => \$stderr };
	ok( poll_until(
			sub {
				eval { $h->pump_nb; 1 };    # dies once psql has exited
				return $stderr =~ /NOTICE:  cachectl\.restore: /;
			}),
		"before $ddl: restore is under way (a progress NOTICE)")
	  or diag("restore's output so far: $stderr");
	my ($ddl_out, $ddl_err) = ('', '');
	my $ddl_status = $node->psql('postgres', "SET lock_timeout = '10s'; $ddl", stdout => \$ddl_out, stderr => \$ddl_err);
	is($ddl_status, 0, "$ddl ran while restore was under way") or diag($ddl_err);
	my $running_after_ddl = $node->safe_psql('postgres', $restore_running_sql);
	is($running_after_ddl, '1', "VACUUM FULL got in between restore's chunks: restore is still running once it has finished")
	  if $ddl =~ /VACUUM/;
	my ($status, $out, $err) = finish_long_call($call);
	is($status, 0, "restore goes on and ends without an error after $ddl") or diag($err);
	like($out, qr/block/, "restore reports its row after $ddl");
	like($err, qr/NOTICE:  skipping relation "(?:public\.)?big": dropped while the call ran/,
		"DROP got in between restore's chunks: restore skips the rest of big, with a NOTICE")
	  if $ddl =~ /DROP/;
	$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('big')}) if $ddl =~ /VACUUM/;
}

# ---- nobody can hold snapshot() up without the right to write snapshots
$node->safe_psql(
	'postgres', q{
CREATE TABLE snap_small AS SELECT g AS id FROM generate_series(1, 1000) g;
CREATE ROLE hostile_nobody LOGIN;
CREATE ROLE hostile_stats LOGIN IN ROLE pg_read_all_stats;
});

# Starts a session that runs $sql and then sleeps, as $role; returns once
# pg_stat_activity shows it sleeping.
sub start_holder {
	my ($role, $sql) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr('postgres') . " user=$role", '-c', "$sql SELECT pg_sleep(600);" ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres',
		qq{SELECT count(*) > 0 FROM pg_stat_activity WHERE usename = '$role' AND wait_event = 'PgSleep'})
	  or die "the $role session did not start: $err";
	return $h;
}

# Ends the sessions of the holders and their backends (pg_sleep does not
# notice that its client went away).
sub end_holders {
	my @handles = @_;
	$_->kill_kill for @handles;
	$node->safe_psql('postgres',
		q{SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE usename IN ('hostile_nobody', 'hostile_stats')});
}

# The outcome of a snapshot of 'morning' ('ok' or its SQLSTATE) and how
# long it took, in ms.
sub timed_snapshot {
	my ($settings) = @_;
	my $started = Time::HiRes::time();
	my $state = outcome("$settings\nSELECT relations FROM cachectl.snapshot('morning', ARRAY['snap_small']::regclass[])");
	return ($state, int((Time::HiRes::time() - $started) * 1000));
}

my @holders = (
	start_holder('hostile_nobody', q{SELECT pg_advisory_lock(hashtext('cachectl.snapshot'), hashtext('morning'));}),
	start_holder('hostile_stats', q{BEGIN; SELECT count(*) FROM cachectl.snapshot;}));
my ($state, $ms) = timed_snapshot("SET statement_timeout = '5s';");
is($state, 'ok', 'snapshot() is not held up by an advisory lock or a reader of the table');
diag("snapshot() beside an advisory lock holder and a reader: $state in $ms ms");
my ($lock_out, $lock_err) = ('', '');
$node->psql('postgres', 'BEGIN; LOCK TABLE cachectl.snapshot IN SHARE ROW EXCLUSIVE MODE; COMMIT;',
	stdout => \$lock_out, stderr => \$lock_err, extra_params => [ '-U', 'hostile_stats' ]);
like($lock_err, qr/permission denied/, 'a role that may only read snapshots cannot take their lock');
end_holders(@holders);

# A transaction that wrote to the table and stays open: a bounded wait.
$node->safe_psql('postgres', 'GRANT SELECT, INSERT, DELETE ON cachectl.snapshot TO hostile_stats');
my $writer = start_holder('hostile_stats', q{BEGIN; DELETE FROM cachectl.snapshot WHERE label = 'nothing';});
($state, $ms) = timed_snapshot("SET lock_timeout = '1s';");
is($state, '55P03', 'snapshot() beside an open writer fails with 55P03 at lock_timeout');
cmp_ok($ms, '<', 4000, 'within about lock_timeout (1 s)');
diag("snapshot() beside an open writer, lock_timeout 1 s: $state in $ms ms");
($state, $ms) = timed_snapshot("SET lock_timeout = 0; SET statement_timeout = '30s';");
is($state, '55P03', 'without a lock_timeout snapshot() still gives up (55P03), long before statement_timeout');
cmp_ok($ms, '<', 14000, 'after about 10 s');
diag("snapshot() beside an open writer, no lock_timeout: $state in $ms ms");
my ($msg_out, $msg_err) = ('', '');
$node->psql('postgres', q{SET lock_timeout = '200ms'; SELECT cachectl.snapshot('morning', ARRAY['snap_small']::regclass[])},
	stdout => \$msg_out, stderr => \$msg_err);
like($msg_err, qr/could not lock table cachectl.snapshot to record cache snapshot "morning"/,
	'the error names the table and the label');
end_holders($writer);
$node->safe_psql('postgres', 'REVOKE ALL ON cachectl.snapshot FROM hostile_stats');

my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|PANIC|TRAP:|XX000/, 'no crash and no internal error in the server log');
$node->stop;
done_testing();
