# 021_os_prefetch.pl
#
# cachectl.os_prefetch() loads a relation fork, or a block range of it, into
# the OS page cache, and by default returns only once the reads it started
# have finished.  On a cold table of 1.1 GB in two segment files (cold:
# os_drop, checked with util-linux fincore, which like mincore counts only
# pages whose read has finished):
#
# a. the whole fork: when the call returns, at least 99% of every segment's
#    pages are cached per fincore, and os_pages_pending is 0;
# b. a block range across the boundary of the two segments: blocks_requested
#    is its length, and each segment holds at least that range's pages (and
#    not much more);
# c. wait => false returns without waiting, and the reads it started still
#    complete;
# d. a throttle: 10 MiB at max_mb_per_sec => 20 take at least 0.3 s;
# e. a throttled prefetch of the whole fork (max_mb_per_sec => 5) under
#    statement_timeout = 1500ms stops with SQLSTATE 57014 less than 2.5 s
#    after it started, having loaded only a little;
# f. with cachectl.progress and cachectl.log_actions on, a 2 s call reports
#    progress at most once a second and ends with one LOG line.
#
# Times are asserted only as bounds the function promises (it stops within
# a second of a cancel; a throttle is a floor), never as speeds.
use strict;
use warnings;

use List::Util qw(sum0);
use CachectlTest qw(require_fincore_on_disk os_page_size fincore_page_list
  start_cache_node segment_files main_fork_blocks os_evicted_page_list sqlstate_of);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $segment_blocks = 131072;    # RELSEG_SIZE
my $table_blocks = 140000;      # 1.15 GB: a full segment and 70 MB more

require_fincore_on_disk();

my $os_page_size = os_page_size();
my $pages_per_block = 8192 / $os_page_size;

my $node = start_cache_node('os_prefetch');

# Two ~4 KB rows per block, stored inline and uncompressed: no empty page.
# Created and filled in one transaction: with wal_level = minimal nothing
# goes to WAL, and the commit syncs the file.
my $start = time;
$node->safe_psql(
	'postgres', qq{
BEGIN;
CREATE TABLE prefetch_probe (id int4, pad text);
ALTER TABLE prefetch_probe ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO prefetch_probe
  SELECT g, lpad(g::text, 4000, md5(g::text))
    FROM generate_series(1, 2 * $table_blocks) AS g;
COMMIT;
});
my $blocks = main_fork_blocks($node, 'prefetch_probe');
note(sprintf('prefetch_probe: %d blocks, built in %.1f s', $blocks, time - $start));
cmp_ok($blocks, '>=', $table_blocks, 'the table is at least 1.1 GB');

my @segment_files = segment_files($node, 'prefetch_probe', 2);
ok(-e $segment_files[1], 'the main fork has two segment files');
my @segment_pages =
  map { (-s $_) / $os_page_size } @segment_files;

# ---- helpers ----

sub make_cold
{
	my ($step) = @_;
	$node->safe_psql('postgres',
		q{SELECT count(*) FROM cachectl.os_drop('prefetch_probe')});
	my $cached = fincore_page_list(@segment_files);
	is_deeply($cached, [ 0, 0 ],
		"$step: cold, fincore finds no page of either segment");
}

# Pages whose read has finished, per segment: mincore's count, through the
# extension's mincore engine.  util-linux 2.41 and later (trixie, sid) make
# fincore count with cachestat, which includes pages still being read: with
# it as the oracle, c's wait ended with 58 MB in flight, and d's drop left
# them behind (17.12 and 19~rc1 in their chroots).
sub read_page_list
{
	my $out = $node->safe_psql('postgres',
		q{SET cachectl.os_engine = 'mincore';
SELECT string_agg(os_pages::text, ' ' ORDER BY segment)
  FROM cachectl.os_residency('prefetch_probe', 'main')});
	return [ split / /, $out ];
}

# sqlstate_of, timed: returns (SQLSTATE or '00000', stdout, stderr, seconds
# the psql run took).
sub timed_psql
{
	my ($sql) = @_;
	my $begin = time;
	my ($sqlstate, $stdout, $stderr) = sqlstate_of($node, $sql);
	my $elapsed = time - $begin;
	$stdout =~ s/\s+$//;
	return ($sqlstate, $stdout, $stderr, $elapsed);
}

# ---- a. the whole fork ----

make_cold('a');
my ($sqlstate, $out, $err, $elapsed) = timed_psql(
	q{SELECT relation, fork, blocks_requested, os_pages_after, os_bytes_after,
	         os_pages_pending, seconds
	    FROM cachectl.os_prefetch('prefetch_probe', fork => 'main')});
my $cached = fincore_page_list(@segment_files);
# read after the pages counted: what the host's reclaim took since (b. says why)
my $reclaimed = os_evicted_page_list($node, 'prefetch_probe');
is($sqlstate, '00000', 'a. os_prefetch succeeds');
my ($relation, $fork, $requested, $cached_after, $os_bytes_after,
	$pending, $seconds)
  = split /\|/, $out;
note(sprintf(
		'a. os_prefetch: %s blocks in %s s (psql %.2f s, %.0f MB/s); fincore per segment %s of %s',
		$requested, $seconds, $elapsed,
		$blocks * 8192 / 1e6 / ($seconds || 1),
		"@$cached", "@segment_pages"));
is("$relation|$fork", 'prefetch_probe|main', 'a. the row names the relation and fork');
is($requested, $blocks, 'a. blocks_requested is the whole fork');
is($pending, 0, 'a. os_pages_pending is 0: every read has finished');
foreach my $segment (0, 1)
{
	cmp_ok(
		$cached->[$segment] + $reclaimed->[$segment], '>=',
		0.99 * $segment_pages[$segment],
		"a. segment $segment: at least 99% cached when it returned ($cached->[$segment] of $segment_pages[$segment] pages), but for what the kernel evicted since ($reclaimed->[$segment])"
	);
}
cmp_ok($cached_after, '>=', 0.99 * sum0(@segment_pages),
	'a. os_pages_after says at least 99% too');
is($os_bytes_after, $cached_after * $os_page_size,
	'a. os_bytes_after = os_pages_after * page size');
cmp_ok($seconds, '<=', $elapsed, 'a. seconds is within the time psql waited');

# ---- b. a range across the two segments ----

make_cold('b');
my $first = $segment_blocks - 1000;
my $last = $segment_blocks + 2999;
($requested, $pending) = split /\|/,
  $node->safe_psql('postgres',
	"SELECT blocks_requested, os_pages_pending FROM cachectl.os_prefetch('prefetch_probe', 'main', $first, $last)"
  );
$cached = fincore_page_list(@segment_files);
# read after the pages counted (a page read again loses its entry); os_drop
# leaves none, host reclaim does
my $evicted = os_evicted_page_list($node, 'prefetch_probe');
note("b. blocks $first..$last: fincore per segment @$cached; evicted since: @$evicted");
is($requested, $last - $first + 1, 'b. blocks_requested is the range length');
is($pending, 0, 'b. os_pages_pending is 0');
my @wanted = (1000 * $pages_per_block, 3000 * $pages_per_block);
foreach my $segment (0, 1)
{
	cmp_ok($cached->[$segment] + $evicted->[$segment], '>=', $wanted[$segment],
		"b. segment $segment holds the range's $wanted[$segment] pages but those the kernel evicted since ($evicted->[$segment])");
	# a little read-ahead around the range is the kernel's business
	cmp_ok($cached->[$segment], '<', $wanted[$segment] + 4096,
		"b. segment $segment holds not much more than the range");
}

# ---- c. wait => false ----

make_cold('c');
($sqlstate, $out, $err, $elapsed) = timed_psql(
	q{SELECT blocks_requested, os_pages_pending
	    FROM cachectl.os_prefetch('prefetch_probe', wait => false, fork => 'main')});
is($sqlstate, '00000', 'c. os_prefetch(wait => false) succeeds');
($requested, $pending) = split /\|/, $out;
note(sprintf('c. returned after %.2f s with %s pages pending', $elapsed, $pending));
is($requested, $blocks, 'c. blocks_requested is the whole fork');
# Pages the host's reclaim takes while the reads run are not asked again:
# they count as read (cachestat keeps them as evicted).
my $deadline = time + 60;
my $read_or_reclaimed;
do
{
	usleep(100_000);
	$cached = read_page_list();
	$read_or_reclaimed = sum0(@$cached) + sum0(@{ os_evicted_page_list($node, 'prefetch_probe') });
} while ($read_or_reclaimed < 0.99 * sum0(@segment_pages) && time < $deadline);
cmp_ok($read_or_reclaimed, '>=', 0.99 * sum0(@segment_pages),
	'c. the reads it started complete: at least 99% read (mincore), but for what the kernel evicted since');
# The last reads may still be in flight: DONTNEED skips a page under read,
# so the next step's drop would leave it behind.
$deadline = time + 10;
while (sum0(@$cached) < sum0(@segment_pages) && time < $deadline)
{
	usleep(100_000);
	$cached = read_page_list();
}

# ---- d. the throttle is a floor ----

make_cold('d');
($sqlstate, $out, $err, $elapsed) = timed_psql(
	q{SELECT blocks_requested, seconds
	    FROM cachectl.os_prefetch('prefetch_probe', first_block => 0, last_block => 1279,
	                              max_mb_per_sec => 20, fork => 'main')});
is($sqlstate, '00000', 'd. a throttled prefetch succeeds');
($requested, $seconds) = split /\|/, $out;
note("d. 10 MiB at 20 MB/s: $seconds s");
# 10 MiB at 20 MB/s is 0.52 s, less the first chunk, which may go at once
# (unthrottled, 10 MiB take a few milliseconds here)
cmp_ok($seconds, '>=', 0.3, 'd. 10 MiB at 20 MB/s take at least 0.3 s');

# ---- e. statement_timeout stops a throttled prefetch ----

make_cold('e');
# The call's time is taken by the server, around it: psql's start and
# connection (a second on a loaded machine) are no part of it.
($sqlstate, $out, $err, $elapsed) = timed_psql(
	q{SELECT cachectl.os_page_size();
	  SELECT extract(epoch FROM clock_timestamp()) AS call_started \gset
	  SET statement_timeout = '1500ms';
	  SELECT * FROM cachectl.os_prefetch('prefetch_probe', max_mb_per_sec => 5, fork => 'main');
	  RESET statement_timeout;
	  SELECT 'CALL_SECONDS', extract(epoch FROM clock_timestamp()) - :call_started});
$cached = fincore_page_list(@segment_files);
my ($call_seconds) = $out =~ /^CALL_SECONDS\|([0-9.]+)$/m;
note(sprintf('e. throttled prefetch under a 1500 ms timeout: %s after %.2f s (psql %.2f s), %s pages cached: %s',
		$sqlstate, $call_seconds // -1, $elapsed, sum0(@$cached), $err));
is($sqlstate, '57014', 'e. statement_timeout cancels it (57014)');
cmp_ok($call_seconds // 99, '<', 2.5, 'e. it stopped less than 2.5 s after it started');
cmp_ok($call_seconds // 0, '>=', 1.4, 'e. it ran until the timeout');
# 5 MB/s for 1.5 s is 7.5 MB, plus read-ahead of the last chunk
cmp_ok(sum0(@$cached) * $os_page_size, '<', 64 * 1024 * 1024,
	'e. and it had loaded less than 64 MiB');

# ---- f. progress NOTICEs and the closing LOG line ----

make_cold('f');
my $log_offset = -s $node->logfile;
($sqlstate, $out, $err, $elapsed) = timed_psql(
	q{SET cachectl.progress = on;
	  SET cachectl.log_actions = on;
	  SELECT blocks_requested FROM cachectl.os_prefetch('prefetch_probe', first_block => 0,
	                              last_block => 5119, max_mb_per_sec => 20, fork => 'main')});
is($sqlstate, '00000', 'f. a 40 MiB prefetch at 20 MB/s succeeds');
my @notices = $err =~ /NOTICE:  (?:\w{5}: )?(cachectl\.os_prefetch: .*)$/mg;
my $notices = grep { /^cachectl\.os_prefetch: relation "prefetch_probe" fork main: \d+ of 40 MB (?:read|asked for)$/ } @notices;
note(sprintf('f. %d progress NOTICEs in %.2f s: %s', $notices, $elapsed, join(' / ', @notices)));
cmp_ok($notices, '>=', 1, 'f. cachectl.progress reports progress during a 2 s call, prefixed cachectl.os_prefetch:');
cmp_ok($notices, '<=', int($elapsed) + 1, 'f. at most once a second');
# the last one says what was read, not the last look before the end
like($notices[-1] // '', qr/^cachectl\.os_prefetch: relation "prefetch_probe" fork main: 40 of 40 MB read, done in \d+\.\d{1,3} s$/,
	'f. the last NOTICE says what the call read: all of it');
my $log = slurp_file($node->logfile, $log_offset);
my $log_lines = () = $log =~ /LOG:\s+cachectl\.os_prefetch\b/g;
is($log_lines, 1, 'f. cachectl.log_actions writes one LOG line for the call');

is($node->safe_psql('postgres', 'SELECT 1'), 1, 'the server is up');

$node->stop;

done_testing();
