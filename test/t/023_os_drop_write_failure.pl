# 023_os_drop_write_failure.pl
#
# cachectl.os_drop() writes a relation's dirty OS pages back before it drops
# them.  When that write-back fails, the failure must end the way PostgreSQL
# ends a failed fsync of its own files: raised at data_sync_elevel, a PANIC
# with the default data_sync_retry = off, then crash recovery from WAL.  It
# must never end with the pages dropped anyway: after a failed write-back
# Linux marks them clean, so a DONTNEED would throw away the only current
# copy and the next read would return what the disk held before.
#
# The failing device (DESIGN.md, "Linux facts"): a 512 MB sparse file on a
# 64 MB tmpfs, attached to a loop device, formatted ext4 without a journal
# and mounted; a tablespace lives there, WAL stays in the data directory.
# ext4 believes it has hundreds of MB free, so writes into the page cache
# succeed; once the tmpfs is full, writing back a block the file never held
# fails (ENOSPC from the loop device), while blocks written before the tmpfs
# filled are overwritten in place and succeed.
#
# The table is filled and checkpointed first (its blocks are then held by
# the tmpfs), then the tmpfs is filled, then rows are updated and inserted:
# the new row versions go to new blocks (fillfactor 100), dirty in the page
# cache (cachectl.evict writes the buffers, without fsync), on blocks whose
# write-back must fail.  Then:
# - os_drop's session is ended by a PANIC, and its statement is the one the
#   log names; the server reinitializes and tries crash recovery;
# - no session reads the table's old contents at any time: a reader that
#   gets through sees the updated values;
# - once the space is given back (the filler deleted; the server restarted
#   with the tablespace's pages dropped first, see below) it completes
#   recovery, every committed row reads back with its last value, and the
#   same os_drop now succeeds and the rows read back from disk.
#
# Mounting needs root; the server and the checks run as postgres.  So this
# test starts as root (test/tap_exec.sh lets it), sets the device up, runs
# everything else in a child process that drops to the postgres user before
# PostgreSQL::Test modules are even loaded, and when the child has ended,
# whatever the outcome, unmounts and detaches everything it set up.  Without
# root, without losetup, mkfs.ext4 or the loop driver, or where root may not
# mount or attach a loop device (a container), it is skipped.
#
# tap: starts as root
use strict;
use warnings;

use CachectlRootFixture qw(note_as_root run_as_root unmount fill_until_full);
use File::Temp ();
use POSIX ();
use Time::HiRes ();

# (set at compile time: the root part runs in a BEGIN block)
my ($tmpfs_mb, $image_mb);
BEGIN
{
	$tmpfs_mb = 64;
	$image_mb = 512;
}

# ---- the root part: set up, run the test as postgres, clean up ----

# Each step of the set-up, recorded so that the clean-up undoes exactly what
# was done, in reverse order.
my %device;

sub set_up_failing_device
{
	foreach my $tool ('losetup', 'mkfs.ext4', 'mount', 'umount')
	{
		my ($status) = run_as_root('sh', '-c', "command -v $tool");
		return "$tool is not available" if $status != 0;
	}
	return 'the loop device driver is not available'
	  unless -e '/dev/loop-control';

	my (undef, undef, $uid, $gid) = getpwnam('postgres')
	  or return 'there is no postgres user';

	$device{base} =
	  File::Temp::tempdir('cachectl-faildev.XXXXXX', TMPDIR => 1);
	chmod(0755, $device{base}) or die "chmod $device{base}: $!";
	my $backing = "$device{base}/backing";
	my $mount_point = "$device{base}/ext4";
	mkdir $backing or die "mkdir $backing: $!";
	mkdir $mount_point or die "mkdir $mount_point: $!";

	my ($status, $output) = run_as_root('mount', '-t', 'tmpfs', '-o',
		"size=${tmpfs_mb}m,mode=0755", 'cachectl-faildev', $backing);
	# a root without the right to mount (a container) cannot run this test
	return "mounting a tmpfs is not permitted here: $output" if $status != 0;
	$device{tmpfs} = $backing;
	# the test (as postgres) fills this tmpfs and empties it again
	chown($uid, $gid, $backing) or die "chown $backing: $!";

	# A sparse image larger than the tmpfs that holds it.
	my $image = "$backing/ext4.img";
	open(my $image_handle, '>', $image) or die "create $image: $!";
	close($image_handle);
	truncate($image, $image_mb * 1024 * 1024) or die "truncate $image: $!";

	($status, $output) = run_as_root('losetup', '--find', '--show', $image);
	my ($loop) = $output =~ m{^(/dev/loop[0-9]+)$}m;
	return "no loop device can be attached here: $output"
	  if $status != 0 || !defined $loop;
	$device{loop} = $loop;

	# No journal: a failed journal write would turn the file system
	# read-only, and this test is about data write-back.  mkfs discards the
	# device, which punches holes in the image: it stays sparse.
	($status, $output) = run_as_root('mkfs.ext4', '-q', '-F', '-O',
		'^has_journal', '-E', 'lazy_itable_init=1', $device{loop});
	die "mkfs.ext4 failed: $output" if $status != 0;

	($status, $output) =
	  run_as_root('mount', '-o', 'errors=continue', $device{loop},
		$mount_point);
	die "mounting $device{loop} failed: $output" if $status != 0;
	$device{mounted} = $mount_point;

	my $tablespace_dir = "$mount_point/tablespace";
	mkdir $tablespace_dir or die "mkdir $tablespace_dir: $!";
	chown($uid, $gid, $tablespace_dir) or die "chown $tablespace_dir: $!";
	chmod(0700, $tablespace_dir) or die "chmod $tablespace_dir: $!";

	$ENV{CACHECTL_FAILDEV_TMPFS} = $backing;
	$ENV{CACHECTL_FAILDEV_IMAGE} = $image;
	$ENV{CACHECTL_FAILDEV_LOOP} = $device{loop};
	$ENV{CACHECTL_FAILDEV_TABLESPACE} = $tablespace_dir;
	note_as_root("failing device: $image ($image_mb MB, sparse) on a "
		  . "$tmpfs_mb MB tmpfs, $device{loop}, ext4 at $mount_point");
	return undef;
}

sub tear_down_failing_device
{
	return unless defined $device{base};
	if (defined $device{mounted})
	{
		unmount($device{mounted});
		$device{mounted} = undef;
	}
	if (defined $device{loop})
	{
		# Detaching can race with whoever still has the device open (the
		# file system being released, udev probing it): retry until the
		# kernel says the device has no backing file any more.
		(my $name = $device{loop}) =~ s{^/dev/}{};
		my $output = '';
		for (1 .. 40)
		{
			last unless -e "/sys/block/$name/loop/backing_file";
			(undef, $output) = run_as_root('losetup', '-d', $device{loop});
			Time::HiRes::sleep(0.25);
		}
		note_as_root("could not detach $device{loop}: $output")
		  if -e "/sys/block/$name/loop/backing_file";
		$device{loop} = undef;
	}
	if (defined $device{tmpfs})
	{
		unmount($device{tmpfs});
		$device{tmpfs} = undef;
	}
	rmdir "$device{base}/ext4";
	rmdir "$device{base}/backing";
	rmdir $device{base}
	  or note_as_root("could not remove $device{base}: $!");
	note_as_root('failing device removed');
	$device{base} = undef;
}

# only the child, as postgres, goes on from here
BEGIN { CachectlRootFixture::run_as_postgres(\&set_up_failing_device, \&tear_down_failing_device, 'a loop device') }

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CachectlTest qw(start_cache_node segment_files main_fork_blocks fincore_total server_query_until);

my $tmpfs = $ENV{CACHECTL_FAILDEV_TMPFS};
my $image = $ENV{CACHECTL_FAILDEV_IMAGE};
my $tablespace_dir = $ENV{CACHECTL_FAILDEV_TABLESPACE};
my $filler = "$tmpfs/filler";

# ---- helpers ----

# Bytes of the image file the tmpfs really holds.
sub image_allocated_bytes
{
	my @stat = stat($image) or die "stat $image: $!";
	return $stat[12] * 512;
}

# ---- the node: WAL in the data directory, the table on the device ----

my $node = start_cache_node(
	'failing_device', q{
# nothing but the calls below writes buffers or syncs files
bgwriter_lru_maxpages = 0
# Cluster.pm turns this and fsync off (start_cache_node turns fsync on);
# this test is about PostgreSQL's defaults
restart_after_crash = on
});

CachectlRootFixture::note_data_directory($node);

my $rows = 20000;
$node->safe_psql('postgres', qq{
CREATE TABLESPACE failing LOCATION '$tablespace_dir';
CREATE TABLE failing_probe (id int4, val text) WITH (fillfactor = 100) TABLESPACE failing;
});
# A separate transaction: with wal_level = minimal, rows inserted in the
# transaction that created the table would not be in WAL.
$node->safe_psql('postgres', qq{
INSERT INTO failing_probe
  SELECT g, 'written before the failure ' || g || ' ' || repeat('o', 80)
    FROM generate_series(1, $rows) AS g;
CHECKPOINT;
});
my $old_blocks = main_fork_blocks($node, 'failing_probe');
note("failing_probe: $rows rows in $old_blocks blocks, checkpointed to the device");

my $image_bytes = image_allocated_bytes();
note("the tmpfs holds $image_bytes bytes of the image");
cmp_ok($image_bytes, '<', $tmpfs_mb * 1024 * 1024 / 2,
	'the image is sparse: the tmpfs holds less than half of its capacity');

# ---- fill the tmpfs, then dirty new blocks in the page cache ----

# rows, updated rows, inserted rows, old rows that should have been updated
my $summary_sql = qq{
SELECT count(*), count(*) FILTER (WHERE val LIKE 'updated before os_drop %'),
       count(*) FILTER (WHERE val LIKE 'inserted before os_drop %'),
       count(*) FILTER (WHERE id <= $rows AND id % 2 = 0 AND val NOT LIKE 'updated %')
  FROM failing_probe
};

my $filled = fill_until_full($filler);
note("filler: $filled bytes");
my (undef, undef, undef, $tmpfs_free) = split ' ',
  (split /\n/, `df -k --output=source,size,used,avail '$tmpfs'`)[1];
is($tmpfs_free, 0, 'the tmpfs is full');

# The new versions of the even rows and the new rows go to new blocks.
$node->safe_psql('postgres', qq{
UPDATE failing_probe SET val = 'updated before os_drop ' || id
 WHERE id % 2 = 0;
INSERT INTO failing_probe
  SELECT g, 'inserted before os_drop ' || g
    FROM generate_series($rows + 1, $rows + 5000) AS g;
});
my $new_blocks = main_fork_blocks($node, 'failing_probe');
cmp_ok($new_blocks, '>', $old_blocks,
	"the updates and inserts extended the table ($old_blocks -> $new_blocks blocks)");

my $expected = $node->safe_psql('postgres', $summary_sql);
is($expected, join('|', $rows + 5000, $rows / 2, 5000, 0),
	'every row has its last value before the drop');

my $flushed = $node->safe_psql('postgres',
	q{SELECT sum(buffers_flushed) FROM cachectl.evict('failing_probe')});
cmp_ok($flushed, '>', 0,
	"cachectl.evict wrote $flushed dirty buffers to the page cache, without fsync");

my $engine = $node->safe_psql('postgres', 'SELECT cachectl.os_engine()');
SKIP:
{
	skip 'dirty OS pages are only counted by cachestat', 1
	  unless $engine eq 'cachestat';
	my $dirty = $node->safe_psql('postgres',
		q{SELECT sum(os_dirty_pages) FROM cachectl.os_residency('failing_probe', 'main')});
	cmp_ok($dirty, '>', 0, "the main fork has $dirty dirty pages in the page cache");
}

# ---- os_drop: the write-back fails ----

my $log_offset = -s $node->logfile;
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT relation, fork, os_dirty_pages_before, os_pages_after FROM cachectl.os_drop('failing_probe')},
	on_error_stop => 1);
note("os_drop: exit code $ret, stdout \"$stdout\", stderr \"$stderr\"");
isnt($ret, 0, 'os_drop did not complete');
is($stdout, '', 'os_drop returned no row');
like($stderr,
	qr/PANIC|server closed the connection unexpectedly|terminating connection/,
	"os_drop's session ended with the server's crash");

# (only when the call failed: a drop that reported success leaves nothing
# to wait for, and the reads below show what it cost)
$node->wait_for_log(qr/all server processes terminated; reinitializing/,
	$log_offset)
  if $ret != 0;
my $log = slurp_file($node->logfile, $log_offset);
like($log,
	qr/PANIC:[^\n]*\n(?:[^\n]*\n){0,3}?[^\n]*STATEMENT:[^\n]*cachectl\.os_drop/,
	'the failed write-back is a PANIC in the os_drop statement (data_sync_elevel)');
my ($panic_line) = $log =~ /^(.*PANIC:.*)$/m;
note("server log: $panic_line") if defined $panic_line;
like($panic_line // '', qr/sync[^\n]*pg_tblspc\/[^\n]*: (No space left on device|Input\/output error)/,
	'the PANIC names the sync, the file on the failing device and the error');
like($log, qr/terminating any other active server processes/,
	'the postmaster ends every other session');

# While the space is missing the server keeps failing to write the pages
# back; whoever gets a connection in between must see the new values.
my ($reads_tried, $reads_through, $stale_reads) = (0, 0, 0);
my $stale_query = qq{
SELECT count(*) = $rows + 5000
       AND count(*) FILTER (WHERE id <= $rows AND id % 2 = 0 AND val NOT LIKE 'updated %') = 0
  FROM failing_probe
};
my $until = Time::HiRes::time() + 3;
while (Time::HiRes::time() < $until)
{
	$reads_tried++;
	# A psql refused by a server in recovery may exit before it reads the
	# query from its standard input; IPC::Run then dies writing it (EPIPE).
	# That read did not get through, like one that returns an error.
	my ($read_ret, $read_out) = eval {
		$node->psql('postgres', $stale_query, on_error_stop => 1);
	};
	if (!defined $read_ret)
	{
		die $@ unless $@ =~ /Broken pipe/;
		$read_ret = -1;
	}
	if ($read_ret == 0)
	{
		$reads_through++;
		$stale_reads++ if $read_out ne 't';
	}
	Time::HiRes::sleep(0.2);
}
note("while the tmpfs was full: $reads_tried reads tried, $reads_through got through");
is($stale_reads, 0, 'no read saw old or missing rows while the tmpfs was full');

# ---- space given back: recovery completes ----

# The kernel's part, not PostgreSQL's nor ours: on Linux 6.18 ext4, when the
# pages of a failed write-back are still cached and then written again
# (recovery replays every page from WAL and the end-of-recovery checkpoint's
# fsync succeeds), the blocks reach the device but their extent stays
# "unwritten", so once dropped they read back as zeros.  Measured without
# PostgreSQL (write, fill the tmpfs, extend by 120 blocks, fsync fails, free
# the space, rewrite all, fsync succeeds, DONTNEED, read: 120 zero blocks),
# and with a plain CHECKPOINT instead of os_drop on 18.6 and 19 (the same
# rows lost).  Dropping the cached pages before they are written again
# avoids it, as a reboot would: so the server, which may still be cycling
# through crash recovery, is stopped, the space given back, the
# tablespace's pages dropped, and the server started to recover.
$node->stop('immediate', fail_ok => 1);
unlink($filler) or die "unlink $filler: $!";
note('filler deleted: the tmpfs has room again');
my $still_cached = 0;
foreach my $file (glob("$tablespace_dir/*/*/*"))
{
	# count=0 with iflag=nocache: drop the whole file's cached pages
	run_command([ 'dd', "if=$file", 'iflag=nocache', 'count=0', 'status=none' ]);
	my ($pages) = run_command(
		[ 'fincore', '--raw', '--noheadings', '--bytes', '--output', 'PAGES', $file ]);
	$still_cached += $pages if defined $pages && $pages =~ /^\d+$/;
}
note("the tablespace's pages dropped before recovery; $still_cached still cached");
$node->start(fail_ok => 1);

my $recovered = server_query_until($node, 'postgres', 'SELECT true');
ok($recovered, 'the server completes crash recovery once the space is back');

# Under load a crash cycle that began while the space was missing can still
# end after the first connection got through: read until the rows match (or
# the poll's timeout), then say what the last read saw.
my $after_matched = $node->poll_query_until('postgres', $summary_sql, $expected);
my (undef, $after) = $node->psql('postgres', $summary_sql);
ok($after_matched, 'after recovery every committed row is there, with its last value')
  or diag("last read: $after, expected: $expected");

# ---- the same drop now succeeds, and the rows come back from the device ----

my $drop = $node->safe_psql('postgres', q{
SELECT sum(os_pages_after), count(*) FROM cachectl.os_drop('failing_probe')});
my ($cached_after, $fork_rows) = split /\|/, $drop;
is($cached_after, 0, 'os_drop succeeds once the device can be written');
is(fincore_total(segment_files($node, 'failing_probe', 1)), 0,
	'fincore: no page of the table is cached any more');

# cold: the buffers out (writing those the reads above dirtied with hint
# bits) and the OS pages written back and dropped, so the count reads the
# device and not pages an eviction has just written into the page cache
$node->safe_psql('postgres', q{SELECT * FROM cachectl.cold('failing_probe')});
is( $node->safe_psql('postgres', $summary_sql),
	$expected,
	'read back from the device, every row has its last value');

$node->stop;

done_testing();
