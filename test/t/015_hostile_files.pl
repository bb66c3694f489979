# 015_hostile_files.pl
#
# A relation file replaced outside PostgreSQL must never hang a call, be
# measured as if it were the relation's data, or show a page-cache state the
# kernel made up.  Every function that reads relation files refuses such a
# file with SQLSTATE 55000, a message naming it and saying what it is, and a
# hint:
#
#  - a FIFO: a blocking open() would wait for a writer forever, deaf to
#    statement_timeout and pg_terminate_backend, holding its lock;
#  - a directory: it opens read-only and stat() gives it a size (4096), so
#    shared_residency reported its fork as 0 blocks without a word;
#  - a character device (a link to /dev/null);
#  - a file the server's user does not own (a link to a file root owns):
#    the kernel hides such files' page-cache state, so mincore reported every
#    page cached and cachestat failed with a bare 42501 — with either engine.
#
# statement_timeout bounds each call, and psql's own timeout bounds the test
# should a call hang anyway.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX qw(mkfifo);

my $node = PostgreSQL::Test::Cluster->new('hostile_files');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pg_cachectl;
CREATE TABLE hostile (id int, doc text);
INSERT INTO hostile SELECT g, 'doc ' || g FROM generate_series(1, 5000) g;
CHECKPOINT;
});
my $main_fork_relative =
  $node->safe_psql('postgres', q{SELECT pg_relation_filepath('hostile')});
my $main_fork = $node->data_dir . '/' . $main_fork_relative;
my $rows_before = $node->safe_psql('postgres', 'SELECT count(*) FROM hostile');

# Runs $sql in a new session under statement_timeout; returns the SQLSTATE
# of the last error ('00000' if none), psql's stderr, and whether psql had to
# be stopped because the call hung.
sub run_bounded
{
	my ($sql) = @_;
	my $timed_out = 0;
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres',
		"SET statement_timeout = '10s';\n$sql;\n\\echo LAST_ERROR_SQLSTATE=:LAST_ERROR_SQLSTATE\n",
		on_error_stop => 0,
		timeout => 30,
		timed_out => \$timed_out,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	my ($sqlstate) = ($stdout // '') =~ /^LAST_ERROR_SQLSTATE=(\w+)$/m;
	return ($sqlstate // 'none', $stderr // '', $timed_out);
}

# Puts $make_replacement's file in place of the table's main fork, runs each
# call, and puts the original back.
sub with_main_fork_replaced
{
	my ($label, $make_replacement, $expected_kind, @calls) = @_;
	rename($main_fork, "$main_fork.orig")
	  or die "could not move $main_fork aside: $!";
	$make_replacement->($main_fork);
	foreach my $call (@calls)
	{
		my ($name, $sql) = @$call;
		my ($sqlstate, $stderr, $timed_out) = run_bounded($sql);
		note("$label, $name: $stderr");
		ok(!$timed_out, "$label, $name: returns (does not hang)");
		is($sqlstate, '55000', "$label, $name: refused with 55000");
		like($stderr, qr/relation file ".*\Q$main_fork_relative\E" \Q$expected_kind\E/,
			"$label, $name: the message names the file and says what it is");
		like($stderr, qr/HINT:  PostgreSQL keeps only regular files owned by the server's/,
			"$label, $name: with a hint");
	}
	if (-d $main_fork && !-l $main_fork)
	{
		rmdir($main_fork) or die "could not remove directory $main_fork: $!";
	}
	else
	{
		unlink($main_fork) or die "could not remove $main_fork: $!";
	}
	rename("$main_fork.orig", $main_fork)
	  or die "could not move $main_fork back: $!";
}

my @every_reader = (
	[ 'os_residency', q{SELECT * FROM cachectl.os_residency('hostile')} ],
	[
		'os_residency_total',
		q{SELECT * FROM cachectl.os_residency_total('hostile')}
	],
	[
		'shared_residency',
		q{SELECT * FROM cachectl.shared_residency('hostile')}
	],
	[ 'evict', q{SELECT * FROM cachectl.evict('hostile')} ],);

with_main_fork_replaced('a FIFO', sub { mkfifo($_[0], 0600) or die "mkfifo: $!" },
	'is a FIFO, not a regular file', @every_reader);

with_main_fork_replaced('a directory', sub { mkdir($_[0], 0700) or die "mkdir: $!" },
	'is a directory, not a regular file', @every_reader);

with_main_fork_replaced(
	'a link to /dev/null',
	sub { symlink('/dev/null', $_[0]) or die "symlink: $!" },
	'is a character device, not a regular file',
	@every_reader);

# A regular file owned by root, readable by everyone: the server may read it
# but not write it, and so may not see its page-cache state.
my ($foreign_file) = grep { -f $_ && -r $_ && (stat($_))[4] == 0 }
  ('/etc/passwd', '/etc/hostname', '/usr/bin/perl');
die 'no readable root-owned file found' unless defined $foreign_file;
with_main_fork_replaced(
	"a link to $foreign_file (owned by root)",
	sub { symlink($foreign_file, $_[0]) or die "symlink: $!" },
	'belongs to user ID 0, not to the server\'s user ID',
	[
		'os_residency with mincore',
		q{SET cachectl.os_engine = mincore; SELECT * FROM cachectl.os_residency('hostile')}
	],
	[
		'os_residency with auto',
		q{SET cachectl.os_engine = auto; SELECT * FROM cachectl.os_residency('hostile')}
	],
	[
		'os_residency_total with mincore',
		q{SET cachectl.os_engine = mincore; SELECT * FROM cachectl.os_residency_total('hostile')}
	],
	[
		'shared_residency',
		q{SELECT * FROM cachectl.shared_residency('hostile')}
	],);

# Everything back as it was.
is($node->safe_psql('postgres', 'SELECT count(*) FROM hostile'),
	$rows_before, 'the table reads back whole');
is( $node->safe_psql(
		'postgres',
		q{SELECT sum(size_bytes) = pg_relation_size('hostile') FROM cachectl.os_residency('hostile', 'main')}
	),
	't',
	'and os_residency measures its file again');
my $log = slurp_file($node->logfile);
unlike($log, qr/PANIC|TRAP:|terminated by signal/, 'the server log shows no crash');

$node->stop;
done_testing();
