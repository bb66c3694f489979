# The installed module: really linked with libstdc++, and exporting only
# what the server looks up by name (it loads modules with RTLD_GLOBAL).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;

my $module = "$ENV{PG_CACHECTL_PKGLIBDIR}/pg_cachectl.so";
ok(-f $module, "module installed at $module");

my ($ldd, $ldd_err) = run_command([ 'ldd', $module ]);
like($ldd, qr/libstdc\+\+\.so/, 'module links libstdc++ itself');

my ($symbols) = run_command([ 'nm', '-D', '--defined-only', $module ]);
my @exported = map { (split ' ')[2] } grep { /\s[TDB]\s/ } split /\n/, $symbols;
ok(scalar(@exported) > 0, 'module exports symbols');
my @unexpected = grep { !/^(Pg_magic_func|_PG_init|pg_finfo_pg_cachectl_\w+|pg_cachectl_\w+)$/ } @exported;
is_deeply(\@unexpected, [], 'only entry points are exported (no C++ or shim internals)');
ok((grep { $_ eq 'pg_cachectl_os_residency' } @exported), 'SQL entry points are exported');

done_testing();
