# 041_pgxn_meta.pl
#
# META.json, the distribution's PGXN metadata:
# - scripts/check_pgxn_meta.pl finds it in agreement with the source tree
#   (name and version of pg_cachectl.control, files that exist, PostgreSQL
#   version, LICENSE, debian/changelog);
# - the checker rejects each disagreement with the tree, and text that is
#   not JSON, so a META.json that drifts from the tree fails here;
# - scripts/pgxn_zip.sh (`make pgxn-zip`) zips the committed tree under
#   pg_cachectl-VERSION/, and writes nothing into the checkout.
#
# It reads the source tree (PG_CACHECTL_SOURCE_DIR, set by test/run_tap.sh),
# which the postgres user may not be allowed to read, and starts no server:
# so it keeps the user it was started as.
#
# tap: starts as root
use strict;
use warnings;

use CommandOutput qw(run_capturing);
use File::Copy ();
use File::Path ();
use File::Temp ();
use IO::Uncompress::Unzip ();
use JSON::PP ();
use Test::More;

my $source_dir = $ENV{PG_CACHECTL_SOURCE_DIR};
plan skip_all => 'PG_CACHECTL_SOURCE_DIR is not set (run it through test/run_tap.sh)'
  unless defined $source_dir;

my $checker = "$source_dir/scripts/check_pgxn_meta.pl";
my $work = File::Temp::tempdir('cachectl-meta.XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $json = JSON::PP->new->canonical->pretty;

sub write_file
{
	my ($path, $text) = @_;
	open(my $handle, '>', $path) or die "write $path: $!";
	print $handle $text;
	close($handle) or die "close $path: $!";
	return;
}

sub read_file
{
	my ($path) = @_;
	open(my $handle, '<', $path) or die "read $path: $!";
	local $/;
	my $text = <$handle>;
	close($handle);
	return $text;
}

# Runs the checker on a META.json given as text.
sub check_text
{
	my ($text, @options) = @_;
	my $file = "$work/META.json";
	write_file($file, $text);
	return run_capturing('perl', $checker, @options, $file);
}

my $meta_text = read_file("$source_dir/META.json");
my $meta = JSON::PP->new->decode($meta_text);

# A copy of the real metadata, changed by $change.
sub changed_meta
{
	my ($change) = @_;
	my $copy = JSON::PP->new->decode($meta_text);
	$change->($copy);
	return $json->encode($copy);
}

# ---- the real META.json ----

my ($status, $output) =
  run_capturing('perl', $checker, '--project', $source_dir,
	"$source_dir/META.json");
is($status, 0, 'META.json agrees with the tree');
is($output, '', 'the checker has nothing to say about META.json');

($status, $output) = check_text('{"name": "pg_cachectl",');
is($status, 1, 'rejected: text that is not JSON');
like($output, qr/is not valid JSON/, 'the checker says it is not JSON');

# ---- agreement with the tree ----

# A small tree like the real one: the files META.json names, the control file,
# LICENSE and debian/changelog.
my $tree = "$work/tree";
File::Path::make_path("$tree/sql", "$tree/debian");
File::Copy::copy("$source_dir/$_", "$tree/$_") or die "copy $_: $!"
  foreach ('pg_cachectl.control', 'LICENSE', 'debian/changelog',
	$meta->{provides}{pg_cachectl}{file}, $meta->{provides}{pg_cachectl}{docfile});

sub check_tree
{
	my ($text) = @_;
	write_file("$tree/META.json", $text);
	return run_capturing('perl', $checker, '--project', $tree, "$tree/META.json");
}

($status, $output) = check_tree($meta_text);
is($status, 0, 'the small tree agrees with META.json');
is($output, '', 'no complaint about the small tree');

# The versions the tree has now (the control file's default, x.y.0 in META.json).
my ($default_version) = read_file("$source_dir/pg_cachectl.control") =~ /^default_version\s*=\s*'([^']+)'/m;
my $meta_version = "$default_version.0";
my $version_re = quotemeta($meta_version);
my $default_re = quotemeta($default_version);

my @disagreements = (
	[ 'a version the control file does not have', sub { $_[0]{version} = $_[0]{provides}{pg_cachectl}{version} = '0.9.1' },
		qr/^version: must be $version_re, the default_version $default_re of pg_cachectl\.control/m ],
	[ 'an extension version the control file does not have', sub { $_[0]{provides}{pg_cachectl}{version} = '9.9.0' },
		qr/^provides\.pg_cachectl\.version: must be $version_re/m ],
	[ 'another distribution name', sub { $_[0]{name} = 'cachectl' }, qr/^name: must be the extension's name, pg_cachectl/m ],
	[ 'pg_cachectl not provided', sub { $_[0]{provides}{cachectl} = delete $_[0]{provides}{pg_cachectl} },
		qr/^provides\.pg_cachectl: is missing/m ],
	[ 'a file that does not exist', sub { $_[0]{provides}{pg_cachectl}{file} = 'sql/pg_cachectl--0.9.sql' },
		qr/^provides\.pg_cachectl\.file: sql\/pg_cachectl--0\.9\.sql does not exist/m ],
	[ 'no PostgreSQL version', sub { delete $_[0]{prereqs} }, qr/^prereqs\.runtime\.requires\.PostgreSQL: must state/m ],
	[ 'no docfile on disk', sub { $_[0]{provides}{pg_cachectl}{docfile} = 'doc/none.md' },
		qr/^provides\.pg_cachectl\.docfile: doc\/none\.md does not exist/m ],
);
foreach my $case (@disagreements)
{
	my ($name, $change, $message) = @$case;
	my ($status, $output) = check_tree(changed_meta($change));
	is($status, 1, "disagrees with the tree: $name");
	like($output, $message, "the checker says why: $name");
}

unlink "$tree/LICENSE" or die "unlink: $!";
($status, $output) = check_tree($meta_text);
like($output, qr/^license: names the PostgreSQL License, but there is no LICENSE file/m,
	'disagrees with the tree: no LICENSE file');
File::Copy::copy("$source_dir/LICENSE", "$tree/LICENSE") or die "copy: $!";

my $changelog = read_file("$tree/debian/changelog");
write_file("$tree/debian/changelog", $changelog =~ s/\A(\S+) \(([^)]+)\)/$1 (9.9.9)/r);
($status, $output) = check_tree($meta_text);
like($output, qr/^version: debian\/changelog's latest version is 9\.9\.9, not $version_re/m,
	'disagrees with the tree: another Debian package version');

# ---- make pgxn-zip ----

SKIP:
{
	my ($git_status, $head) = run_capturing('git', '-C', $source_dir, 'rev-parse', '--verify', 'HEAD');
	skip "$source_dir is not a git checkout git can read: $head", 6
	  if $git_status != 0;

	my (undef, $before) = run_capturing('git', '-C', $source_dir, 'status', '--porcelain', '--untracked-files=all', '--ignored');
	my $zip_dir = "$work/zip";
	mkdir $zip_dir or die "mkdir $zip_dir: $!";
	my ($zip_status, $zip_output) = run_capturing('bash', "$source_dir/scripts/pgxn_zip.sh", $zip_dir);
	is($zip_status, 0, 'scripts/pgxn_zip.sh succeeds') or diag($zip_output);

	# the version of HEAD's META.json names the zip
	my (undef, $head_meta) = run_capturing('git', '-C', $source_dir, 'show', 'HEAD:META.json');
	my $head_version = JSON::PP->new->decode($head_meta)->{version};
	my $prefix = "pg_cachectl-$head_version/";
	my $zip = "$zip_dir/pg_cachectl-$head_version.zip";
	ok(-f $zip, "it wrote pg_cachectl-$head_version.zip");

	my @entries;
	if (-f $zip)
	{
		my $unzip = IO::Uncompress::Unzip->new($zip) or die "unzip $zip";
		my $more = 1;
		while ($more > 0)
		{
			push @entries, $unzip->getHeaderInfo->{Name};
			$more = $unzip->nextStream;
		}
		$unzip->close;
	}
	my @files = grep { !m{/\z} } @entries;
	my (undef, $tracked) = run_capturing('git', '-C', $source_dir, 'ls-tree', '-r', '--name-only', 'HEAD');
	my @tracked = split /\n/, $tracked;
	is(scalar(grep { index($_, $prefix) != 0 } @entries), 0, "every entry is under $prefix");
	is_deeply([ sort map { substr($_, length $prefix) } @files ], [ sort @tracked ],
		'the zip holds exactly the files of HEAD');
	ok((grep { $_ eq "${prefix}META.json" } @files)
		  && (grep { $_ eq "${prefix}pg_cachectl.control" } @files),
		'META.json and the control file are at the top of the distribution');

	my (undef, $after) = run_capturing('git', '-C', $source_dir, 'status', '--porcelain', '--untracked-files=all', '--ignored');
	is($after, $before, 'pgxn_zip.sh left the checkout as it was');
}

done_testing();
