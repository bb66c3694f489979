# 042_build_follows_pg_config.pl
#
# Objects belong to the server they were built for.  In a copy of the tree
# built for the server under test, `make` with the same PG_CONFIG has
# nothing to do, while `make PG_CONFIG=<another installation>` (here a
# pg_config at another path that forwards to the same one, as a second
# installation looks to make) must rebuild: before the fix PGXS reused the
# objects and `make test PG_CONFIG=<18's pg_config>` installed a module
# built for 15 ("undefined symbol: pg_popcount").  The same holds for
# `make install`.  `make clean` removes the record.
#
# It builds in a copy of the source tree (PG_CACHECTL_SOURCE_DIR) and starts
# no server, so it keeps the user it was started as.
#
# tap: starts as root
use strict;
use warnings;

use CommandOutput qw(run_capturing);
use File::Temp ();
use Test::More;

my $source_dir = $ENV{PG_CACHECTL_SOURCE_DIR};
plan skip_all => 'PG_CACHECTL_SOURCE_DIR is not set (run it through test/run_tap.sh)'
  unless defined $source_dir;

my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $work = File::Temp::tempdir('cachectl-build.XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $tree = "$work/tree";

# cp -a keeps the times, so the objects that make test built for the server
# under test come along up to date: its first make below then has nothing
# to do (a tree not built yet is built there), and only the other
# installation's build is paid for (two builds took 203-308 s of make test
# beside the unit build).
my ($status, $output) = run_capturing('cp', '-a', $source_dir, $tree);
is($status, 0, 'the source tree is copied') or diag($output);

# A second installation as make sees it: another pg_config path.
my $other = "$work/other-installation/bin";
system('mkdir', '-p', $other) == 0 or die "mkdir $other";
my $real_pg_config = `sh -c 'command -v "\$0"' '$pg_config'`;
chomp $real_pg_config;
die "no pg_config found for '$pg_config'" unless $real_pg_config ne '';
open(my $wrapper, '>', "$other/pg_config") or die "write $other/pg_config: $!";
print $wrapper "#!/bin/sh\nexec '$real_pg_config' \"\$@\"\n";
close($wrapper);
chmod(0755, "$other/pg_config") or die "chmod: $!";

sub make_in_tree
{
	my @arguments = @_;
	return run_capturing('make', '-s', '-C', $tree, "PG_CONFIG=$pg_config", @arguments);
}

($status, $output) = make_in_tree('-j2');
is($status, 0, 'the module builds for the server under test') or diag($output);
ok(-f "$tree/pg_cachectl.so", 'the module is there');
ok(-f "$tree/.built-for", 'the build records which installation it is for');

($status) = make_in_tree('-q');
is($status, 0, 'make with the same PG_CONFIG has nothing to do');
($status, $output) = make_in_tree('-n', 'install');
unlike($output, qr{-o src/pg/relation_set/relation_set\.o}, 'make install with the same PG_CONFIG compiles nothing');

($status, $output) = run_capturing('make', '-n', '-C', $tree, "PG_CONFIG=$other/pg_config", 'install');
like($output, qr{-o src/pg/relation_set/relation_set\.o}, 'make install with another PG_CONFIG compiles the shim again');
like($output, qr{-o src/core/bitmap\.o}, 'and the core');
($status) = run_capturing('make', '-s', '-q', '-C', $tree, "PG_CONFIG=$other/pg_config");
isnt($status, 0, 'make with another PG_CONFIG is not up to date');
ok(!-e "$tree/pg_cachectl.so", 'the module built for the other installation is gone');
ok(!-e "$tree/src/pg/relation_set/relation_set.o" && !-e "$tree/src/core/bitmap.o",
	'so are the shim and core objects');

($status, $output) = run_capturing('make', '-s', '-C', $tree, "PG_CONFIG=$other/pg_config", '-j2');
is($status, 0, 'the module builds for the other installation') or diag($output);
($status) = run_capturing('make', '-s', '-q', '-C', $tree, "PG_CONFIG=$other/pg_config");
is($status, 0, 'and is then up to date for it');
my $recorded = do { local (@ARGV, $/) = ("$tree/.built-for"); <> };
like($recorded, qr{\Q$other/pg_config\E}, 'the record names that installation');

($status) = make_in_tree('clean');
is($status, 0, 'make clean runs');
ok(!-e "$tree/.built-for", 'make clean removes the record');

done_testing();
