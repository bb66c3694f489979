# 083_autowarm_role.pl
#
# The autowarm worker connected as a role that is no superuser
# (cachectl.autowarm_role, with the grants the README lists) records and
# loads only the tables that role may SELECT:
# - its snapshots hold rows of the table it may read (and of that table's
#   index) and none of the table it may not;
# - rows of that table written under the same label by a superuser are
#   left in place by the worker's snapshots, and after a restart with the
#   relation files dropped from the OS page cache the worker loads the
#   readable table's hot set and leaves the other one cold in both layers;
# - wait_warm() counts what is missing in the worker's view (not secret_t),
#   and answers with NULL figures and a NOTICE when the role is gone.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AutowarmTest qw(start_autowarm_node cold_restart_loads autowarm_state wait_for_status
  shared_share_resident create_filled_table read_through_index);

my $interval = 2;

my $node = start_autowarm_node('role', $interval);
$node->safe_psql('postgres', q{
CREATE ROLE warmer LOGIN;
-- the README's one call: the autowarm set, nothing internal
SELECT count(*) FROM cachectl.grant_to('warmer', 'autowarm');
});
create_filled_table($node, 'open_t', 12000, 1);
create_filled_table($node, 'secret_t', 12000, 1);
$node->safe_psql('postgres', q{
GRANT SELECT ON open_t TO warmer;
CHECKPOINT;
});
$node->append_conf('postgresql.conf', q{cachectl.autowarm_role = 'warmer'});
$node->restart;
ok(defined wait_for_status($node, q{state = 'idle'}, 30), 'the worker runs');
is($node->safe_psql('postgres',
	q{SELECT usename FROM pg_stat_activity WHERE application_name = 'pg_cachectl autowarm' AND datname = 'postgres'}),
	'warmer', 'it is connected as warmer');

# ---- what it records ----
read_through_index($node, 'open_t', 1, 6000);
read_through_index($node, 'secret_t', 1, 6000);
my $taken = autowarm_state($node, 'snapshots_taken');
ok(defined wait_for_status($node, "snapshots_taken >= $taken + 2", 6 * $interval),
	'two snapshots since both tables were read');
my $recorded = sub {
	return $node->safe_psql('postgres', q{
SELECT string_agg(DISTINCT relation::regclass::text, ',' ORDER BY relation::regclass::text) FROM cachectl.snapshot
 WHERE label = 'autowarm' AND relation IN ('open_t'::regclass, 'open_t_pkey'::regclass,
                                          'secret_t'::regclass, 'secret_t_pkey'::regclass)});
};
is($recorded->(), 'open_t,open_t_pkey', 'its snapshot holds the table it may read and its index, not the other');

# ---- what it loads ----
# A superuser records the label with every table; warmer's later
# snapshots replace only the rows it can see.
$node->safe_psql('postgres', q{SELECT count(*) >= 0 FROM cachectl.snapshot('autowarm')});
is($recorded->(), 'open_t,open_t_pkey,secret_t,secret_t_pkey', "a superuser's snapshot of the label holds both");
cold_restart_loads($node, 'restarted cold');
is($recorded->(), 'open_t,open_t_pkey,secret_t,secret_t_pkey', "the superuser's rows of secret_t are still there");
my ($share, $blocks) = shared_share_resident($node, 'autowarm', [ 'open_t', 'open_t_pkey' ]);
cmp_ok($blocks, '>=', 500, "the snapshot held open_t's hot set ($blocks shared blocks)");
cmp_ok($share, '>=', 0.95, sprintf("%.1f %% of open_t's is in shared buffers again", 100 * $share));
my ($secret_share, $secret_blocks) = shared_share_resident($node, 'autowarm', [ 'secret_t', 'secret_t_pkey' ]);
cmp_ok($secret_blocks, '>=', 500, "and secret_t's ($secret_blocks shared blocks)");
is($secret_share, 0, 'none of which is in shared buffers');
is($node->safe_psql('postgres', q{
SELECT COALESCE(sum(block_count), 0) FROM cachectl_internal.os_block_runs('secret_t')}),
	'0', "nor in the OS page cache (secret_t's main fork)");
is($node->safe_psql('postgres', q{
SELECT COALESCE(sum(block_count), 0) FROM cachectl_internal.os_block_runs('secret_t_pkey')}),
	'0', 'nor its index');
is(autowarm_state($node, 'failures'), '0', 'the worker never failed');

# ---- the gate counts what is missing in the worker's view ----
# secret_t's recorded blocks are all missing, but warmer cannot see its rows
# and will never load them: wait_warm() counts as warmer, whoever calls.
my ($warm, $shared_missing, $os_missing) = split /\|/, $node->safe_psql('postgres',
	q{SELECT warm, shared_blocks_missing, os_blocks_missing FROM cachectl.wait_warm('10 s')});
is($warm, 't', 'wait_warm(): warm once the start load is done');
cmp_ok($shared_missing, '<', $secret_blocks / 10,
	"a superuser's wait_warm() counts $shared_missing shared blocks missing: warmer's view, without secret_t's $secret_blocks");
like($os_missing, qr/^\d+$/, "and counts the OS layer: $os_missing blocks");
# the role gone from the settings' point of view: NULL figures and a NOTICE, never an error
$node->append_conf('postgresql.conf', q{cachectl.autowarm_role = 'regress_no_such_role'});
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('cachectl.autowarm_role') = 'regress_no_such_role'})
  or die 'the reload was not seen';
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT warm, snapshot_taken_at IS NULL, shared_blocks_missing IS NULL, os_blocks_missing IS NULL FROM cachectl.wait_warm('0')});
is($ret, 0, 'wait_warm() with cachectl.autowarm_role naming no role: no error');
is($stdout, 'f|t|t|t', 'not warm, no snapshot named, the missing blocks NULL');
like($stderr, qr/NOTICE:  cachectl\.wait_warm: the newest snapshot was not read: role "regress_no_such_role" does not exist/,
	'with a NOTICE naming the role');

$node->stop;
done_testing();
