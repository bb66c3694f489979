# 071_monitoring_configs.pl
#
# The shipped monitoring configurations (monitoring/), checked against a
# running server, against each other and against docs/MONITORING.md.  070 runs
# postgres_exporter and Prometheus for real; pg_exporter and pgwatch are not
# packaged for Debian, so their files are checked here the way those tools
# read them:
# - every query of the three files runs as a pg_monitor role, on a primary
#   and on a hot standby, and returns exactly the columns its file declares,
#   labels as text and values as numbers, and no two rows with the same
#   labels (a repeated series fails the exporter's whole scrape), also when
#   cachectl.relation_reads has two rows of one name (a dropped table's name
#   used again: the exporters' query sums them);
# - metric names follow Prometheus's conventions (lower snake case, base
#   units as suffixes, counters ending in _total and declared COUNTER, the
#   rest GAUGE) and no label repeats its metric's prefix;
# - postgres_exporter's and pg_exporter's files make the same metrics with
#   the same labels from the same SQL; pgwatch's the same value columns;
# - a query of the cluster-wide cachectl.relation_reads or of the server's
#   sizing advice (cachectl.shared_buffers_advice) runs once per server
#   (postgres_exporter `master`, pg_exporter tag `cluster`, pgwatch
#   is_instance_level; relation_reads' rows tagged with their database), the
#   others in every database;
# - pg_exporter's collectors carry the extension:pg_cachectl tag and a
#   min_version the server meets; pgwatch's metrics have SQL for this major,
#   epoch_ns first, tag_ labels, declared gauges, and its preset names only
#   defined metrics;
# - the table of metrics in docs/MONITORING.md lists exactly the metrics made;
# - promtool accepts the alerting rules, and their unit tests pass.
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

eval { require YAML::XS; 1 }
  or plan skip_all => 'YAML::XS is not installed (Debian package libyaml-libyaml-perl)';
my $source_dir = $ENV{PG_CACHECTL_SOURCE_DIR}
  or plan skip_all => 'PG_CACHECTL_SOURCE_DIR is not set (run through test/run_tap.sh)';
my $monitoring = "$source_dir/monitoring";
my %file = (
	postgres_exporter => "$monitoring/postgres_exporter/pg_cachectl_queries.yaml",
	pg_exporter => "$monitoring/pg_exporter/pg_cachectl.yml",
	pgwatch => "$monitoring/pgwatch/pg_cachectl_metrics.yaml",
	alerts => "$monitoring/prometheus/pg_cachectl_alerts.yml",
	alert_tests => "$monitoring/prometheus/pg_cachectl_alerts_test.yml",
	monitoring_doc => "$source_dir/docs/MONITORING.md");
for my $path (values %file)
{
	plan skip_all => "$path is not readable" unless -r $path;
}
my %config = map { $_ => YAML::XS::LoadFile($file{$_}) } qw(postgres_exporter pg_exporter pgwatch);

my $node = PostgreSQL::Test::Cluster->new('monitoring');
$node->init(allows_streaming => 1);
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'pg_cachectl'
cachectl.autowarm = on
cachectl.track_reads = on
cachectl.track_advice = on
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE ROLE config_monitor LOGIN IN ROLE pg_monitor;
CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 10000) g;
CREATE INDEX ON t (id);
GRANT SELECT ON t TO config_monitor;
});
$node->backup('monitoring_backup');
my $standby = PostgreSQL::Test::Cluster->new('monitoring_standby');
$standby->init_from_backup($node, 'monitoring_backup', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
# Reads counted on both servers (each counts its own), so that
# cachectl.relation_reads has rows; on the primary a table's name used twice:
# the dropped table's row keeps its name.
$_->safe_psql('postgres', 'SELECT count(*) FROM t') for $node, $standby;
$node->safe_psql(
	'postgres', q{
CREATE TABLE again AS SELECT 1 AS id;
SELECT count(*) FROM again;
DROP TABLE again;
CREATE TABLE again AS SELECT 2 AS id;
SELECT count(*) FROM again;
});
# the sizing advice has a window on both servers (each samples its own pool)
ok($_->poll_query_until('postgres', q{SELECT window_started IS NOT NULL FROM cachectl.advice_status}),
	'the sizing advice has a window on the ' . $_->name) for $node, $standby;
is($node->safe_psql('postgres', q{SELECT count(*) FROM cachectl.relation_reads WHERE relation = 'again'}),
	'2', 'cachectl.relation_reads has two rows of table again (one dropped)');
my $server_version_num = $node->safe_psql('postgres', 'SHOW server_version_num');
my $server_major = int($server_version_num / 10000);

# The columns a query returns, "name:type" in order, as the monitoring role
# sees them (a temporary view describes them without running the query).
sub columns_of
{
	my ($query) = @_;
	return $node->safe_psql(
		'postgres', qq{
CREATE TEMP VIEW probe AS $query;
SELECT string_agg(attname || ':' || format_type(atttypid, atttypmod), ',' ORDER BY attnum)
FROM pg_attribute WHERE attrelid = 'probe'::regclass AND attnum > 0;},
		extra_params => [ '-U', 'config_monitor' ]);
}

# Runs the query as the monitoring role on the primary and the standby;
# a failure fails the test $name.
sub runs_everywhere
{
	my ($query, $name) = @_;
	for my $server ($node, $standby)
	{
		my ($code, $out, $err) = $server->psql(
			'postgres', "SELECT count(*) FROM ($query) q",
			extra_params => [ '-U', 'config_monitor' ]);
		ok($code == 0 && $out =~ /^[1-9][0-9]*$/, "$name runs on the " . $server->name . " and returns rows")
		  or diag($err);
	}
}

my $label_type = qr/^(text|name)$/;
my $number_type = qr/^(bigint|integer|double precision|numeric)$/;

# Checks one exporter-style file (postgres_exporter, pg_exporter): its
# queries, columns and metric names; returns "metric{label,...}" strings.
sub exporter_metrics
{
	my ($tool) = @_;
	my @made;
	for my $query_name (sort keys %{ $config{$tool} })
	{
		my $entry = $config{$tool}{$query_name};
		my @declared = map { my ($name) = keys %$_; [ $name, $_->{$name} ] } @{ $entry->{metrics} };
		my %usage = map { $_->[0] => $_->[1]{usage} } @declared;
		my @columns = map { [ split /:/ ] } split /,/, columns_of($entry->{query});
		is_deeply([ map { $_->[0] } @columns ], [ map { $_->[0] } @declared ],
			"$tool $query_name: the query's columns are the declared metrics, in order");
		runs_everywhere($entry->{query}, "$tool $query_name");
		my (@labels, @values);
		for my $column (@columns)
		{
			my ($name, $type) = @$column;
			my $usage = $usage{$name} // 'missing';
			if ($usage eq 'LABEL')
			{
				like($type, $label_type, "$tool $query_name: label $name is text ($type)");
				unlike($name, qr/^\Q$query_name\E_/, "$tool $query_name: label $name does not repeat the prefix");
				push @labels, $name;
				next;
			}
			like($type, $number_type, "$tool $query_name: $name is a number ($type)");
			my $metric = "${query_name}_$name";
			like($metric, qr/^pg_cachectl_[a-z][a-z0-9_]*[a-z0-9]$/, "$tool: $metric is a lower snake case pg_cachectl_ name");
			is($usage, $name =~ /_total$/ ? 'COUNTER' : 'GAUGE',
				"$tool: $metric is " . ($name =~ /_total$/ ? 'a COUNTER (_total)' : 'a GAUGE'));
			like($metric, qr/_(bytes|seconds|total|relations|running|skipped|standby|active|ratio|bytes_per_second)$/,
				"$tool: $metric ends in its unit (bytes, seconds, a ratio, a predicted rate), what it counts, or the 0/1 it flags");
			unlike($metric, qr/_(kb|mb|gb|kib|mib|blocks|pages|ms|milliseconds)(_|$)/,
				"$tool: $metric uses base units");
			push @values, $metric;
		}
		my $repeated = $node->safe_psql(
			'postgres',
			"SELECT count(*) FROM (SELECT 1 FROM ($entry->{query}) q GROUP BY "
			  . join(', ', map { qq{"$_"} } @labels)
			  . ' HAVING count(*) > 1) r',
			extra_params => [ '-U', 'config_monitor' ]);
		is($repeated, '0', "$tool $query_name: no two rows have the same labels (a repeated series fails the scrape)");
		my $label_list = join ',', sort @labels;
		push @made, map { "$_\{$label_list}" } @values;
	}
	return sort @made;
}

my @postgres_exporter_metrics = exporter_metrics('postgres_exporter');
my @pg_exporter_metrics = exporter_metrics('pg_exporter');
is(scalar @postgres_exporter_metrics, 36,
	'postgres_exporter makes 36 metrics (6 per kind, 1 top list, 17 autowarm, 1 autowarm state, 6 relation reads, 5 sizing advice)');
is_deeply([ grep { /^pg_cachectl_autowarm_/ && /[{,](state|role)[,}]/ } @postgres_exporter_metrics ],
	['pg_cachectl_autowarm_state_active{database,state}'],
	'only the state series has a state label; no autowarm series has role');
is_deeply(\@pg_exporter_metrics, \@postgres_exporter_metrics,
	'pg_exporter and postgres_exporter make the same metrics with the same labels');
for my $query_name (sort keys %{ $config{postgres_exporter} })
{
	my $squeeze = sub { (my $sql = shift) =~ s/\s+/ /g; $sql =~ s/^ | $//g; $sql };
	is( $squeeze->($config{pg_exporter}{$query_name}{query} // ''),
		$squeeze->($config{postgres_exporter}{$query_name}{query}),
		"pg_exporter's $query_name runs postgres_exporter's SQL");
	my $collector = $config{pg_exporter}{$query_name} // {};
	is($collector->{name}, $query_name, "pg_exporter $query_name: its name is the metric prefix");
	ok((grep { $_ eq 'extension:pg_cachectl' } @{ $collector->{tags} // [] }),
		"pg_exporter $query_name: tagged extension:pg_cachectl (planned only where the extension is)");
	cmp_ok($collector->{min_version} // 999999, '<=', $server_version_num,
		"pg_exporter $query_name: min_version $collector->{min_version} admits this server");
	# A query of the cluster-wide view runs once per server (master: only on
	# the DSN's own connection; pg_exporter's cluster tag: not on the
	# databases auto-discovery adds); the others in every database.
	my $master = $config{postgres_exporter}{$query_name}{master};
	my $cluster_tag = grep { $_ eq 'cluster' } @{ $collector->{tags} // [] };
	if ($config{postgres_exporter}{$query_name}{query} =~ /\bcachectl\.(relation_reads|shared_buffers_advice)\b/)
	{
		ok($master, "postgres_exporter $query_name: master, so its cluster-wide rows come once, not per database");
		ok($cluster_tag, "pg_exporter $query_name: tagged cluster, so it runs once, not per database");
	}
	else
	{
		ok(defined $master && !$master,
			"postgres_exporter $query_name: not master, so auto-discovery runs it in every database");
		ok(!$cluster_tag, "pg_exporter $query_name: not tagged cluster, so it runs in every database");
	}
}
# The exporters' relation_reads sums the two rows of again into one.
is( $node->safe_psql(
		'postgres',
		qq{SELECT (SELECT shared_hit_bytes_total FROM ($config{postgres_exporter}{pg_cachectl_relation_reads}{query}) q
		           WHERE database = 'postgres' AND relation = 'again')
		        = (SELECT sum(shared_hit_blocks) * current_setting('block_size')::int8
		           FROM cachectl.relation_reads WHERE relation = 'again')},
		extra_params => [ '-U', 'config_monitor' ]),
	't',
	'pg_cachectl_relation_reads: the two rows of again make one, their sum');

# pgwatch: SQL per major (the newest not above the server's), epoch_ns
# first, tag_ columns for labels; the value columns match the exporters'.
my %exporter_values;
for my $metric (@postgres_exporter_metrics)
{
	my ($query_name) = grep { $metric =~ /^\Q$_\E_/ } sort { length $b <=> length $a } keys %{ $config{postgres_exporter} };
	(my $column = $metric) =~ s/^\Q$query_name\E_|\{.*//g;
	push @{ $exporter_values{$query_name} }, $column;
}
my @pgwatch_values;
for my $metric_name (sort keys %{ $config{pgwatch}{metrics} })
{
	my $metric = $config{pgwatch}{metrics}{$metric_name};
	my ($major) = sort { $b <=> $a } grep { $_ <= $server_major } keys %{ $metric->{sqls} };
	ok(defined $major, "pgwatch $metric_name has SQL for PostgreSQL $server_major") or next;
	my $sql = $metric->{sqls}{$major};
	my @columns = map { [ split /:/ ] } split /,/, columns_of($sql);
	is($columns[0][0] . ':' . $columns[0][1], 'epoch_ns:bigint', "pgwatch $metric_name: epoch_ns first");
	if ($sql =~ /\bcachectl\.(relation_reads|shared_buffers_advice)\b/)
	{
		ok($metric->{is_instance_level}, "pgwatch $metric_name: cluster-wide, is_instance_level");
	}
	if ($sql =~ /\bcachectl\.relation_reads\b/)
	{
		ok((grep { $_->[0] eq 'tag_database' } @columns),
			"pgwatch $metric_name: cluster-wide, so tagged with each row's database");
	}
	runs_everywhere($sql, "pgwatch $metric_name");
	my @values;
	for my $column (@columns[ 1 .. $#columns ])
	{
		my ($name, $type) = @$column;
		like($type, $name =~ /^tag_/ ? $label_type : $number_type, "pgwatch $metric_name: $name is $type");
		push @values, $name unless $name =~ /^tag_/;
	}
	my @gauges = @{ $metric->{gauges} // [] };
	my @undeclared = grep { my $gauge = $_; !grep { $_ eq $gauge } @values } @gauges;
	ok("@gauges" eq '*' || !@undeclared,
		"pgwatch $metric_name: its gauges are value columns (@gauges)");
	push @pgwatch_values, @values;
}
is_deeply([ sort @pgwatch_values ], [ sort map { @$_ } values %exporter_values ],
	'pgwatch reads the same value columns as the exporters');
my $preset = $config{pgwatch}{presets}{pg_cachectl}{metrics} // {};
is_deeply([ sort keys %$preset ], [ sort keys %{ $config{pgwatch}{metrics} } ],
	'the pgwatch preset gathers every metric defined, no other');

# The table of metrics in docs/MONITORING.md is the list made.
my $monitoring_doc = slurp_file($file{monitoring_doc});
my ($table) = $monitoring_doc =~ /\n\| metric \| labels \| meaning \|\n\|[-| ]+\|\n((?:\|.*\n)+)/;
ok(defined $table, 'docs/MONITORING.md has a table of metrics (| metric | labels | meaning |)');
my @documented_metrics;
for my $row (split /\n/, $table // '')
{
	my ($names, $labels) = $row =~ /^\| ([^|]+) \| ([^|]+) \|/ or next;
	my $label_list = join ',', sort $labels =~ /`([a-z_]+)`/g;
	push @documented_metrics, map { "$_\{$label_list}" } $names =~ /`(pg_cachectl_[a-z_]+)`/g;
}
is_deeply([ sort @documented_metrics ], \@postgres_exporter_metrics,
	"docs/MONITORING.md's table lists every metric made, with its labels, and no other");

# The alerting rules: promtool's own checks and unit tests.
SKIP:
{
	skip 'promtool is not installed (Debian package prometheus)', 2 unless -x '/usr/bin/promtool';
	my $out;
	for my $check ([ 'check', 'rules', $file{alerts} ], [ 'test', 'rules', $file{alert_tests} ])
	{
		my $ok = IPC::Run::run([ '/usr/bin/promtool', @$check ], '>&', \$out);
		ok($ok, "promtool @$check[0 .. 1] " . ($check->[2] =~ s{.*/}{}r)) or diag($out);
	}
}

$standby->stop;
$node->stop;
done_testing();
