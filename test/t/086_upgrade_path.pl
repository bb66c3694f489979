# 086_upgrade_path.pl
#
# From 1.0 on, every change to the SQL surface ships as an update script
# (pg_cachectl--A--B.sql).  For every version the installation offers
# (pg_available_extension_versions) with an update path to the default one:
# install it, ALTER EXTENSION pg_cachectl UPDATE, and compare the catalog —
# schemas, functions (signatures, results, kinds, volatility, strictness,
# security, settings, bodies, comments, grants), tables and views (columns,
# constraints, policies, row security, definitions, comments, grants), the
# extension's members and its dump configuration — with a fresh install of
# the default version: identical.  The comparison itself must be able to
# fail: a changed comment, a revoked grant and a policy given to other roles on the fresh
# install are each found.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Digest::SHA;
use FindBin;

my $node = PostgreSQL::Test::Cluster->new('upgrade_path');
$node->init;
$node->start;

# The catalog of the extension, one sorted line per fact.
my $describe = q{
WITH ns AS (
    SELECT oid, nspname FROM pg_namespace WHERE nspname IN ('cachectl', 'cachectl_internal')),
facts AS (
    SELECT 'schema ' || nspname || ' acl ' || coalesce(nspacl::text, '-')
           || ' comment ' || coalesce(obj_description(n.oid, 'pg_namespace'), '-') AS fact
      FROM pg_namespace AS n WHERE nspname IN ('cachectl', 'cachectl_internal')
    UNION ALL
    SELECT format('function %s(%s) returns %s kind %s volatile %s strict %s secdef %s parallel %s config %s acl %s language %s body %s comment %s',
                  p.oid::regproc, pg_get_function_arguments(p.oid), coalesce(pg_get_function_result(p.oid), '-'),
                  p.prokind, p.provolatile, p.proisstrict, p.prosecdef, p.proparallel,
                  coalesce(p.proconfig::text, '-'), coalesce(p.proacl::text, '-'), l.lanname,
                  md5(p.prosrc), coalesce(obj_description(p.oid, 'pg_proc'), '-'))
      FROM pg_proc AS p JOIN ns ON ns.oid = p.pronamespace JOIN pg_language AS l ON l.oid = p.prolang
    UNION ALL
    SELECT format('relation %s.%s kind %s acl %s rls %s comment %s', ns.nspname, c.relname, c.relkind,
                  coalesce(c.relacl::text, '-'), c.relrowsecurity, coalesce(obj_description(c.oid, 'pg_class'), '-'))
      FROM pg_class AS c JOIN ns ON ns.oid = c.relnamespace
    UNION ALL
    SELECT format('column %s.%s.%s type %s notnull %s default %s acl %s storage %s compression %s',
                  ns.nspname, c.relname, a.attname,
                  format_type(a.atttypid, a.atttypmod), a.attnotnull,
                  coalesce(pg_get_expr(d.adbin, d.adrelid), '-'), coalesce(a.attacl::text, '-'),
                  a.attstorage, coalesce(nullif(a.attcompression::text, ''), '-'))
      FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
      LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT format('constraint %s.%s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
      FROM pg_constraint AS c JOIN ns ON ns.oid = c.connamespace
    UNION ALL
    SELECT format('index %s', pg_get_indexdef(i.indexrelid))
      FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indrelid JOIN ns ON ns.oid = c.relnamespace
    UNION ALL
    SELECT format('policy %s.%s cmd %s permissive %s roles %s using %s check %s', p.polrelid::regclass, p.polname,
                  p.polcmd, p.polpermissive, p.polroles::regrole[]::text,
                  coalesce(pg_get_expr(p.polqual, p.polrelid), '-'), coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-'))
      FROM pg_policy AS p JOIN pg_class AS c ON c.oid = p.polrelid JOIN ns ON ns.oid = c.relnamespace
    UNION ALL
    SELECT format('view %s.%s %s', ns.nspname, c.relname, md5(pg_get_viewdef(c.oid)))
      FROM pg_class AS c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind = 'v'
    UNION ALL
    SELECT 'member ' || pg_describe_object(d.classid, d.objid, d.objsubid)
      FROM pg_depend AS d JOIN pg_extension AS e ON e.oid = d.refobjid
     WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'pg_cachectl'
    UNION ALL
    SELECT format('dump config %s condition %s', e.extconfig::regclass[]::text, coalesce(e.extcondition::text, '-'))
      FROM pg_extension AS e WHERE e.extname = 'pg_cachectl')
SELECT fact FROM facts ORDER BY fact COLLATE "C"};

my $default = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_cachectl'});
ok($default ne '', "the installation offers pg_cachectl (default version $default)");

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION pg_cachectl');
my $fresh = $node->safe_psql('fresh', $describe);
my @fresh_facts = split /\n/, $fresh;
cmp_ok(scalar @fresh_facts, '>', 100, scalar(@fresh_facts) . ' facts describe a fresh install');

# the comparison sees what a forgotten line of an update script would leave
# different (each undone before the next)
for my $mutation (
	[ 'a changed comment', q{COMMENT ON FUNCTION cachectl.status(regclass, boolean) IS 'changed'},
		q{COMMENT ON FUNCTION cachectl.status(regclass, boolean) IS } ],
	[ 'a revoked grant', q{REVOKE EXECUTE ON FUNCTION cachectl.status(regclass, boolean) FROM pg_read_all_stats},
		q{GRANT EXECUTE ON FUNCTION cachectl.status(regclass, boolean) TO pg_read_all_stats} ],
	[ 'a policy given to other roles', q{ALTER POLICY snapshot_of_readable_tables ON cachectl.snapshot TO pg_monitor},
		q{ALTER POLICY snapshot_of_readable_tables ON cachectl.snapshot TO PUBLIC} ])
{
	my ($what, $change, $undo) = @$mutation;
	my $comment = $undo =~ /IS $/
	  ? $node->safe_psql('fresh', q{SELECT quote_literal(obj_description('cachectl.status(regclass, boolean)'::regprocedure, 'pg_proc'))})
	  : '';
	$node->safe_psql('fresh', $change);
	isnt($node->safe_psql('fresh', $describe), $fresh, "the comparison finds $what");
	$node->safe_psql('fresh', $undo . $comment);
	is($node->safe_psql('fresh', $describe), $fresh, "undone, $what leaves the catalog as installed");
}

# every version with a path to the default: installed, updated, compared
my @versions = split /\n/, $node->safe_psql(
	'postgres', q{
SELECT source FROM pg_extension_update_paths('pg_cachectl')
 WHERE target = (SELECT default_version FROM pg_available_extensions WHERE name = 'pg_cachectl')
   AND path IS NOT NULL
UNION SELECT default_version FROM pg_available_extensions WHERE name = 'pg_cachectl'
ORDER BY 1});
note('versions updated to ' . $default . ': ' . join(', ', @versions));
for my $version (@versions)
{
	my $db = 'from_' . ($version =~ s/\W/_/gr);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION pg_cachectl VERSION '$version'");
	# before the update, the installed library serves the version's SQL: a
	# snapshot taken and loaded back (a standby's worker does this while its
	# primary has the new library and has not run the update yet)
	$node->safe_psql($db, q{CREATE TABLE kept (id int); INSERT INTO kept SELECT generate_series(1, 1000)});
	is($node->safe_psql($db, q{SELECT relations FROM cachectl.snapshot('before_update', ARRAY['kept'::regclass])}),
		'1', "$version with the new library: snapshot() records");
	is($node->safe_psql($db, q{SELECT count(*) > 0 FROM cachectl_internal.restore_plan('before_update')}),
		't', "$version with the new library: restore_plan() plans");
	like($node->safe_psql($db, q{CALL cachectl.restore('before_update')}),
		qr/^1\|0\|0\|/, "$version with the new library: restore() loads, one relation warmed");
	my $has_gate = $node->safe_psql($db,
		q{SELECT count(*) FROM pg_proc WHERE proname = 'wait_warm' AND pronamespace = 'cachectl'::regnamespace});
	if ($has_gate)
	{
		# the library fills the columns the version's declaration has
		my ($columns, $warm) = split /\|/, $node->safe_psql($db,
			q{SELECT (SELECT count(*) FROM json_object_keys(row_to_json(w))), warm FROM cachectl.wait_warm('0') AS w});
		is($warm, 'f', "$version with the new library: wait_warm() answers ($columns columns)");
	}
	$node->safe_psql($db, 'ALTER EXTENSION pg_cachectl UPDATE');
	is($node->safe_psql($db, q{SELECT extversion FROM pg_extension WHERE extname = 'pg_cachectl'}),
		$default, "$version updates to $default");
	my @updated_facts = split /\n/, $node->safe_psql($db, $describe);
	my %in_fresh = map { $_ => 1 } @fresh_facts;
	my %in_updated = map { $_ => 1 } @updated_facts;
	my @missing = grep { !$in_updated{$_} } @fresh_facts;
	my @extra = grep { !$in_fresh{$_} } @updated_facts;
	is_deeply([ @missing, @extra ], [],
		"$version updated to $default: the catalog is a fresh install's (missing first, then extra)");
}

# An update that makes a function again (new result columns) keeps the
# grants a DBA gave on it: the reader set given before the update, and a
# grant with its grant option, hold after it.
$node->safe_psql('postgres', q{CREATE ROLE regress_upgrade_reader; CREATE ROLE regress_upgrade_delegate});
for my $version (@versions)
{
	next if $version eq $default;
	my $db = 'grants_' . ($version =~ s/\W/_/gr);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION pg_cachectl VERSION '$version'");
	next unless $node->safe_psql($db,
		q{SELECT count(*) FROM pg_proc WHERE proname = 'wait_warm' AND pronamespace = 'cachectl'::regnamespace});
	$node->safe_psql($db, q{SELECT count(*) FROM cachectl.grant_to('regress_upgrade_reader', 'reader')});
	$node->safe_psql($db,
		q{GRANT EXECUTE ON FUNCTION cachectl.wait_warm(interval) TO regress_upgrade_delegate WITH GRANT OPTION});
	my $before = $node->safe_psql($db,
		q{SELECT proacl FROM pg_proc WHERE oid = 'cachectl.wait_warm(interval)'::regprocedure});
	$node->safe_psql($db, 'ALTER EXTENSION pg_cachectl UPDATE');
	is($node->safe_psql($db, q{SELECT has_function_privilege('regress_upgrade_reader', 'cachectl.wait_warm(interval)', 'EXECUTE'),
		has_function_privilege('regress_upgrade_delegate', 'cachectl.wait_warm(interval)', 'EXECUTE WITH GRANT OPTION'),
		has_function_privilege('public', 'cachectl.wait_warm(interval)', 'EXECUTE')}),
		't|t|f', "$version to $default: the grants on wait_warm() are kept (reader set, grant option), PUBLIC still has none");
	is($node->safe_psql($db, q{SELECT proacl FROM pg_proc WHERE oid = 'cachectl.wait_warm(interval)'::regprocedure}),
		$before, "$version to $default: wait_warm()'s ACL is the one it had ($before)");
}

# A released script is never edited (its users installed it as it was): each
# listed in test/released_scripts.txt has the checksum recorded there when it
# was released, and the control file's default version has its script.
my $sharedir = $node->safe_psql('postgres', q{SELECT setting FROM pg_config WHERE name = 'SHAREDIR'});
open(my $released, '<', "$FindBin::RealBin/../released_scripts.txt")
  or die "test/released_scripts.txt: $!";
my $listed = 0;
while (my $line = <$released>)
{
	next if $line =~ /^\s*(#|$)/;
	my ($script, $sha256) = split ' ', $line;
	open(my $fh, '<:raw', "$sharedir/extension/$script") or die "$script: $!";
	my $content = do { local $/; <$fh> };
	is(Digest::SHA::sha256_hex($content), $sha256, "$script is as released");
	$listed++;
}
cmp_ok($listed, '>=', 1, 'the released scripts are listed');
ok(-f "$sharedir/extension/pg_cachectl--$default.sql" || @versions > 1,
	"the default version $default has an install script or an update path");

$node->stop;
done_testing();
