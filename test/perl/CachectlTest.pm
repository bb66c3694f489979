# CachectlTest.pm — what the scenario tests share: the check that util-linux
# fincore can judge them here, the OS page size, fincore's resident page
# counts (to compare pg_cachectl's figures with), the node the OS page cache
# tests start, a relation's segment files, size and evicted pages, relations
# made huge with sparse segment files, and the pgbench load with the checks
# that follow it (the pgbench invariant, amcheck, the server log,
# pg_checksums), the kernel's own page counts of a file range
# (cachestat), the files a test creates to signal its background
# sessions, and the wait for a state that something else brings about
# (poll_until).
package CachectlTest;

use strict;
use warnings;

use Exporter 'import';
use File::Spec;
use IPC::Run;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

our @EXPORT_OK = qw(server_query_until require_fincore_on_disk os_page_size fincore_pages fincore_page_list
  fincore_total start_cache_node segment_files main_fork_blocks os_evicted_page_list
  extend_with_sparse_segments grow_into_second_segment start_pgbench finish_pgbench
  check_pgbench_balances check_amcheck log_trouble check_pg_checksums sqlstate_of
  cachestat_counts signal_file file_exists_sql poll_until);

# Skips the whole test where fincore is missing, or where the test directory
# (the nodes' data directories live under it) is on tmpfs: DONTNEED drops
# nothing there, so no cold state could be made.
sub require_fincore_on_disk
{
	my ($fincore_found) = run_command([ 'sh', '-c', 'command -v fincore' ]);
	plan skip_all => 'util-linux fincore is not installed'
	  unless $fincore_found;
	my ($fs_type) = run_command(
		[ 'stat', '-f', '-c', '%T', $PostgreSQL::Test::Utils::tmp_check ]);
	plan skip_all =>
	  'the test directory is on tmpfs, where POSIX_FADV_DONTNEED drops nothing'
	  if $fs_type eq 'tmpfs';
	return;
}

# The kernel's page size, the unit of fincore's and pg_cachectl's page counts.
sub os_page_size
{
	my ($size) = run_command([ 'getconf', 'PAGESIZE' ]);
	return $size;
}

# cachestat(2) of $length bytes of a file from $offset (0 for up to its end):
# a hash of the kernel's counts of OS pages there (cached, dirty, writeback,
# evicted, recently_evicted), or undef where the kernel has no cachestat or a
# seccomp filter refuses it.  "evicted" counts the pages that reclaim took out
# of the page cache (the kernel keeps an entry for each, to detect refaults);
# POSIX_FADV_DONTNEED and truncation remove those entries, so right after a
# drop it is 0.  The system call is number 451 on x86_64 and arm64 alike.
sub cachestat_counts
{
	my ($path, $offset, $length) = @_;
	open(my $file, '<', $path) or die "could not open \"$path\": $!";
	my $range = pack('QQ', $offset, $length);
	my $counts = "\0" x (5 * 8);
	my $ret = syscall(451, fileno($file), $range, $counts, 0);
	my $errno = $! + 0;
	close($file);
	if ($ret != 0)
	{
		return undef if $errno == POSIX::ENOSYS || $errno == POSIX::EPERM;
		die "cachestat of \"$path\" failed: errno $errno";
	}
	my %count;
	@count{qw(cached dirty writeback evicted recently_evicted)} = unpack('Q5', $counts);
	return \%count;
}

# fincore's resident page count of each file, keyed by the file's path; dies
# when fincore says nothing of one of them.
sub fincore_pages
{
	my @files = @_;
	my ($stdout, $stderr);
	IPC::Run::run(
		[
			'fincore', '--raw', '--noheadings', '--bytes',
			'--output', 'PAGES,FILE', @files
		],
		'>', \$stdout, '2>', \$stderr)
	  or die "fincore failed: $stderr";
	my %pages;
	foreach my $line (split /\n/, $stdout)
	{
		my ($count, $file) = split / /, $line, 2;
		$pages{$file} = $count;
	}
	foreach my $file (@files)
	{
		die "fincore reported nothing for \"$file\""
		  unless defined $pages{$file};
	}
	return \%pages;
}

# The same counts as a list, in the order of the files given.
sub fincore_page_list
{
	my @files = @_;
	my $pages = fincore_pages(@files);
	return [ map { $pages->{$_} } @files ];
}

# fincore's resident pages of the files added up: how much of a fork, or of
# a relation, is cached, where a test compares one figure (os_drop's
# os_pages_before, a cold relation) rather than segment by segment.
sub fincore_total
{
	my @files = @_;
	my $pages = fincore_pages(@files);
	my $total = 0;
	$total += $pages->{$_} foreach @files;
	return $total;
}

# ---- a node, and a relation's files ----

# A started node with pg_cachectl created, set as every OS page cache test
# needs it, so that the page cache holds only what the test puts there and
# a drop can drop it: no autovacuum and no timed checkpoint to read or write
# the tables behind the test's back, WAL room for the big tables, and fsync
# on (Cluster.pm turns it off), or a CHECKPOINT or os_drop's write-back
# would leave the pages dirty and DONTNEED would skip them.  $extra_conf:
# more postgresql.conf lines, for what one test needs besides.
sub start_cache_node
{
	my ($name, $extra_conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', q{
autovacuum = off
checkpoint_timeout = '1h'
max_wal_size = '4GB'
fsync = on
} . ($extra_conf // ''));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_cachectl');
	return $node;
}

# The paths of the first $count segment files of a relation's main fork in
# the node's postgres database, whether they exist yet or not: the files
# fincore is given, and that the server's reports name.
sub segment_files
{
	my ($node, $relation, $count) = @_;
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres',
		qq{SELECT pg_relation_filepath('$relation')});
	return map { $_ == 0 ? $path : "$path.$_" } 0 .. $count - 1;
}

# The size of a relation's main fork in blocks, as the server sees it (the
# sparse segments included): what a full os_prefetch or os_map covers.
sub main_fork_blocks
{
	my ($node, $relation) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT pg_relation_size('$relation') / current_setting('block_size')::int}
	);
}

# The pages of each segment file of a relation's main fork that the kernel
# evicted and nothing read again since (cachestat's evicted count), in
# segment order; zeros under the mincore engine, which has no such count.
# This host's proactive reclaim takes untouched pages within seconds, so a
# test that compares two readers allows for the pages this says went.
sub os_evicted_page_list
{
	my ($node, $relation) = @_;
	my $out = $node->safe_psql('postgres',
		qq{SELECT string_agg(coalesce(os_evicted_pages, 0)::text, ' ' ORDER BY segment)
  FROM cachectl.os_residency('$relation', 'main')});
	return [ split / /, $out ];
}

# Makes a table of the node's default database $segments GiB large without
# using the disk: its first segment file and $segments - 1 more are extended
# to 1 GiB as sparse files, which PostgreSQL reads as all-zero (new) pages.
# The table's existing pages must be on disk first (a CHECKPOINT).
sub extend_with_sparse_segments
{
	my ($node, $table, $segments) = @_;
	my $segment_bytes = 1024 * 1024 * 1024;
	foreach my $file (segment_files($node, $table, $segments))
	{
		open(my $handle, '>>', $file) or die "could not open \"$file\": $!";
		truncate($handle, $segment_bytes)
		  or die "could not extend \"$file\": $!";
		close($handle);
	}
	return;
}

# Gives a table of the node's postgres database real pages in two segment
# files without writing a gigabyte: what it holds is checkpointed, its first
# segment file extended sparsely to 1 GiB, then the rows $insert_sql adds
# land in its last block and on into segment 1, and are checkpointed too.
# Nothing should scan the table afterwards (it would fill the page cache
# with the sparse zeros).  Returns the paths of the two segment files.
sub grow_into_second_segment
{
	my ($node, $table, $insert_sql) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	extend_with_sparse_segments($node, $table, 1);
	$node->safe_psql('postgres', $insert_sql);
	$node->safe_psql('postgres', 'CHECKPOINT');
	return segment_files($node, $table, 2);
}

# ---- a pgbench load and what must hold after it ----

# Starts pgbench in the background against the node's postgres database,
# with the given environment added; it may run $seconds (plus the usual
# timeout) before IPC::Run gives up on it.
sub start_pgbench
{
	my ($node, $environment, $seconds, @options) = @_;
	my %run = (stdout => '', stderr => '');
	local %ENV = (%ENV, %$environment);
	$run{handle} = IPC::Run::start(
		[
			'pgbench', '-n', '-h', $node->host, '-p', $node->port,
			@options, 'postgres'
		],
		'<', \undef, '>', \$run{stdout}, '2>', \$run{stderr},
		IPC::Run::timeout($seconds + $PostgreSQL::Test::Utils::timeout_default));
	return \%run;
}

# Waits for a pgbench started by start_pgbench; returns its exit status and
# the number of transactions it reports as processed (undef if none).
sub finish_pgbench
{
	my ($run) = @_;
	$run->{handle}->finish;
	my $status = $run->{handle}->result(0);
	my ($transactions) =
	  $run->{stdout} =~ /number of transactions actually processed: (\d+)/;
	return ($status, $transactions);
}

# The pgbench invariant: no account, teller or branch lost or doubled, and
# sum(abalance) = sum(tbalance) = sum(bbalance) = sum(delta) of the history.
# Returns the number of history rows.
sub check_pgbench_balances
{
	my ($node, $scale, $label) = @_;
	my ($accounts, $tellers, $branches, $abalance, $tbalance, $bbalance,
		$delta, $history)
	  = split /\|/, $node->safe_psql(
		'postgres', q{
SELECT (SELECT count(*) FROM pgbench_accounts),
       (SELECT count(*) FROM pgbench_tellers),
       (SELECT count(*) FROM pgbench_branches),
       (SELECT sum(abalance) FROM pgbench_accounts),
       (SELECT sum(tbalance) FROM pgbench_tellers),
       (SELECT sum(bbalance) FROM pgbench_branches),
       (SELECT coalesce(sum(delta), 0) FROM pgbench_history),
       (SELECT count(*) FROM pgbench_history)});
	note("$label: sum(abalance) $abalance, sum(tbalance) $tbalance, "
		  . "sum(bbalance) $bbalance, sum(delta) $delta, "
		  . "$history history rows");
	is_deeply(
		[ $accounts, $tellers, $branches ],
		[ 100_000 * $scale, 10 * $scale, $scale ],
		"$label: no account, teller or branch row is lost or doubled");
	is_deeply(
		[ $abalance, $tbalance, $bbalance ],
		[ $delta, $delta, $delta ],
		"$label: the pgbench balances all add up to sum(delta)");
	return $history;
}

# amcheck on the given tables of the public schema: verify_heapam (TOAST
# included) finds nothing, and bt_index_check with heapallindexed passes on
# every index of theirs.  Returns the number of indexes checked.
sub check_amcheck
{
	my ($node, $tables, $label) = @_;
	my $table_list = join ',', map { "'$_'" } @$tables;
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres', qq{
SELECT c.relname, v.blkno, v.offnum, v.attnum, v.msg
  FROM pg_class c,
       verify_heapam(c.oid, check_toast => true) AS v
 WHERE c.relname IN ($table_list) AND c.relnamespace = 'public'::regnamespace
});
	is($ret, 0, "$label: verify_heapam ran on every table")
	  or diag($stderr);
	is($stdout, '', "$label: verify_heapam finds nothing");

	($ret, $stdout, $stderr) = $node->psql(
		'postgres', qq{
SELECT count(bt_index_check(i.indexrelid, heapallindexed => true))
  FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
 WHERE t.relname IN ($table_list) AND t.relnamespace = 'public'::regnamespace
});
	is($ret, 0, "$label: bt_index_check passes on every index")
	  or diag($stderr);
	return $stdout;
}

# The lines of a server log that show trouble whatever the scenario: a
# PANIC, an assertion, an ERROR, a leak, a page that fails its checks, an
# I/O failure, a crash.  A backend killed with signal 9 is a test's doing;
# any other signal is a crash.
sub log_trouble
{
	my ($log) = @_;
	my $trouble = qr/
		PANIC: | TRAP: | ERROR: | refcount\ leak | checksum\ verification\ failed
	  | page\ verification\ failed | invalid\ page
	  | could\ not\ (?:read|write|fsync) | unexpected\ data\ beyond\ EOF
	  | was\ terminated\ by\ signal\ (?!9:)
	/x;
	return grep { /$trouble/ } split /\n/, $log;
}

# pg_checksums --check passes on the node, which must be stopped cleanly.
sub check_pg_checksums
{
	my ($node, $label) = @_;
	command_like(
		[ 'pg_checksums', '--check', '-D', $node->data_dir ],
		qr/Bad checksums:\s+0\b/,
		"$label: pg_checksums --check passes on the stopped cluster");
	return;
}


# Runs $sql in a new session of $node; returns the SQLSTATE of the last
# error it raised ('00000' when none did), what psql printed on stdout (less
# the line that reports the SQLSTATE) and on stderr (verbose: SQLSTATEs and
# details included).
sub sqlstate_of
{
	my ($node, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres',
		"$sql;\n\\echo LAST_ERROR_SQLSTATE=:LAST_ERROR_SQLSTATE\n",
		on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	my ($sqlstate) = $stdout =~ /^LAST_ERROR_SQLSTATE=(\w+)$/m;
	die "no SQLSTATE report in psql output: $stdout\n$stderr"
	  unless defined $sqlstate;
	$stdout =~ s/^LAST_ERROR_SQLSTATE=.*\n?//m;
	return ($sqlstate, $stdout, $stderr);
}

# The path of a file the test creates to signal a session running in
# $node's server: absolute, as COPY TO needs and pg_stat_file() reads it
# (17 and 18's test Cluster gives a relative basedir).
sub signal_file
{
	my ($node, $name) = @_;
	return File::Spec->rel2abs($node->basedir) . "/$name";
}

# The SQL condition "the file at $path exists", for a session's wait loop.
# Not pg_stat_file($path, true) IS NOT NULL: on Linux its creation column is
# NULL, so that row is never NOT NULL.
sub file_exists_sql
{
	my ($path) = @_;
	return "(pg_stat_file('$path', true)).size IS NOT NULL";
}

# Calls $check until it returns a true value or $seconds have passed (the
# harness's timeout_default, 180 s unless PG_TEST_TIMEOUT_DEFAULT says
# otherwise, when $seconds is undef); returns what $check returned last, so
# a caller asserts on it: ok(poll_until(...), ...).  For what another
# process brings about in its own time (a log line of a background worker,
# statistics flushed by a backend that exits, a lock a session has yet to
# take): a test never samples such a state once.  A state a query reads is
# better waited for by the node's poll_query_until.  $check may die while a
# server restarts (psql's broken pipe): that counts as not yet (and is
# shown if it is still so at the deadline).
sub poll_until
{
	my ($check, $seconds) = @_;
	$seconds //= $PostgreSQL::Test::Utils::timeout_default;
	my $deadline = Time::HiRes::time() + $seconds;
	while (1)
	{
		my $result = eval { $check->() };
		return $result if $result;
		if (Time::HiRes::time() > $deadline)
		{
			diag("poll_until: the last check died: $@") if $@;
			return $result;
		}
		Time::HiRes::sleep(0.1);
	}
}

# Polls $query on $node's $dbname until it returns true ('t') or $seconds
# pass, as the node's poll_query_until does, except that a server that is
# down or restarting counts as not yet: poll_query_until dies when psql,
# refused, exits before reading its query (IPC::Run's "Broken pipe", which
# killed 088 once as pg_autoctl restarted the monitor).  For the servers an
# HA manager or a crash restarts.
sub server_query_until
{
	my ($node, $dbname, $query, $seconds) = @_;
	return poll_until(sub { $node->safe_psql($dbname, $query) eq 't' }, $seconds);
}

1;
