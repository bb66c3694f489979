# 085_autowarm_standby_share.pl
#
# A standby that is to take over holds the primary's hot set as far as its
# pool allows, every relation in proportion (issue 26, finding 15).  Both
# nodes have 32 MB of shared buffers (4,096 buffers); the primary's hot set
# is two tables of 1,200 blocks and an index, about 2,430 buffers (59 % of
# the pool).  Before, the start load filled cachectl.prewarm_max_share (0.5)
# of the pool in relation order, whole chunks at a time: one table came back
# whole and the other not at all.  Now:
# - with the defaults (cachectl.autowarm_max_share 0.9) the cold standby
#   holds at least 0.8 of the hot buffers of each relation after its start
#   load (all of them: they fit);
# - with cachectl.autowarm_max_share = 0.3 (1,228 buffers, about half of the
#   hot set) each relation gets the same share of its blocks: both between
#   0.35 and 0.65 of their hot buffers, within 0.1 of each other;
# - and the hottest first: blocks 600-899 of a_t were read twice more than
#   the rest (usage count 3, the rest 1), the snapshot records them as its
#   hot blocks, and the standby short of room holds all of them (the first
#   blocks of each relation before: none of 600-899).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AutowarmTest qw(autowarm_conf autowarm_state wait_for_status drop_data_files_from_os_cache
  shared_share_resident create_filled_table);

my $interval = 2;

my $primary = PostgreSQL::Test::Cluster->new('share_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', autowarm_conf($interval) . q{
shared_buffers = '32MB'
wal_keep_size = '256MB'
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
create_filled_table($primary, 'a_t', 9600, 1);
create_filled_table($primary, 'b_t', 9600, 0);
$primary->safe_psql('postgres', 'CHECKPOINT');
# the worker comes when the leader next scans the databases (it found no
# extension at start): wait for it before counting its snapshots
ok(defined wait_for_status($primary, q{state = 'idle' AND snapshots_taken >= 1}, 30),
	'the primary\'s worker runs, idle between snapshots');
$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('share_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', "hot_standby = on\n");
$standby->start;

# the hot set: both tables and the index whole in the primary's shared
# buffers, each read once since evicted (usage count 1), and blocks 600-899
# of a_t read twice more (usage count 3)
my $hot_range = '{[600,900)}';
$primary->safe_psql('postgres', q{
SELECT count(*) >= 0 FROM cachectl.evict_relations(ARRAY['a_t', 'a_t_pkey', 'b_t']::regclass[]);
SELECT count(*) >= 0 FROM cachectl.prewarm('a_t', 'shared', fork => 'main');
SELECT count(*) >= 0 FROM cachectl.prewarm('a_t_pkey', 'shared', fork => 'main');
SELECT count(*) >= 0 FROM cachectl.prewarm('b_t', 'shared', fork => 'main');
});
for (1 .. 2)
{
	$primary->safe_psql('postgres', q{
SELECT count(*) FROM a_t WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid FROM generate_series(600, 899) b))});
}
my $taken = autowarm_state($primary, 'snapshots_taken');
ok(defined wait_for_status($primary, "snapshots_taken >= $taken + 2", 6 * $interval), 'the primary recorded its hot set');
my %recorded;
for my $relation (qw(a_t a_t_pkey b_t))
{
	(undef, $recorded{$relation}) = shared_share_resident($primary, 'autowarm', [$relation]);
}
cmp_ok($recorded{a_t} + $recorded{b_t}, '>=', 2300,
	"the snapshot holds $recorded{a_t} + $recorded{b_t} hot buffers of the tables (and $recorded{a_t_pkey} of the index)");
is($primary->safe_psql('postgres', q{
SELECT hot_blocks FROM cachectl.snapshot WHERE label = 'autowarm' AND relation = 'a_t'::regclass
   AND fork = 'main' AND layer = 'shared'}), $hot_range,
	'the snapshot records a_t\'s blocks read again as its hot blocks');
$primary->wait_for_catchup($standby);

# The blocks of $range of a relation's main fork in the node's shared buffers.
sub held_in_range
{
	my ($node, $relation, $range) = @_;
	return $node->safe_psql('postgres', qq{
SELECT COALESCE(sum(upper(x) - lower(x)), 0)
  FROM unnest((SELECT range_agg(int8range(first_block, first_block + block_count))
                 FROM cachectl_internal.shared_block_runs(ARRAY['$relation'::regclass]) WHERE fork = 'main')
              * '$range'::int8multirange) AS x});
}

# The standby made cold (restarted, its files out of the OS cache); its
# start load ends; the share of each relation's hot buffers it holds.
sub cold_standby_shares
{
	$standby->stop;
	drop_data_files_from_os_cache($standby);
	$standby->start;
	ok(defined wait_for_status($standby, q{start_load_finished IS NOT NULL AND state <> 'loading'}, 60),
		'the cold standby\'s start load ended');
	my %share;
	for my $relation (qw(a_t a_t_pkey b_t))
	{
		($share{$relation}) = shared_share_resident($standby, 'autowarm', [$relation]);
	}
	return %share;
}

my %share = cold_standby_shares();
for my $relation (qw(a_t a_t_pkey b_t))
{
	cmp_ok($share{$relation}, '>=', 0.8,
		sprintf('defaults: the standby holds %.1f %% of %s\'s hot buffers (at least 80 %%)', 100 * $share{$relation}, $relation));
}

$standby->append_conf('postgresql.conf', "cachectl.autowarm_max_share = 0.3\n");
%share = cold_standby_shares();
for my $relation (qw(a_t b_t))
{
	cmp_ok($share{$relation}, '>=', 0.35, sprintf('max_share 0.3: %s holds %.1f %% of its hot buffers', $relation, 100 * $share{$relation}));
	cmp_ok($share{$relation}, '<=', 0.65, "and no more than 65 %");
}
cmp_ok(abs($share{a_t} - $share{b_t}), '<=', 0.1,
	sprintf('the two tables in proportion (%.2f and %.2f; one whole and one empty before)', $share{a_t}, $share{b_t}));
is(held_in_range($standby, 'a_t', $hot_range), '300',
	'a_t\'s share is its hot blocks first: all 300 of them held (none before: the first blocks were)');
is(autowarm_state($standby, 'failures'), '0', 'the standby\'s worker never failed');

$standby->stop;
$primary->stop;
done_testing();
