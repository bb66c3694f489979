#!/usr/bin/perl
# check_pgxn_meta.pl — checks a META.json against the PGXN Meta Spec 1.0.x
# (https://pgxn.org/spec/): every required key, the type of every key the
# spec defines, and no key it does not define unless it starts with "x_".
# With --project DIR it also checks that the file agrees with the source tree
# it describes (the extension's name and version in its control file, files
# that exist, a PostgreSQL version, tags, debian/changelog's version).
#
#   perl scripts/check_pgxn_meta.pl [--project DIR] META.json
#
# Prints one line per problem, "KEY: what is wrong", and exits 1 if there is
# any; prints nothing and exits 0 when the file is valid.  No PGXN validator
# is packaged for Debian or npm, hence this one (JSON::PP is in core Perl).
use strict;
use warnings;

use B ();
use Getopt::Long ();
use JSON::PP ();

my $project_dir;
Getopt::Long::GetOptions('project=s' => \$project_dir)
  or die "usage: $0 [--project DIR] META.json\n";
@ARGV == 1 or die "usage: $0 [--project DIR] META.json\n";
my $meta_file = $ARGV[0];

my @problems;

sub problem
{
	my ($key, $message) = @_;
	push @problems, "$key: $message";
	return;
}

# ---- the spec's data types ----

# JSON::PP gives a JSON string a Perl string and a JSON number a Perl number;
# the spec's String is the former only, and never empty.
sub is_json_string
{
	my ($value) = @_;
	return 0 if !defined $value || ref $value;
	my $flags = B::svref_2object(\$value)->FLAGS;
	return ($flags & B::SVp_POK) && !($flags & (B::SVp_IOK | B::SVp_NOK));
}

sub is_string
{
	my ($value) = @_;
	return is_json_string($value) && length($value) > 0;
}

sub is_map  { return ref($_[0]) eq 'HASH' }
sub is_list { return ref($_[0]) eq 'ARRAY' }

# Term: at least two characters, no slash, backslash, control or space.
sub is_term
{
	my ($value) = @_;
	return is_string($value)
	  && length($value) >= 2
	  && $value !~ m{[/\\[:cntrl:]\s]};
}

# Tag: fewer than 256 characters, no slash, backslash or control character.
sub is_tag
{
	my ($value) = @_;
	return is_string($value)
	  && length($value) < 256
	  && $value !~ m{[/\\[:cntrl:]]};
}

# URI: a scheme, a colon, then no white space.
sub is_uri
{
	my ($value) = @_;
	return is_string($value) && $value =~ m{\A[A-Za-z][A-Za-z0-9+.-]*:\S+\z};
}

# Version: Semantic Versioning 2.0.0, as the spec says.
my $numeric_identifier = qr/(?:0|[1-9][0-9]*)/;
my $prerelease_identifier = qr/(?:$numeric_identifier|[0-9]*[A-Za-z-][0-9A-Za-z-]*)/;
my $semver = qr/
	$numeric_identifier \. $numeric_identifier \. $numeric_identifier
	(?: - $prerelease_identifier (?: \. $prerelease_identifier )* )?
	(?: \+ [0-9A-Za-z-]+ (?: \. [0-9A-Za-z-]+ )* )?
/x;

sub is_version
{
	my ($value) = @_;
	return is_string($value) && $value =~ /\A$semver\z/;
}

# Version Range: 0 (any version), a version (at least that one), or clauses
# "OP VERSION" joined by commas.
sub is_version_range
{
	my ($value) = @_;
	return 0 unless defined $value && !ref $value;
	return 1 if !is_json_string($value) && $value == 0;
	return 0 unless is_string($value);
	return 1 if $value eq '0';
	foreach my $clause (split /,/, $value, -1)
	{
		return 0
		  unless $clause =~ /\A\s*(?:(?:<=|>=|==|!=|<|>)\s*)?$semver\s*\z/;
	}
	return 1;
}

my %license_strings = map { $_ => 1 } qw(
  agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2
  gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1
  openssl perl_5 postgresql qpl_1_0 ssleay sun zlib
  open_source restricted unrestricted unknown);

# A relative path with unix conventions.
sub is_relative_path
{
	my ($value) = @_;
	return is_string($value)
	  && $value !~ m{\A/}
	  && $value !~ m{\\}
	  && $value !~ m{(?:\A|/)\.\.(?:/|\z)};
}

sub is_custom_key { return $_[0] =~ /\Ax_/i }

# Consumers must read a String where a List is expected as a List of one.
sub as_list
{
	my ($value) = @_;
	return $value if is_list($value);
	return [$value] if is_string($value);
	return undef;
}

sub describe
{
	my ($value) = @_;
	return 'null' unless defined $value;
	return 'a map' if is_map($value);
	return 'a list' if is_list($value);
	return 'a boolean' if ref $value;
	return 'an empty string' if is_json_string($value) && $value eq '';
	return "\"$value\"" if is_json_string($value);
	return "the number $value";
}

# Reports keys of a map that the spec does not define and that are not
# custom ("x_") keys.
sub check_known_keys
{
	my ($where, $map, @known) = @_;
	my %known = map { $_ => 1 } @known;
	foreach my $key (sort keys %$map)
	{
		problem("$where$key", 'is not a key of the PGXN Meta Spec (custom keys start with "x_")')
		  unless $known{$key} || is_custom_key($key);
	}
	return;
}

sub check_string_key
{
	my ($where, $value) = @_;
	problem($where, 'must be a non-empty string, not ' . describe($value))
	  unless is_string($value);
	return;
}

sub check_uri_key
{
	my ($where, $value) = @_;
	problem($where, 'must be a URI, not ' . describe($value))
	  unless is_uri($value);
	return;
}

# ---- the structure ----

sub check_meta_spec
{
	my ($meta_spec) = @_;
	if (!is_map($meta_spec))
	{
		problem('meta-spec', 'must be a map with a "version" key, not ' . describe($meta_spec));
		return 0;
	}
	check_known_keys('meta-spec.', $meta_spec, qw(version url));
	my $version = $meta_spec->{version};
	if (!is_version($version))
	{
		problem('meta-spec.version', 'must be a version, not ' . describe($version));
		return 0;
	}
	check_uri_key('meta-spec.url', $meta_spec->{url})
	  if exists $meta_spec->{url};
	# consumers must stop at a spec version they do not know
	if ($version !~ /\A1\.0\.[0-9]+\z/)
	{
		problem('meta-spec.version', "$version is not supported: this checks version 1.0.x");
		return 0;
	}
	return 1;
}

sub check_maintainer
{
	my ($maintainer) = @_;
	my $list = as_list($maintainer);
	if (!defined $list || !@$list)
	{
		problem('maintainer', 'must be a string or a list of one or more strings, not ' . describe($maintainer));
		return;
	}
	for my $i (0 .. $#$list)
	{
		check_string_key("maintainer[$i]", $list->[$i]);
	}
	return;
}

sub check_license
{
	my ($license) = @_;
	if (is_map($license))
	{
		problem('license', 'must name at least one license') unless %$license;
		foreach my $name (sort keys %$license)
		{
			problem("license.$name", 'must be the URI of the license, not ' . describe($license->{$name}))
			  unless is_uri($license->{$name});
		}
		return;
	}
	my $list = as_list($license);
	if (!defined $list || !@$list)
	{
		problem('license', 'must be a license string, a list of them or a map of names to URIs, not ' . describe($license));
		return;
	}
	for my $i (0 .. $#$list)
	{
		my $value = $list->[$i];
		problem("license[$i]", describe($value) . ' is not a license string of the spec (e.g. "postgresql")')
		  unless is_string($value) && $license_strings{$value};
	}
	return;
}

sub check_provides
{
	my ($provides) = @_;
	if (!is_map($provides) || !%$provides)
	{
		problem('provides', 'must be a map of at least one extension, not ' . describe($provides));
		return;
	}
	foreach my $extension (sort keys %$provides)
	{
		my $where = "provides.$extension";
		problem($where, 'the extension name is not a term (two or more characters, no slash, backslash, control or space)')
		  unless is_term($extension);
		my $entry = $provides->{$extension};
		if (!is_map($entry))
		{
			problem($where, 'must be a map with "file" and "version", not ' . describe($entry));
			next;
		}
		check_known_keys("$where.", $entry, qw(file version abstract docfile));
		if (!exists $entry->{file})
		{
			problem("$where.file", 'is required');
		}
		elsif (!is_relative_path($entry->{file}))
		{
			problem("$where.file", 'must be a relative unix path, not ' . describe($entry->{file}));
		}
		if (!exists $entry->{version})
		{
			problem("$where.version", 'is required');
		}
		elsif (!is_version($entry->{version}))
		{
			problem("$where.version", describe($entry->{version}) . ' is not a semantic version (MAJOR.MINOR.PATCH)');
		}
		check_string_key("$where.abstract", $entry->{abstract})
		  if exists $entry->{abstract};
		problem("$where.docfile", 'must be a relative unix path, not ' . describe($entry->{docfile}))
		  if exists $entry->{docfile} && !is_relative_path($entry->{docfile});
	}
	return;
}

sub check_tags
{
	my ($tags) = @_;
	my $list = as_list($tags);
	if (!defined $list)
	{
		problem('tags', 'must be a list of tags, not ' . describe($tags));
		return;
	}
	for my $i (0 .. $#$list)
	{
		problem("tags[$i]", describe($list->[$i]) . ' is not a tag (a string under 256 characters, no slash, backslash or control character)')
		  unless is_tag($list->[$i]);
	}
	return;
}

sub check_no_index
{
	my ($no_index) = @_;
	if (!is_map($no_index))
	{
		problem('no_index', 'must be a map, not ' . describe($no_index));
		return;
	}
	check_known_keys('no_index.', $no_index, qw(file directory));
	foreach my $kind (grep { exists $no_index->{$_} } qw(file directory))
	{
		my $list = as_list($no_index->{$kind});
		if (!defined $list)
		{
			problem("no_index.$kind", 'must be a list of relative paths, not ' . describe($no_index->{$kind}));
			next;
		}
		for my $i (0 .. $#$list)
		{
			problem("no_index.$kind\[$i]", describe($list->[$i]) . ' is not a relative unix path')
			  unless is_relative_path($list->[$i]);
		}
	}
	return;
}

sub check_prereqs
{
	my ($prereqs) = @_;
	if (!is_map($prereqs))
	{
		problem('prereqs', 'must be a map of phases, not ' . describe($prereqs));
		return;
	}
	check_known_keys('prereqs.', $prereqs, qw(configure build test runtime develop));
	foreach my $phase (sort grep { !is_custom_key($_) } keys %$prereqs)
	{
		my $relationships = $prereqs->{$phase};
		if (!is_map($relationships))
		{
			problem("prereqs.$phase", 'must be a map of relationships, not ' . describe($relationships));
			next;
		}
		check_known_keys("prereqs.$phase.", $relationships, qw(requires recommends suggests conflicts));
		foreach my $relationship (sort grep { !is_custom_key($_) } keys %$relationships)
		{
			my $where = "prereqs.$phase.$relationship";
			my $relations = $relationships->{$relationship};
			if (!is_map($relations))
			{
				problem($where, 'must be a map of extension names to version ranges, not ' . describe($relations));
				next;
			}
			foreach my $name (sort keys %$relations)
			{
				problem("$where.$name", 'the name is not a term')
				  unless is_term($name);
				problem("$where.$name", describe($relations->{$name}) . ' is not a version range (0, "1.2.3" or e.g. ">= 1.2.0, < 2.0.0")')
				  unless is_version_range($relations->{$name});
			}
		}
	}
	return;
}

sub check_resources
{
	my ($resources) = @_;
	if (!is_map($resources))
	{
		problem('resources', 'must be a map, not ' . describe($resources));
		return;
	}
	check_known_keys('resources.', $resources, qw(homepage bugtracker repository));
	check_uri_key('resources.homepage', $resources->{homepage})
	  if exists $resources->{homepage};
	if (exists $resources->{bugtracker})
	{
		my $bugtracker = $resources->{bugtracker};
		if (!is_map($bugtracker))
		{
			problem('resources.bugtracker', 'must be a map, not ' . describe($bugtracker));
		}
		else
		{
			check_known_keys('resources.bugtracker.', $bugtracker, qw(web mailto));
			check_uri_key('resources.bugtracker.web', $bugtracker->{web})
			  if exists $bugtracker->{web};
			problem('resources.bugtracker.mailto', describe($bugtracker->{mailto}) . ' is not an email address')
			  if exists $bugtracker->{mailto}
			  && !(is_string($bugtracker->{mailto}) && $bugtracker->{mailto} =~ /\A[^@\s]+@[^@\s]+\z/);
		}
	}
	if (exists $resources->{repository})
	{
		my $repository = $resources->{repository};
		if (!is_map($repository))
		{
			problem('resources.repository', 'must be a map, not ' . describe($repository));
		}
		else
		{
			check_known_keys('resources.repository.', $repository, qw(url web type));
			foreach my $key (grep { exists $repository->{$_} } qw(url web))
			{
				check_uri_key("resources.repository.$key", $repository->{$key});
			}
			problem('resources.repository.type', describe($repository->{type}) . ' is not a lower-case name such as "git"')
			  if exists $repository->{type}
			  && !(is_string($repository->{type}) && $repository->{type} =~ /\A[a-z0-9]+\z/);
		}
	}
	return;
}

sub check_meta
{
	my ($meta) = @_;
	if (!is_map($meta))
	{
		problem('(top level)', 'must be a map, not ' . describe($meta));
		return;
	}
	# the spec's version decides how to read the rest
	if (!exists $meta->{'meta-spec'})
	{
		problem('meta-spec', 'is required');
		return;
	}
	return unless check_meta_spec($meta->{'meta-spec'});

	foreach my $required (qw(name version abstract maintainer license provides))
	{
		problem($required, 'is required') unless exists $meta->{$required};
	}
	check_known_keys('', $meta,
		qw(name version abstract maintainer license provides meta-spec
		  description generated_by tags no_index prereqs release_status resources));

	problem('name', describe($meta->{name}) . ' is not a term (two or more characters, no slash, backslash, control or space)')
	  if exists $meta->{name} && !is_term($meta->{name});
	problem('version', describe($meta->{version}) . ' is not a semantic version (MAJOR.MINOR.PATCH)')
	  if exists $meta->{version} && !is_version($meta->{version});
	foreach my $key (qw(abstract description generated_by))
	{
		check_string_key($key, $meta->{$key}) if exists $meta->{$key};
	}
	check_maintainer($meta->{maintainer}) if exists $meta->{maintainer};
	check_license($meta->{license}) if exists $meta->{license};
	check_provides($meta->{provides}) if exists $meta->{provides};
	check_tags($meta->{tags}) if exists $meta->{tags};
	check_no_index($meta->{no_index}) if exists $meta->{no_index};
	check_prereqs($meta->{prereqs}) if exists $meta->{prereqs};
	problem('release_status', describe($meta->{release_status}) . ' is not one of stable, testing, unstable')
	  if exists $meta->{release_status}
	  && !(is_string($meta->{release_status}) && $meta->{release_status} =~ /\A(?:stable|testing|unstable)\z/);
	check_resources($meta->{resources}) if exists $meta->{resources};
	return;
}

# ---- agreement with the source tree (--project) ----

sub read_file
{
	my ($path) = @_;
	open(my $handle, '<', $path) or return undef;
	local $/;
	my $text = <$handle>;
	close($handle);
	return $text;
}

sub check_project
{
	my ($meta, $dir) = @_;
	return unless is_map($meta);

	my @controls = glob("$dir/*.control");
	if (@controls != 1)
	{
		problem('(project)', "expected one extension control file in $dir, found " . scalar(@controls));
		return;
	}
	my ($extension) = $controls[0] =~ m{([^/]+)\.control\z};
	my $control = read_file($controls[0]);
	my ($default_version) = $control =~ /^\s*default_version\s*=\s*'([^']*)'/m;
	if (!defined $default_version)
	{
		problem('(project)', "$extension.control has no default_version");
		return;
	}
	# the control file's "1.0" is version 1.0.0 for PGXN
	my @parts = split /\./, $default_version;
	push @parts, 0 while @parts < 3;
	my $expected_version = join('.', @parts);

	problem('name', "must be the extension's name, $extension")
	  unless defined $meta->{name} && !ref $meta->{name} && $meta->{name} eq $extension;
	problem('version', "must be $expected_version, the default_version $default_version of $extension.control")
	  unless defined $meta->{version} && !ref $meta->{version} && $meta->{version} eq $expected_version;

	my $provides = is_map($meta->{provides}) ? $meta->{provides} : {};
	my $entry = $provides->{$extension};
	if (!is_map($entry))
	{
		problem("provides.$extension", 'is missing: the distribution provides this extension');
	}
	else
	{
		problem("provides.$extension.version", "must be $expected_version, the default_version $default_version of $extension.control")
		  unless defined $entry->{version} && !ref $entry->{version} && $entry->{version} eq $expected_version;
	}
	foreach my $name (sort keys %$provides)
	{
		next unless is_map($provides->{$name});
		foreach my $key (qw(file docfile))
		{
			my $path = $provides->{$name}{$key};
			next unless is_relative_path($path);
			problem("provides.$name.$key", "$path does not exist in $dir")
			  unless -f "$dir/$path";
		}
	}

	my $postgresql = is_map($meta->{prereqs})
	  && is_map($meta->{prereqs}{runtime})
	  && is_map($meta->{prereqs}{runtime}{requires})
	  ? $meta->{prereqs}{runtime}{requires}{PostgreSQL}
	  : undef;
	problem('prereqs.runtime.requires.PostgreSQL', 'must state the PostgreSQL versions the extension builds for')
	  unless defined $postgresql;

	my $tags = as_list($meta->{tags});
	problem('tags', 'must list at least one tag, for PGXN search')
	  unless defined $tags && @$tags;

	my $licenses = as_list($meta->{license});
	problem('license', 'names the PostgreSQL License, but there is no LICENSE file')
	  if defined $licenses && grep({ defined $_ && !ref $_ && $_ eq 'postgresql' } @$licenses)
	  && !-f "$dir/LICENSE";

	my $changelog = read_file("$dir/debian/changelog");
	if (defined $changelog)
	{
		my ($debian_version) = $changelog =~ /\A\S+ \(([^)]+)\)/;
		problem('version', "debian/changelog's latest version is " . ($debian_version // 'unreadable') . ", not $meta->{version}")
		  if defined $meta->{version} && !ref $meta->{version}
		  && (!defined $debian_version || $debian_version ne $meta->{version});
	}
	return;
}

# ---- main ----

my $text = read_file($meta_file);
die "cannot read $meta_file: $!\n" unless defined $text;
my $meta = eval { JSON::PP->new->utf8->decode($text) };
if (!defined $meta && $@)
{
	chomp(my $error = $@);
	problem($meta_file, "is not valid JSON: $error");
}
else
{
	check_meta($meta);
	check_project($meta, $project_dir) if defined $project_dir;
}

print "$_\n" foreach @problems;
exit(@problems ? 1 : 0);
