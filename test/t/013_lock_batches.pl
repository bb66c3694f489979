# A relation set larger than the lock table can hold is worked on in
# batches: every relation is still covered exactly once, and the NOTICEs
# say where the work stands.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('lock_batches');
$node->init;
# a small lock table: max_locks_per_transaction x (backends + prepared) / 4 per batch
$node->append_conf('postgresql.conf', qq(
max_locks_per_transaction = 10
max_connections = 20
autovacuum = off
bgwriter_lru_maxpages = 0
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl; CREATE EXTENSION pg_buffercache;');

my $partitions = 150;
$node->safe_psql('postgres', qq(
CREATE TABLE p (id int) PARTITION BY RANGE (id);
DO \$\$ BEGIN
    FOR i IN 1..$partitions LOOP
        EXECUTE format('CREATE TABLE p_%s PARTITION OF p FOR VALUES FROM (%s) TO (%s)', i, i * 10, i * 10 + 10);
    END LOOP;
END \$\$;
INSERT INTO p SELECT generate_series(10, $partitions * 10 + 9);
));

# residency: every partition once, in batches
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	'SELECT count(*), count(DISTINCT relation) FROM cachectl.os_residency_total(\'p\')');
is($ret, 0, 'os_residency_total over more relations than one batch succeeds');
is($stdout, "$partitions|$partitions", 'every partition is reported exactly once');
my @notices = ($stderr =~ /NOTICE:  cachectl: working on relations (\d+) to (\d+) of (\d+)/g);
my ($batch) = ($stderr =~ /holds (\d+) relations of this set at a time/);
note 'batch size: ' . ($batch // 'none announced');
ok(defined $batch && $batch < $partitions, 'a batch is smaller than the set');
ok(@notices >= 6, 'the work comes in at least two batches, each announced');
is($notices[0], 1, 'the first batch starts at the first relation');
is($notices[-2], $partitions, 'the last batch ends at the last relation');
is($notices[-1], $partitions, 'the NOTICE names the size of the set');

# eviction: one row per partition, and nothing of them left in shared buffers
$node->safe_psql('postgres', 'SELECT count(*) FROM p');
my $cached_before = $node->safe_psql('postgres', q(
SELECT count(*) FROM pg_buffercache b JOIN pg_class c ON b.relfilenode = pg_relation_filenode(c.oid)
WHERE c.relname LIKE 'p\_%'));
ok($cached_before >= $partitions, "partitions are in shared buffers ($cached_before buffers)");

($ret, $stdout, $stderr) = $node->psql('postgres',
	"SELECT count(DISTINCT relation), sum(buffers_evicted), sum(buffers_skipped) FROM cachectl.evict('p')");
is($ret, 0, 'evict over more relations than one batch succeeds');
my ($relations, $evicted, $skipped) = split /\|/, $stdout;
is($relations, $partitions, 'evict reports every partition');
is($skipped, 0, 'nothing was skipped on an idle server');
ok($evicted >= $partitions, "evicted $evicted buffers");
like($stderr, qr/working on relations 1 to \d+ of $partitions/, 'evict announces its batches');

my $cached_after = $node->safe_psql('postgres', q(
SELECT count(*) FROM pg_buffercache b JOIN pg_class c ON b.relfilenode = pg_relation_filenode(c.oid)
WHERE c.relname LIKE 'p\_%'));
is($cached_after, 0, 'no buffer of any partition is left');

# the locks of earlier batches were released, the server is fine
is($node->safe_psql('postgres', 'SELECT count(*) FROM p'), $partitions * 10, 'the data reads back');

$node->stop;
done_testing();
