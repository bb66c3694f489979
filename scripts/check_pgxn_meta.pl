#!/usr/bin/perl
# check_pgxn_meta.pl — checks that META.json agrees with the source tree it
# ships with: the extension's name and default_version in its control file,
# the files it names, a PostgreSQL version, LICENSE, debian/changelog.  The
# PGXN Meta Spec itself is PGXN's to enforce when the zip is uploaded.
#
#   perl scripts/check_pgxn_meta.pl [--project DIR] META.json
#
# DIR is the tree (META.json's own directory by default).  Prints one line
# per problem, "KEY: what is wrong", and exits 1 if there is any.
use strict;
use warnings;

use File::Basename ();
use Getopt::Long ();
use JSON::PP ();

my $dir;
Getopt::Long::GetOptions('project=s' => \$dir)
  and @ARGV == 1
  or die "usage: $0 [--project DIR] META.json\n";
my $meta_file = $ARGV[0];
$dir //= File::Basename::dirname($meta_file);

sub read_file
{
	my ($path) = @_;
	open(my $handle, '<', $path) or return undef;
	local $/;
	return scalar <$handle>;
}

my @problems;
sub problem { push @problems, "$_[0]: $_[1]"; return; }

# A problem that leaves nothing else to check.
sub give_up { print "$_[0]\n"; exit 1; }

my $text = read_file($meta_file) // give_up("$meta_file: $!");
my $meta = eval { JSON::PP->new->decode($text) };
give_up("$meta_file is not valid JSON: " . ($@ || 'not a map')) unless ref $meta eq 'HASH';

# The one extension of the tree is the one whose control file is at the top.
my ($control_file) = glob("$dir/*.control");
give_up("$dir has no control file") unless defined $control_file;
my $extension = File::Basename::basename($control_file, '.control');
my ($default_version) = (read_file($control_file) // '') =~ /^\s*default_version\s*=\s*'([^']*)'/m;
give_up("$extension.control has no default_version") unless defined $default_version;
# PGXN versions have three parts: '1.0' is 1.0.0.
my @parts = split /\./, $default_version;
push @parts, 0 while @parts < 3;
my $version = join '.', @parts;

problem('name', "must be the extension's name, $extension")
  unless ($meta->{name} // '') eq $extension;
problem('version', "must be $version, the default_version $default_version of $extension.control")
  unless ($meta->{version} // '') eq $version;

my $provided = $meta->{provides}{$extension};
if (ref $provided ne 'HASH')
{
	problem("provides.$extension", 'is missing');
}
else
{
	problem("provides.$extension.version", "must be $version")
	  unless ($provided->{version} // '') eq $version;
	foreach my $key ('file', 'docfile')
	{
		my $path = $provided->{$key};
		next if !defined $path && $key eq 'docfile';
		problem("provides.$extension.$key", ($path // 'it') . ' does not exist')
		  unless defined $path && !ref $path && -f "$dir/$path";
	}
}

problem('prereqs.runtime.requires.PostgreSQL', 'must state the oldest PostgreSQL it supports')
  unless defined $meta->{prereqs}{runtime}{requires}{PostgreSQL};
problem('license', 'names the PostgreSQL License, but there is no LICENSE file')
  if ($meta->{license} // '') eq 'postgresql' && !-f "$dir/LICENSE";

my $changelog = read_file("$dir/debian/changelog");
if (defined $changelog)
{
	my ($debian_version) = $changelog =~ /\A\S+ \(([^)]+)\)/;
	problem('version', "debian/changelog's latest version is " . ($debian_version // 'unreadable') . ", not $version")
	  unless ($debian_version // '') eq $version;
}

print "$_\n" foreach @problems;
exit(@problems ? 1 : 0);
