# CachectlTest.pm — what the scenario tests share: the check that util-linux
# fincore can judge them here, the OS page size, fincore's resident page
# counts (to compare pg_cachectl's figures with), and relations made huge
# with sparse segment files.
package CachectlTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT_OK = qw(require_fincore_on_disk os_page_size fincore_pages fincore_page_list
  extend_with_sparse_segments);

# Skips the whole test where fincore is missing, or where the test directory
# (the nodes' data directories live under it) is on tmpfs: DONTNEED drops
# nothing there, so no cold state could be made.
sub require_fincore_on_disk
{
	my ($fincore_found) = run_command([ 'sh', '-c', 'command -v fincore' ]);
	plan skip_all => 'util-linux fincore is not installed'
	  unless $fincore_found;
	my ($fs_type) = run_command(
		[ 'stat', '-f', '-c', '%T', $PostgreSQL::Test::Utils::tmp_check ]);
	plan skip_all =>
	  'the test directory is on tmpfs, where POSIX_FADV_DONTNEED drops nothing'
	  if $fs_type eq 'tmpfs';
	return;
}

# The kernel's page size, the unit of fincore's and pg_cachectl's page counts.
sub os_page_size
{
	my ($size) = run_command([ 'getconf', 'PAGESIZE' ]);
	return $size;
}

# fincore's resident page count of each file, keyed by the file's path; dies
# when fincore says nothing of one of them.
sub fincore_pages
{
	my @files = @_;
	my ($stdout, $stderr);
	IPC::Run::run(
		[
			'fincore', '--raw', '--noheadings', '--bytes',
			'--output', 'PAGES,FILE', @files
		],
		'>', \$stdout, '2>', \$stderr)
	  or die "fincore failed: $stderr";
	my %pages;
	foreach my $line (split /\n/, $stdout)
	{
		my ($count, $file) = split / /, $line, 2;
		$pages{$file} = $count;
	}
	foreach my $file (@files)
	{
		die "fincore reported nothing for \"$file\""
		  unless defined $pages{$file};
	}
	return \%pages;
}

# The same counts as a list, in the order of the files given.
sub fincore_page_list
{
	my @files = @_;
	my $pages = fincore_pages(@files);
	return [ map { $pages->{$_} } @files ];
}

# Makes a table of the node's default database $segments GiB large without
# using the disk: its first segment file and $segments - 1 more are extended
# to 1 GiB as sparse files, which PostgreSQL reads as all-zero (new) pages.
# The table's existing pages must be on disk first (a CHECKPOINT).
sub extend_with_sparse_segments
{
	my ($node, $table, $segments) = @_;
	my $segment_bytes = 1024 * 1024 * 1024;
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres', qq{SELECT pg_relation_filepath('$table')});
	foreach my $segment (0 .. $segments - 1)
	{
		my $file = $segment == 0 ? $path : "$path.$segment";
		open(my $handle, '>>', $file) or die "could not open \"$file\": $!";
		truncate($handle, $segment_bytes)
		  or die "could not extend \"$file\": $!";
		close($handle);
	}
	return;
}

1;
