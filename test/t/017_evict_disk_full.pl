# 017_evict_disk_full.pl
#
# Evicting a dirty shared buffer writes it first.  When that write fails
# because the disk is full, the error must say so: SQLSTATE 53100
# (disk_full), not folded into the 58030 (io_error) of other failed writes,
# so that monitoring and the DBA tell "free some space" from "the device is
# failing".  Nothing may be lost: the buffer stays in the pool, dirty, and is
# written once there is space again.
#
# The full disk: a 16 MB tmpfs holds a tablespace.  A table there is filled,
# checkpointed and updated in place (fillfactor 50: HOT updates stay on their
# page), so every block is in shared buffers and dirty.  Then the table's
# segment file gets a hole punched over all its blocks (fallocate; the
# server's copies in shared buffers are the only ones it reads from now on)
# and a filler file takes every free page of the tmpfs.  Writing a block
# back now needs a page the tmpfs does not have: ENOSPC at the write itself.
# - naming the relation (evict, cold) or the buffer (evict_buffer) fails
#   with 53100, the detail giving the system's words; no pin is left and the
#   buffers stay dirty;
# - evict_all and evict_database go on past them: buffers_failed counts
#   them, their one WARNING carries 53100 (core's own warning about each
#   buffer failing again stays in the server log), and the server log names
#   each buffer left in place;
# - with the filler removed, evict writes every dirty buffer, the rows read
#   back from the file with their updated values, and a checkpoint succeeds.
#
# Mounting needs root: test/tap_exec.sh starts this file as root, the
# fixture is set up there, and the test itself runs as postgres
# (CachectlRootFixture).  Skipped without root or where root may not mount.
#
# tap: starts as root
use strict;
use warnings;

use CachectlRootFixture qw(note_as_root run_as_root unmount fill_until_full);
use File::Temp ();

my %fixture;

sub set_up_full_disk
{
	my (undef, undef, $uid, $gid) = getpwnam('postgres')
	  or return 'there is no postgres user';
	$fixture{base} = File::Temp::tempdir('cachectl-fulldisk.XXXXXX', TMPDIR => 1);
	chmod(0755, $fixture{base}) or die "chmod $fixture{base}: $!";
	my $mount_point = "$fixture{base}/tmpfs";
	mkdir $mount_point or die "mkdir $mount_point: $!";
	my ($status, $output) = run_as_root('mount', '-t', 'tmpfs', '-o',
		"size=16m,mode=0700,uid=$uid,gid=$gid", 'cachectl-fulldisk',
		$mount_point);
	# a root without the right to mount (a container) cannot run this test
	return "mounting a tmpfs is not permitted here: $output" if $status != 0;
	$fixture{mounted} = $mount_point;
	$ENV{CACHECTL_FULL_DISK} = $mount_point;
	note_as_root("a 16 MB tmpfs at $mount_point");
	return undef;
}

sub tear_down_full_disk
{
	return unless defined $fixture{base};
	unmount($fixture{mounted}) if defined $fixture{mounted};
	rmdir "$fixture{base}/tmpfs";
	rmdir $fixture{base} or note_as_root("could not remove $fixture{base}: $!");
}

# only the child, as postgres, goes on from here
BEGIN { CachectlRootFixture::run_as_postgres(\&set_up_full_disk, \&tear_down_full_disk, 'a small tmpfs') }

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use CachectlTest qw(sqlstate_of);

my $disk = $ENV{CACHECTL_FULL_DISK};
my $tablespace_dir = "$disk/tablespace";
my $filler = "$disk/filler";
mkdir $tablespace_dir or die "mkdir $tablespace_dir: $!";

my $node = PostgreSQL::Test::Cluster->new('full_disk');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
# nothing but the calls below writes buffers
bgwriter_lru_maxpages = 0
checkpoint_timeout = '1h'
max_wal_size = '4GB'
});
$node->start;
CachectlRootFixture::note_data_directory($node);

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION pg_buffercache;
CREATE TABLESPACE full_disk LOCATION '$tablespace_dir';
CREATE TABLE full_probe (id int4, val text) WITH (fillfactor = 50) TABLESPACE full_disk;
});
$node->safe_psql(
	'postgres', q{
INSERT INTO full_probe SELECT g, 'original ' || g FROM generate_series(1, 20000) AS g;
CHECKPOINT;
UPDATE full_probe SET val = 'updated ' || id;
});

# ---- helpers ----

sub shared_pinned_blocks
{
	return $node->safe_psql('postgres',
		'SELECT count(*) FROM pg_buffercache WHERE pinning_backends > 0');
}

# The table's main-fork buffers (all, dirty), read from the buffer headers:
# no relation file is opened.
sub main_fork_buffers
{
	my $counts = $node->safe_psql(
		'postgres', q{
SELECT count(*), count(*) FILTER (WHERE isdirty)
  FROM pg_buffercache
 WHERE relfilenode = pg_relation_filenode('full_probe')
   AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND relforknumber = 0
});
	my ($buffers, $dirty) = split /\|/, $counts;
	return { buffers => $buffers, dirty => $dirty };
}

# ---- the disk fills up under the dirty buffers ----

my $blocks = $node->safe_psql('postgres',
	q{SELECT pg_relation_size('full_probe') / current_setting('block_size')::int});
my $before = main_fork_buffers();
is($before->{buffers}, $blocks, "all $blocks blocks of the table are in shared buffers");
cmp_ok($before->{dirty}, '>', 0, "$before->{dirty} of them are dirty");

my $segment = $node->data_dir . '/'
  . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('full_probe')});
my $segment_bytes = -s $segment;
system('fallocate', '--punch-hole', '--offset', '0', '--length', $segment_bytes,
	$segment) == 0
  or die "fallocate --punch-hole $segment failed";
my @segment_stat = stat($segment);
is($segment_stat[12], 0,
	"the segment file keeps its size ($segment_bytes bytes) but no page of the tmpfs");

my $filled = fill_until_full($filler);
note("filler: $filled bytes");
my ($df) = run_command([ 'df', '-k', '--output=avail', $disk ]);
my $free_kb = (split /\n/, $df)[1];
$free_kb =~ s/\s//g;
is($free_kb, 0, 'the tmpfs is full');

# ---- a named relation or buffer: 53100, nothing lost ----

my $dirty_buffer_id = $node->safe_psql(
	'postgres', q{
SELECT min(bufferid) FROM pg_buffercache
 WHERE relfilenode = pg_relation_filenode('full_probe') AND relforknumber = 0 AND isdirty
});

my @failing_calls = (
	[ 'evict', q{SELECT * FROM cachectl.evict('full_probe')} ],
	[ 'cold', q{SELECT * FROM cachectl.cold('full_probe')} ],
	[ 'evict_buffer', "SELECT * FROM cachectl.evict_buffer($dirty_buffer_id)" ],);
foreach my $call (@failing_calls)
{
	my ($name, $sql) = @$call;
	my ($sqlstate, undef, $stderr) = sqlstate_of($node, $sql);
	note("$name on a full disk: $stderr");
	is($sqlstate, '53100', "$name: the failed write is reported as a full disk (53100)");
	like(
		$stderr,
		qr/could not write shared buffer \d+ before evicting it\n.*No space left on device/,
		"$name: the error names the buffer, its detail the system's words");
	is(shared_pinned_blocks(), 0, "$name: no buffer is left pinned");
	is(main_fork_buffers()->{dirty}, $before->{dirty},
		"$name: the dirty buffers are still there, still dirty");
}

# ---- the whole pool or a database: counted, one WARNING with 53100 ----

my @surviving_calls = (
	[ 'evict_all', q{SELECT buffers_failed FROM cachectl.evict_all()} ],
	[
		'evict_database',
		q{SELECT buffers_failed FROM cachectl.evict_database(current_database())}
	],);
foreach my $call (@surviving_calls)
{
	my ($name, $sql) = @$call;
	my $log_offset = -s $node->logfile;
	my ($sqlstate, $stdout, $stderr) = sqlstate_of($node, $sql);
	note("$name on a full disk: $stdout\n$stderr");
	is($sqlstate, '00000', "$name: returns its counts despite the full disk");
	chomp $stdout;
	is($stdout, $before->{dirty}, "$name: buffers_failed counts each unwritable buffer");
	my @warnings = ($stderr =~ /WARNING:/g);
	is(scalar(@warnings), 1, "$name: the client gets one WARNING");
	like(
		$stderr,
		qr/WARNING:  53100: could not write $before->{dirty} dirty shared buffers; they were left in place/,
		"$name: it has the full disk's SQLSTATE and the count");
	my $log = slurp_file($node->logfile, $log_offset);
	my @logged = ($log =~
		  /LOG:  left a dirty shared buffer in place: could not write shared buffer \d+ before evicting it\n[^\n]*DETAIL:  [^\n]*No space left on device/g);
	is(scalar(@logged), $before->{dirty},
		"$name: the server log names each buffer left in place, with the system's words");
	is(shared_pinned_blocks(), 0, "$name: no buffer is left pinned");
	is(main_fork_buffers()->{dirty}, $before->{dirty},
		"$name: the unwritable buffers are still there, still dirty");
}

# ---- space again: everything is written ----

unlink $filler or die "unlink $filler: $!";
my ($sqlstate, $flushed) =
  sqlstate_of($node, q{SELECT sum(buffers_flushed) FROM cachectl.evict('full_probe') WHERE fork = 'main'});
is($sqlstate, '00000', 'with space again, evict succeeds');
chomp $flushed;
is($flushed, $before->{dirty}, 'it writes every dirty buffer it had left');
is(main_fork_buffers()->{buffers}, 0, 'the table has no buffer left in the pool');
is( $node->safe_psql(
		'postgres',
		q{SELECT count(*), count(*) FILTER (WHERE val = 'updated ' || id) FROM full_probe}),
	'20000|20000',
	'every row reads back from the file with its updated value');
my ($checkpoint_state) = sqlstate_of($node, 'CHECKPOINT');
is($checkpoint_state, '00000', 'a checkpoint succeeds');
is(shared_pinned_blocks(), 0, 'no buffer is pinned at the end');

$node->stop;
done_testing();
