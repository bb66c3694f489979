# 016_dump_restore.pl
#
# The extension's schema is a member of the extension (the install script
# creates it; the control file names pg_catalog).  pg_dump must still give a
# script that restores into a fresh database: the extension comes back with
# its schema, a grant made after installing comes back, and the functions
# work there.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump_restore');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE DATABASE source;
CREATE DATABASE target;
CREATE ROLE dump_monitor;
});
$node->safe_psql(
	'source', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE dumped (id int PRIMARY KEY, doc text);
INSERT INTO dumped SELECT g, 'doc ' || g FROM generate_series(1, 1000) g;
GRANT USAGE ON SCHEMA cachectl TO dump_monitor;
GRANT EXECUTE ON FUNCTION cachectl.shared_residency(regclass, text, boolean) TO dump_monitor;
});

my $dump_file = $node->basedir . '/source.sql';
$node->command_ok(
	[
		'pg_dump', '--no-sync', '-h', $node->host, '-p', $node->port,
		'-f', $dump_file, 'source'
	],
	'pg_dump of a database with the extension succeeds');
my $dump = slurp_file($dump_file);
like($dump, qr/CREATE EXTENSION IF NOT EXISTS pg_cachectl WITH SCHEMA pg_catalog;/,
	'the dump creates the extension');
unlike($dump, qr/CREATE SCHEMA cachectl;/,
	'and not its schema, which comes with it');

$node->command_ok(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $node->host,
		'-p', $node->port, '-f', $dump_file, 'target'
	],
	'the dump restores into a fresh database without error');

is( $node->safe_psql(
		'target', q{
SELECT count(*) FROM pg_depend
 WHERE classid = 'pg_namespace'::regclass AND objid = 'cachectl'::regnamespace
   AND refclassid = 'pg_extension'::regclass AND deptype = 'e'}),
	1,
	'the restored schema is a member of the extension');
is( $node->safe_psql(
		'target',
		q{SELECT relation, fork, size_blocks > 0 FROM cachectl.shared_residency('dumped', 'main')}),
	'dumped|main|t',
	'shared_residency works in the restored database');
is( $node->safe_psql(
		'target',
		q{SELECT count(*) > 0 FROM cachectl.evict('dumped', cascade => true)}),
	't',
	'evict works in the restored database');
is( $node->safe_psql(
		'target',
		q{SELECT count(*) > 0 FROM cachectl.os_residency('dumped')}),
	't',
	'os_residency works in the restored database');
is( $node->safe_psql(
		'target',
		q{SELECT has_function_privilege('dump_monitor', 'cachectl.shared_residency(regclass, text, boolean)', 'EXECUTE')
		      AND has_schema_privilege('dump_monitor', 'cachectl', 'USAGE')}),
	't',
	'a grant made after installing is restored');
is( $node->safe_psql(
		'target',
		q{SELECT has_function_privilege('public', 'cachectl.evict_all()', 'EXECUTE')}),
	'f',
	'the actions are still not executable by PUBLIC');

$node->safe_psql('target', 'DROP EXTENSION pg_cachectl');
is( $node->safe_psql(
		'target', q{SELECT count(*) FROM pg_namespace WHERE nspname = 'cachectl'}),
	0,
	'DROP EXTENSION removes the schema in the restored database too');

$node->stop;
done_testing();
