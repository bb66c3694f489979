# 089_read_sources.pl
#
# Where reads came from, measured in constructed states of a table of about
# 80 MB (larger than a quarter of shared_buffers, so a seq scan reads it
# through a ring and asks the kernel for every block):
# 1. cold (cachectl.cold: neither layer): the seq scan's reads are device
#    reads; page-cache hits at most 1 % of them; device bytes at least 99 %
#    of the device blocks' size (a block partly cached counts whole);
# 2. only in the OS page cache (evicted from shared buffers): no device
#    bytes, every read a page-cache hit — while another session reads a
#    cold table from the device the whole time (its reads never leak into
#    this query's figures: the kernel counts them to its process);
# 3. in shared buffers (prewarm): every block a shared hit, nothing read.
# Through cachectl.explain_reads() on every version, and on 18 and later
# through EXPLAIN (ANALYZE, CACHECTL_READS) in each format (text, JSON, YAML,
# XML).  Also: a parallel plan whose workers ran says its sources are not
# known (NULL and a NOTICE) rather than miscounting them; on 18 and later,
# io_method = worker gives NULL with a NOTICE naming the setting, and
# io_uring (where the server was built with it) counts as sync does; the
# EXPLAIN option is there after LOAD and with session_preload_libraries, and
# is unknown to a session that loaded nothing.
use strict;
use warnings;

use CachectlTest qw(require_fincore_on_disk start_cache_node signal_file file_exists_sql poll_until);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

require_fincore_on_disk();

my $node = start_cache_node('read_sources', q{
shared_buffers = '256MB'
max_parallel_workers_per_gather = 0
});
my $major = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000});
my $block_size = $node->safe_psql('postgres', q{SELECT current_setting('block_size')});
# 18's default, io_method = worker, reads in other processes: the states are
# measured with the backend reading (sync); worker and io_uring come last
if ($major >= 18)
{
	$node->append_conf('postgresql.conf', q{io_method = sync});
	$node->restart;
}

$node->safe_psql('postgres', q{
CREATE TABLE t AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 330000) AS g;
CREATE TABLE other AS SELECT g AS id, repeat('y', 200) AS pad FROM generate_series(1, 330000) AS g;
VACUUM ANALYZE t;
VACUUM ANALYZE other;
CHECKPOINT;
});
my $blocks = $node->safe_psql('postgres', q{SELECT pg_relation_size('t') / current_setting('block_size')::int});
cmp_ok($blocks * $block_size, '>', 64 * 1024 * 1024, "t has $blocks blocks, more than a quarter of shared_buffers");

# The seq scan's row of explain_reads(): read, shared hits, page-cache hits, device blocks and bytes.
sub scan_row
{
	my ($sql_before) = @_;
	my $row = $node->safe_psql('postgres', ($sql_before // '') . q{
SELECT read_blocks, shared_hit_blocks, coalesce(os_hit_blocks::text, 'NULL'),
       coalesce(device_read_blocks::text, 'NULL'), coalesce(device_read_bytes::text, 'NULL')
  FROM cachectl.explain_reads('SELECT count(pad) FROM t') WHERE node_type = 'Seq Scan'});
	return split /\|/, $row;
}

sub make_cold
{
	$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.cold('t')});
	return;
}

# t in the OS page cache and not in shared buffers.  Prefetched pages sit on
# the kernel's inactive list, the first that reclaim takes (and the other
# session below reads 600 MB past them: a make test-all saw 384 of 9,728
# gone before the scan); two reads of each page through the kernel (the
# scans, in the pool's small ring) move them to the active list, then t
# leaves shared buffers.
sub only_in_os_cache
{
	$node->safe_psql('postgres', q{
SELECT count(*) FROM cachectl.evict('t');
SELECT count(*) FROM cachectl.os_prefetch('t', wait => true);
SELECT count(pad) FROM t;
SELECT count(pad) FROM t;
SELECT count(*) FROM cachectl.evict('t')});
	return;
}

# ---- 1. cold ----
make_cold();
my ($read, $hits, $os_hits, $device_blocks, $device_bytes) = scan_row();
is($read + $hits, $blocks, "cold: the scan asked for each of t's blocks once ($read read, $hits hit)");
cmp_ok($read, '>=', 0.99 * $blocks, 'cold: nearly all of them read from the kernel');
cmp_ok($os_hits, '<=', 0.01 * $read, "cold: page-cache hits $os_hits, at most 1 % of $read reads");
is($os_hits + $device_blocks, $read, 'cold: page-cache hits and device reads add up to the reads');
# A block the page cache held part of (one 4 kB page of two) counts whole
# as a device read (the rule rounds a span's bytes up to blocks): 19 in CI
# read 79,515,648 bytes for 9,707 device blocks, half a block short
cmp_ok($device_bytes, '>=', 0.99 * $device_blocks * $block_size,
	"cold: the device read $device_bytes bytes for $device_blocks blocks, at least 99 % of them");

# ---- 2. only in the OS page cache, another session reading from the device ----
my $stop_file = signal_file($node, 'stop_other_reader');
my $stop_file_exists = file_exists_sql($stop_file);
my ($reader_out, $reader_err) = ('', '');
# the other session ends at the stop file; this bound only keeps it from
# outliving a test that died, and outlasts the wait below
my $reader_seconds = 2 * $PostgreSQL::Test::Utils::timeout_default;
my $reader = IPC::Run::start(
	[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-c', qq{
DO \$\$
BEGIN
    LOOP
        PERFORM count(*) FROM cachectl.cold('other');
        PERFORM count(pad) FROM other;
        EXIT WHEN $stop_file_exists OR clock_timestamp() > statement_timestamp() + interval '$reader_seconds s';
    END LOOP;
END \$\$} ],
	'>', \$reader_out, '2>', \$reader_err);
my $reader_pid;
$node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%PERFORM count(pad) FROM other%' AND pid <> pg_backend_pid()})
  or die 'the other reader did not start';
$reader_pid = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE query LIKE '%PERFORM count(pad) FROM other%' AND pid <> pg_backend_pid()});
# Each try puts t in the OS page cache again (the other session's reads
# press on it).  The scan takes tens of milliseconds; the other session spends some of its
# time in cold() rather than reading: measured again until the other
# session's device reads overlap the scan, up to the deadline
# (PG_TEST_TIMEOUT_DEFAULT) rather than a number of tries, which a loaded
# machine may use up with the other session in cold() each time.
my $reader_bytes_during = 0;
poll_until(
	sub {
		only_in_os_cache();
		my $reader_bytes_before = device_read_bytes_of($reader_pid);
		($read, $hits, $os_hits, $device_blocks, $device_bytes) = scan_row();
		$reader_bytes_during = device_read_bytes_of($reader_pid) - $reader_bytes_before;
		# and again when the host's reclaim took much of t back before the scan
		return $reader_bytes_during > 0 && $device_bytes <= 0.03 * $blocks * $block_size;
	});
open(my $stop, '>', $stop_file) or die "$stop_file: $!";
close($stop);
$reader->finish;
is($reader_err, '', 'the other session ended cleanly');
cmp_ok($reader_bytes_during, '>', 0, "the other session read $reader_bytes_during bytes from the device meanwhile");
cmp_ok($read, '>=', 0.99 * $blocks, "OS cache only: $read blocks read from the kernel");
# The host's reclaim may take a few prefetched pages before the scan reaches
# them (seen here: 256 of 9,728 on one run): they are device reads, rightly.
cmp_ok($device_bytes, '<=', 0.03 * $blocks * $block_size,
	"OS cache only: $device_bytes device bytes, at most 3 % of the table (what reclaim took back)");
cmp_ok($device_bytes, '<', $reader_bytes_during / 2,
	'fewer than half what the other session read meanwhile: none of its reads counted here');
cmp_ok($os_hits, '>=', 0.97 * $read, "OS cache only: $os_hits of $read reads page-cache hits");

# ---- 3. in shared buffers ----
$node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.prewarm('t', 'shared')});
($read, $hits, $os_hits, $device_blocks, $device_bytes) = scan_row();
is("$read|$hits|$os_hits|$device_blocks|$device_bytes", "0|$blocks|0|0|0", 'in shared buffers: every block a shared hit');

# ---- a parallel plan: its workers' sources are not counted, and it says so ----
make_cold();
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT node_type, coalesce(os_hit_blocks::text, 'NULL'), coalesce(device_read_bytes::text, 'NULL')
  FROM cachectl.explain_reads('SELECT count(pad) FROM t') ORDER BY node_type});
is($ret, 0, 'explain_reads() of a parallel plan runs');
SKIP:
{
	skip 'no parallel worker was launched', 3 unless $stderr =~ /parallel workers read part/;
	like($stdout, qr/^Gather\|NULL\|NULL$/m, 'the Gather has NULL sources');
	like($stdout, qr/^Query\|NULL\|NULL$/m, 'and so has the query');
	like($stderr, qr/HINT:  SET max_parallel_workers_per_gather = 0/, 'the NOTICE says how to count every read');
}

# ---- 18 and later: the EXPLAIN option, in every format ----
SKIP:
{
	skip 'EXPLAIN takes options from extensions from PostgreSQL 18', 1 if $major < 18;

	my %pattern = (
		text => qr/^\s*Read Sources: shared hit=(\d+) page cache=(\d+) device=(\d+) \((\d+) bytes\)$/m,
		yaml => qr/Read Sources:\s+Shared Hit Blocks: (\d+)\s+Read Blocks: \d+\s+Sources Known: true\s+Page Cache Hit Blocks: (\d+)\s+Device Read Blocks: (\d+)\s+Device Read Bytes: (\d+)/,
		xml => qr{<Read-Sources>\s*<Shared-Hit-Blocks>(\d+)</Shared-Hit-Blocks>\s*<Read-Blocks>\d+</Read-Blocks>\s*<Sources-Known>true</Sources-Known>\s*<Page-Cache-Hit-Blocks>(\d+)</Page-Cache-Hit-Blocks>\s*<Device-Read-Blocks>(\d+)</Device-Read-Blocks>\s*<Device-Read-Bytes>(\d+)</Device-Read-Bytes>},
	);
	for my $format (qw(text json yaml xml))
	{
		for my $state ([ 'cold', \&make_cold ], [ 'OS cache only', \&only_in_os_cache ])
		{
			my ($name, $make) = @$state;
			my ($plan, $shared, $page_cache, $device, $bytes);
			my $explain = sub {
				$make->();
				# the option is there once the library is loaded in the session
				$plan = $node->safe_psql('postgres',
					"LOAD 'pg_cachectl'; EXPLAIN (ANALYZE, CACHECTL_READS, COSTS OFF, TIMING OFF, FORMAT $format) SELECT count(pad) FROM t");
				($shared, $page_cache, $device, $bytes) = ();
				if ($format eq 'json')
				{
					my $sources = decode_json($plan)->[0]{Plan}{Plans}[0]{'Read Sources'} // {};
					($shared, $page_cache, $device, $bytes) =
					  @{$sources}{ 'Shared Hit Blocks', 'Page Cache Hit Blocks', 'Device Read Blocks', 'Device Read Bytes' };
				}
				else
				{
					# the scan's group comes after the aggregate's: the last match
					my @all = $plan =~ /$pattern{$format}/g;
					($shared, $page_cache, $device, $bytes) = @all[ -4 .. -1 ] if @all >= 4;
				}
				return 1;
			};
			if ($name eq 'cold')
			{
				$explain->();    # reclaim takes pages, never adds one: cold stays cold
			}
			else
			{
				# the host's reclaim may take back pages between the state and the
				# scan: the state is made again until the scan finds it whole
				poll_until(sub { $explain->(); !defined $device || $device <= 0.01 * $blocks });
			}
			ok(defined $device, "EXPLAIN $format, $name: the scan's read sources are there")
			  or diag($plan);
			$device //= 0;
			$page_cache //= 0;
			if ($name eq 'cold')
			{
				cmp_ok($device, '>=', 0.99 * $blocks, "EXPLAIN $format, cold: $device device reads");
				cmp_ok($page_cache, '<=', 0.01 * $blocks, "EXPLAIN $format, cold: $page_cache page-cache hits");
			}
			else
			{
				cmp_ok($device, '<=', 0.03 * $blocks, "EXPLAIN $format, OS cache only: $device device reads (reclaim at most)");
				cmp_ok($page_cache, '>=', 0.99 * $blocks, "EXPLAIN $format, OS cache only: $page_cache page-cache hits");
			}
		}
	}
	my $text = $node->safe_psql('postgres', q{LOAD 'pg_cachectl'; EXPLAIN (ANALYZE, CACHECTL_READS) SELECT count(pad) FROM t});
	like($text, qr/^\s*Query Read Sources: shared hit=\d+ page cache=\d+ device=\d+ \(\d+ bytes\)$/m,
		'EXPLAIN text: the query\'s read sources after the plan');

	# attacks on the request an EXPLAIN leaves for the executor
	# - a statement that runs no plan (CREATE TABLE AS of a table that exists) takes no tracking; explain_reads() after it,
	#   in the same transaction, still measures its own query
	$node->safe_psql('postgres', q{CREATE TABLE probe_exists (x int)});
	($ret, $stdout, $stderr) = $node->psql('postgres', q{
LOAD 'pg_cachectl';
BEGIN;
EXPLAIN (ANALYZE, CACHECTL_READS) CREATE TABLE IF NOT EXISTS probe_exists AS SELECT 1 AS x;
SELECT count(*) FROM cachectl.explain_reads('SELECT count(pad) FROM t');
COMMIT;});
	is($ret, 0, 'explain_reads() after EXPLAIN of a statement without a plan, same transaction: no error')
	  or diag($stderr);
	# - an EXPLAIN run by a function inside an EXPLAINed query: the outer plan
	#   gets its figures, the inner one none, nothing breaks
	$node->safe_psql('postgres', q{
CREATE FUNCTION inner_explain() RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; lines text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, CACHECTL_READS) SELECT count(*) FROM t' LOOP
        lines := lines || line || E'\n';
    END LOOP;
    RETURN lines;
END $$;});
	($ret, $stdout, $stderr) = $node->psql('postgres', q{
LOAD 'pg_cachectl';
EXPLAIN (ANALYZE, CACHECTL_READS, COSTS OFF) SELECT inner_explain();
SELECT inner_explain() IS NOT NULL;});
	is($ret, 0, 'EXPLAIN inside an EXPLAINed query: no error') or diag($stderr);
	like($stdout, qr/^\s*Read Sources: shared hit=\d+ page cache=\d+ device=\d+/m, 'the outer plan has its read sources');
	# - an error in the middle of a tracked run, then the next one works
	($ret, $stdout, $stderr) = $node->psql('postgres', q{
LOAD 'pg_cachectl';
EXPLAIN (ANALYZE, CACHECTL_READS) SELECT 1 / (id - 5000) FROM t;
EXPLAIN (ANALYZE, CACHECTL_READS) SELECT count(*) FROM t;}, on_error_stop => 0);
	like($stderr, qr/division by zero/, 'a tracked EXPLAIN that fails mid-run raises its own error');
	like($stdout, qr/Read Sources: shared hit=/, 'and the next EXPLAIN in the session is tracked again');

	# how the library is loaded: a session that loaded nothing does not know the option
	($ret, $stdout, $stderr) = $node->psql('postgres', 'EXPLAIN (ANALYZE, CACHECTL_READS) SELECT 1');
	like($stderr, qr/unrecognized EXPLAIN option "cachectl_reads"/, 'without the library loaded the option is unknown');
	is($node->psql('postgres', q{LOAD 'pg_cachectl'; EXPLAIN (ANALYZE, CACHECTL_READS) SELECT 1}), 0, 'after LOAD it is known');
	$node->safe_psql('postgres', q{ALTER SYSTEM SET session_preload_libraries = 'pg_cachectl'; SELECT pg_reload_conf()});
	$node->poll_query_until('postgres', q{SELECT current_setting('session_preload_libraries') = 'pg_cachectl'});
	like($node->safe_psql('postgres', 'EXPLAIN (ANALYZE, CACHECTL_READS) SELECT 1'), qr/Read Sources: shared hit=/,
		'with session_preload_libraries a new session knows it');
	$node->safe_psql('postgres', q{ALTER SYSTEM RESET session_preload_libraries; SELECT pg_reload_conf()});

	# io_method = worker: other processes read, nothing can be split
	$node->append_conf('postgresql.conf', q{io_method = worker});
	$node->restart;
	make_cold();
	($ret, $stdout, $stderr) = $node->psql('postgres', q{
SELECT node_type, read_blocks > 0, coalesce(os_hit_blocks::text, 'NULL'), coalesce(device_read_bytes::text, 'NULL')
  FROM cachectl.explain_reads('SELECT count(pad) FROM t') WHERE node_type = 'Seq Scan'});
	is($stdout, 'Seq Scan|t|NULL|NULL', 'io_method = worker: the reads are counted, their sources NULL');
	like($stderr, qr/not known with io_method = worker/, 'with a NOTICE naming the setting');
	like($node->safe_psql('postgres', q{LOAD 'pg_cachectl'; EXPLAIN (ANALYZE, CACHECTL_READS) SELECT count(pad) FROM t}),
		qr/Read Sources: shared hit=\d+ read=\d+ \(sources not known\)/, 'and EXPLAIN says the sources are not known');

	# io_uring, where the server has it: the kernel counts the reads to the backend's process
	my $has_uring = $node->safe_psql('postgres',
		q{SELECT 'io_uring' = ANY (enumvals) FROM pg_settings WHERE name = 'io_method'});
	if ($has_uring eq 't')
	{
		$node->append_conf('postgresql.conf', q{io_method = io_uring});
		$node->restart;
		make_cold();
		($read, $hits, $os_hits, $device_blocks, $device_bytes) = scan_row();
		cmp_ok($os_hits, '<=', 0.01 * $read, "io_uring, cold: page-cache hits $os_hits of $read reads");
		cmp_ok($device_bytes, '>=', 0.99 * $blocks * $block_size, "io_uring, cold: $device_bytes device bytes");
		# made again until the scan finds it whole, as above
		poll_until(
			sub {
				only_in_os_cache();
				($read, $hits, $os_hits, $device_blocks, $device_bytes) = scan_row();
				return $device_bytes <= 0.01 * $blocks * $block_size;
			});
		cmp_ok($device_bytes, '<=', 0.03 * $blocks * $block_size, "io_uring, OS cache only: $device_bytes device bytes (reclaim at most)");
	}
	else
	{
		note('this server was built without io_uring');
	}
}

# Bytes the device read for a process so far (/proc/PID/io, as root or the postgres user).
sub device_read_bytes_of
{
	my ($pid) = @_;
	open(my $io, '<', "/proc/$pid/io") or die "/proc/$pid/io: $!";
	while (my $line = <$io>)
	{
		return $1 if $line =~ /^read_bytes: (\d+)/;
	}
	die "no read_bytes in /proc/$pid/io";
}

$node->stop;
done_testing();
