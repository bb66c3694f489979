# 011_eviction_failures.pl
#
# Evicting a dirty shared buffer writes it first.  When that write fails,
# or the call is interrupted part-way through the pool, the eviction must
# stop cleanly: an error with the right SQLSTATE, no buffer left pinned, the
# server still up, and no dirty page lost.
#
# a. The write fails: the table's segment file is made read-only (the server
#    runs as the file's owner, so the permission applies to it) and each
#    eviction function is called from a new session, a backend that has not
#    opened the file yet and so must open it read-write.  Naming the relation
#    (evict) or the buffer (evict_buffer) fails loudly, as an I/O failure of
#    the eviction: SQLSTATE class 58.  evict_all and evict_database, which
#    name no relation, leave the unwritable buffers in place, count them in
#    buffers_failed and raise one WARNING naming the first failure.  A
#    checkpoint meanwhile fails without harm.  Once the permission is back,
#    the same eviction writes the page, the update reads back, and a
#    checkpoint succeeds.
# b. The pass is interrupted: with most of a 1 GB pool dirty, evict_all is
#    stopped by statement_timeout and by pg_cancel_backend from another
#    session: SQLSTATE 57014, the table still partly resident (the pass
#    stopped before the end, after having started), nothing pinned.
#
# The background writer is off and checkpoints are an hour apart, so nothing
# but the eviction tries to write the dirty pages while the file is
# read-only.  Durations are only reported, never asserted.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

use CachectlTest qw(sqlstate_of);

my $node = PostgreSQL::Test::Cluster->new('eviction_failures');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
shared_buffers = '1GB'
bgwriter_lru_maxpages = 0
checkpoint_timeout = '1h'
max_wal_size = '4GB'
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;
CREATE EXTENSION pg_prewarm;
});

# ---- helpers ----

# Shared buffers pinned by any backend, seen from a new session.
sub shared_pinned_blocks
{
	return $node->safe_psql('postgres',
		'SELECT count(*) FROM pg_buffercache WHERE pinning_backends > 0');
}

# Buffers of the table's main fork (all, dirty) read from the buffer
# headers by pg_buffercache: unlike shared_residency, it opens no relation
# file, so it works while the file is read-only.
sub main_fork_buffers
{
	my ($table) = @_;
	my $counts = $node->safe_psql(
		'postgres', qq{
SELECT count(*), count(*) FILTER (WHERE isdirty)
  FROM pg_buffercache
 WHERE relfilenode = pg_relation_filenode('$table')
   AND reldatabase = (SELECT oid FROM pg_database
                       WHERE datname = current_database())
   AND relforknumber = 0
});
	my ($buffers, $dirty) = split /\|/, $counts;
	return { buffers => $buffers, dirty => $dirty };
}

# ---- a. the write fails ----

$node->safe_psql(
	'postgres', q{
CREATE TABLE flush_probe (id int4 PRIMARY KEY, val text);
INSERT INTO flush_probe SELECT g, 'original ' || g FROM generate_series(1, 1000) AS g;
CHECKPOINT;
UPDATE flush_probe SET val = 'updated before the failed flush' WHERE id = 1;
});

my $residency = $node->safe_psql('postgres',
	q{SELECT shared_blocks, shared_dirty_blocks FROM cachectl.shared_residency('flush_probe', 'main')}
);
my ($probe_buffers, $probe_dirty) = split /\|/, $residency;
cmp_ok($probe_dirty, '>', 0,
	'a. after the UPDATE the table has a dirty buffer (shared_residency)');
my $before_failures = main_fork_buffers('flush_probe');
is($before_failures->{dirty}, $probe_dirty,
	'a. pg_buffercache counts the same dirty buffers');
my $dirty_buffer_id = $node->safe_psql(
	'postgres', q{
SELECT min(bufferid) FROM pg_buffercache
 WHERE relfilenode = pg_relation_filenode('flush_probe')
   AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND relforknumber = 0 AND isdirty
});
like($dirty_buffer_id, qr/^[0-9]+$/, 'a. the dirty buffer has a buffer id');

my $segment = $node->data_dir . '/'
  . $node->safe_psql('postgres',
	q{SELECT pg_relation_filepath('flush_probe')});
chmod(0444, $segment) or die "could not chmod \"$segment\": $!";
note("made $segment read-only");

# Each call runs in a new backend, which has to open the file read-write.
my @failing_calls = (
	[ 'evict(rel)', q{SELECT * FROM cachectl.evict('flush_probe')} ],
	[
		'evict_buffer',
		"SELECT * FROM cachectl.evict_buffer($dirty_buffer_id)"
	],);
foreach my $call (@failing_calls)
{
	my ($name, $sql) = @$call;
	my ($sqlstate, undef, $stderr) = sqlstate_of($node, $sql);
	note("a. $name on a read-only file: $stderr");
	like($sqlstate, qr/^58/,
		"a. $name: the failed write is an I/O error (SQLSTATE class 58)");

	is(shared_pinned_blocks(), 0, "a. $name: no buffer is left pinned");
	my $after = main_fork_buffers('flush_probe');
	is($after->{dirty}, $before_failures->{dirty},
		"a. $name: the dirty buffers are still there, still dirty");
}

# The whole pool, or a database: the pass goes on past the unwritable
# buffers, and says how many it left.
my @surviving_calls = (
	[ 'evict_all', q{SELECT * FROM cachectl.evict_all()} ],
	[
		'evict_database',
		q{SELECT * FROM cachectl.evict_database(current_database())}
	],);
foreach my $call (@surviving_calls)
{
	my ($name, $sql) = @$call;
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres', $sql,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	note("a. $name on a read-only file: $stdout\n$stderr");
	is($ret, 0, "a. $name: returns its counts despite the failed writes");
	my ($evicted, $flushed, $skipped, $failed) = split /\|/, $stdout;
	is($failed, $before_failures->{dirty},
		"a. $name: buffers_failed counts each unwritable dirty buffer");
	my @warnings = ($stderr =~
		  /WARNING:  58030: could not write \d+ dirty shared buffers; they were left in place/g
	);
	is(scalar(@warnings), 1, "a. $name: one WARNING says so");
	like(
		$stderr,
		qr/DETAIL:  The first failure: could not write shared buffer \d+ before evicting it/,
		"a. $name: the WARNING names the first failure");
	is(shared_pinned_blocks(), 0, "a. $name: no buffer is left pinned");
	my $after = main_fork_buffers('flush_probe');
	is($after->{dirty}, $before_failures->{dirty},
		"a. $name: the unwritable buffers are still there, still dirty");
}

# Inside a PL/pgSQL exception block, whose own subtransaction must be the
# one its handler ends.
my ($block_ret, $block_out, $block_err) = $node->psql(
	'postgres', q{
DO $$
DECLARE
    failed int8;
BEGIN
    BEGIN
        SELECT buffers_failed INTO failed FROM cachectl.evict_all();
        RAISE NOTICE 'evict_all left % buffers', failed;
        PERFORM 1 / 0;
    EXCEPTION WHEN division_by_zero THEN
        RAISE NOTICE 'the block caught its own error';
    END;
END
$$;
SELECT 'after the block';
});
is($block_ret, 0, 'a. evict_all inside an exception block: the block runs to its end');
like($block_err, qr/evict_all left [1-9]\d* buffers.*the block caught its own error/s,
	'a. and its handler catches its own error after the failed writes');
is($block_out, 'after the block', 'a. and the session goes on');
is(shared_pinned_blocks(), 0, 'a. no buffer is left pinned after the block');

# A checkpoint cannot write the file either: it fails, and nothing else
# happens.
my ($checkpoint_state) = sqlstate_of($node, 'CHECKPOINT');
isnt($checkpoint_state, '00000', 'a. a checkpoint fails while the file is read-only');

is($node->safe_psql('postgres', 'SELECT 1'), 1,
	'a. the server still accepts queries after the failed writes');

chmod(0600, $segment) or die "could not chmod \"$segment\": $!";
note("made $segment writable again");

$residency = $node->safe_psql('postgres',
	q{SELECT shared_dirty_blocks FROM cachectl.shared_residency('flush_probe', 'main')});
is($residency, $probe_dirty,
	'a. the dirty buffers survived every failed eviction (shared_residency)');

my $evicted = $node->safe_psql(
	'postgres', q{
SELECT buffers_evicted, buffers_flushed, buffers_skipped
  FROM cachectl.evict('flush_probe') WHERE fork = 'main'
});
note("a. evict once the file is writable: evicted|flushed|skipped = $evicted");
my ($evicted_count, $flushed_count, $skipped_count) = split /\|/, $evicted;
cmp_ok($flushed_count, '>=', $probe_dirty,
	'a. the eviction now writes every dirty buffer');
cmp_ok($evicted_count, '>=', $flushed_count,
	'a. and evicts what it wrote');
is($skipped_count, 0, 'a. and skips nothing');
is( $node->safe_psql(
		'postgres',
		q{SELECT shared_blocks FROM cachectl.shared_residency('flush_probe', 'main')}),
	0,
	'a. the main fork has left shared buffers');
is( $node->safe_psql(
		'postgres', q{SELECT val FROM flush_probe WHERE id = 1}),
	'updated before the failed flush',
	'a. the updated value reads back from the file');
my ($checkpoint_after) = sqlstate_of($node, 'CHECKPOINT');
is($checkpoint_after, '00000', 'a. with the permission back, a checkpoint succeeds');
$node->safe_psql('postgres',
	q{UPDATE flush_probe SET val = 'updated after the failures' WHERE id = 2});
($checkpoint_after) = sqlstate_of($node, 'CHECKPOINT');
is($checkpoint_after, '00000', 'a. and so does the next one, after another update');
is(main_fork_buffers('flush_probe')->{dirty},
	0, 'a. which leaves no dirty buffer of the table');

# ---- b. the pass is interrupted ----

# A table filling most of the pool, every buffer dirty.  Created and filled
# in one transaction (wal_level is minimal here, so that writes no WAL),
# loaded into shared buffers, then dirtied by the hint bits a first scan
# sets.  One tuple of 3.5 kB, stored inline, takes nearly half a page.
my $pool_buffers = $node->safe_psql('postgres',
	q{SELECT setting FROM pg_settings WHERE name = 'shared_buffers'});
my $table_rows = int($pool_buffers * 0.72) * 2;

sub fill_pool_with_dirty_table
{
	my ($table) = @_;
	my $start = time;
	$node->safe_psql(
		'postgres', qq{
BEGIN;
CREATE TABLE $table (id int4, pad text);
ALTER TABLE $table ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO $table SELECT g, repeat('x', 3500) FROM generate_series(1, $table_rows) AS g;
COMMIT;
SELECT pg_prewarm('$table', 'buffer');
SELECT count(*) FROM $table;
});
	my ($blocks, $buffers, $dirty) = split /\|/,
	  $node->safe_psql('postgres',
		qq{SELECT size_blocks, shared_blocks, shared_dirty_blocks FROM cachectl.shared_residency('$table', 'main')}
	  );
	note(sprintf("b. $table: %d blocks, %d buffers, %d dirty of %d (%.1f s)",
			$blocks, $buffers, $dirty, $pool_buffers, time - $start));
	cmp_ok($dirty, '>', $pool_buffers / 2,
		"b. $table: more than half of the pool is its dirty pages");
	return $buffers;
}

# A full, uninterrupted pass, used to empty the pool between the cases.
sub evict_everything
{
	my ($label) = @_;
	my $start = time;
	my ($evicted, $flushed, $skipped, $failed) = split /\|/,
	  $node->safe_psql('postgres', 'SELECT * FROM cachectl.evict_all()');
	note(sprintf(
			"%s: uninterrupted evict_all evicted %d, flushed %d, skipped %d, failed %d in %.3f s",
			$label, $evicted, $flushed, $skipped, $failed, time - $start));
	return { evicted => $evicted, flushed => $flushed, skipped => $skipped };
}

evict_everything('b. before filling');

# b1. statement_timeout
my $timeout_before = fill_pool_with_dirty_table('timeout_probe');
my $start = time;
# The first statement loads the module, so that the timer runs in the pass.
my ($sqlstate, undef, $stderr) = sqlstate_of(
	$node, q{SELECT cachectl.os_engine();
SET statement_timeout = '100ms';
SELECT * FROM cachectl.evict_all()});
note(sprintf("b1. evict_all under statement_timeout returned after %.3f s: %s",
		time - $start, $stderr));
is($sqlstate, '57014', 'b1. statement_timeout cancels evict_all (57014)');
my $timeout_after = $node->safe_psql('postgres',
	q{SELECT shared_blocks FROM cachectl.shared_residency('timeout_probe', 'main')});
note("b1. timeout_probe buffers: $timeout_before before, $timeout_after after");
cmp_ok($timeout_after, '>', 0,
	'b1. the pass stopped before the end: the table is still resident');
cmp_ok($timeout_after, '<', $timeout_before,
	'b1. the pass had started: some of the table was evicted');
is(shared_pinned_blocks(), 0, 'b1. no buffer is left pinned');

my $rest = evict_everything('b1. after the timeout');
cmp_ok($rest->{flushed}, '>', 0,
	'b1. an uninterrupted pass then writes the dirty pages left behind');
is( $node->safe_psql(
		'postgres',
		q{SELECT shared_blocks FROM cachectl.shared_residency('timeout_probe', 'main')}),
	0,
	'b1. and evicts the rest of the table');
is( $node->safe_psql('postgres', 'SELECT count(*) FROM timeout_probe'),
	$table_rows, 'b1. every row reads back');

# b2. pg_cancel_backend from another session
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION cancel_when_running(target int4, query_pattern text,
                                    grace interval)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    deadline timestamptz := clock_timestamp() + interval '60 s';
    target_state text;
BEGIN
    LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT state INTO target_state FROM pg_stat_activity
         WHERE pid = target AND query LIKE query_pattern;
        IF target_state = 'active' THEN
            -- past parsing and planning, well into the pass
            PERFORM pg_sleep_for(grace);
            IF pg_cancel_backend(target) THEN
                RETURN 'cancelled';
            END IF;
            RETURN 'signal failed';
        ELSIF target_state IS NOT NULL THEN
            RETURN 'finished before the cancel';
        ELSIF clock_timestamp() > deadline THEN
            RETURN 'never seen running';
        END IF;
        PERFORM pg_sleep(0.001);
    END LOOP;
END
$$;
});

my $cancel_before = fill_pool_with_dirty_table('cancel_probe');
my $evictor = $node->background_psql(
	'postgres',
	on_error_stop => 0,
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
my $evictor_pid = $evictor->query_safe('SELECT pg_backend_pid()');
$evictor->query_safe('SELECT cachectl.os_engine()');    # loads the module
$evictor->query_until(qr/evict_all sent/,
	"\\echo evict_all sent\nSELECT * FROM cachectl.evict_all();\n");
my $cancel = $node->safe_psql('postgres',
	qq{SELECT cancel_when_running($evictor_pid, '%cachectl.evict_all()%', '20 ms')}
);
is($cancel, 'cancelled',
	'b2. pg_cancel_backend reached evict_all while it was running');
my $evictor_output =
  $evictor->query('\echo LAST_ERROR_SQLSTATE=:LAST_ERROR_SQLSTATE');
note("b2. evict_all cancelled from another session: $evictor->{stderr}");
my ($cancel_sqlstate) =
  $evictor_output =~ /^LAST_ERROR_SQLSTATE=(\w+)$/m;
is($cancel_sqlstate, '57014', 'b2. the cancelled evict_all fails with 57014');
$evictor->quit;

my $cancel_after = $node->safe_psql('postgres',
	q{SELECT shared_blocks FROM cachectl.shared_residency('cancel_probe', 'main')});
note("b2. cancel_probe buffers: $cancel_before before, $cancel_after after");
cmp_ok($cancel_after, '>', 0,
	'b2. the pass stopped before the end: the table is still resident');
cmp_ok($cancel_after, '<', $cancel_before,
	'b2. the pass had started: some of the table was evicted');
is(shared_pinned_blocks(), 0, 'b2. no buffer is left pinned');

$rest = evict_everything('b2. after the cancel');
cmp_ok($rest->{flushed}, '>', 0,
	'b2. an uninterrupted pass then writes the dirty pages left behind');
is( $node->safe_psql('postgres', 'SELECT count(*) FROM cancel_probe'),
	$table_rows, 'b2. every row reads back');

# ---- the server stayed up throughout ----

is($node->safe_psql('postgres', 'SELECT 1'), 1, 'the server is up');
my $log = slurp_file($node->logfile);
unlike(
	$log,
	qr/PANIC|TRAP:|terminated by signal|server process .* exited/,
	'the server log shows no crash');

$node->stop;

done_testing();
