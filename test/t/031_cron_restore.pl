# 031_cron_restore.pl
#
# A prewarm-before-peak job with pg_cron (Debian's postgresql-15-cron, 1.4.2:
# minute granularity, schedules in GMT): a snapshot taken while a table was
# warm, the table made cold, then `CALL cachectl.restore('morning')`
# scheduled for the next minute.  pg_cron runs it through libpq, over the
# socket directory named in cron.host (its default is TCP to localhost; with
# cron.use_background_workers = on the same CALL also commits and succeeds,
# checked by hand).  Asserts:
# - cron.job_run_details reports the run as succeeded;
# - afterwards every block of the snapshot is resident in its layer.
# The wait is at most about 65 s plus the run.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# pg_cron comes from a distribution package built for one server version
# (postgresql-15-cron here); a server built from source has none to load.
my $pkglibdir = $ENV{PG_CACHECTL_PKGLIBDIR}
  // (run_command([ 'pg_config', '--pkglibdir' ]))[0];
chomp $pkglibdir;
plan skip_all => "pg_cron is not installed in $pkglibdir"
  unless -f "$pkglibdir/pg_cron.so";

my $node = PostgreSQL::Test::Cluster->new('cron');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.host = '@{[ $node->host ]}'
shared_buffers = '128MB'
autovacuum = off
});
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cron;
CREATE EXTENSION pg_cachectl;
CREATE TABLE morning_t (id int PRIMARY KEY, payload text);
INSERT INTO morning_t SELECT g, repeat('m', 400) FROM generate_series(1, 30000) g;
VACUUM morning_t;
CHECKPOINT;
});

# Warm in a known way: blocks 0-999 in the OS cache, 200-599 in shared buffers.
$node->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.evict('morning_t');
SELECT count(*) FROM cachectl.os_drop('morning_t');
SELECT count(*) FROM cachectl.os_prefetch('morning_t', first_block => 0, last_block => 999, fork => 'main');
SELECT count(*) FROM morning_t
 WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid FROM generate_series(200, 599) b));
});
# (the OS blocks but those the host's reclaim took since the prefetch:
# cachestat's evicted count, read after the snapshot)
is( $node->safe_psql('postgres',
		q{SELECT relations = 1 AND shared_blocks >= 400 AND os_blocks + e.evicted_pages >= 1000
		  FROM cachectl.snapshot('morning', ARRAY['morning_t'::regclass]),
		       LATERAL (SELECT coalesce(sum(os_evicted_pages), 0) AS evicted_pages
		                FROM cachectl.os_residency('morning_t', 'main')) AS e}),
	't', 'the snapshot records both layers of morning_t');

# Then cold in both layers, as after a restart or a nightly batch.
$node->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.evict('morning_t');
SELECT count(*) FROM cachectl.os_drop('morning_t');
});
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM cachectl_internal.shared_block_runs(ARRAY['morning_t'::regclass])
		  UNION ALL
		  SELECT count(*) FROM cachectl_internal.os_block_runs('morning_t')}),
	"0\n0", 'morning_t is cold in both layers');

# The next minute in GMT, or the one after when this one is about to end.
my $when = $node->safe_psql(
	'postgres', q{
SELECT to_char(date_trunc('minute', now() AT TIME ZONE 'UTC')
               + CASE WHEN extract(second FROM now()) < 55 THEN interval '1 minute'
                      ELSE interval '2 minutes' END, 'FMMI FMHH24')
});
my $jobid = $node->safe_psql('postgres',
	"SELECT cron.schedule('prewarm-morning', '$when * * *', \$\$CALL cachectl.restore('morning')\$\$)");
like($jobid, qr/^\d+$/, "the restore is scheduled at '$when * * *' (GMT)");

ok( $node->poll_query_until(
		'postgres',
		"SELECT count(*) > 0 FROM cron.job_run_details
		  WHERE jobid = $jobid AND status IN ('succeeded', 'failed')"),
	'pg_cron ran the job');
my ($status, $message) = split /\|/, $node->safe_psql('postgres',
	"SELECT status, return_message FROM cron.job_run_details WHERE jobid = $jobid ORDER BY runid LIMIT 1");
is($status, 'succeeded', "cron.job_run_details says it succeeded (\"$message\")");
$node->safe_psql('postgres', "SELECT cron.unschedule($jobid)");

# Every block of the snapshot's shared rows is in shared buffers; of its OS
# rows, every block is in the page cache but those whose pages the host's
# reclaim took since (cachestat's evicted count, read after the blocks: a
# page read again loses its shadow entry; 0 where there is no cachestat).
my $shared_missing = $node->safe_psql(
	'postgres', q{
SELECT string_agg(format('%s %s', s.relation_name, s.fork), ', ')
  FROM cachectl.snapshot s
 WHERE s.label = 'morning' AND s.block_count > 0 AND s.layer = 'shared'
   AND NOT COALESCE(
           (SELECT range_agg(int8range(b.first_block, b.first_block + b.block_count))
              FROM cachectl_internal.shared_block_runs(ARRAY[s.relation::regclass]) b
             WHERE b.fork = s.fork) @> s.blocks, false)
});
is($shared_missing, '', 'morning_t is warm again: every block of the snapshot\'s shared rows is in shared buffers');
my $os_missing = $node->safe_psql(
	'postgres', q{
SELECT coalesce(sum(upper(r) - lower(r)), 0)
  FROM cachectl.snapshot s,
       LATERAL unnest(s.blocks - coalesce(
           (SELECT range_agg(int8range(o.first_block, o.first_block + o.block_count))
              FROM cachectl_internal.os_block_runs(s.relation::regclass, s.fork) o),
           '{}'::int8multirange)) AS r
 WHERE s.label = 'morning' AND s.block_count > 0 AND s.layer <> 'shared'
});
my $evicted = $node->safe_psql('postgres',
	q{SELECT coalesce(sum(os_evicted_pages), 0) FROM cachectl.os_residency('morning_t', 'main')});
ok($os_missing <= $evicted,
	"morning_t is warm again: every block of the snapshot's OS rows is in the page cache but $os_missing the kernel evicted since (evicted pages: $evicted)"
);

$node->stop;

done_testing();
