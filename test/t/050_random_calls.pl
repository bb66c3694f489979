# 050_random_calls.pl
#
# A randomized driver: three sessions call every function of the extension
# (and CALL restore) with arguments drawn at random from a pool — relations
# of every kind (partitioned, TOAST, indexes, matviews, unlogged, temporary),
# OIDs that are none, NULLs, forks, block ranges, throttles, maps, widths,
# targets, labels — while a fourth session runs DDL on the pool's relations
# (TRUNCATE, VACUUM FULL, REINDEX CONCURRENTLY, DETACH/ATTACH PARTITION, DROP
# and CREATE).  Every error must carry an SQLSTATE of the allow-list (never
# XX000, never a lost connection); afterwards the postmaster is the same
# process, its log holds no crash, no buffer is left pinned and amcheck
# passes on the pool's tables.
#
# CACHECTL_FUZZ_SECONDS (default 120) bounds the run; CACHECTL_FUZZ_SEED
# (default 20261130) seeds it, so a failure reproduces.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $seconds = $ENV{CACHECTL_FUZZ_SECONDS} // 120;
my $seed = $ENV{CACHECTL_FUZZ_SEED} // 20261130;
srand($seed);
note("fuzz: seed $seed, $seconds s (CACHECTL_FUZZ_SEED, CACHECTL_FUZZ_SECONDS)");

my $node = PostgreSQL::Test::Cluster->new('random_calls');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
shared_buffers = 64MB
max_locks_per_transaction = 256
});
$node->start;
my $pid_file = $node->data_dir . '/postmaster.pid';
my $first_pid = (split /\n/, slurp_file($pid_file))[0];

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE EXTENSION amcheck;
CREATE EXTENSION pg_buffercache;
CREATE TABLE fz_t (id int PRIMARY KEY, doc text);
INSERT INTO fz_t SELECT g, CASE WHEN g % 50 = 0 THEN repeat(md5(g::text), 300) ELSE 'doc ' || g END
  FROM generate_series(1, 50000) g;
ALTER TABLE fz_t ALTER COLUMN doc SET STORAGE EXTERNAL;
UPDATE fz_t SET doc = repeat(md5(id::text), 100) WHERE id % 100 = 0;
CREATE INDEX fz_t_doc ON fz_t (left(doc, 10));
CREATE TABLE fz_p (id int, b int) PARTITION BY RANGE (id);
CREATE TABLE fz_p1 PARTITION OF fz_p FOR VALUES FROM (0) TO (10000);
CREATE TABLE fz_p2 PARTITION OF fz_p FOR VALUES FROM (10000) TO (20000);
CREATE TABLE fz_p3 PARTITION OF fz_p FOR VALUES FROM (20000) TO (30000);
CREATE INDEX fz_p_b ON fz_p (b);
INSERT INTO fz_p SELECT g, g % 71 FROM generate_series(0, 29999) g;
CREATE UNLOGGED TABLE fz_u AS SELECT g AS id FROM generate_series(1, 20000) g;
CREATE MATERIALIZED VIEW fz_mv AS SELECT id, b FROM fz_p WHERE b < 10;
CREATE INDEX fz_mv_id ON fz_mv (id);
CREATE SEQUENCE fz_seq;
CREATE VIEW fz_v AS SELECT 1 AS one;
CREATE TYPE fz_composite AS (a int);
CREATE TABLE fz_churn (id int, b int);
INSERT INTO fz_churn SELECT g, g FROM generate_series(1, 5000) g;
CREATE INDEX fz_churn_id ON fz_churn (id);
});
my $toast = $node->safe_psql('postgres', q{SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'fz_t'});
my $toast_index = $node->safe_psql('postgres',
	q{SELECT indexrelid::regclass FROM pg_index WHERE indrelid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'fz_t')});

# ---- the pool of arguments
my @relations = (
	(map { "'$_'" } qw(fz_t fz_t_pkey fz_t_doc fz_p fz_p1 fz_p2 fz_p3 fz_p_b fz_u fz_mv fz_mv_id fz_seq
		  fz_churn fz_churn_id fz_tmp fz_v fz_composite pg_class pg_database)),
	"'$toast'", "'$toast_index'",
	'0::oid::regclass', '1::oid::regclass', '4294967295::oid::regclass', 'NULL::regclass');
my @forks = ("'main'", "'fsm'", "'vm'", "'init'", "''", "'xyz'", 'NULL');
my @blocks = ('NULL', '0', '1', '5', '50', '-1', '4294967296', '9223372036854775807');
my @rates = ('NULL', 'NULL', '200', '1000', '0', '-1', "'NaN'", "'Infinity'");
my @bools = ('true', 'false', 'NULL');
my @targets = ("'os'", "'shared'", "'both'", "'nope'", 'NULL');
my @labels = ("'a'", "'b'", "''", "'default'", "'never_taken'", 'NULL');
my @widths = ('1', '64', '200', '0', '-1', '2147483647', 'NULL');
my @maps = ("B''", "B'1'", "B'1010'", "repeat('1', 100)::varbit", "repeat('01', 5000)::varbit", 'NULL::varbit');
my @runs = ("'{}'", "'{[0,3)}'", "'{[0,)}'", "'{[2,40),[100,120)}'", "'{[-1,2)}'", "'{[4294967295,4294967300)}'", 'NULL');
my @buffers = ('1', '100', '8192', '0', '-1', '8193', 'NULL');
my @databases = ('current_database()', "'template1'", "'nope'", 'NULL');

sub pick { return $_[ int(rand(scalar @_)) ]; }
sub rel_array { my $n = 1 + int(rand(4)); return 'ARRAY[' . join(', ', map { pick(@relations) } 1 .. $n) . ']::regclass[]'; }

# Each generator gives one statement calling its function.
my %generators = (
	os_residency => sub { sprintf 'SELECT count(*) FROM cachectl.os_residency(%s, %s)', pick(@relations), pick(@forks) },
	os_residency_total => sub { sprintf 'SELECT count(*) FROM cachectl.os_residency_total(%s, %s)', pick(@relations), pick(@bools) },
	shared_residency => sub { sprintf 'SELECT count(*) FROM cachectl.shared_residency(%s, %s, %s)', pick(@relations), pick(@forks), pick(@bools) },
	status => sub { sprintf 'SELECT count(*) FROM cachectl.status(%s, %s)', pick(@relations), pick(@bools) },
	draw => sub { sprintf 'SELECT length(cachectl.draw(%s, %s))', pick(@relations), pick(@widths) },
	os_draw => sub { sprintf 'SELECT length(cachectl.os_draw(%s, %s))', pick(@maps), pick(@widths) },
	os_map => sub { sprintf 'SELECT length(cachectl.os_map(%s, %s))', pick(@relations), pick(@forks) },
	os_block_runs => sub { sprintf 'SELECT count(*) FROM cachectl_internal.os_block_runs(%s, %s)', pick(@relations), pick(@forks) },
	shared_block_runs => sub { sprintf 'SELECT count(*) FROM cachectl_internal.shared_block_runs(%s)', rand() < 0.1 ? 'NULL' : rel_array() },
	evict => sub { sprintf 'SELECT count(*) FROM cachectl.evict(%s, %s, %s)', pick(@relations), pick(@forks), pick(@bools) },
	evict_relations => sub { sprintf 'SELECT count(*) FROM cachectl.evict_relations(%s, %s, %s)', rel_array(), pick(@forks), pick(@bools) },
	evict_buffer => sub { sprintf 'SELECT * FROM cachectl.evict_buffer(%s)', pick(@buffers) },
	evict_database => sub { sprintf 'SELECT * FROM cachectl.evict_database(%s)', pick(@databases) },
	evict_all => sub { 'SELECT * FROM cachectl.evict_all()' },
	os_drop => sub { sprintf 'SELECT count(*) FROM cachectl.os_drop(%s, %s, %s)', pick(@relations), pick(@forks), pick(@bools) },
	os_prefetch => sub {
		sprintf 'SELECT count(*) FROM cachectl.os_prefetch(%s, %s, %s, %s, %s, %s)',
		  pick(@relations), pick(@forks), pick(@blocks), pick(@blocks), pick(@rates), pick(@bools);
	},
	os_restore => sub {
		sprintf 'SELECT * FROM cachectl.os_restore(%s, %s, %s, %s, %s, %s)',
		  pick(@relations), pick(@maps), pick(@forks), pick(@bools), pick(@rates), pick(@bools);
	},
	cold => sub { sprintf 'SELECT count(*) FROM cachectl.cold(%s, %s)', pick(@relations), pick(@bools) },
	cold_database => sub { 'SELECT relations FROM cachectl.cold_database()' },
	prewarm => sub {
		sprintf 'SELECT count(*) FROM cachectl.prewarm(%s, %s, %s, %s, %s, %s, %s)',
		  pick(@relations), pick(@targets), pick(@forks), pick(@blocks), pick(@blocks), pick(@rates), pick(@bools);
	},
	prewarm_runs => sub {
		sprintf 'SELECT * FROM cachectl_internal.prewarm_runs(%s, %s, %s, %s, %s, %s)',
		  pick(@relations), pick(@forks), pick(@runs), pick(@targets), pick(@rates), pick(@bools);
	},
	snapshot => sub {
		sprintf 'SELECT relations FROM cachectl.snapshot(%s, %s, %s)', pick(@labels),
		  rand() < 0.2 ? 'NULL' : rel_array(), pick(@bools);
	},
	restore => sub { sprintf 'CALL cachectl.restore(%s, %s, %s)', pick(@labels), pick(@targets), pick(@rates) },
	database_status => sub { rand() < 0.5 ? 'SELECT count(*) FROM cachectl.database_status' : 'SELECT count(*) FROM cachectl.database_status()' },
	os_engine => sub { 'SELECT cachectl.os_engine(), cachectl.os_page_size(), cachectl_internal.system_identifier()' },
	setting => sub {
		sprintf 'SET %s', pick("cachectl.os_engine = 'mincore'", "cachectl.os_engine = 'auto'", "cachectl.os_engine = 'x'",
			'cachectl.prewarm_max_share = 0.5', 'cachectl.prewarm_max_share = -1', "cachectl.prewarm_max_share = 'NaN'",
			'cachectl.progress = on', 'cachectl.log_actions = on', 'cachectl.log_actions = off');
	},
);
my @function_names = sort keys %generators;

# SQLSTATEs a hostile argument or a racing DDL may fairly raise (not 23505:
# two snapshots of one label now wait for each other).
my %allowed = map { $_ => 1 } qw(
  22023 22004 2202E 42P01 42809 0A000 42704 3D000 55P03 40P01 42602 55000);

my $batch_size = 60;
my $setup = "\\set VERBOSITY sqlstate\nSET client_min_messages = warning;\nSET lock_timeout = '3s';\n"
  . "SET statement_timeout = '60s';\nCREATE TEMP TABLE fz_tmp AS SELECT generate_series(1, 1000) AS id;\n";

# One batch for one worker: statements, each announced on stderr by \warn.
sub make_batch {
	my ($dir, $worker, $number) = @_;
	my @statements;
	my $text = $setup;
	for my $i (0 .. $batch_size - 1) {
		my $name = pick(@function_names);
		my $sql = $generators{$name}->();
		push @statements, [ $name, $sql ];
		$text .= "\\warn \@\@ $i\n$sql;\n";
	}
	my $file = "$dir/batch_${worker}_$number.sql";
	open(my $fh, '>', $file) or die "could not write $file: $!";
	print $fh $text;
	close($fh);
	return ($file, \@statements);
}

my %calls;
my %errors;
my @unexpected;
my $lost_connections = 0;

# Read a finished batch's stderr: the statement in force when each ERROR came.
sub account_batch {
	my ($statements, $stderr) = @_;
	my $current;
	my %done;
	for my $line (split /\n/, $stderr) {
		if ($line =~ /^\@\@ (\d+)$/) {
			$current = $statements->[$1];
			$done{$1} = 1;
			$calls{ $current->[0] }++;
		}
		elsif ($line =~ /ERROR:\s+([0-9A-Z]{5})/) {
			my $state = $1;
			my $name = defined $current ? $current->[0] : 'setup';
			$errors{$state}++;
			push @unexpected, "$state from " . ($current ? $current->[1] : 'setup') unless $allowed{$state};
		}
		elsif ($line =~ /connection to server was lost|server closed the connection|terminated abnormally/) {
			$lost_connections++;
			push @unexpected, "lost connection at " . ($current ? $current->[1] : 'setup');
		}
	}
}

my $dir = $node->basedir;
my @psql = ('psql', '-X', '-q', '-d', $node->connstr('postgres'));
my $workers = 3;
my @running;
my $deadline = time + $seconds;
my $batch_number = 0;

# The DDL session: repeated until the deadline, errors ignored (a partition
# already detached, a lock timeout), since the callers are what is checked.
my $ddl_file = "$dir/ddl.sql";
open(my $ddl, '>', $ddl_file) or die;
print $ddl <<'EOS';
SET lock_timeout = '2s';
TRUNCATE fz_churn;
INSERT INTO fz_churn SELECT g, g FROM generate_series(1, 5000) g;
VACUUM FULL fz_churn;
REINDEX TABLE CONCURRENTLY fz_churn;
VACUUM FULL fz_t;
ALTER TABLE fz_p DETACH PARTITION fz_p2;
ALTER TABLE fz_p ATTACH PARTITION fz_p2 FOR VALUES FROM (10000) TO (20000);
REINDEX INDEX CONCURRENTLY fz_p_b;
DROP TABLE fz_p3;
CREATE TABLE fz_p3 PARTITION OF fz_p FOR VALUES FROM (20000) TO (30000);
INSERT INTO fz_p3 SELECT g, g % 71 FROM generate_series(20000, 29999) g;
REFRESH MATERIALIZED VIEW fz_mv;
DROP INDEX fz_churn_id;
CREATE INDEX fz_churn_id ON fz_churn (id);
DROP TABLE fz_u;
CREATE UNLOGGED TABLE fz_u AS SELECT g AS id FROM generate_series(1, 20000) g;
EOS
close($ddl);
my $ddl_rounds = 0;
my ($ddl_out, $ddl_err) = ('', '');
my $ddl_run = IPC::Run::start([ @psql, '-f', $ddl_file ], '>', \$ddl_out, '2>', \$ddl_err);

for my $worker (1 .. $workers) {
	my ($file, $statements) = make_batch($dir, $worker, $batch_number++);
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ @psql, '-f', $file ], '>', \$out, '2>', \$err);
	push @running, { h => $h, statements => $statements, out => \$out, err => \$err, worker => $worker };
}

while (@running) {
	my @still;
	for my $run (@running) {
		# pump_nb dies ("process ended prematurely") when psql exited since
		# the last look: finish() below collects it all the same
		eval { $run->{h}->pump_nb; 1 };
		if ($run->{h}->pumpable) { push @still, $run; next; }
		$run->{h}->finish;
		account_batch($run->{statements}, ${ $run->{err} });
		unlink glob("$dir/batch_$run->{worker}_*.sql");
		if (time < $deadline) {
			my ($file, $statements) = make_batch($dir, $run->{worker}, $batch_number++);
			my ($out, $err) = ('', '');
			my $h = IPC::Run::start([ @psql, '-f', $file ], '>', \$out, '2>', \$err);
			push @still, { h => $h, statements => $statements, out => \$out, err => \$err, worker => $run->{worker} };
		}
	}
	@running = @still;
	if (defined $ddl_run) {
		eval { $ddl_run->pump_nb; 1 };
		if (!$ddl_run->pumpable) {
			$ddl_run->finish;
			$ddl_rounds++;
			# a round that ends after the deadline is not started again
			undef $ddl_run;
			if (time < $deadline) {
				($ddl_out, $ddl_err) = ('', '');
				$ddl_run = IPC::Run::start([ @psql, '-f', $ddl_file ], '>', \$ddl_out, '2>', \$ddl_err);
			}
		}
	}
	sleep(0.02);
}
$ddl_run->finish if defined $ddl_run;

my $total = 0;
$total += $_ for values %calls;
my $error_total = 0;
$error_total += $_ for values %errors;
note("fuzz: calls per function: " . join(', ', map { "$_ " . ($calls{$_} // 0) } @function_names));
note("fuzz: errors by SQLSTATE: " . join(', ', map { "$_ $errors{$_}" } sort keys %errors));
diag("fuzz: $total calls in $seconds s (seed $seed), $error_total errors, "
	  . scalar(@unexpected) . " not allowed, $ddl_rounds DDL rounds");

ok($total > 0 && (grep { ($calls{$_} // 0) > 0 } @function_names) == @function_names,
	'every function was called');
is(scalar(@unexpected), 0, 'every error carries an allowed SQLSTATE, no connection was lost')
  or diag(join("\n", @unexpected[ 0 .. ($#unexpected < 20 ? $#unexpected : 19) ]));
is($errors{XX000} // 0, 0, 'no internal error (XX000)');
is($errors{57014} // 0, 0, 'no call ran into the 60 s statement timeout (no hang)');

my $now_pid = (split /\n/, slurp_file($pid_file))[0];
is($now_pid, $first_pid, 'the postmaster is the same process');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server answers');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|PANIC|TRAP:/, 'no crash, PANIC or assertion failure in the server log');
is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_buffercache WHERE pinning_backends > 0'),
	'0', 'no buffer is left pinned');
my $amcheck = $node->safe_psql(
	'postgres', q{
SELECT count(*) FROM pg_class AS c, LATERAL verify_heapam(c.oid) AS v
 WHERE c.relname LIKE 'fz\_%' AND c.relkind IN ('r', 'm');
-- a REINDEX CONCURRENTLY stopped by its lock timeout leaves an invalid index behind
SELECT count(bt_index_check(c.oid, true)) FROM pg_class AS c JOIN pg_am AS a ON a.oid = c.relam
  JOIN pg_index AS i ON i.indexrelid = c.oid
 WHERE c.relname LIKE 'fz\_%' AND c.relkind = 'i' AND a.amname = 'btree' AND i.indisvalid;
});
my ($heap_problems, $indexes_checked) = split /\n/, $amcheck;
is($heap_problems, '0', 'verify_heapam finds nothing wrong in the pool\'s tables');
cmp_ok($indexes_checked, '>', 0, "bt_index_check passed on $indexes_checked indexes");

$node->stop;
done_testing();
