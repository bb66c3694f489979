# CachectlRootFixture.pm — for a scenario test that needs root to set up a
# fixture (a tmpfs, a loop device) while PostgreSQL must run as postgres.
#
# The test file says `# tap: starts as root` on a line of its own (so that
# test/tap_exec.sh starts it as root), defines its set-up and tear-down
# subs, and then, before any PostgreSQL::Test module is loaded (they create
# the test's log files, which must belong to postgres):
#
#     use CachectlRootFixture qw(note_as_root run_as_root unmount);
#     ... sub set_up { ... }  sub tear_down { ... } ...
#     BEGIN { CachectlRootFixture::run_as_postgres(\&set_up, \&tear_down, 'a loop device') }
#     use PostgreSQL::Test::Cluster;
#
# As root, run_as_postgres() calls set_up (undef: ready; a string: the
# reason to skip, the fixture cannot be made here; die: broken), forks, and
# only the child returns, as postgres, to run the rest of the file — or ends
# the test there: skipped, or failed when the set-up broke.  The parent
# waits for the child, then stops a server it left running (it would keep
# the fixture busy), calls tear_down whatever the outcome, and exits with
# the child's status.  Not as root, the test is skipped.
package CachectlRootFixture;

use strict;
use warnings;

use Exporter 'import';
use File::Temp ();
use POSIX ();
use Time::HiRes ();

our @EXPORT_OK = qw(note_as_root run_as_root unmount fill_until_full);

my $data_directory_note;

sub note_as_root
{
	my ($message) = @_;
	print STDERR "# [root] $message\n";
}

# Runs a command as root; returns its exit status and its output (stdout
# and stderr together).
sub run_as_root
{
	my @command = @_;
	my $output = `@{[ join ' ', map { quotemeta } @command ]} 2>&1`;
	my $status = $?;
	chomp $output;
	return ($status, $output);
}

# Unmounts $mount_point, retrying while the server's processes may still be
# exiting, and detaches it lazily if it stays busy.
sub unmount
{
	my ($mount_point) = @_;
	my ($status, $output);
	for (1 .. 40)
	{
		($status, $output) = run_as_root('umount', $mount_point);
		return if $status == 0;
		Time::HiRes::sleep(0.25);
	}
	note_as_root("umount $mount_point: $output; detaching lazily");
	run_as_root('umount', '-l', $mount_point);
}

sub become_postgres
{
	my (undef, undef, $uid, $gid, undef, undef, undef, $home) =
	  getpwnam('postgres')
	  or die 'there is no postgres user';
	$) = "$gid $gid";
	$( = $gid;
	POSIX::setuid($uid) or die "setuid(postgres): $!";
	die 'could not drop root privileges' if $< != $uid || $> != $uid;
	$ENV{HOME} = $home;
	$ENV{USER} = $ENV{LOGNAME} = 'postgres';
}

# A file the child writes its node's data directory to (note_data_directory),
# so that a server it left behind — the child killed outright — can be
# stopped before the fixture is taken down.
sub make_data_directory_note
{
	my (undef, undef, $uid, $gid) = getpwnam('postgres')
	  or die 'there is no postgres user';
	my $handle;
	($handle, $data_directory_note) =
	  File::Temp::tempfile('cachectl-datadir.XXXXXX', TMPDIR => 1);
	close($handle);
	chown($uid, $gid, $data_directory_note)
	  or die "chown $data_directory_note: $!";
	$ENV{CACHECTL_ROOT_FIXTURE_DATADIR_NOTE} = $data_directory_note;
}

sub stop_leftover_server
{
	open(my $note, '<', $data_directory_note) or return;
	my $data_dir = <$note>;
	close($note);
	return unless defined $data_dir;
	chomp $data_dir;
	open(my $pid_handle, '<', "$data_dir/postmaster.pid") or return;
	my $pid = <$pid_handle>;
	close($pid_handle);
	chomp $pid;
	return unless $pid =~ /^[0-9]+$/ && kill(0, $pid);
	note_as_root("stopping the server left running, pid $pid");
	kill('QUIT', $pid);
	for (1 .. 50)
	{
		return unless kill(0, $pid);
		Time::HiRes::sleep(0.1);
	}
	kill('KILL', $pid);
	Time::HiRes::sleep(0.5);
}

# Ends the test as skipped, or as failed when $broken.
sub skip_test
{
	my ($reason, $broken) = @_;
	die "$reason\n" if $broken;
	require Test::More;
	Test::More::plan(skip_all => $reason);
}

sub run_as_postgres
{
	my ($set_up, $tear_down, $fixture) = @_;
	return if $^C;    # only compiling (perl -c): set nothing up
	skip_test("needs root to set up $fixture (run test/run_tap.sh as root)")
	  if $> != 0;

	make_data_directory_note();
	my $broken = 0;
	my $skip_reason = eval { $set_up->() };
	if ($@)
	{
		chomp(my $error = $@);
		$skip_reason = "setting up $fixture failed: $error";
		$broken = 1;
	}

	my $child = fork();
	if (!defined $child)
	{
		$tear_down->();
		die "fork: $!";
	}
	if ($child == 0)
	{
		become_postgres();
		skip_test($skip_reason, $broken) if defined $skip_reason;
		return;
	}
	# prove or a user interrupting: let the child end, then clean up
	foreach my $signal ('INT', 'TERM', 'HUP')
	{
		$SIG{$signal} = sub { kill($signal, $child) };
	}
	my $waited;
	do { $waited = waitpid($child, 0) } while ($waited == -1 && $!{EINTR});
	my $status = $?;
	stop_leftover_server();
	$tear_down->();
	unlink $data_directory_note;
	POSIX::_exit(($status & 127) ? 1 : ($status >> 8));
}

# In the child: records the node's data directory for stop_leftover_server.
sub note_data_directory
{
	my ($node) = @_;
	my $path = $ENV{CACHECTL_ROOT_FIXTURE_DATADIR_NOTE} // return;
	open(my $note, '>', $path) or return;
	print $note $node->data_dir, "\n";
	close($note);
}

# In the child: writes zeros to the file $path until its file system is
# full (a small tmpfs: writes fail with ENOSPC at once, nothing is delayed);
# returns the bytes written.
sub fill_until_full
{
	my ($path) = @_;
	open(my $handle, '>', $path) or die "create $path: $!";
	my $chunk = "\0" x (1024 * 1024);
	my $written = 0;
	while (1)
	{
		my $count = syswrite($handle, $chunk);
		if (!defined $count)
		{
			last if $!{ENOSPC};
			die "writing $path: $!";
		}
		$written += $count;
	}
	close($handle);
	return $written;
}

1;
