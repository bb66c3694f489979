# 070_prometheus_metrics.pl
#
# The metrics end to end, with the real servers from Debian's packages
# (prometheus, prometheus-postgres-exporter): a test cluster; postgres_exporter
# on a loopback port with the shipped queries file
# (monitoring/postgres_exporter/pg_cachectl_queries.yaml) and
# --auto-discover-databases, connecting over the node's unix socket as a
# pg_monitor role; Prometheus on loopback scraping it every second from a
# generated config, with its own storage directory and the shipped alerting
# rules (monitoring/prometheus/pg_cachectl_alerts.yml).  Three databases:
# postgres and app have the extension, plain has not.
# After a known cache state is made — table m of postgres cold, then blocks
# 0-99 in shared buffers only, 200-499 in the OS cache only, 600-649 in both;
# table a of app with 100 blocks in both — the test asks Prometheus's HTTP API
# (/api/v1/query, /api/v1/rules) for the series and asserts:
# - the top_relations series of m (shared, os, both) equal what
#   cachectl.top_relations reports, from a sample scraped after the change;
# - the per-kind series of each database equal what cachectl.database_summary
#   reports in it, within a few scrapes (the exporter's own catalog reads
#   settle first), and plain (no extension) breaks nothing;
# - the README's "bytes cached twice, per database" query gives one series
#   per database, equal to SQL's sums;
# - the relation_reads series (cachectl.track_reads = on) of table r of
#   postgres and table a of app, each evicted from shared buffers and read
#   at the start, are one each (the query is master: the postgres DSN reads
#   the cluster-wide view once), equal cachectl.relation_reads, read > 0 and
#   read = os_hit + device_read + unsplit_read;
# - the sizing advice's series (cachectl.track_advice = on): one per size,
#   0.25x to 4x, their pool_bytes those of cachectl.shared_buffers_advice;
# - the autowarm series equal cachectl.autowarm_status (a NULL column is NaN),
#   labelled by the database only; the state is its own series, one per
#   state, 1 for the current one;
# - the metric names and labels are the documented ones;
# - Prometheus evaluates every shipped rule (alerting, recording) without an
#   error;
# - both reports run on a hot standby of the node.
# Both servers are stopped at the end, on failure too (END block).  Other
# majors run in chroots without these packages: then the test is skipped.
use strict;
use warnings;

use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

use CachectlTest qw(poll_until);

my $prometheus = '/usr/bin/prometheus';
my $exporter = '/usr/bin/prometheus-postgres-exporter';
for my $binary ($prometheus, $exporter)
{
	plan skip_all => "$binary is not installed (Debian packages prometheus and "
	  . "prometheus-postgres-exporter; scripts/install_deps.sh installs them)"
	  unless -x $binary;
}
my $source_dir = $ENV{PG_CACHECTL_SOURCE_DIR}
  or plan skip_all => 'PG_CACHECTL_SOURCE_DIR is not set (run through test/run_tap.sh)';
my $queries = "$source_dir/monitoring/postgres_exporter/pg_cachectl_queries.yaml";
my $alerts = "$source_dir/monitoring/prometheus/pg_cachectl_alerts.yml";
for my $file ($queries, $alerts)
{
	plan skip_all => "$file is not readable" unless -r $file;
}

my @servers;    # IPC::Run harnesses, stopped in END whatever happens
my $pid = $$;

END
{
	# only the process that started them (never a forked child) stops them
	if (defined $pid && $$ == $pid)
	{
		for my $server (@servers)
		{
			eval { $server->signal('TERM'); $server->finish; 1 }
			  or eval { $server->kill_kill; 1 };
		}
	}
}

my $node = PostgreSQL::Test::Cluster->new('metrics');
$node->init(allows_streaming => 1);
$node->append_conf(
	'postgresql.conf', q{
shared_buffers = '128MB'
autovacuum = off
bgwriter_lru_maxpages = 0
shared_preload_libraries = 'pg_cachectl'
cachectl.autowarm = on
cachectl.autowarm_interval = '2s'
cachectl.track_reads = on
cachectl.track_advice = on
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE ROLE metrics_monitor LOGIN IN ROLE pg_monitor;
CREATE TABLE m (id int, pad text);
ALTER TABLE m ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO m SELECT g, repeat('x', 4000) FROM generate_series(1, 2000) g;
GRANT SELECT ON m TO metrics_monitor;
CREATE DATABASE app;
CREATE DATABASE plain;
});
$node->safe_psql(
	'app', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE a (id int, pad text);
ALTER TABLE a ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO a SELECT g, repeat('y', 4000) FROM generate_series(1, 600) g;
GRANT SELECT ON a TO metrics_monitor;
});
# Tables read from the kernel (evicted from shared buffers first), counted
# per relation in each database; a's cache state is made again below.
$node->safe_psql(
	'postgres', q{
CREATE TABLE r AS SELECT g AS id, repeat('r', 500) AS pad FROM generate_series(1, 3000) g;
SELECT count(*) FROM cachectl.evict('r');
SELECT count(*) FROM r;
});
$node->safe_psql('app', q{SELECT count(*) FROM cachectl.evict('a'); SELECT count(*) FROM a;});
$node->safe_psql('postgres', 'CHECKPOINT');
my $m_blocks = $node->safe_psql('postgres',
	q{SELECT pg_relation_size('m') / current_setting('block_size')::int});
cmp_ok($m_blocks, '>=', 700, "table m has $m_blocks blocks");

my $work = PostgreSQL::Test::Utils::tempdir;
my $exporter_port = PostgreSQL::Test::Cluster::get_free_port();
my $prometheus_port = PostgreSQL::Test::Cluster::get_free_port();
my $dsn =
	'host=' . $node->host . ' port=' . $node->port
  . ' dbname=postgres user=metrics_monitor sslmode=disable';

push @servers,
  IPC::Run::start(
	[
		$exporter, "--web.listen-address=127.0.0.1:$exporter_port",
		"--extend.query-path=$queries", '--disable-settings-metrics',
		'--auto-discover-databases'
	],
	'<', \undef, '>', "$work/exporter.log", '2>&1',
	init => sub { $ENV{DATA_SOURCE_NAME} = $dsn });

open my $config, '>', "$work/prometheus.yml" or die "prometheus.yml: $!";
print $config <<"CONFIG";
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $alerts
scrape_configs:
  - job_name: postgres
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']
CONFIG
close $config;
push @servers,
  IPC::Run::start(
	[
		$prometheus, "--config.file=$work/prometheus.yml",
		"--storage.tsdb.path=$work/tsdb",
		"--web.listen-address=127.0.0.1:$prometheus_port"
	],
	'<', \undef, '>', "$work/prometheus.log", '2>&1');

my $http = HTTP::Tiny->new(timeout => 5);

# The result vector of an instant query, or undef while Prometheus is not up.
sub promql
{
	my ($query) = @_;
	my $response = $http->get("http://127.0.0.1:$prometheus_port/api/v1/query?query="
		  . join('', map { sprintf('%%%02X', ord) } split //, $query));
	return undef unless $response->{success};
	my $body = eval { decode_json($response->{content}) };
	return undef unless $body && $body->{status} eq 'success';
	return $body->{data}{result};
}

my $up = poll_until(
	sub { my $r = promql('count by (database) (pg_cachectl_relations) == 6'); $r && @$r == 2 });
ok($up, 'Prometheus scrapes postgres_exporter: six pg_cachectl_relations series (one per kind) of postgres and of app')
  or diag(slurp_file("$work/exporter.log") . slurp_file("$work/prometheus.log"));
is_deeply(
	[ sort map { $_->{metric}{database} } @{ promql('count by (database) (pg_cachectl_relations)') // [] } ],
	[qw(app postgres)],
	'auto-discovery: the databases with the extension have series, plain (without it) none');

# The known state: cold, then a part in each layer.
$node->safe_psql(
	'postgres', q{
SELECT count(*) FROM cachectl.cold('m');
SELECT count(*) FROM cachectl.prewarm('m', 'shared', first_block => 0, last_block => 99, drop_os_copy => true, fork => 'main');
SELECT count(*) FROM cachectl.os_prefetch('m', first_block => 200, last_block => 499, fork => 'main');
SELECT count(*) FROM cachectl.prewarm('m', 'both', first_block => 600, last_block => 649, fork => 'main');
});
$node->safe_psql(
	'app', q{
SELECT count(*) FROM cachectl.cold('a');
SELECT count(*) FROM cachectl.prewarm('a', 'both', first_block => 0, last_block => 99, fork => 'main');
});
my $changed_at = time;
my %sql_m = map { split /\|/ } split /\n/,
  $node->safe_psql('postgres',
	q{SELECT layer, bytes FROM cachectl.top_relations(1000) WHERE relation = 'm' AND fork = 'main'});
is($sql_m{shared}, 150 * 8192, 'SQL: m has 150 blocks in shared buffers');
# less the pages the host's reclaim took since the loads (cachestat's evicted
# count, read after: cold leaves none, a page read again loses its entry)
my $evicted_m = $node->safe_psql('postgres',
	q{SELECT coalesce(sum(os_evicted_pages), 0) * cachectl.os_page_size() FROM cachectl.os_residency('m', 'main')});
cmp_ok($sql_m{both} + $evicted_m, '>=', 50 * 8192,
	'SQL: at least the 50 prewarmed blocks of m are cached twice, but for what the kernel evicted since');
cmp_ok($sql_m{os} + $evicted_m, '>=', 350 * 8192,
	"SQL: at least 350 blocks of m are in the OS cache but what the kernel evicted since ($evicted_m bytes)");

# The series of m, from a sample scraped after the change.
my $top_query = 'pg_cachectl_top_relation_cached_bytes{relation="m",fork="main"}';
my $fresh = poll_until(
	sub {
		my $stamps = promql("timestamp($top_query)");
		return $stamps && @$stamps == 3
		  && !grep { $_->{value}[1] < $changed_at } @$stamps;
	});
ok($fresh, 'Prometheus has samples of m scraped after the cache state changed');
# Polled as the other series are: the kernel may evict a page of m (host
# reclaim) between one scrape and the next.
series_equal_sql(
	$top_query, 'postgres',
	q{SELECT string_agg(layer || '=' || bytes, ' ' ORDER BY layer) FROM cachectl.top_relations(1000)
	  WHERE relation = 'm' AND fork = 'main'},
	sub { $_[0]{layer} },
	'the top_relations series of m equal what SQL reports');
my ($series) = @{ promql($top_query) // [ {} ] };
is_deeply(
	[ sort grep { !/^(instance|job|server)$/ } keys %{ $series->{metric} } ],
	[qw(__name__ database fork kind layer relation schema)],
	'top relation series carry database, schema, relation, kind, fork, layer (besides server, instance, job)');
is($series->{metric}{schema} . '/' . $series->{metric}{kind}, 'public/table', 'labels of m');

# Polls until a metric's series, each written "LABELS=VALUE" by $label_of
# and sorted, read as what $sql returns in $database (the same form, one
# string); passes or fails the test $name, showing both on failure.
sub series_equal_sql
{
	my ($metric, $database, $sql, $label_of, $name) = @_;
	my ($last_prom, $last_sql);
	my $equal = poll_until(
		sub {
			$last_sql = $node->safe_psql($database, $sql);
			$last_prom = join ' ',
			  sort map { $label_of->($_->{metric}) . "=$_->{value}[1]" } @{ promql($metric) // [] };
			return $last_prom eq $last_sql;
		});
	ok($equal, $name) or diag("Prometheus: $last_prom\nSQL:        $last_sql");
}

# The per-kind series of each database equal its database_summary within a
# few scrapes.
for my $database (qw(postgres app))
{
	for my $metric (
		[qw(pg_cachectl_shared_buffers_bytes shared_bytes)],
		[qw(pg_cachectl_shared_buffers_dirty_bytes shared_dirty_bytes)],
		[qw(pg_cachectl_os_cache_bytes os_bytes)],
		[qw(pg_cachectl_double_cached_bytes both_bytes)],
		[qw(pg_cachectl_relation_size_bytes size_bytes)])
	{
		my ($name, $column) = @$metric;
		series_equal_sql(
			"${name}{database=\"$database\"}", $database,
			"SELECT string_agg(kind || '=' || $column, ' ' ORDER BY kind) FROM cachectl.database_summary",
			sub { $_[0]{kind} },
			"$database: $name equals database_summary.$column per kind");
	}
}
# The autowarm worker's series equal its status view within a few scrapes
# (idle between two snapshots).  Only the database labels them: a series
# keeps its identity when the state changes.  Its first snapshot comes up to
# 10 s after CREATE EXTENSION (the leader's next look) and one interval.
ok($node->poll_query_until('postgres',
	'SELECT snapshots_taken >= 1 FROM cachectl.autowarm_status WHERE database = current_database()'),
	'the worker of postgres took a snapshot');
for my $metric (
	[qw(pg_cachectl_autowarm_snapshots_total snapshots_taken)],
	[qw(pg_cachectl_autowarm_failures_total failures)],
	[qw(pg_cachectl_autowarm_worker_running), '(pid IS NOT NULL)::int'],
	[qw(pg_cachectl_autowarm_standby), q{(role = 'standby')::int}],
	[qw(pg_cachectl_autowarm_last_snapshot_wal_bytes last_snapshot_wal_bytes)],
	[qw(pg_cachectl_autowarm_start_load_shared_bytes), q{start_load_shared_blocks * current_setting('block_size')::int8}],
	[qw(pg_cachectl_autowarm_start_load_os_bytes), q{start_load_os_blocks * current_setting('block_size')::int8}],
	[qw(pg_cachectl_autowarm_start_load_relations_skipped start_load_relations_skipped)],
	[qw(pg_cachectl_autowarm_follow_load_shared_bytes), q{follow_load_shared_blocks * current_setting('block_size')::int8}],
	[qw(pg_cachectl_autowarm_follow_load_os_bytes), q{follow_load_os_blocks * current_setting('block_size')::int8}],
	[qw(pg_cachectl_autowarm_follow_load_relations_skipped follow_load_relations_skipped)],
	[qw(pg_cachectl_autowarm_loads_total loads_done)],
	[   qw(pg_cachectl_autowarm_snapshot_interval_seconds),
		q{extract(epoch FROM current_setting('cachectl.autowarm_interval')::interval)::float8}
	])
{
	my ($name, $column) = @$metric;
	series_equal_sql("${name}{database=\"postgres\"}", 'postgres',
		"SELECT 'database=postgres=' || COALESCE(($column)::text, 'NaN') FROM cachectl.autowarm_status"
		  . " WHERE database = current_database() AND state = 'idle'",
		sub { join ',', map { "$_=$_[0]{$_}" } grep { !/^(__name__|instance|job|server)$/ } sort keys %{ $_[0] } },
		"$name equals autowarm_status.$column (its only label: database)");
}
# The durations are float8: compared as numbers (Prometheus writes 0.00005
# where PostgreSQL writes 5e-05), a NULL column as NaN.
for my $metric (
	[qw(pg_cachectl_autowarm_last_snapshot_duration_seconds last_snapshot_seconds)],
	[qw(pg_cachectl_autowarm_start_load_duration_seconds start_load_seconds)],
	[qw(pg_cachectl_autowarm_follow_load_duration_seconds follow_load_seconds)])
{
	my ($name, $column) = @$metric;
	my ($last_prom, $last_sql);
	my $equal = poll_until(
		sub {
			$last_sql = $node->safe_psql('postgres',
				"SELECT COALESCE(${column}::text, 'NaN') FROM cachectl.autowarm_status"
				  . " WHERE database = current_database() AND state = 'idle'");
			my @series = @{ promql("${name}{database=\"postgres\"}") // [] };
			$last_prom = join ' ', map { $_->{value}[1] } @series;
			return 0 unless @series == 1 && $last_sql ne '';
			return $last_prom eq 'NaN' || $last_sql eq 'NaN'
			  ? $last_prom eq $last_sql
			  : abs($last_prom - $last_sql) <= 1e-12 * (1 + abs($last_sql));
		});
	ok($equal, "$name equals autowarm_status.$column (NULL: NaN)")
	  or diag("Prometheus: $last_prom\nSQL:        $last_sql");
}
# A primary never follows: the follow load's columns are NULL, and
# postgres_exporter turns a NULL into NaN: the four series are there, NaN.
my @follow_series = map { "pg_cachectl_autowarm_follow_load_$_" } qw(duration_seconds shared_bytes os_bytes relations_skipped);
is( join(' ', map { my ($series) = @{ promql("$_\{database=\"postgres\"}") // [] }; $series ? $series->{value}[1] : 'absent' }
		  @follow_series),
	'NaN NaN NaN NaN',
	'no follow load on a primary: its four series are NaN, not absent');
# The state: one series per state that can be, in each database, 1 for the
# current one.
my @all_states = sort qw(starting idle recording loading following disabled failed);
for my $database (qw(postgres app))
{
	my $states_seen;
	my $state_ok = poll_until(
		sub {
			my $current = $node->safe_psql($database,
				'SELECT state FROM cachectl.autowarm_status WHERE database = current_database()');
			my @series = @{ promql("pg_cachectl_autowarm_state_active{database=\"$database\"}") // [] };
			my @active = map { $_->{metric}{state} } grep { $_->{value}[1] eq '1' } @series;
			$states_seen = "status: $current; series: "
			  . join ' ', sort map { "$_->{metric}{state}=$_->{value}[1]" } @series;
			return join(' ', sort map { $_->{metric}{state} } @series) eq "@all_states"
			  && @active == 1
			  && $active[0] eq $current
			  && $current eq 'idle';
		});
	ok($state_ok, "$database: pg_cachectl_autowarm_state_active has a series per state (7), the one at 1 is the status's state")
	  or diag($states_seen);
}
# Every other autowarm series: database is its only label (no role, no
# state), 17 metrics in each database.
my @autowarm_series =
  @{ promql('{__name__=~"pg_cachectl_autowarm_.+",__name__!="pg_cachectl_autowarm_state_active"}') // [] };
my @labelled = grep { exists $_->{metric}{state} || exists $_->{metric}{role} } @autowarm_series;
is(scalar @labelled, 0, 'no other autowarm series carries a state or role label')
  or diag(join "\n", map { encode_json($_->{metric}) } @labelled);
my %labels_of;
for my $series (@autowarm_series)
{
	my $labels = join ',', sort grep { !/^(__name__|instance|job|server)$/ } keys %{ $series->{metric} };
	$labels_of{"$series->{metric}{database}: $labels"}++;
}
is_deeply(\%labels_of, { 'app: database' => 17, 'postgres: database' => 17 },
	'17 autowarm series per database besides the state, each labelled by the database only');
my $taken;
poll_until(sub { ($taken) = @{ promql('pg_cachectl_autowarm_snapshots_total{database="postgres"}') // [] };
	$taken && $taken->{value}[1] >= 1 });
cmp_ok($taken ? $taken->{value}[1] : 0, '>=', 1, 'the worker took snapshots, counted');
# The age grows between two snapshots (2 s apart), and for as long as a
# loaded machine delays the next: one scrape of it proves no bound.  Waited
# for instead: a scrape that finds it between 0 and 10 s, as one soon after
# any snapshot does; an age in the wrong unit (milliseconds), an epoch
# instead of an age, or a negative age never gets there.
my $age = 'none scraped';
ok( poll_until(
		sub {
			my ($series) = @{ promql('pg_cachectl_autowarm_last_snapshot_age_seconds{database="postgres"}') // [] };
			$age = $series ? $series->{value}[1] : 'absent';
			return $series && $age >= 0 && $age < 10;
		}),
	'the last snapshot is seconds old (a scrape finds its age between 0 and 10 s)')
  or diag("the last age scraped: $age");

# The README's query: one series per database, each SQL's sum over kinds.
my $double_query = 'sum by (database) (pg_cachectl_double_cached_bytes)';
my $double_of = sub {
	my ($database) = @_;
	return $node->safe_psql($database, 'SELECT sum(both_bytes) FROM cachectl.database_summary');
};
my $double_app = $double_of->('app');
my $evicted_a = $node->safe_psql('app',
	q{SELECT coalesce(sum(os_evicted_pages), 0) * cachectl.os_page_size() FROM cachectl.os_residency('a', 'main')});
cmp_ok($double_app + $evicted_a, '>=', 100 * 8192,
	'SQL: app has at least the 100 prewarmed blocks of a cached twice, but for what the kernel evicted since');
# SQL read again at each poll: host reclaim may evict a page between scrapes
my ($last_double, $last_double_sql);
my $double_equal = poll_until(
	sub {
		my %prom = map { $_->{metric}{database} => $_->{value}[1] } @{ promql($double_query) // [] };
		$last_double = join ' ', map { "$_=$prom{$_}" } sort keys %prom;
		$last_double_sql = join ' ', map { "$_=" . $double_of->($_) } qw(app postgres);
		return $last_double eq $last_double_sql;
	});
ok($double_equal, "the README's query gives each database's bytes cached twice: $double_query")
  or diag("Prometheus: $last_double\nSQL:        $last_double_sql");

# Per-relation reads: r of postgres and a of app, one series each through the
# postgres DSN (the view covers the cluster; master: not again per database),
# equal to the view, read from the kernel, and the split adds up.
my $reads_sql = q{SELECT string_agg(database || '/' || relation || '=' || bytes, ' ' ORDER BY database)
  FROM (SELECT database, relation, sum(read_blocks) * current_setting('block_size')::int8 AS bytes
        FROM cachectl.relation_reads
        WHERE (database, relation) IN (('postgres', 'r'), ('app', 'a'))
        GROUP BY database, relation) s};
series_equal_sql('pg_cachectl_relation_reads_read_bytes_total{relation=~"r|a",kind="table"}',
	'postgres', $reads_sql, sub { "$_[0]{database}/$_[0]{relation}" },
	'pg_cachectl_relation_reads_read_bytes_total of postgres/r and app/a: one series each, equal to cachectl.relation_reads');
for my $table ([qw(postgres r)], [qw(app a)])
{
	my $selector = "{database=\"$table->[0]\",relation=\"$table->[1]\",kind=\"table\"}";
	my ($read) = @{ promql("pg_cachectl_relation_reads_read_bytes_total$selector") // [] };
	cmp_ok($read ? $read->{value}[1] : 0, '>', 0, "$table->[0]/$table->[1]: read_bytes_total > 0 (evicted, then read)");
	# one expression: the four series of one scrape
	my ($rest) = @{ promql(join(' + ', map { "pg_cachectl_relation_reads_${_}_bytes_total$selector" } qw(os_hit device_read unsplit_read))
		  . " - pg_cachectl_relation_reads_read_bytes_total$selector") // [] };
	is($rest ? $rest->{value}[1] : 'absent', '0', "$table->[0]/$table->[1]: os_hit + device_read + unsplit_read = read");
}

# The sizing advice: one series per size through the postgres DSN (master),
# the pool sizes SQL gives.
series_equal_sql('pg_cachectl_advice_pool_bytes', 'postgres',
	q{SELECT string_agg(size || '=' || pool_bytes, ' ' ORDER BY size COLLATE "C")
  FROM (SELECT rtrim(rtrim(to_char(size_ratio, 'FM9990.999'), '0'), '.') || 'x' AS size, pool_bytes
        FROM cachectl.shared_buffers_advice) s},
	sub { $_[0]{size} }, 'pg_cachectl_advice_pool_bytes: one series per size, 0.25x to 4x, equal to shared_buffers_advice');

# Every shipped rule is loaded and evaluated without an error.
my $rules_checked = poll_until(
	sub {
		my $response = $http->get("http://127.0.0.1:$prometheus_port/api/v1/rules");
		my $body = $response->{success} && eval { decode_json($response->{content}) };
		return undef unless $body && $body->{status} eq 'success';
		my @rules = map { @{ $_->{rules} } } @{ $body->{data}{groups} };
		return undef if !@rules || grep { $_->{lastEvaluation} =~ /^0001-/ } @rules;
		return \@rules;
	});
is_deeply(
	[ map { "$_->{name}: $_->{health}" . ($_->{lastError} ? " ($_->{lastError})" : '') } @{ $rules_checked // [] } ],
	[   map { "$_: ok" }
		  qw(PgCachectlOsCacheHalved PgCachectlAutowarmFailing PgCachectlAutowarmSnapshotStale
		  PgCachectlBiggerPoolHalvesReads pg_cachectl:relation_page_cache_share:rate5m)
	],
	'Prometheus evaluates the four shipped alerting rules and the recording rule, health ok');

# Stop both servers here (END does it too if something above died).
for my $server (reverse @servers)
{
	$server->signal('TERM');
	$server->finish;
}
@servers = ();
ok(1, 'postgres_exporter and Prometheus stopped');

# Safe on a standby: both reports run there (read-only, no relation locks).
$node->backup('metrics_backup');
my $standby = PostgreSQL::Test::Cluster->new('metrics_standby');
$standby->init_from_backup($node, 'metrics_backup', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
is( $standby->safe_psql(
		'postgres',
		q{SELECT pg_is_in_recovery(), (SELECT count(*) FROM cachectl.database_summary),
		         (SELECT count(*) > 0 FROM cachectl.top_relations(5))}),
	't|6|t',
	'database_summary and top_relations run on a hot standby');
$standby->stop;
$node->stop;
done_testing();
