# 052_cancellation.pl
#
# Every function of the extension that can run longer than a second stops
# within one second of pg_cancel_backend() and of statement_timeout, with
# SQLSTATE 57014, and leaves nothing behind in its backend: no lock, no
# pinned buffer, no descriptor or mapping of a data file that the C++ core
# opened itself.
#
# Each call runs in one long-lived psql session (the "victim") on data made
# large enough to keep it busy for seconds:
#   - wide: an unlogged table of 3 GiB, one row a page, kept dirty in a 4 GB
#     pool (no WAL, background writer off), so that evicting it writes
#     every buffer first: seconds of work for the eviction functions;
#   - vast: 1 TiB made of 1,024 sparse segment files (no disk used), a leaf
#     partition of "many" with 200 small siblings; with the mincore engine
#     (cachestat skips empty files in milliseconds) measuring it takes
#     seconds, writing it back (os_drop) too, and throttled loads
#     (max_mb_per_sec => 1) of it last as long as one likes;
#   - huge: 15 TiB of sparse segments, whose block map (2e9 bits) is the
#     largest os_draw() can be given.
#
# Cancelled by pg_cancel_backend(): once the call has run 0.3 s.  Stopped by
# statement_timeout = 1s: getting the timeout error proves the call would
# run longer than a second.  The two unthrottled loads of holes (no device
# read) can end within a second on a fast machine (0.83 s on 17.12 and
# under a second on 19~rc1 here): their timeout is the cancel's 0.3 s, and
# their prepare empties both layers, so the timeout run starts as cold as
# the cancelled one.  The time from the cancel (the server's clock
# when pg_cancel_backend() ran, or query start + 1 s) to the error (its line
# in the server log) is printed and must stay under a second.
#
# What is left behind, checked before and after each call:
#   - pg_locks of the victim: nothing but its virtualxid;
#   - pg_buffercache: no buffer of the test's relations pinned;
#   - /proc/PID/fd: no descriptor of a file in the data directory opened
#     read-only.  PostgreSQL's own relation descriptors (its VFD cache keeps
#     them open between statements) are always opened read-write; the core
#     opens relation files read-only.  During each call that keeps a file
#     open the same check must find the core's descriptor, so it can fail;
#   - /proc/PID/maps: no mapping of a data file (the core maps windows of a
#     file for mincore).
#
# Functions that cannot run a second with any input are listed with the
# reason (and, where it depends on the input, the time measured here); the
# test fails if a function of the extension is in neither list.
#
# It runs beside the other files but never beside another heavy one
# (run_tap.sh): its time limits are measured with gigabytes of dirty pages
# of its own, and two such runs at once made each other's calls late.
# tap: heavy
use strict;
use warnings;

use Cwd qw(realpath);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

use CachectlTest qw(require_fincore_on_disk extend_with_sparse_segments);

# Sparse files and DONTNEED need a real filesystem.
require_fincore_on_disk();

my $cancel_after = 0.3;         # seconds the call runs before pg_cancel_backend
my $timeout_ms = 1000;          # statement_timeout: the call must outlive it
my $wide_rows = 393_216;        # 3 GiB: one 8 kB page a row

my $node = PostgreSQL::Test::Cluster->new('cancellation');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_buffers = '4GB'
# Dirty buffers stay dirty until an eviction writes them.
bgwriter_lru_maxpages = 0
checkpoint_timeout = '1h'
max_wal_size = '4GB'
autovacuum = off
log_statement = 'none'
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;
});
my $data_dir = realpath($node->data_dir);

# ---- the data ----

$node->safe_psql(
	'postgres', qq{
CREATE UNLOGGED TABLE wide (id int, n int, filler text) WITH (fillfactor = 45);
ALTER TABLE wide ALTER COLUMN filler SET STORAGE PLAIN;
INSERT INTO wide SELECT g, 0, f FROM generate_series(1, $wide_rows) AS g,
                                     (SELECT repeat('x', 3500) AS f) AS s;
CREATE TABLE many (id int) PARTITION BY LIST (id);
CREATE TABLE vast PARTITION OF many FOR VALUES IN (0);
INSERT INTO vast VALUES (0);
CREATE TABLE huge (id int);
INSERT INTO huge VALUES (0);
});
$node->safe_psql('postgres', q{
DO $$
BEGIN
    FOR i IN 1 .. 200 LOOP
        EXECUTE format('CREATE TABLE many_%s PARTITION OF many FOR VALUES IN (%s)', i, i);
    END LOOP;
END
$$;
});
# The first block of each table is on disk before its files are extended.
$node->safe_psql('postgres', 'CHECKPOINT');
extend_with_sparse_segments($node, 'vast', 1024);
extend_with_sparse_segments($node, 'huge', 15 * 1024);
my $wide_blocks =
  $node->safe_psql('postgres', q{SELECT pg_relation_size('wide') / 8192});
note('wide: ' . $wide_blocks . ' blocks; vast: '
	  . $node->safe_psql('postgres', q{SELECT pg_size_pretty(pg_relation_size('vast'))}));
# a snapshot of wide in both layers, for restore()
$node->safe_psql('postgres',
	q{SELECT cachectl.snapshot('wide_both', ARRAY['wide'::regclass])});
# and of huge, whose plan with missing_only maps all of it
$node->safe_psql('postgres',
	q{SELECT cachectl.snapshot('huge_map', ARRAY['huge'::regclass])});

# ---- the victim session ----

my $victim = $node->background_psql('postgres', on_error_stop => 0);
$victim->set_query_timer_restart();
# the checks' own session (starting a psql for each would cost more than
# most calls take)
my $monitor = $node->background_psql('postgres');
$monitor->set_query_timer_restart();

sub monitor_query
{
	my ($sql) = @_;
	return $monitor->query_safe($sql);
}

$victim->query_safe('\set VERBOSITY verbose');
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
# PostgreSQL's VFD cache opens the relations it reads and keeps them open
# (planning a query on vast opens its 1,024 segments): the check below must
# not mistake those for the core's.
$victim->query_safe(
	q{SELECT count(*) FROM vast WHERE ctid = '(0,1)'; SELECT count(*) FROM wide WHERE ctid = '(0,1)'});

# ---- what a backend may leave behind ----

# Descriptors of data files that the victim opened read-only (the core's:
# PostgreSQL opens relation files read-write).
sub core_descriptors
{
	my @found;
	opendir(my $fds, "/proc/$victim_pid/fd")
	  or die "could not list the descriptors of $victim_pid: $!";
	foreach my $fd (grep { /^\d+$/ } readdir $fds)
	{
		my $target = readlink("/proc/$victim_pid/fd/$fd");
		next unless defined $target && index($target, "$data_dir/") == 0;
		open(my $info, '<', "/proc/$victim_pid/fdinfo/$fd") or next;
		my ($flags) = map { /^flags:\s+([0-7]+)/ ? oct($1) : () } <$info>;
		close $info;
		push @found, $target if defined $flags && ($flags & 3) == 0;
	}
	closedir $fds;
	return @found;
}

sub mapped_data_files
{
	open(my $maps, '<', "/proc/$victim_pid/maps")
	  or die "could not read the mappings of $victim_pid: $!";
	my @found = grep { index($_, "$data_dir/") >= 0 } <$maps>;
	close $maps;
	return @found;
}

# Everything the victim may hold, as one line per kind ('' when clean).
sub leftovers
{
	my %left;
	($left{locks}, $left{pins}) = split /\|/, monitor_query(
		qq{
SELECT (SELECT coalesce(string_agg(locktype || ' ' || mode, ', '), '')
          FROM pg_locks WHERE pid = $victim_pid AND locktype <> 'virtualxid'),
       (SELECT count(*) FROM pg_buffercache
         WHERE pinning_backends > 0
           AND relfilenode IN (SELECT pg_relation_filenode(oid) FROM pg_class
                                WHERE relnamespace = 'public'::regnamespace))}), -1;
	$left{descriptors} = join ', ', core_descriptors();
	$left{mappings} = join ', ', mapped_data_files();
	return \%left;
}

# Descriptors of data files the victim holds read-write (PostgreSQL's own).
sub server_descriptors
{
	opendir(my $fds, "/proc/$victim_pid/fd") or die "could not list descriptors: $!";
	my $count = grep {
		my $target = readlink("/proc/$victim_pid/fd/$_");
		defined $target && index($target, "$data_dir/") == 0
	} grep { /^\d+$/ } readdir $fds;
	closedir $fds;
	return $count - scalar(core_descriptors());
}

sub is_clean
{
	my ($left, $what) = @_;
	is($left->{locks}, '', "$what: no lock held but the virtualxid");
	is($left->{pins}, 0, "$what: no buffer of the test's relations pinned");
	is($left->{descriptors}, '', "$what: no data file open read-only");
	is($left->{mappings}, '', "$what: no data file mapped");
	return;
}

sub server_epoch
{
	my ($timestamp) = @_;
	return monitor_query(
		qq{SELECT extract(epoch FROM '$timestamp'::timestamptz)});
}

cmp_ok(server_descriptors(), '>', 100,
	"the victim's VFD cache holds many of vast's segments open, read-write");
is_deeply([ core_descriptors() ], [], 'none of them counts as the core\'s');

# ---- preparations ----

# Keeps at least 90% of wide dirty in shared buffers, so that an eviction
# has seconds of writing ahead of it.
sub dirty_pool
{
	my $dirty = monitor_query(
		q{
SELECT count(*) FROM pg_buffercache
 WHERE isdirty AND relfilenode = pg_relation_filenode('wide')});
	return if $dirty >= 0.9 * $wide_blocks;
	monitor_query(
		q{
SET cachectl.prewarm_max_share = 1;
SELECT count(*) FROM cachectl.prewarm('wide', 'shared', fork => 'main');
SELECT count(*) FROM (SELECT 1 FROM wide FOR UPDATE) AS locked;
});
	return;
}

sub wide_buffers
{
	return monitor_query(
		q{
SELECT count(*) FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('wide')});
}

my $mincore = q{SET cachectl.os_engine = 'mincore'};
my $map_of_4gb = q{repeat('1', 524288)::varbit};

# name, the call, settings before it, a preparation, whether the core keeps a
# file open while it runs, whether it evicts wide (its buffers must be fewer
# afterwards, but some left: the call stopped in the middle).
my @cases = (
	{ name => 'evict', call => q{SELECT * FROM cachectl.evict('wide')}, prepare => \&dirty_pool, evicts => 1 },
	{
		name => 'evict_relations',
		call => q{SELECT * FROM cachectl.evict_relations(ARRAY['wide', 'vast']::regclass[])},
		prepare => \&dirty_pool,
		evicts => 1
	},
	{ name => 'evict_database', call => q{SELECT * FROM cachectl.evict_database()}, prepare => \&dirty_pool, evicts => 1 },
	{ name => 'evict_all', call => q{SELECT * FROM cachectl.evict_all()}, prepare => \&dirty_pool, evicts => 1 },
	{ name => 'cold', call => q{SELECT * FROM cachectl.cold('wide')}, prepare => \&dirty_pool, evicts => 1 },
	{ name => 'cold_database', call => q{SELECT * FROM cachectl.cold_database()}, prepare => \&dirty_pool, evicts => 1 },
	# measured before and after with mincore: with cachestat the drop of a
	# sparse, clean 1 TiB ended within the second on 17 and 18 under load
	{ name => 'os_drop', setting => $mincore, call => q{SELECT * FROM cachectl.os_drop('vast')}, files => 1 },
	{
		# Holes are read at the speed of page zeroing (4 GiB in 0.55 s here),
		# so the range is one no machine covers before the timeout; what
		# gets cached is bounded by the stop (rate x timeout), not the range.
		name => 'os_prefetch (32 GiB, no throttle)',
		call => q{SELECT * FROM cachectl.os_prefetch('vast', last_block => 4194303, fork => 'main')},
		# what the run before (the cancelled one) cached would be skipped
		prepare => sub { monitor_query(q{SELECT count(*) FROM cachectl.os_drop('vast')}) },
		timeout_ms => $cancel_after * 1000,
		files => 1
	},
	{
		name => 'os_prefetch (1 MB/s)',
		call => q{SELECT * FROM cachectl.os_prefetch('vast', max_mb_per_sec => 1, fork => 'main')},
		files => 1
	},
	{ name => 'os_map', setting => $mincore, call => q{SELECT length(cachectl.os_map('vast', fork => 'main'))}, files => 1 },
	# the measured query is cancelled inside a wrapped plan node: the tracker
	# goes with the executor state, and the session measures again after it
	{ name => 'explain_reads (a seq scan of 1 TiB of holes)', call => q{SELECT count(*) FROM cachectl.explain_reads('SELECT count(*) FROM vast')} },
	{
		name => 'os_restore (1 MB/s)',
		call => qq{SELECT * FROM cachectl.os_restore('vast', $map_of_4gb, max_mb_per_sec => 1, fork => 'main')},
		files => 1
	},
	{ name => 'os_residency', setting => $mincore, call => q{SELECT count(*) FROM cachectl.os_residency('vast')}, files => 1 },
	{
		name => 'os_residency_total (cascade, 201 relations)',
		setting => $mincore,
		call => q{SELECT count(*) FROM cachectl.os_residency_total('many', cascade => true)},
		files => 1
	},
	{
		name => 'status (cascade, 201 relations)',
		setting => $mincore,
		call => q{SELECT count(*) FROM cachectl.status('many', cascade => true)},
		files => 1
	},
	{ name => 'database_status', setting => $mincore, call => q{SELECT count(*) FROM cachectl.database_status}, files => 1 },
	{ name => 'database_summary', setting => $mincore, call => q{SELECT count(*) FROM cachectl.database_summary()}, files => 1 },
	{ name => 'top_relations', setting => $mincore, call => q{SELECT count(*) FROM cachectl.top_relations(5)}, files => 1 },
	{ name => 'draw', setting => $mincore, call => q{SELECT length(cachectl.draw('vast'))}, files => 1 },
	{ name => 'os_block_runs', setting => $mincore, call => q{SELECT count(*) FROM cachectl_internal.os_block_runs('vast')}, files => 1 },
	{
		name => 'prewarm os (1 MB/s)',
		call => q{SELECT * FROM cachectl.prewarm('vast', 'os', max_mb_per_sec => 1, fork => 'main')},
		files => 1
	},
	{
		name => 'prewarm shared (1 MB/s)',
		call => q{SELECT * FROM cachectl.prewarm('vast', 'shared', max_mb_per_sec => 1, fork => 'main')},
		files => 1
	},
	{
		name => 'prewarm both (1 MB/s)',
		call => q{SELECT * FROM cachectl.prewarm('vast', 'both', max_mb_per_sec => 1, fork => 'main')},
		files => 1
	},
	{
		name => 'prewarm shared (2 GiB, no throttle)',
		prepare => sub { monitor_query(q{SELECT count(*) FROM cachectl.cold('vast')}) },
		timeout_ms => $cancel_after * 1000,
		call => q{SELECT * FROM cachectl.prewarm('vast', 'shared', last_block => 262143, fork => 'main')},
		files => 1
	},
	{
		name => 'prewarm_runs (1 MB/s)',
		call => q{SELECT * FROM cachectl_internal.prewarm_runs('vast', 'main', '{[0,524288)}', 'os', 1)},
		files => 1
	},
	{
		name => 'snapshot',
		setting => $mincore,
		call => q{SELECT * FROM cachectl.snapshot('vast_map', ARRAY['vast'::regclass])},
		files => 1
	},
	{
		name => 'restore_plan (missing only, mincore)',
		setting => $mincore,
		call => q{SELECT count(*) FROM cachectl_internal.restore_plan('huge_map', 'os', missing_only => true)},
		# the server opens huge's segments first (pg_relation_size)
		timeout_ms => 3000,
		files => 1
	},
	{
		name => 'CALL restore (1 MB/s)',
		prepare => sub { monitor_query(q{SELECT count(*) FROM cachectl.cold('wide')}) },
		call => q{CALL cachectl.restore('wide_both', max_mb_per_sec => 1)},
		files => 1
	},);

# Functions that cannot keep running for a second, whatever they are given.
my %never_long = (
	evict_buffer => 'one buffer',
	os_engine => 'a setting',
	os_page_size => 'a constant',
	system_identifier => 'a constant',
	os_draw => 'a count of set bits over at most 256 MB; timed below on the largest map',
	shared_residency => 'one pass over the pool per lock batch (201 relations: one batch); timed below',
	shared_block_runs => 'one pass over the pool; timed below',
	relation_guard_of => 'catalog lookups of one relation',
	snapshot_relations => 'catalog reads, interrupts checked per relation (snapshot() runs it; cancelled above)',
	autowarm_status => 'a copy of at most 64 slots of shared memory',
	relation_reads => 'a copy of the per-relation counters (at most cachectl.track_reads_max_relations entries)',
	reset_relation_reads => 'empties the per-relation counters\' table',
	grant_to => 'a few GRANT statements',
	revoke_from => 'a few REVOKE statements',
	role_set_objects => 'a constant list',
	role_set_apply => 'a few GRANT or REVOKE statements',
	raise_for_user => 'an error, raised',
	snapshot_row_relation => 'a catalog lookup of one relation',
	wait_warm => 'returns at once here (no library preloaded); preloaded, it waits on the latch and checks interrupts every 100 ms',
	shared_buffers_advice => 'a copy of the sampler\'s last publication (at most 2,048 relation curves) and arithmetic per size',
	relation_advice => 'that copy, then for each relation shown (at most 1,000) a conditional lock and cachestat() over its files',
	advice_status => 'a copy of the sampler\'s report',
	reset_advice => 'a counter raised and the sampler\'s latch set',);

# ---- every function is in one of the lists ----

my %tested = map { my ($name) = $_->{call} =~ /cachectl(?:_internal)?\.(\w+)/; ($name => 1) } @cases;
my @functions = split /\n/, monitor_query(
	q{
SELECT DISTINCT p.proname FROM pg_proc AS p
 WHERE p.pronamespace IN ('cachectl'::regnamespace, 'cachectl_internal'::regnamespace) ORDER BY 1});
my @unclassified = grep { !$tested{$_} && !$never_long{$_} } @functions;
is_deeply(\@unclassified, [],
	'every function of the extension is cancelled here or known never to run a second');

# ---- one call, stopped one way ----

my @figures;

sub run_case
{
	my ($case, $how) = @_;
	my $what = "$case->{name}, $how";
	my $case_timeout_ms = $case->{timeout_ms} // $timeout_ms;
	# A call that opens files must be in the core when the timeout fires:
	# on a loaded machine (an assertion-enabled build, other suites beside
	# it) the cancel run below saw the core's descriptor only after some
	# time, so the timeout leaves twice that time and half a second more.
	if ($how eq 'statement_timeout' && $case->{files} && defined $case->{core_after})
	{
		my $needed_ms = int(2000 * $case->{core_after}) + 500;
		if ($needed_ms > $case_timeout_ms)
		{
			note("$what: statement_timeout ${needed_ms} ms (the core's descriptor was seen "
				  . sprintf('%.2f', $case->{core_after}) . ' s into the cancelled call)');
			$case_timeout_ms = $needed_ms;
		}
	}

	$case->{prepare}->() if $case->{prepare};
	$victim->query_safe($case->{setting} // 'RESET cachectl.os_engine');
	$victim->query_safe($how eq 'statement_timeout'
		? "SET statement_timeout = '${case_timeout_ms}ms'"
		: 'RESET statement_timeout');
	is_clean(leftovers(), "$what: before the call");
	my $buffers_before = $case->{evicts} ? wide_buffers() : 0;
	my $log_offset = -s $node->logfile;

	$victim->query_until(qr/calling\n/, "\\echo calling\n$case->{call};\n");
	my ($started, $running) = (undef, 0);
	my $threshold = $how eq 'statement_timeout' ? 0.05 : $cancel_after;
	# A call that opens files is stopped once the core holds one of them
	# (looked for from the call's start): on a loaded machine a call may
	# spend its first second in PostgreSQL's own code (the plan of a
	# 15 TiB relation: its size, 15,360 segments opened by the server).
	my $open_during = 0;
	my $open_seen_after;    # seconds into the call the core's descriptor was first seen
	# Until the call has run long enough, or has ended (then the checks
	# below fail, or for a statement_timeout that came first, find its
	# start as below), or the deadline passes (then they fail): a time
	# deadline, not a number of looks, which a loaded machine stretches.
	my $deadline = Time::HiRes::time() + $PostgreSQL::Test::Utils::timeout_default;
	while (1)
	{
		($started, $running) = split /\|/, monitor_query(
			qq{
SELECT extract(epoch FROM query_start), extract(epoch FROM clock_timestamp() - query_start)
  FROM pg_stat_activity WHERE pid = $victim_pid AND state = 'active'});
		$open_during ||= scalar(my @open = core_descriptors())
		  if $case->{files} && defined $running;
		$open_seen_after //= $running if $open_during;
		# an eviction is cancelled once it has evicted some of wide (on a
		# loaded machine its first 0.3 s may not reach wide's buffers)
		my $evicting = !$case->{evicts} || $how ne 'pg_cancel_backend'
		  || (defined $running && wide_buffers() < $buffers_before);
		last
		  if defined $running
		  && $running >= $threshold
		  && $evicting
		  && ($open_during || !$case->{files});
		# Not active: not started yet, or ended, told apart by the
		# session's last query: the call once it has run (before, the SET
		# of statement_timeout above).
		last
		  if !defined $running
		  && monitor_query(
			qq{
SELECT count(*) FROM pg_stat_activity
 WHERE pid = $victim_pid AND state <> 'active' AND position(\$call\$$case->{call}\$call\$ IN query) = 1}) eq '1';
		if (Time::HiRes::time() > $deadline)
		{
			diag("$what: after $PostgreSQL::Test::Utils::timeout_default s the call has "
				  . (defined $running ? "run $running s" : 'not been seen running')
				  . ($case->{files} ? ', the core\'s descriptor ' . ($open_during ? 'seen' : 'not seen') : ''));
			last;
		}
		usleep(10_000);
	}
	my ($stop_epoch, $wait_event);
	$case->{core_after} = $open_seen_after if $how eq 'pg_cancel_backend' && $open_during;
	if ($how eq 'pg_cancel_backend')
	{
		# the clock and the wait event are read before the signal goes
		($stop_epoch, $wait_event) = split /\|/, monitor_query(
			qq{
SELECT extract(epoch FROM clock_timestamp()), coalesce(wait_event, '-'),
       pg_cancel_backend(pid)
  FROM pg_stat_activity WHERE pid = $victim_pid AND state = 'active'});
	}
	else
	{
		# A call the timeout ended before the monitor saw it running (a
		# loaded machine) still shows its start: the session has run
		# nothing since, so pg_stat_activity keeps the call's query_start.
		($started) = split /\|/, monitor_query(
			qq{
SELECT extract(epoch FROM query_start)
  FROM pg_stat_activity
 WHERE pid = $victim_pid AND position(\$call\$$case->{call}\$call\$ IN query) = 1})
		  unless defined $started;
		$started = undef if defined $started && $started eq '';
		$stop_epoch = $started + $case_timeout_ms / 1000.0 if defined $started;
		$wait_event = '-';
	}

	# the next statement runs once the call has ended
	$victim->query('SELECT 1');
	my $errors = $victim->{stderr};
	$victim->{stderr} = '';
	my $reason = $how eq 'statement_timeout' ? 'statement timeout' : 'user request';
	like($errors, qr/ERROR:  57014: canceling statement due to \Q$reason\E/,
		"$what: the call stops with 57014");
	my $log = slurp_file($node->logfile, $log_offset);
	# the test clusters' log_line_prefix is '%m [%p] ' up to 18, '%m %b[%p] '
	# (the backend type before the pid) from 19 on
	my ($error_time) =
	  $log =~ /^(\S+ \S+ \S+) [^\[\n]*\[$victim_pid\] .*ERROR:  canceling statement due to \Q$reason\E/m;
	my $latency_ms =
	  defined $error_time && defined $stop_epoch
	  ? (server_epoch($error_time) - $stop_epoch) * 1000.0
	  : undef;
	ok(defined $latency_ms && $latency_ms < 1000,
		"$what: the error comes within a second")
	  or diag("the log after the call:\n$log");
	# the log's timestamps are in whole milliseconds: an error logged in the
	# millisecond of the cancel may look a fraction of one early
	my $shown = defined $latency_ms ? sprintf('%.0f ms', $latency_ms < 0 ? 0 : $latency_ms) : 'none';
	note("$what: stopped $shown after the "
		  . ($how eq 'statement_timeout' ? 'timeout' : 'cancel')
		  . " (wait event then: $wait_event)");
	push @figures, sprintf('%-46s %-18s %8s', $case->{name}, $how, $shown);

	if ($case->{files})
	{
		cmp_ok($open_during, '>', 0,
			"$what: the check finds the core's descriptor during the call");
	}
	if ($case->{evicts})
	{
		my $buffers_after = wide_buffers();
		note("$what: wide's buffers $buffers_before before, $buffers_after after");
		ok($buffers_after < $buffers_before && $buffers_after > 0,
			"$what: stopped in the middle of the pass")
		  or diag("wide's buffers: $buffers_before before the call, $buffers_after after");
	}
	is_clean(leftovers(), "$what: after the call");
	return;
}

# ---- the cases ----

foreach my $case (@cases)
{
	run_case($case, 'pg_cancel_backend');
	run_case($case, 'statement_timeout');
}

# ---- the functions that never run a second ----

$victim->query_safe('RESET statement_timeout');
$victim->query_safe('RESET cachectl.os_engine');
my $draw_ms = $victim->query_safe(
	q{
DO $$
DECLARE
    map varbit := cachectl.os_map('huge', fork => 'main');
    started timestamptz := clock_timestamp();
BEGIN
    PERFORM cachectl.os_draw(map, 10000);
    PERFORM set_config('cachectl_test.draw_ms',
        (extract(epoch FROM clock_timestamp() - started) * 1000)::int::text, false);
END
$$;
SELECT current_setting('cachectl_test.draw_ms');});
# Reported, not asserted: the drawing is a word-wise count of set bits over
# at most 256 MB (0.2 s of CPU when measured alone), with no cancellation
# point of its own, and wall time on a loaded machine says little of it.
note("os_draw of huge's map (" . 15 * 1024 * 131072 . " bits): $draw_ms ms");
push @figures, sprintf('%-46s %-18s %8s', 'os_draw (2e9 bits, whole call)', '-', "$draw_ms ms");

foreach my $call (
	q{SELECT count(*) FROM cachectl.shared_residency('many', cascade => true)},
	q{SELECT count(*) FROM cachectl_internal.shared_block_runs()})
{
	my $ms = $victim->query_safe(
		qq{
SELECT set_config('cachectl_test.started', clock_timestamp()::text, false);
$call;
SELECT round(extract(epoch FROM clock_timestamp()
                            - current_setting('cachectl_test.started')::timestamptz) * 1000)});
	($ms) = $ms =~ /(\d+)\s*$/;
	my ($name) = $call =~ /cachectl\.(\w+)/;
	# one pass over the pool, which checks for interrupts at every buffer
	note("$name over the 4 GB pool: $ms ms");
	push @figures, sprintf('%-46s %-18s %8s', "$name (whole call)", '-', "$ms ms");
}

# After all of this the eviction still works through the whole pool.
is( monitor_query(q{SELECT buffers_failed FROM cachectl.evict_all()}),
	'0', 'evict_all runs to its end afterwards');
is_clean(leftovers(), 'at the end');

note("cancel latencies (load average: "
	  . (split ' ', slurp_file('/proc/loadavg'))[0] . "):\n" . join("\n", @figures));

$victim->quit;
$monitor->quit;
$node->stop;
done_testing();
