# 001_os_residency_matches_fincore.pl
#
# cachectl.os_residency() must count the same cached pages as util-linux
# fincore on the same segment files at the same moment, segment by segment,
# with either engine (cachestat or mincore), through a known sequence:
# everything dropped, parts of several segments read, one segment dropped.
#
# The relation gets several 1 GiB segments cheaply: a small real table whose
# first segment file is then extended (sparsely) to a full segment, followed
# by a sparse full second segment and a short third one written with zeros.
# The server never reads those blocks (nothing queries the table after it
# was built), so the page cache holds only what this test puts there.
use strict;
use warnings;

use List::Util qw(max sum);
use POSIX qw(ceil);
use CachectlTest qw(require_fincore_on_disk os_page_size fincore_pages
  start_cache_node extend_with_sparse_segments os_evicted_page_list poll_until);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $segment_bytes = 1024 * 1024 * 1024;    # RELSEG_SIZE * BLCKSZ by default
my $last_segment_mib = 64;

# ---- tools this test compares against ----

require_fincore_on_disk();

my $os_page_size = os_page_size();
like($os_page_size, qr/^[1-9][0-9]*$/, "getconf PAGESIZE gives a page size");
note("OS page size: $os_page_size bytes");

# ---- the node ----

my $node = start_cache_node('residency');
my $data_dir = $node->data_dir;

# About 14 MB of real heap pages at the start of segment 0.
$node->safe_psql(
	'postgres', q{
CREATE TABLE residency_probe (id int4, filler text);
INSERT INTO residency_probe
  SELECT g, repeat('x', 200) FROM generate_series(1, 60000) AS g;
CHECKPOINT;
});

my $relation_path = $node->safe_psql('postgres',
	q{SELECT pg_relation_filepath('residency_probe')});
my $segment0 = "$data_dir/$relation_path";
ok(-s $segment0 > 0 && -s $segment0 < $segment_bytes,
	"the table's first segment holds real data and less than 1 GiB");
note("segment 0 before the extension: " . (-s $segment0) . " bytes");

# Extend the main fork behind the server's back: segment 0 and segment 1
# become full (sparse) segments, segment 2 holds real zero-filled blocks.
extend_with_sparse_segments($node, 'residency_probe', 2);
system_or_bail('dd', 'if=/dev/zero', "of=$segment0.2", 'bs=1M',
	"count=$last_segment_mib", 'conv=fsync', 'status=none');

my @segment_files = ($segment0, "$segment0.1", "$segment0.2");
my $segment_count = scalar @segment_files;

# ---- helpers ----

my $has_cachestat;    # the automatic engine is cachestat (set below)

# Pages the kernel reclaimed, per segment (os_evicted_page_list; DONTNEED
# resets the count, and nothing here reads a page twice): a count may drop
# between two readers (21 of 2,560 once, between os_residency and fincore),
# and only that way.
sub reclaimed_pages
{
	return os_evicted_page_list($node, 'residency_probe');
}

# Residency rows of the main fork as the server reports them, in the order
# it returns them, for the session's engine and for the mincore engine,
# followed at once by fincore's counts for the same files.
sub measure
{
	my $rows_sql = q{
SELECT segment, path, size_bytes, size_pages, os_pages,
       os_dirty_pages, os_writeback_pages
  FROM cachectl.os_residency('residency_probe', 'main');
};
	my $reclaimed_before = $has_cachestat ? reclaimed_pages() : [ (0) x $segment_count ];
	my $output = $node->safe_psql(
		'postgres', qq{
SELECT 'engine', cachectl.os_engine();
$rows_sql
SET cachectl.os_engine = mincore;
SELECT 'engine', cachectl.os_engine();
$rows_sql
});
	my $fincore = fincore_pages(@segment_files);
	my $reclaimed_after = $has_cachestat ? reclaimed_pages() : [ (0) x $segment_count ];

	my %by_engine;
	my $engine;
	my @order;
	foreach my $line (split /\n/, $output)
	{
		my @fields = split /\|/, $line, -1;
		if ($fields[0] eq 'engine')
		{
			$engine = $fields[1];
			push @order, $engine;
			$by_engine{$engine} = [];
			next;
		}
		die "unexpected output line \"$line\"" unless defined $engine;
		my %row;
		@row{
			qw(segment path size_bytes size_pages os_pages
			  os_dirty_pages os_writeback_pages)
		} = map { $_ eq '' ? undef : $_ } @fields;
		push @{ $by_engine{$engine} }, \%row;
	}
	die "expected two engine reports, got \"@order\"" unless @order == 2;
	return {
		session_engine => $order[0],
		session => $by_engine{ $order[0] },
		mincore_engine => $order[1],
		mincore => $by_engine{ $order[1] },
		fincore => $fincore,
		reclaimed_before => $reclaimed_before,
		# per segment: pages reclaim took while the three readers read
		reclaimed => [ map { max(0, ($reclaimed_after->[$_] // 0) - ($reclaimed_before->[$_] // 0)) }
			  0 .. $segment_count - 1 ],
	};
}

# Waits until readahead started by a read has finished: the counts stop
# moving (a page whose read is still in flight is in the cache for
# cachestat but not yet for mincore, and a reader after another may then
# see more pages, which compare_with_fincore() counts as a mismatch).  Two
# looks 0.1 s apart that agree end the wait; true then, false when the
# counts still moved at the deadline (PG_TEST_TIMEOUT_DEFAULT).
sub wait_for_stable_cache
{
	my $previous;
	return poll_until(
		sub {
			my $pages = fincore_pages(@segment_files);
			my $current = join ',', map { $pages->{$_} } @segment_files;
			my $stable = defined $previous && $current eq $previous;
			$previous = $current;
			return $stable;
		});
}

sub drop_from_cache
{
	my ($file) = @_;
	system_or_bail('dd', "if=$file", 'iflag=nocache', 'count=0',
		'status=none');
}

sub read_mib
{
	my ($file, $skip_mib, $count_mib) = @_;
	system_or_bail('dd', "if=$file", 'of=/dev/null', 'bs=1M',
		"skip=$skip_mib", "count=$count_mib", 'status=none');
}

# Compares one measurement with fincore, segment by segment, for both
# engines; returns the session engine's cached pages per segment.  The
# readers read in turn (session engine, mincore, fincore): a later one may
# see fewer pages by what reclaim took meanwhile, never more, never other.
sub compare_with_fincore
{
	my ($step, $measured) = @_;
	my $fincore = $measured->{fincore};
	my $reclaimed = $measured->{reclaimed};

	foreach my $engine_key ('session', 'mincore')
	{
		my $engine = $measured->{"${engine_key}_engine"};
		my $rows = $measured->{$engine_key};
		is(scalar @$rows, $segment_count,
			"$step, $engine: one row per segment file");
		foreach my $index (0 .. $#segment_files)
		{
			my $row = $rows->[$index];
			next unless defined $row;
			# the file the server measured, as fincore was given it
			my $file = "$data_dir/$row->{path}";
			note(sprintf(
					"%s, %s: segment %d cached %s, fincore %s%s, reclaimed meanwhile %d",
					$step, $engine, $row->{segment}, $row->{os_pages},
					$fincore->{$file},
					defined $row->{os_dirty_pages}
					? ", dirty $row->{os_dirty_pages}"
					: '', $reclaimed->[$index]));
			my $lost = $row->{os_pages} - $fincore->{$file};
			ok($lost >= 0 && $lost <= $reclaimed->[$index],
				"$step, $engine: segment $index cached pages equal fincore's (but for what reclaim took meanwhile)");
		}
	}
	my @session = map { $_->{os_pages} } @{ $measured->{session} };
	my @mincore = map { $_->{os_pages} } @{ $measured->{mincore} };
	my @disagree = grep {
		my $lost = ($session[$_] // 0) - ($mincore[$_] // 0);
		$lost < 0 || $lost > $reclaimed->[$_]
	} 0 .. $segment_count - 1;
	is_deeply(\@disagree, [],
		"$step: $measured->{session_engine} and mincore agree on every segment (but for what reclaim took meanwhile)")
	  or diag("$measured->{session_engine}: @session; mincore: @mincore; reclaimed: @$reclaimed");
	return \@session;
}

# ---- the shape of the report ----

my $auto_engine = $node->safe_psql('postgres', 'SELECT cachectl.os_engine()');
like($auto_engine, qr/^(cachestat|mincore)$/,
	"os_engine() names an engine");
note("automatic engine: $auto_engine");
$has_cachestat = $auto_engine eq 'cachestat';

$node->safe_psql('postgres', 'CHECKPOINT');
my $shape = measure();
is($shape->{mincore_engine}, 'mincore',
	'SET cachectl.os_engine = mincore selects mincore');

my $rows = $shape->{session};
is_deeply(
	[ map { $_->{segment} } @$rows ],
	[ 0 .. $segment_count - 1 ],
	'os_residency lists the segments of the main fork in order');
is_deeply(
	[ map { $_->{path} } @$rows ],
	[
		$relation_path,
		map { "$relation_path.$_" } 1 .. $segment_count - 1
	],
	'each path is the segment file relative to the data directory');
foreach my $index (0 .. $#segment_files)
{
	is($rows->[$index]{size_bytes},
		-s $segment_files[$index],
		"segment $index: size_bytes is the file's size");
	is($rows->[$index]{size_pages},
		ceil((-s $segment_files[$index]) / $os_page_size),
		"segment $index: size_pages is the size in OS pages");
}

my $relation_size = $node->safe_psql('postgres',
	q{SELECT pg_relation_size('residency_probe', 'main')});
is($relation_size,
	2 * $segment_bytes + $last_segment_mib * 1024 * 1024,
	'pg_relation_size sees every segment file');
is(sum(map { $_->{size_pages} } @$rows),
	$relation_size / $os_page_size,
	'the size_pages of the segments add up to pg_relation_size in OS pages');

foreach my $row (@{ $shape->{mincore} })
{
	ok( !defined $row->{os_dirty_pages} && !defined $row->{os_writeback_pages},
		"mincore: segment $row->{segment} has no dirty or writeback count");
}

# What the server wrote is still cached: the drop below has work to do.
my $before_drop = compare_with_fincore('after CHECKPOINT', $shape);
cmp_ok($before_drop->[0], '>', 0,
	'after CHECKPOINT: the heap pages written to segment 0 are cached');
cmp_ok($before_drop->[2], '>', 0,
	'after CHECKPOINT: the zeros written to segment 2 are cached');

# ---- a. everything dropped ----

SKIP:
{
	skip 'dirty pages are only known to cachestat', $segment_count
	  unless $has_cachestat;
	foreach my $row (@$rows)
	{
		is($row->{os_dirty_pages}, 0,
			"after CHECKPOINT: segment $row->{segment} has no dirty page");
	}
}

drop_from_cache($_) foreach @segment_files;
my $measured = measure();
my $cached = compare_with_fincore('a. all dropped', $measured);
is_deeply($cached, [ (0) x $segment_count ],
	'a. all dropped: no page of any segment is cached');

# ---- b. parts of every segment read ----

read_mib($segment0, 2, 3);      # real heap pages
read_mib($segment0, 512, 2);    # the sparse middle
read_mib("$segment0.1", 300, 4);
read_mib("$segment0.2", 16, 8);
ok(wait_for_stable_cache(), 'b. partial reads: the page cache counts stop moving (readahead done)');

$measured = measure();
my $after_reads = compare_with_fincore('b. partial reads', $measured);
foreach my $index (0 .. $#segment_files)
{
	cmp_ok($after_reads->[$index], '>', 0,
		"b. partial reads: segment $index has cached pages");
	cmp_ok(
		$after_reads->[$index], '<',
		$measured->{session}[$index]{size_pages},
		"b. partial reads: segment $index is not entirely cached");
}

my $total = $node->safe_psql(
	'postgres', q{
SELECT t.os_pages = s.os_pages, t.os_pages, s.os_pages
  FROM cachectl.os_residency_total('residency_probe') AS t,
       (SELECT sum(os_pages) AS os_pages
          FROM cachectl.os_residency('residency_probe')) AS s
});
note("b. os_residency_total vs sum of os_residency: $total");
like($total, qr/^t\|/,
	'b. os_residency_total counts what os_residency counts over all forks');

# ---- c. segment 0 dropped, the others left alone ----

my $reclaimed_before = $measured->{reclaimed_before};
drop_from_cache($segment0);
$measured = measure();
my $after_drop = compare_with_fincore('c. segment 0 dropped', $measured);
my $reclaimed_after = reclaimed_pages();
is($after_drop->[0], 0, 'c. segment 0 dropped: segment 0 has no cached page');
my @unexplained = grep {
	my $lost = $after_reads->[$_] - $after_drop->[$_];
	$lost < 0 || $lost > ($reclaimed_after->[$_] // 0) - ($reclaimed_before->[$_] // 0)
} 1 .. $segment_count - 1;
is_deeply(\@unexplained, [],
	'c. segment 0 dropped: the other segments are unchanged but for pages the kernel reclaimed')
  or diag("before: @$after_reads; after: @$after_drop; reclaimed before: @$reclaimed_before, after: @$reclaimed_after");

# ---- d. status counts the dirty pages os_residency counts ----

# The heap written out of shared buffers by an eviction is dirty in the page
# cache until writeback, which only lowers the count: status, measured
# between two os_residency sums, must lie between them.
$node->safe_psql('postgres', q{
CREATE TABLE dirty_probe (payload text);
INSERT INTO dirty_probe SELECT repeat('d', 900) FROM generate_series(1, 4000);
SELECT count(*) >= 0 FROM cachectl.evict('dirty_probe');
});
SKIP:
{
	skip 'dirty pages are only known to cachestat', 2 unless $has_cachestat;
	my ($first, $status, $second) = split /\|/, $node->safe_psql('postgres', q{
SELECT (SELECT sum(os_dirty_pages) FROM cachectl.os_residency('dirty_probe')),
       (SELECT sum(os_dirty_pages) FROM cachectl.status('dirty_probe')),
       (SELECT sum(os_dirty_pages) FROM cachectl.os_residency('dirty_probe'))});
	note("d. dirty pages of dirty_probe: os_residency $first, status $status, os_residency again $second");
	cmp_ok($first, '>', 0, 'd. the evicted heap is dirty in the page cache');
	ok($status <= $first && $status >= $second,
		'd. status counts the dirty pages os_residency counts, in the same walk as its map');
}
is($node->safe_psql('postgres', q{
SET cachectl.os_engine = mincore;
SELECT count(*) FILTER (WHERE os_dirty_pages IS NULL) || ' of ' || count(*) FROM cachectl.status('dirty_probe')}),
	$node->safe_psql('postgres', q{SELECT count(*) || ' of ' || count(*) FROM cachectl.status('dirty_probe')}),
	'd. under mincore status leaves os_dirty_pages NULL');

$node->stop;

done_testing();
