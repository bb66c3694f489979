# 093_rolling_upgrade.pl
#
# A rolling upgrade of the extension across a primary and two streaming
# standbys (issue 40, item 3), with autowarm on every node and writes
# running throughout, in the order README.md's "Upgrading" gives:
# - the start: every node on the last released version, 1.2 (its library
#   built here from this checkout's history, its scripts installed beside
#   it), the extension created at 1.2;
# - 1. node2, a standby, gets the current library and restarts; its worker
#   loads the snapshot rows the 1.2 primary's worker wrote;
# - 2. switchover to node2 (node1 stopped cleanly, node2 promoted once it
#   replayed all, node1 restarted as its standby and node3 pointed at it,
#   both still on 1.2's library); the old library's workers load the rows
#   the current library wrote, at catalog 1.2;
# - 3. node1, the old primary, gets the current library;
# - 4. ALTER EXTENSION pg_cachectl UPDATE on the new primary.  node3 is
#   left on the old library past it, as a standby the upgrade has not
#   reached yet: its worker loads the rows written at the new catalog, and
#   a function the new version adds is refused there by name, nothing
#   more; then it gets the current library too.
# At each step: the library each server has mapped is the one meant (its
# path in /proc/PID/maps of the worker, and a setting only the current
# library defines); each reading node's worker is warm with a snapshot
# taken after the step, its library plans exactly the blocks the
# primary's row records for a table made for the step, and it never
# failed.  At the end: every insert the writer saw acknowledged is on the
# final primary, pgbench ran throughout, each worker is idle or following
# with no failure, and no server log shows an autowarm worker that exited
# with an error, a process killed by a signal, a PANIC or a failed
# assertion.
#
# The switchover is the one an HA manager performs (Patroni's): done by
# hand here so the test runs on every major the old library builds on
# (Debian 12's Patroni knows 15 at most), on PostgreSQL::Test::Cluster.
# Each library lives in an installation of its own: a copy of the tested
# server's (PostgreSQL finds its lib and share directories relative to its
# bin) with 1.2's files in place of the current ones; the node's
# install_path picks one.
# tap: make test-all only
use strict;
use warnings;

use Cwd ();
use Digest::MD5 qw(md5_hex);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use CachectlTest qw(poll_until);
use AutowarmTest qw(autowarm_conf autowarm_state);

# The library of 1.2 as released.  47f8ee5 pinned 1.2's scripts ("1.2
# released with this submission"); e7fdec7 is that submission's last change
# to the library (the EXPLAIN option's getrusage() only when asked, nothing
# of snapshots or autowarm) and the tree its clean-clone make test-all
# passed (docs/TESTING.md); what follows it begins 1.3.  1.2's install
# script is the same in both.
my $old_commit = 'e7fdec7';
my $old_version = '1.2';
my $interval = 2;

my $top = $ENV{PG_CACHECTL_SOURCE_DIR} // dirname(dirname(dirname(Cwd::abs_path($0))));
my $pg_config = do { my $bin = `pg_config --bindir`; chomp $bin; "$bin/pg_config" };
my %dirs = map { my $dir = `$pg_config --$_`; chomp $dir; ($_ => $dir) } qw(bindir pkglibdir sharedir);
my ($major) = `$pg_config --version` =~ /PostgreSQL (\d+)/;

# git as the user the test runs as, on a checkout another user owns; its
# output, or undef when it fails (or there is no git).
sub git
{
	my (@args) = @_;
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run([ 'git', '-c', 'safe.directory=*', '-C', $top, @args ], '<', \undef, '>', \$out, '2>', \$err);
	};
	return $ok ? $out : undef;
}

# Where the commit's tree comes from: this checkout's history, or
# CACHECTL_OLD_LIBRARY_TREE, a directory holding that commit's tree, for a
# run from a copy without the history (make test-all's copies for the other
# majors leave .git out, and their chroots have no git).  Skips the test
# when neither is there.
my $old_tree = $ENV{CACHECTL_OLD_LIBRARY_TREE};
if (defined $old_tree)
{
	my $control = -f "$old_tree/pg_cachectl.control" ? slurp_file("$old_tree/pg_cachectl.control") : '';
	die "CACHECTL_OLD_LIBRARY_TREE=$old_tree does not hold ${old_commit}'s tree (default_version '$old_version')"
	  unless $control =~ /^default_version = '\Q$old_version\E'$/m;
}
else
{
	my $found = git('rev-parse', '--verify', '--quiet', "$old_commit^{commit}");
	plan skip_all => "commit $old_commit (${old_version}'s library) is not in the history of $top"
	  . ' (a shallow clone, a copy without .git, or no git here) and CACHECTL_OLD_LIBRARY_TREE is not set'
	  unless defined $found;
}

# ---- 1.2's library, built from the history ----

# Where built libraries are kept between runs, keyed by commit and server
# (its version and where it lives: the files are staged at its paths; an
# 18.6 built for another prefix once served a stale build here): a
# directory of our own that nobody else may write (the test loads what it
# finds there into its servers), or none.
sub build_cache_dir
{
	my ($version) = `$pg_config --version` =~ /PostgreSQL (\S+)/;
	my $paths = substr(md5_hex(join("\n", @dirs{qw(bindir pkglibdir sharedir)})), 0, 8);
	my $key = "pg_cachectl-$old_commit-pg$version-$paths-" . (`uname -m` =~ s/\s+//gr);
	for my $root ($ENV{CACHECTL_BUILD_CACHE} // (), '/var/cache/pg_cachectl/old-libraries',
		($ENV{TMPDIR} // '/tmp') . "/pg_cachectl-build-cache-$>")
	{
		make_path($root, { mode => 0700, error => \my $ignored }) unless -d $root;
		my @st = stat($root);
		return "$root/$key" if @st && -w $root && $st[4] == $> && !($st[2] & 022);
	}
	return undef;
}

# The commit's tree in $work: git archive, or a copy of
# CACHECTL_OLD_LIBRARY_TREE.
sub extract_old_tree
{
	my ($work) = @_;
	my $err = '';
	if (defined $old_tree)
	{
		system('cp', '-a', "$old_tree/.", $work) == 0 or die "could not copy $old_tree";
		return;
	}
	IPC::Run::run([ 'git', '-c', 'safe.directory=*', '-C', $top, 'archive', $old_commit ],
		'|', [ 'tar', '-x', '-C', $work ], '2>', \$err)
	  or die "git archive $old_commit failed: $err";
	return;
}

# The files `make install` puts for the commit's tree, under a staging
# root (DESTDIR); from the cache when an earlier run left them.  Returns
# the staging root and the seconds the build took (0 from the cache), or
# dies with the compiler's last lines.
sub old_library_files
{
	my $cached = build_cache_dir();
	return ($cached, 0) if defined $cached && -f "$cached/complete";
	# absolute: tempdir() is relative from 16 on, and make -C moves
	my $work = Cwd::abs_path(PostgreSQL::Test::Utils::tempdir('old_library'));
	my $started = time;
	extract_old_tree($work);
	for my $target ([], [ 'install', "DESTDIR=$work/stage" ])
	{
		my $out = '';
		IPC::Run::run([ 'make', '-s', '-j2', '-C', $work, "PG_CONFIG=$pg_config", @$target ],
			'<', \undef, '>&', \$out)
		  or die "make @$target of $old_commit failed:\n" . join("\n", grep { defined } (split /\n/, $out)[-15 .. -1]);
	}
	my $seconds = time - $started;
	return ("$work/stage", $seconds) unless defined $cached;
	# a whole copy first, renamed into place: a run that dies leaves none
	system('cp', '-a', "$work/stage", "$cached.$$") == 0 or return ("$work/stage", $seconds);
	open(my $mark, '>', "$cached.$$/complete") or die $!;
	close($mark);
	rename("$cached.$$", $cached) or system('rm', '-rf', "$cached.$$");
	return ("$work/stage", $seconds);
}

# A copy of the tested server's installation (bin, lib, share: PostgreSQL
# finds the two others relative to its bin) with the extension's files of
# $stage in place of those of the current build.  Returns its install_path
# for PostgreSQL::Test::Cluster (the directory holding bin) and the path
# of its pg_cachectl.so.
sub installation_with
{
	my ($stage) = @_;
	my $root = Cwd::abs_path(PostgreSQL::Test::Utils::tempdir('installation'));
	for my $dir (@dirs{qw(bindir pkglibdir sharedir)})
	{
		make_path(dirname("$root$dir"));
		system('cp', '-a', $dir, "$root$dir") == 0 or die "could not copy $dir";
	}
	unlink glob("$root$dirs{pkglibdir}/pg_cachectl.so $root$dirs{sharedir}/extension/pg_cachectl*");
	system('rm', '-rf', glob("$root$dirs{pkglibdir}/bitcode/pg_cachectl*"));
	system('cp', '-a', "$stage/.", $root) == 0 or die "could not install $stage into $root";
	unlink "$root/complete";
	my $library = "$root$dirs{pkglibdir}/pg_cachectl.so";
	-f $library or die "no pg_cachectl.so in $stage for $dirs{pkglibdir}";
	return (dirname("$root$dirs{bindir}"), $library);
}

my ($stage, $build_seconds) = eval { old_library_files() };
if (!defined $stage)
{
	# 15 is the major the issue requires: a failure there is the test's
	# (a skip's reason is one line of TAP)
	plan skip_all => "${old_version}'s library (commit $old_commit) does not build against PostgreSQL $major: "
	  . ($@ =~ s/\s*\n\s*/ | /gr)
	  if defined $major && $major != 15;
	die $@;
}
note($build_seconds ? sprintf('built %s\'s library (%s) in %.0f s', $old_version, $old_commit, $build_seconds)
	: "${old_version}'s library ($old_commit) from the build cache");
my ($old_installation, $old_library) = installation_with($stage);
my $current_library = "$dirs{pkglibdir}/pg_cachectl.so";

# ---- helpers ----

# The pg_cachectl.so the node's autowarm worker has mapped (a child of the
# postmaster, which loaded it from shared_preload_libraries), or ''.
sub mapped_library
{
	my ($node) = @_;
	my $pid = $node->safe_psql('postgres',
		q{SELECT pid FROM cachectl.autowarm_status WHERE database = current_database() AND pid IS NOT NULL});
	return '' unless $pid =~ /^\d+$/;
	my %paths = map { m{(/\S*/pg_cachectl\.so)\b} ? ($1 => 1) : () } split /\n/, slurp_file("/proc/$pid/maps");
	return join(' ', sort keys %paths);
}

# The node runs the library meant: the worker has that file mapped, and a
# setting only the current library defines (since 1.4) is there or not.
sub check_library
{
	my ($node, $library, $what) = @_;
	my $mapped = '';
	poll_until(sub { $mapped = mapped_library($node); $mapped ne '' });
	is($mapped, Cwd::realpath($library), "$what: " . $node->name . "'s worker has $library mapped");
	my $advice_setting = $node->safe_psql('postgres', q{SELECT current_setting('cachectl.track_advice', true)});
	is($advice_setting eq '' ? 'old' : 'current', $library eq $old_library ? 'old' : 'current',
		"$what: " . $node->name . ($library eq $old_library ? ' does not know' : ' knows')
		  . ' cachectl.track_advice, a setting of the current library only');
	return;
}

# Installs a library on the node as an operator does: stop, the other
# installation, start.  PostgreSQL::Test::Cluster takes a node's binaries
# from its install path, which it sets in new() and offers no setter for;
# undef is the installation the tests run on, with the current build.
sub use_installation
{
	my ($node, $install_path) = @_;
	$node->stop;
	$node->{_install_path} = $install_path;
	$node->start;
	return;
}

# A table made for a step and read into the primary's shared buffers, and
# the primary's worker's snapshot row of it, as soon as there is one:
# returns its taken_at.
sub record_step_table
{
	my ($primary, $table) = @_;
	$primary->safe_psql('postgres', qq{
CREATE TABLE $table AS SELECT g AS id, repeat('x', 400) AS payload FROM generate_series(1, 10000) AS g;
SELECT count(*) FROM $table});
	my $row = '';
	poll_until(sub {
		$row = $primary->safe_psql('postgres', qq{
SELECT taken_at FROM cachectl.snapshot
 WHERE label = 'autowarm' AND relation = '$table'::regclass AND fork = 'main' AND layer = 'shared'});
		$row ne '' });
	return $row;
}

# What the reader's library makes of the rows the writer's library wrote
# for the step's table: its worker is warm with a snapshot at least as new,
# and its restore plan covers exactly the blocks of the table's row (as
# replicated: the writer may record it again meanwhile) that its own fork
# has, skipping nothing.  (From 16 on, a bulk insert extends the
# primary's fork by blocks that stay empty and are never WAL-logged: the
# row records their buffers, and a standby's fork ends before them.)
sub check_reader
{
	my ($reader, $table, $taken_at, $what) = @_;
	my $name = $reader->name;
	ok(poll_until(sub {
		$reader->safe_psql('postgres', qq{
SELECT warm AND snapshot_taken_at >= '$taken_at'::timestamptz FROM cachectl.wait_warm('0 s')}) eq 't' }),
		"$what: ${name}'s worker loaded a snapshot taken at $taken_at or later and is warm");
	my ($planned, $skipped, $recorded) = ('', '', '');
	poll_until(sub {
		($planned, $skipped, $recorded) = split /\|/, $reader->safe_psql('postgres', qq{
SELECT coalesce(sum(upper(x) - lower(x)), 0), count(*) FILTER (WHERE p.skip_reason IS NOT NULL),
       (SELECT sum(upper(r) - lower(r))
          FROM cachectl.snapshot AS s,
               unnest(s.blocks * int8multirange(int8range(0, pg_relation_size('$table')
                                                             / current_setting('block_size')::int8))) AS r
         WHERE s.label = 'autowarm' AND s.relation = '$table'::regclass AND s.fork = 'main' AND s.layer = 'shared')
  FROM cachectl_internal.restore_plan('autowarm') AS p LEFT JOIN LATERAL unnest(p.runs) AS x ON true
 WHERE p.relation_name = 'public.$table' AND p.fork = 'main' AND p.layer = 'shared'});
		$recorded ne '' && $recorded > 0 && $planned == $recorded && $skipped == 0 });
	ok($recorded ne '' && $recorded > 0 && $planned == $recorded && $skipped == 0,
		"$what: ${name}'s library plans the blocks of $table the primary's worker recorded"
		  . " ($planned of $recorded), skipping none ($skipped)");
	is(autowarm_state($reader, 'failures'), '0', "$what: ${name}'s worker never failed");
	return;
}

# The end of replay on $standby reaches the shutdown checkpoint of the
# stopped $primary: every commit it acknowledged is on $standby.
sub replayed_shutdown
{
	my ($primary, $standby) = @_;
	my ($checkpoint) = `pg_controldata -D ${\ $primary->data_dir}` =~ /^Latest checkpoint location:\s+(\S+)$/m;
	die 'no checkpoint location in pg_controldata\'s output' unless $checkpoint;
	return poll_until(sub {
		$standby->safe_psql('postgres', "SELECT pg_last_wal_replay_lsn() >= '$checkpoint'::pg_lsn") eq 't' });
}

# A planned switchover, as an HA manager makes it: the primary stopped
# (fast: its worker records once more, its walsender sends all), the
# standby promoted once it replayed all that, the old primary restarted as
# the new one's standby, the other standbys pointed at the new one (a
# reload: they keep their library).
sub switchover
{
	my ($primary, $standby, $others, $what) = @_;
	$primary->stop;
	ok(replayed_shutdown($primary, $_), "$what: " . $_->name . ' replayed all the primary wrote')
	  for $standby, @$others;
	$standby->promote;
	ok($standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()'), "$what: " . $standby->name . ' was promoted');
	$primary->enable_streaming($standby);
	$primary->start;
	for my $other (@$others)
	{
		$other->append_conf('postgresql.conf', "primary_conninfo = '" . $standby->connstr . "'");
		$other->reload;
	}
	$standby->wait_for_catchup($_) for $primary, @$others;
	return;
}

# ---- writes running throughout ----

# Two loops against whichever node accepts writes (libpq's
# target_session_attrs): one inserts numbered rows into acked one at a time
# and writes down each number whose commit psql saw acknowledged; the
# other runs pgbench 3 s at a time and writes down how each run ended.
sub start_writers
{
	my ($nodes, $dir) = @_;
	my $hosts = join(',', map { $_->host } @$nodes);
	my $ports = join(',', map { $_->port } @$nodes);
	my $conn = "host=$hosts port=$ports dbname=postgres target_session_attrs=read-write connect_timeout=3";
	my $script = q{
conn=$1 dir=$2 test=$3
# they end with the test, also when it is killed
going() { [ ! -e "$dir/stop" ] && kill -0 "$test" 2>/dev/null; }
( i=0
  while going; do
    i=$((i + 1))
    psql -X -q -v ON_ERROR_STOP=1 -d "$conn" -c "INSERT INTO acked VALUES ($i)" 2>>"$dir/acked.err" && echo "$i" >>"$dir/acked"
    sleep 0.02
  done ) &
while going; do
  if pgbench -n -c 2 -T 3 "$conn" >>"$dir/pgbench.log" 2>&1; then echo ok >>"$dir/pgbench_runs"
  else echo failed >>"$dir/pgbench_runs"; sleep 0.5; fi
done
wait
};
	return IPC::Run::start([ 'bash', '-c', $script, 'writers', $conn, $dir, $$ ], '<', \undef, '>', '/dev/null', '2>', "$dir/writers.err");
}

# The lines the writers wrote down so far in one of their files.
sub written_down
{
	my ($dir, $file) = @_;
	return -f "$dir/$file" ? split(/\n/, slurp_file("$dir/$file")) : ();
}

# Waits until the insert loop had $more more commits acknowledged and
# pgbench ended $more_runs more runs well; true if so by the deadline.
sub writes_go_on
{
	my ($dir, $more, $more_runs) = @_;
	my $acked = () = written_down($dir, 'acked');
	my $runs = grep { $_ eq 'ok' } written_down($dir, 'pgbench_runs');
	return poll_until(sub {
		scalar(() = written_down($dir, 'acked')) >= $acked + $more
		  && scalar(grep { $_ eq 'ok' } written_down($dir, 'pgbench_runs')) >= $runs + $more_runs });
}

# ---- the cluster on 1.2: node1 the primary, node2 and node3 its standbys ----
my $node1 = PostgreSQL::Test::Cluster->new('node1', install_path => $old_installation);
$node1->init(allows_streaming => 1);
$node1->append_conf('postgresql.conf', autowarm_conf($interval));
$node1->start;
is($node1->safe_psql('postgres', q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_cachectl'}),
	$old_version, "the old installation offers pg_cachectl $old_version");
$node1->safe_psql('postgres', "CREATE EXTENSION pg_cachectl VERSION '$old_version'");
$node1->safe_psql('postgres', 'CREATE TABLE acked (id int PRIMARY KEY)');
$node1->command_ok([ 'pgbench', '-i', '-q', '-s', 2, '-d', 'postgres' ], 'pgbench -i on node1');
$node1->backup('base');
my @standbys = map {
	my $standby = PostgreSQL::Test::Cluster->new($_, install_path => $old_installation);
	$standby->init_from_backup($node1, 'base', has_streaming => 1);
	$standby->start;
	$node1->wait_for_catchup($standby);
	$standby
} qw(node2 node3);
my ($node2, $node3) = @standbys;
check_library($_, $old_library, "$old_version everywhere") for $node1, $node2, $node3;

my $writes = Cwd::abs_path(PostgreSQL::Test::Utils::tempdir('writes'));
my $writers = start_writers([ $node1, $node2, $node3 ], $writes);
END
{
	# the writers end with the test, also when it dies
	if ($writers)
	{
		open(my $stop, '>', "$writes/stop");
		close($stop);
		$writers->finish;
	}
}
ok(writes_go_on($writes, 50, 2), 'the writers write to node1');
ok(poll_until(sub { autowarm_state($node1, 'snapshots_taken') >= 1 }), 'node1\'s worker records snapshots');

# ---- 1. a standby's library ----
{
	my $what = '1. node2 (a standby) on the current library';
	use_installation($node2, undef);
	check_library($node2, $current_library, $what);
	$node1->wait_for_catchup($node2);
	my $taken_at = record_step_table($node1, 'step_standby');
	check_reader($node2, 'step_standby', $taken_at, "$what reads the rows of ${old_version}'s library");
	ok(writes_go_on($writes, 50, 2), "$what: the writers go on");
}

# ---- 2. switchover: the current library writes, the old one reads ----
{
	my $what = '2. switchover to node2';
	switchover($node1, $node2, [$node3], $what);
	check_library($node1, $old_library, "$what: node1, now a standby,");
	ok(writes_go_on($writes, 50, 2), "$what: the writers write to node2");
	ok(poll_until(sub { autowarm_state($node2, q{role || '|' || (snapshots_taken >= 1)::text}) eq 'primary|true' }),
		"$what: node2's worker records snapshots as the primary, at catalog $old_version");
	my $taken_at = record_step_table($node2, 'step_switchover');
	check_reader($_, 'step_switchover', $taken_at,
		"$what: ${old_version}'s library reads the current library's rows (catalog $old_version)")
	  for $node1, $node3;
}

# ---- 3. the old primary's library ----
{
	my $what = '3. node1 (the old primary) on the current library';
	use_installation($node1, undef);
	check_library($node1, $current_library, $what);
	$node2->wait_for_catchup($node1);
	my $taken_at = record_step_table($node2, 'step_old_primary');
	check_reader($node1, 'step_old_primary', $taken_at, "$what reads the current library's rows");
	ok(writes_go_on($writes, 50, 2), "$what: the writers go on");
}

# ---- 4. ALTER EXTENSION UPDATE on the new primary ----
# node3 stays on the old library past it: a standby the upgrade has not
# reached yet meets the new version's catalog.
my $current_version = $node2->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_cachectl'});
{
	my $what = "4. ALTER EXTENSION UPDATE to $current_version";
	$node2->safe_psql('postgres', 'ALTER EXTENSION pg_cachectl UPDATE');
	is($node2->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_cachectl'}),
		$current_version, "$what on node2");
	$node2->wait_for_catchup($_) for $node1, $node3;
	my $taken_at = record_step_table($node2, 'step_update');
	check_reader($node1, 'step_update', $taken_at, "$what: the current library reads the rows of catalog $current_version");
	check_reader($node3, 'step_update', $taken_at,
		"$what: ${old_version}'s library, on a standby not upgraded yet, reads the rows of catalog $current_version");
	# a function of the new version on the old library is refused, clearly
	my (undef, undef, $refused) = $node3->psql('postgres', 'SELECT * FROM cachectl.advice_status()');
	like($refused, qr/could not find function "pg_cachectl_advice_status" in file/,
		"$what: on node3, ${old_version}'s library refuses a function of $current_version by name");
	is($node3->safe_psql('postgres', q{SELECT state <> 'failed' FROM cachectl.autowarm_status WHERE database = current_database()}),
		't', "$what: and node3 goes on serving, its worker too");
	ok(writes_go_on($writes, 50, 2), "$what: the writers go on");
}

# ---- the standby left behind ----
{
	my $what = 'node3 on the current library';
	use_installation($node3, undef);
	check_library($node3, $current_library, $what);
	$node2->wait_for_catchup($node3);
	my $taken_at = record_step_table($node2, 'step_last');
	check_reader($node3, 'step_last', $taken_at, "$what reads the current rows");
	ok(writes_go_on($writes, 50, 2), "$what: the writers go on");
}

# ---- the end ----
open(my $stop, '>', "$writes/stop") or die $!;
close($stop);
$writers->finish;
undef $writers;
my @acked = written_down($writes, 'acked');
my %present = map { $_ => 1 } split /\n/, $node2->safe_psql('postgres', 'SELECT id FROM acked');
my @lost = grep { !$present{$_} } @acked;
is(scalar(@lost), 0, scalar(@acked) . ' inserts acknowledged, none lost on the final primary')
  or diag('lost: ' . join(' ', @lost[ 0 .. ($#lost < 20 ? $#lost : 19) ]));
my @runs = written_down($writes, 'pgbench_runs');
note(scalar(grep { $_ eq 'ok' } @runs) . ' pgbench runs of 3 s ended well, '
	  . scalar(grep { $_ eq 'failed' } @runs) . ' failed (while no node accepted writes)');

for my $node ($node1, $node2, $node3)
{
	my $name = $node->name;
	ok(poll_until(sub {
		autowarm_state($node, q{state || '|' || failures}) =~ /^(idle|following)\|0$/ }),
		"${name}'s worker is idle or following, with no failure");
}
$_->stop for $node1, $node2, $node3;
for my $node ($node1, $node2, $node3)
{
	# (a worker of the current library's sizing advice exits with code 1 at
	# a shutdown, as core's logical replication launcher does: not a failure)
	my @trouble = grep {
		/background worker "pg_cachectl autowarm[^"]*" \(PID \d+\) exited with exit code/
		  || /was terminated by signal|PANIC:|TRAP:/
	} split /\n/, slurp_file($node->logfile);
	is(scalar(@trouble), 0, $node->name . '\'s log shows no worker failure, no crash, no PANIC, no failed assertion')
	  or diag(join "\n", @trouble);
}

done_testing();
