# 041_pgxn_meta.pl
#
# META.json, the distribution's PGXN metadata:
# - scripts/check_pgxn_meta.pl accepts it, against the PGXN Meta Spec 1.0.0
#   and against the source tree (name and version of pg_cachectl.control,
#   files that exist, PostgreSQL version, tags, LICENSE, debian/changelog);
# - the checker itself rejects each kind of mistake the spec rules out (a
#   missing required key, a wrong type, a bad version, license, term, tag,
#   URI or version range, an unknown key) and each disagreement with the
#   tree, and accepts what the spec allows (strings for lists, custom "x_"
#   keys, license maps, version ranges), so a bad META.json fails here;
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
is($status, 0, 'META.json passes the PGXN Meta Spec and agrees with the tree');
is($output, '', 'the checker has nothing to say about META.json');

# ---- what the spec rules out ----

my $range_of_postgresql = sub {
	my ($value) = @_;
	return sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = $value };
};
my @rejected = (
	(
		map {
			my $key = $_;
			[ "without $key", sub { delete $_[0]{$key} }, qr/^\Q$key\E: is required$/m ]
		} qw(name version abstract maintainer license provides meta-spec)
	),
	[ 'a one-character name', sub { $_[0]{name} = 'p' }, qr/^name: "p" is not a term/m ],
	[ 'a name with a space', sub { $_[0]{name} = 'pg cachectl' }, qr/^name: .* is not a term/m ],
	[ 'a name with a slash', sub { $_[0]{name} = 'pg/cachectl' }, qr/^name: .* is not a term/m ],
	[ 'a two-part version', sub { $_[0]{version} = '1.0' }, qr/^version: "1.0" is not a semantic version/m ],
	[ 'a version with a leading zero', sub { $_[0]{version} = '01.0.0' }, qr/^version: .* is not a semantic version/m ],
	[ 'a version with an empty pre-release', sub { $_[0]{version} = '1.0.0-' }, qr/^version: .* is not a semantic version/m ],
	[ 'a version that is a number', sub { $_[0]{version} = 1 }, qr/^version: the number 1 is not a semantic version/m ],
	[ 'an empty abstract', sub { $_[0]{abstract} = '' }, qr/^abstract: must be a non-empty string, not an empty string/m ],
	[ 'an abstract that is a list', sub { $_[0]{abstract} = ['a'] }, qr/^abstract: must be a non-empty string, not a list/m ],
	[ 'no maintainer in the list', sub { $_[0]{maintainer} = [] }, qr/^maintainer: must be a string or a list/m ],
	[ 'an empty maintainer', sub { $_[0]{maintainer} = [''] }, qr/^maintainer\[0\]: must be a non-empty string/m ],
	[ 'a maintainer map', sub { $_[0]{maintainer} = { a => 'b' } }, qr/^maintainer: must be a string or a list/m ],
	[ 'an unknown license string', sub { $_[0]{license} = 'postgres' }, qr/^license\[0\]: "postgres" is not a license string/m ],
	[ 'an empty license list', sub { $_[0]{license} = [] }, qr/^license: must be a license string/m ],
	[ 'a license map without a URI', sub { $_[0]{license} = { PostgreSQL => 'the usual one' } }, qr/^license\.PostgreSQL: must be the URI/m ],
	[ 'an empty license map', sub { $_[0]{license} = {} }, qr/^license: must name at least one license/m ],
	[ 'no extension provided', sub { $_[0]{provides} = {} }, qr/^provides: must be a map of at least one extension/m ],
	[ 'a provided extension without file', sub { delete $_[0]{provides}{pg_cachectl}{file} }, qr/^provides\.pg_cachectl\.file: is required/m ],
	[ 'a provided extension without version', sub { delete $_[0]{provides}{pg_cachectl}{version} }, qr/^provides\.pg_cachectl\.version: is required/m ],
	[ 'a provided extension with a two-part version', sub { $_[0]{provides}{pg_cachectl}{version} = '1.0' }, qr/^provides\.pg_cachectl\.version: "1.0" is not a semantic version/m ],
	[ 'an absolute file', sub { $_[0]{provides}{pg_cachectl}{file} = '/usr/share/x.sql' }, qr/^provides\.pg_cachectl\.file: must be a relative unix path/m ],
	[ 'a file outside the distribution', sub { $_[0]{provides}{pg_cachectl}{file} = '../x.sql' }, qr/^provides\.pg_cachectl\.file: must be a relative unix path/m ],
	[ 'a file with a backslash', sub { $_[0]{provides}{pg_cachectl}{file} = 'sql\\x.sql' }, qr/^provides\.pg_cachectl\.file: must be a relative unix path/m ],
	[ 'a docfile that is a list', sub { $_[0]{provides}{pg_cachectl}{docfile} = ['README.md'] }, qr/^provides\.pg_cachectl\.docfile: must be a relative unix path/m ],
	[ 'an extension name of one character', sub { $_[0]{provides}{p} = delete $_[0]{provides}{pg_cachectl} }, qr/^provides\.p: the extension name is not a term/m ],
	[ 'an unknown key in provides', sub { $_[0]{provides}{pg_cachectl}{files} = 'a' }, qr/^provides\.pg_cachectl\.files: is not a key of the PGXN Meta Spec/m ],
	[ 'meta-spec 2.0.0', sub { $_[0]{'meta-spec'}{version} = '2.0.0' }, qr/^meta-spec\.version: 2\.0\.0 is not supported/m ],
	[ 'meta-spec as a string', sub { $_[0]{'meta-spec'} = '1.0.0' }, qr/^meta-spec: must be a map/m ],
	[ 'meta-spec without version', sub { delete $_[0]{'meta-spec'}{version} }, qr/^meta-spec\.version: must be a version, not null/m ],
	[ 'a meta-spec url that is not a URI', sub { $_[0]{'meta-spec'}{url} = 'the spec' }, qr/^meta-spec\.url: must be a URI/m ],
	[ 'an unknown top-level key', sub { $_[0]{homepage} = 'https://example.org/' }, qr/^homepage: is not a key of the PGXN Meta Spec/m ],
	[ 'a tag with a slash', sub { $_[0]{tags} = ['a/b'] }, qr/^tags\[0\]: "a\/b" is not a tag/m ],
	[ 'a tag of 256 characters', sub { $_[0]{tags} = ['t' x 256] }, qr/^tags\[0\]: .* is not a tag/m ],
	[ 'a tag that is a number', sub { $_[0]{tags} = [7] }, qr/^tags\[0\]: the number 7 is not a tag/m ],
	[ 'tags as a map', sub { $_[0]{tags} = { a => 1 } }, qr/^tags: must be a list of tags/m ],
	[ 'an unknown prereqs phase', sub { $_[0]{prereqs}{install} = { requires => { plpgsql => 0 } } }, qr/^prereqs\.install: is not a key/m ],
	[ 'an unknown relationship', sub { $_[0]{prereqs}{runtime}{needs} = { plpgsql => 0 } }, qr/^prereqs\.runtime\.needs: is not a key/m ],
	[ 'a phase that is not a map', sub { $_[0]{prereqs}{build} = 'make' }, qr/^prereqs\.build: must be a map of relationships/m ],
	[ 'a range with an unknown operator', $range_of_postgresql->('>> 15.0.0'), qr/^prereqs\.runtime\.requires\.PostgreSQL: ">> 15\.0\.0" is not a version range/m ],
	[ 'a range of one number', $range_of_postgresql->('15'), qr/^prereqs\.runtime\.requires\.PostgreSQL: "15" is not a version range/m ],
	[ 'a range that is a number other than 0', $range_of_postgresql->(15), qr/^prereqs\.runtime\.requires\.PostgreSQL: the number 15 is not a version range/m ],
	[ 'a range with an empty clause', $range_of_postgresql->('>= 15.0.0,'), qr/^prereqs\.runtime\.requires\.PostgreSQL: .* is not a version range/m ],
	[ 'an unknown release status', sub { $_[0]{release_status} = 'beta' }, qr/^release_status: "beta" is not one of stable, testing, unstable/m ],
	[ 'resources as a string', sub { $_[0]{resources} = 'https://example.org/' }, qr/^resources: must be a map/m ],
	[ 'a homepage without a scheme', sub { $_[0]{resources} = { homepage => 'example.org' } }, qr/^resources\.homepage: must be a URI/m ],
	[ 'a bug tracker that is not a URI', sub { $_[0]{resources} = { bugtracker => { web => 'the issues' } } }, qr/^resources\.bugtracker\.web: must be a URI/m ],
	[ 'a bug address without @', sub { $_[0]{resources} = { bugtracker => { mailto => 'bugs' } } }, qr/^resources\.bugtracker\.mailto: "bugs" is not an email address/m ],
	[ 'a repository type in capitals', sub { $_[0]{resources} = { repository => { type => 'Git' } } }, qr/^resources\.repository\.type: "Git" is not a lower-case name/m ],
	[ 'an unknown repository key', sub { $_[0]{resources} = { repository => { branch => 'main' } } }, qr/^resources\.repository\.branch: is not a key/m ],
	[ 'an absolute no_index file', sub { $_[0]{no_index} = { file => ['/etc/passwd'] } }, qr/^no_index\.file\[0\]: "\/etc\/passwd" is not a relative unix path/m ],
	[ 'an unknown no_index key', sub { $_[0]{no_index} = { dirs => ['test'] } }, qr/^no_index\.dirs: is not a key/m ],
);
foreach my $case (@rejected)
{
	my ($name, $change, $message) = @$case;
	my ($status, $output) = check_text(changed_meta($change));
	is($status, 1, "rejected: $name");
	like($output, $message, "the checker says why: $name");
}

($status, $output) = check_text('{"name": "pg_cachectl",');
is($status, 1, 'rejected: text that is not JSON');
like($output, qr/is not valid JSON/, 'the checker says it is not JSON');
($status, $output) = check_text('["pg_cachectl"]');
is($status, 1, 'rejected: a list instead of a map');
like($output, qr/^\(top level\): must be a map, not a list/m, 'the checker says a map is needed');

# ---- what the spec allows ----

my @accepted = (
	[ 'a maintainer string', sub { $_[0]{maintainer} = 'someone <someone@example.org>' } ],
	[ 'a license list', sub { $_[0]{license} = [ 'postgresql', 'mit' ] } ],
	[ 'a license map', sub { $_[0]{license} = { PostgreSQL => 'https://www.postgresql.org/about/licence' } } ],
	[ 'a tags string', sub { $_[0]{tags} = 'cache' } ],
	[ 'a tag of 255 characters', sub { $_[0]{tags} = ['t' x 255] } ],
	[ 'custom keys', sub {
		$_[0]{x_support} = { anything => [1] };
		$_[0]{provides}{pg_cachectl}{X_origin} = 'here';
		$_[0]{resources}{x_chat} = 'irc://example.org/x';
	  } ],
	[ 'resources of every kind', sub {
		$_[0]{resources} = {
			homepage => 'https://example.org/pg_cachectl/',
			bugtracker => { web => 'https://example.org/pg_cachectl/issues', mailto => 'bugs@example.org' },
			repository => { url => 'https://example.org/pg_cachectl.git', web => 'https://example.org/pg_cachectl', type => 'git' },
		};
	  } ],
	[ 'version ranges of each form', sub {
		$_[0]{prereqs} = {
			runtime => { requires => { PostgreSQL => '>= 15.0.0, < 19.0.0, != 15.1.0' }, recommends => { PostgreSQL => '== 15.20.0' } },
			test => { suggests => { pg_prewarm => 0, pgfincore => '0' } },
			develop => { conflicts => { pgfincore => '<= 1.1.0' } },
		};
	  } ],
	[ 'a pre-release with build metadata', sub { $_[0]{version} = '1.0.0-rc.1+build.5' } ],
	[ 'only the required keys', sub {
		delete $_[0]{$_} foreach qw(description generated_by tags no_index prereqs release_status resources);
	  } ],
);
foreach my $case (@accepted)
{
	my ($name, $change) = @$case;
	my ($status, $output) = check_text(changed_meta($change));
	is($status, 0, "accepted: $name");
	is($output, '', "no complaint: $name");
}

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

my @disagreements = (
	[ 'a version the control file does not have', sub { $_[0]{version} = $_[0]{provides}{pg_cachectl}{version} = '1.0.1' },
		qr/^version: must be 1\.0\.0, the default_version 1\.0 of pg_cachectl\.control/m ],
	[ 'an extension version the control file does not have', sub { $_[0]{provides}{pg_cachectl}{version} = '1.1.0' },
		qr/^provides\.pg_cachectl\.version: must be 1\.0\.0/m ],
	[ 'another distribution name', sub { $_[0]{name} = 'cachectl' }, qr/^name: must be the extension's name, pg_cachectl/m ],
	[ 'pg_cachectl not provided', sub { $_[0]{provides}{cachectl} = delete $_[0]{provides}{pg_cachectl} },
		qr/^provides\.pg_cachectl: is missing/m ],
	[ 'a file that does not exist', sub { $_[0]{provides}{pg_cachectl}{file} = 'sql/pg_cachectl--0.9.sql' },
		qr/^provides\.pg_cachectl\.file: sql\/pg_cachectl--0\.9\.sql does not exist/m ],
	[ 'no PostgreSQL version', sub { delete $_[0]{prereqs} }, qr/^prereqs\.runtime\.requires\.PostgreSQL: must state/m ],
	[ 'no tags', sub { delete $_[0]{tags} }, qr/^tags: must list at least one tag/m ],
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
like($output, qr/^version: debian\/changelog's latest version is 9\.9\.9, not 1\.0\.0/m,
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
