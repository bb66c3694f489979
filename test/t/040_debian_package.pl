# tap: starts as root
# tap: runs alone
# tap: make test-all only
#
# 040_debian_package.pl
#
# The Debian package, as a user would make and use it:
# - `dpkg-buildpackage -us -uc -b` builds postgresql-15-pg-cachectl from a
#   copy of the source tree (the checkout is left exactly as it was); the
#   .deb holds the module, the control file and the install script, and
#   depends on postgresql-15 and libstdc++;
# - lintian finds no error in the .changes (its warnings are printed);
# - the package installs, its files on disk match it (dpkg --verify), and in
#   a cluster of the system's PostgreSQL 15 `CREATE EXTENSION pg_cachectl`
#   works and cachectl.os_residency() gives sane figures for a table (sizes
#   that match pg_relation_size, cached pages within bounds, none after
#   os_drop unless the cluster is on tmpfs);
# - debian/tests/installcheck (the autopkgtest) passes: the regression
#   suites against the installed package;
# - the package is purged and leaves none of its files behind.
#
# Installing the package overwrites what `make install` (run by `make test`)
# put into /usr/lib/postgresql/15, and purging it deletes those files: so the
# files the package ships are backed up first and put back at the end, also
# when a step fails or the test is interrupted, and checked to be identical.
#
# It needs root (it installs a package; the cluster runs as postgres) and
# runs only when the server under test is the system's PostgreSQL 15; it is
# skipped otherwise (a private copy, a PostgreSQL 18 build), when the Debian
# tools are missing, or when the package is installed already.  lintian is
# installed on first use (scripts/install_deps.sh lintian).  It runs alone
# (run_tap.sh): while the package replaces the module, no other test may load it.
use strict;
use warnings;

use CommandOutput qw(run_capturing);
use Cwd ();
use Digest::SHA ();
use File::Copy ();
use File::Path ();
use File::Temp ();
use POSIX ();
use Test::More;
use Time::HiRes ();

# The package is built for the major of the server under test (the system's
# PostgreSQL 15 on the host, 17 or 19 in their chroots: scripts/chroot_pg.sh).
my ($major) = `'@{[ $ENV{PG_CONFIG} // 'pg_config' ]}' --version 2>/dev/null` =~ /^PostgreSQL (\d+)/;
$major //= 15;
my $system_bindir = "/usr/lib/postgresql/$major/bin";
my $package = "postgresql-$major-pg-cachectl";
my $source_dir = $ENV{PG_CACHECTL_SOURCE_DIR};
my $started = Time::HiRes::time();

# ---- helpers ----

# Runs a long command with its output in a log file; on failure, shows the
# log's end.  Returns true on success.
sub run_logged
{
	my ($log, @command) = @_;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0)
	{
		open(STDOUT, '>', $log) or POSIX::_exit(127);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
		{ exec(@command) }
		# not die: the child would run the END block's undo (see CommandOutput.pm)
		print "exec $command[0]: $!\n";
		POSIX::_exit(127);
	}
	waitpid($pid, 0);
	my $status = $?;
	if ($status != 0)
	{
		my (undef, $tail) = run_capturing('tail', '-n', '40', $log);
		diag("@command failed ($status); the end of $log:\n$tail");
	}
	return $status == 0;
}

# dpkg's state of the package ("installed", "config-files", ...), or an
# empty string when dpkg does not know it.
sub package_state
{
	my $status = `dpkg-query -W -f='\${Status}' $package 2>/dev/null`;
	my (undef, undef, $state) = split ' ', $status;
	return $state // '';
}

sub package_present
{
	my $state = package_state();
	return $state ne '' && $state ne 'not-installed';
}

sub sha256_of
{
	my ($path) = @_;
	return Digest::SHA->new(256)->addfile($path)->hexdigest;
}

sub has_command
{
	my ($name) = @_;
	my ($status) = run_capturing('sh', '-c', "command -v $name");
	return $status == 0;
}

# ---- when it can run ----

plan skip_all => 'needs root to install a package (run test/run_tap.sh as root)'
  if $> != 0;
plan skip_all => 'PG_CACHECTL_SOURCE_DIR is not set (run it through test/run_tap.sh)'
  unless defined $source_dir;

# The server under test: test/run_tap.sh puts its bindir first in PATH.
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my ($config_status, $bindir) = run_capturing($pg_config, '--bindir');
chomp $bindir;
my (undef, $server_version) = run_capturing($pg_config, '--version');
chomp $server_version;
plan skip_all => "the server under test ($bindir, $server_version) is not the "
  . "system's PostgreSQL $major ($system_bindir), which the package is built for"
  unless $config_status == 0
  && -x "$system_bindir/postgres"
  && Cwd::realpath($bindir) eq Cwd::realpath($system_bindir)
  && $server_version =~ /^PostgreSQL $major(?:\.|beta|rc|devel)/;

foreach my $tool ('dpkg-buildpackage', 'dh', 'pg_buildext', 'apt-get')
{
	plan skip_all => "$tool is not installed (scripts/install_deps.sh installs it)"
	  unless has_command($tool);
}
plan skip_all => "$package is installed already: this test would replace, then remove it"
  if package_present();

# ---- the fixture: a work directory, backups, and their undoing ----

my $work = File::Temp::tempdir('cachectl-deb.XXXXXX', TMPDIR => 1);
chmod(0755, $work) or die "chmod $work: $!";
my $backup_dir = "$work/backup";
mkdir $backup_dir or die "mkdir $backup_dir: $!";
note("work directory (with the backup of the system's files): $work");

my %original;    # path => undef (absent) or { sha256, mode, uid, gid }
my $cluster_dir;
my $undone = 0;

sub stop_cluster
{
	return unless defined $cluster_dir && -f "$cluster_dir/data/postmaster.pid";
	run_capturing('runuser', '-u', 'postgres', '--', "$system_bindir/pg_ctl",
		'-D', "$cluster_dir/data", '-m', 'fast', '-w', 'stop');
	return;
}

sub purge_package
{
	return 1 unless package_present();
	return run_logged("$work/purge.log", 'apt-get', '-o', 'DPkg::Lock::Timeout=600',
		'purge', '-y', '-q', $package);
}

# Puts back what the package's files replaced; returns the paths that differ
# from before.
sub restore_system_files
{
	my @differ;
	foreach my $path (sort keys %original)
	{
		my $before = $original{$path};
		if (!defined $before)
		{
			unlink $path if -e $path;
			push @differ, $path if -e $path;
			next;
		}
		my $saved = "$backup_dir$path";
		File::Copy::copy($saved, $path) or die "restore $path: $!";
		chmod($before->{mode}, $path) or die "chmod $path: $!";
		chown($before->{uid}, $before->{gid}, $path) or die "chown $path: $!";
		my @stat = stat($path);
		push @differ, $path
		  unless sha256_of($path) eq $before->{sha256}
		  && ($stat[2] & 07777) == $before->{mode}
		  && $stat[4] == $before->{uid}
		  && $stat[5] == $before->{gid};
	}
	return @differ;
}

# Undoes everything, in reverse order; runs once, at the end or on failure.
sub undo_all
{
	return if $undone;
	$undone = 1;
	stop_cluster();
	my $purged = purge_package();
	my @differ = restore_system_files();
	if ($purged && !@differ)
	{
		File::Path::remove_tree($work);
	}
	else
	{
		diag("could not undo everything: the backup stays in $backup_dir");
	}
	return ($purged, @differ);
}

foreach my $signal ('INT', 'TERM', 'HUP')
{
	$SIG{$signal} = sub { undo_all(); die "killed by SIG$signal\n" };
}
END
{
	local $?;    # keep the exit status Test::More sets
	undo_all() if defined $work && !$undone;
}

# ---- build from a copy of the tree ----

# What git shows of the checkout, ignored files included: it must not change.
sub checkout_state
{
	my ($status, $state) = run_capturing('git', '-C', $source_dir, 'status',
		'--porcelain', '--untracked-files=all', '--ignored');
	return $status == 0 ? $state : undef;
}
my $checkout_before = checkout_state();

my $build_dir = "$work/build";
my $copy = "$build_dir/pg-cachectl";
File::Path::make_path($copy);
my ($list_status, $listed) = run_capturing('git', '-C', $source_dir, 'ls-files',
	'--cached', '--others', '--exclude-standard');
if ($list_status == 0)
{
	# the files a clone would have, plus new ones not yet committed
	my @files = grep { -f "$source_dir/$_" || -l "$source_dir/$_" } split /\n/, $listed;
	open(my $list, '>', "$work/files") or die "write $work/files: $!";
	print $list "$_\n" foreach @files;
	close($list);
	system("tar -C \Q$source_dir\E -cf - -T \Q$work/files\E | tar -C \Q$copy\E -xf -") == 0
	  or die "copying the source tree failed";
}
else
{
	# not a git checkout (an unpacked PGXN zip): everything but build products
	system('cp', '-a', "$source_dir/.", $copy) == 0 or die "cp failed";
	system('make', '-s', '-C', $copy, 'clean', "PG_CONFIG=$system_bindir/pg_config") == 0
	  or die "make clean in the copy failed";
}

my (undef, $version) = run_capturing('dpkg-parsechangelog', '-l', "$copy/debian/changelog", '-S', 'Version');
chomp $version;
my (undef, $arch) = run_capturing('dpkg', '--print-architecture');
chomp $arch;

my $build_started = Time::HiRes::time();
my $built;
{
	# a clean environment: nothing of make test's or the TAP harness's
	local %ENV = %ENV;
	delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS PG_CONFIG PERL5LIB PG_REGRESS TESTDIR)};
	local $ENV{PATH} = '/usr/sbin:/usr/bin:/sbin:/bin';
	# for the server packages installed here, whatever the suite's default
	# major is (debian/pgversions lists 15 to 19)
	local $ENV{PG_SUPPORTED_VERSIONS} = 'installed';
	my $here = Cwd::getcwd();
	chdir $copy or die "chdir $copy: $!";
	# debian/control as committed names the package for Debian 12's 15
	run_logged("$work/updatecontrol.log", 'pg_buildext', 'updatecontrol')
	  or die "pg_buildext updatecontrol failed";
	$built = run_logged("$work/build.log", 'dpkg-buildpackage', '-us', '-uc', '-b', '-j2');
	chdir $here or die "chdir $here: $!";
}
ok($built, "dpkg-buildpackage -us -uc -b builds $package $version");
note(sprintf('the build took %.0f s', Time::HiRes::time() - $build_started));
# pg_buildext ran our Makefile with PostgreSQL 15's pg_config: the shim was
# compiled against that server's headers, in build-15/
my $build_log = -f "$work/build.log" ? `cat \Q$work/build.log\E` : '';
# (the compiler as the server was configured with it: gcc, or
# x86_64-linux-gnu-gcc for 19 in sid)
like($build_log, qr{^(?:\S+-)?gcc(?:-\d+)? .*-I/usr/include/postgresql/$major/server .*-c -o src/pg/pg_cachectl\.o \Q$copy\E/src/pg/pg_cachectl\.c$}m,
	"the module was compiled against PostgreSQL ${major}'s headers, out of the source directory");

my $deb = "$build_dir/${package}_${version}_$arch.deb";
my $changes = "$build_dir/pg-cachectl_${version}_$arch.changes";
ok(-f $deb && -f $changes, "it made $package\_${version}_$arch.deb and the .changes");
if (!-f $deb)
{
	undo_all();
	done_testing();
	exit;
}

my (undef, $contents) = run_capturing('dpkg-deb', '-c', $deb);
my ($default_version) = `cat \Q$copy/pg_cachectl.control\E` =~ /^default_version\s*=\s*'([^']+)'/m;
my @shipped = map { m{^\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\.(/\S+)$} ? $1 : () }
  grep { /^-/ } split /\n/, $contents;
my @expected = (
	"/usr/lib/postgresql/$major/lib/pg_cachectl.so",
	"/usr/share/postgresql/$major/extension/pg_cachectl.control",
	"/usr/share/postgresql/$major/extension/pg_cachectl--$default_version.sql",
	"/usr/share/doc/$package/examples/postgres_exporter/pg_cachectl_queries.yaml",
	"/usr/share/doc/$package/examples/pg_exporter/pg_cachectl.yml",
	"/usr/share/doc/$package/examples/pgwatch/pg_cachectl_metrics.yaml",
	"/usr/share/doc/$package/examples/prometheus/pg_cachectl_alerts.yml",
	# every install and update script: a server with an older version updates
	map { m{/(pg_cachectl--[^/]+\.sql)$} ? "/usr/share/postgresql/$major/extension/$1" : () }
	  glob("$copy/sql/pg_cachectl--*.sql"));
foreach my $path (@expected)
{
	ok((grep { $_ eq $path } @shipped), "the package ships $path");
}
# the README's links into docs/ hold in the installed package (dh_compress may gzip them)
ok((grep { m{^/usr/share/doc/\Q$package\E/docs/REFERENCE\.md(?:\.gz)?$} } @shipped),
	'the package ships docs/ beside the README');
my (undef, $depends) = run_capturing('dpkg-deb', '-f', $deb, 'Depends');
like($depends, qr/(?:^|, )postgresql-$major\b/, "it depends on postgresql-$major");
like($depends, qr/(?:^|, )libstdc\+\+6\b/, 'it depends on libstdc++6 (the module is linked with it)');

# ---- lintian ----

SKIP:
{
	if (!has_command('lintian'))
	{
		run_logged("$work/lintian-install.log", 'bash', "$source_dir/scripts/install_deps.sh", 'lintian');
	}
	skip 'lintian is not installed and could not be installed', 1
	  unless has_command('lintian');
	my $lintian_started = Time::HiRes::time();
	my (undef, $report) = run_capturing('lintian', '--display-info', $changes);
	my @tags = grep { /^[EWIP]: / } split /\n/, $report;
	my @errors = grep { /^E: / } @tags;
	is(scalar(@errors), 0, 'lintian reports no error on the .changes')
	  or diag(join("\n", @errors));
	note("lintian: $_") foreach @tags;
	note(sprintf('lintian found %d tags (errors, warnings, information) in %.0f s',
		scalar(@tags), Time::HiRes::time() - $lintian_started));
}

# ---- back up, install ----

# The package depends on a server at least as new as the headers it was
# built with (postgresql-server-dev at the mirror's minor).  A host whose
# installed server is older (15.18 beside 15.20's headers) cannot take it
# without an upgrade of its server, which a test never makes: what needs
# the package installed is then not run, and says why.
my ($needed_relation, $needed_version) =
  `dpkg-deb -f '$deb' Depends` =~ /\bpostgresql-$major \(([<>=]+) ([^)]+)\)/;
my $server_version = `dpkg-query -W -f='\${Version}' postgresql-$major 2>/dev/null`;
my %dpkg_relation = ('>' => 'gt', '>>' => 'gt', '>=' => 'ge', '=' => 'eq', '<=' => 'le', '<<' => 'lt', '<' => 'lt');
if (defined $needed_version && $server_version ne ''
	&& system('dpkg', '--compare-versions', $server_version, $dpkg_relation{$needed_relation} // 'ge', $needed_version) != 0)
{
	note("the package needs postgresql-$major ($needed_relation $needed_version); this host's server is "
		  . "$server_version, which a test never upgrades: the install, the cluster and the removal are not run");
	undo_all();
	done_testing();
	exit;
}

foreach my $path (@shipped)
{
	if (!-e $path)
	{
		$original{$path} = undef;
		next;
	}
	my @stat = stat($path);
	File::Path::make_path("$backup_dir" . ($path =~ s{/[^/]+$}{}r));
	File::Copy::copy($path, "$backup_dir$path") or die "back up $path: $!";
	$original{$path} = {
		sha256 => sha256_of($path),
		mode => $stat[2] & 07777,
		uid => $stat[4],
		gid => $stat[5]
	};
}
note('backed up: ' . join(', ', grep { defined $original{$_} } sort keys %original));

# The installed server is never upgraded by this install (apt upgraded the
# host's 15.18 to 15.20 here once, resolving the package's dependencies): its
# packages are held while apt works, as scripts/install_deps.sh does, and
# only the holds made here are released.
my %already_held = map { $_ => 1 } split /\n/, `apt-mark showhold`;
my @server_packages = map { /^ii\s+(\S+)$/ ? $1 : () } split /\n/,
  `dpkg-query -W -f='\${db:Status-Abbrev} \${Package}\n' 'postgresql*' 'libpq*' 2>/dev/null`;
my @held_here = grep { !$already_held{$_} } @server_packages;
system('apt-mark', 'hold', @held_here) == 0 or die 'apt-mark hold failed' if @held_here;
my $installed = run_logged("$work/install.log", 'apt-get', '-o', 'DPkg::Lock::Timeout=600',
	'install', '-y', '-q', '--no-install-recommends', $deb);
system('apt-mark', 'unhold', @held_here) == 0 or die 'apt-mark unhold failed' if @held_here;
ok($installed, "apt-get install ./$package\_${version}_$arch.deb");
is(package_state(), 'installed', "$package is installed");
my ($verify_status, $verify) = run_capturing('dpkg', '--verify', $package);
is("$verify_status $verify", '0 ', "its files on disk are the package's (dpkg --verify)");

# ---- a cluster of the system's PostgreSQL 15 ----

sub as_postgres
{
	my @command = @_;
	return run_capturing('runuser', '-u', 'postgres', '--', @command);
}

my $port = 54000 + $$ % 1000;    # its socket is in a directory of its own
sub psql
{
	my ($sql) = @_;
	my ($status, $output) = as_postgres("$system_bindir/psql", '-X', '-q', '-A', '-t',
		'-v', 'ON_ERROR_STOP=1', '-h', $cluster_dir, '-p', $port, '-d', 'postgres', '-c', $sql);
	chomp $output;
	diag("psql failed: $output") if $status != 0;
	return $output;
}

$cluster_dir = "$work/cluster";
mkdir $cluster_dir or die "mkdir $cluster_dir: $!";
my (undef, undef, $postgres_uid, $postgres_gid) = getpwnam('postgres');
chown($postgres_uid, $postgres_gid, $cluster_dir) or die "chown $cluster_dir: $!";
my ($initdb_status, $initdb_output) = as_postgres("$system_bindir/initdb", '-D', "$cluster_dir/data",
	'-A', 'trust', '-U', 'postgres', '--no-sync');
is($initdb_status, 0, "initdb of PostgreSQL $major") or diag($initdb_output);
open(my $conf, '>>', "$cluster_dir/data/postgresql.conf") or die "open postgresql.conf: $!";
print $conf "port = $port\nlisten_addresses = ''\nunix_socket_directories = '$cluster_dir'\n"
  . "autovacuum = off\nshared_buffers = 128MB\n";
close($conf);
my ($start_status, $start_output) = as_postgres("$system_bindir/pg_ctl", '-D', "$cluster_dir/data",
	'-l', "$cluster_dir/server.log", '-w', 'start');
is($start_status, 0, 'the cluster starts') or diag($start_output);

is(psql('CREATE EXTENSION pg_cachectl; '
	  . "SELECT extversion FROM pg_extension WHERE extname = 'pg_cachectl'"),
	$default_version, "CREATE EXTENSION pg_cachectl installs version $default_version");

# A table of about 6 MB, written, checkpointed and read: its pages are in the
# OS page cache now.
psql(q{CREATE TABLE packaged_t (id int, payload text);
INSERT INTO packaged_t SELECT g, repeat('p', 200) FROM generate_series(1, 25000) g;
CHECKPOINT});
psql('SELECT count(*) FROM packaged_t');

my $residency_check = q{
SELECT count(*) FILTER (WHERE fork = 'main') = 1,
       bool_and(size_bytes = pg_relation_size('packaged_t', fork)),
       bool_and(size_pages = (size_bytes + cachectl.os_page_size() - 1) / cachectl.os_page_size()),
       bool_and(os_pages BETWEEN 0 AND size_pages),
       bool_and(os_dirty_pages BETWEEN 0 AND size_pages),
       sum(size_bytes) FILTER (WHERE fork = 'main') > 5000000
  FROM cachectl.os_residency('packaged_t')};
is(psql($residency_check), 't|t|t|t|t|t',
	'os_residency: one main fork, sizes match pg_relation_size, page counts within bounds');
is(psql(q{SELECT os_pages > 0 FROM cachectl.os_residency('packaged_t', 'main')}), 't',
	'the table just written and read has cached pages');

SKIP:
{
	my (undef, $fs_type) = run_capturing('stat', '-f', '-c', '%T', $cluster_dir);
	chomp $fs_type;
	skip 'the cluster is on tmpfs, where POSIX_FADV_DONTNEED drops nothing', 1
	  if $fs_type eq 'tmpfs';
	psql(q{SELECT count(*) FROM cachectl.os_drop('packaged_t')});
	is(psql(q{SELECT sum(os_pages) FROM cachectl.os_residency('packaged_t', 'main')}), '0',
		'after os_drop the main fork has no cached page');
}

stop_cluster();

# The autopkgtest: the regression suites against the installed package, in a
# cluster pg_virtualenv makes and removes (in a temporary directory).
{
	local %ENV = %ENV;
	delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS PG_CONFIG PERL5LIB PG_REGRESS TESTDIR PGHOST PGPORT PGUSER PGDATA)};
	local $ENV{PATH} = '/usr/sbin:/usr/bin:/sbin:/bin';
	my $here = Cwd::getcwd();
	chdir $copy or die "chdir $copy: $!";
	ok(run_logged("$work/installcheck.log", 'debian/tests/installcheck'),
		'debian/tests/installcheck (autopkgtest): the regression suites pass against the package');
	chdir $here or die "chdir $here: $!";
}

# ---- remove, restore ----

ok(purge_package(), "apt-get purge $package");
ok(!package_present(), "$package is gone");
ok(!(grep { -e $_ } @shipped), 'none of its files is left');

my ($purged, @differ) = undo_all();
is_deeply(\@differ, [], 'the files make install had put there are back, identical (content, mode, owner)');
ok(!(grep { !defined $original{$_} && -e $_ } keys %original),
	'files that were not there before are not there');
SKIP:
{
	skip 'the source tree is not a git checkout', 1 unless defined $checkout_before;
	is(checkout_state(), $checkout_before, 'the checkout is as it was (nothing built or left in it)');
}
note(sprintf('the whole test took %.0f s', Time::HiRes::time() - $started));

done_testing();
