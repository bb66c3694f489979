#!/usr/bin/perl
# check_architecture.pl — the rules of the source tree that a reader relies
# on (issue 41; STYLE.md, "Where things live"), checked on the built objects:
#
#   1. no two files in a loop of calls: file A references a symbol that file
#      B defines, and B (directly or through others) one that A defines;
#      the same between areas (the folders of src/pg, the module file, the
#      core); and no file calls into an entry file (one that declares SQL
#      functions), whose SQL functions the server alone calls;
#   2. no loop of includes among the project's own headers;
#   3. src/pg holds its files in area folders (only the module's own entry
#      file sits at the top), each folder's main file opens with a comment
#      saying what the area owns.
#
# Calls are read from the objects (nm), so a call through a macro or an
# inline function of a header counts where it is compiled.  Run from the
# top of the tree after a build; prints TAP-like lines and
# "architecture: N passed, N failed" last.
use strict;
use warnings;
use File::Find;
use File::Basename qw(dirname basename);

my ($passed, $failed) = (0, 0);
sub check {
    my ($ok, $name, @details) = @_;
    if ($ok) { $passed++; print "ok - $name\n"; }
    else { $failed++; print "not ok - $name\n"; print "#   $_\n" for @details; }
}

sub files_under {
    my ($pattern, @dirs) = @_;
    my @found;
    find({ wanted => sub { push @found, $File::Find::name if -f $_ && /$pattern/ }, no_chdir => 1 }, @dirs);
    return sort @found;
}

# Tarjan's strongly connected components of a graph { node => { node => 1 } }:
# every component of more than one node is a loop.
sub loops {
    my ($graph) = @_;
    my ($index, @stack, %on_stack, %idx, %low, @components) = (0);
    my $visit;
    $visit = sub {
        my ($v) = @_;
        $idx{$v} = $low{$v} = $index++;
        push @stack, $v;
        $on_stack{$v} = 1;
        for my $w (sort keys %{ $graph->{$v} || {} }) {
            if (!defined $idx{$w}) {
                $visit->($w);
                $low{$v} = $low{$w} if $low{$w} < $low{$v};
            } elsif ($on_stack{$w}) {
                $low{$v} = $idx{$w} if $idx{$w} < $low{$v};
            }
        }
        if ($low{$v} == $idx{$v}) {
            my @component;
            my $w;
            do { $w = pop @stack; delete $on_stack{$w}; push @component, $w } while ($w ne $v);
            push @components, [ sort @component ] if @component > 1;
        }
    };
    for my $v (sort keys %$graph) { $visit->($v) unless defined $idx{$v}; }
    return @components;
}

# How one file of a loop reaches the others: each edge inside the loop.
sub describe_loop {
    my ($graph, $why, $component) = @_;
    my %in = map { $_ => 1 } @$component;
    my @lines;
    for my $from (@$component) {
        for my $to (sort keys %{ $graph->{$from} || {} }) {
            next unless $in{$to};
            my @reasons = sort keys %{ $why->{$from}{$to} || {} };
            splice(@reasons, 3, @reasons - 3, '...') if @reasons > 3;
            push @lines, "$from -> $to" . (@reasons ? " (@reasons)" : '');
        }
    }
    return @lines;
}

# ---- 1. calls, from the objects ----
my @sources = files_under(qr/\.(c|cpp)$/, 'src');
my (%defined_in, %uses, @missing);
for my $source (@sources) {
    (my $object = $source) =~ s/\.(c|cpp)$/.o/;
    if (!-f $object) { push @missing, $object; next; }
    for my $line (`nm -g --defined-only '$object'`) {
        my (undef, $type, $symbol) = split ' ', $line;
        next unless defined $symbol && $type =~ /^[TDBRVW]$/;
        $defined_in{$symbol} = $source;
    }
    for my $line (`nm -u '$object'`) {
        my (undef, $symbol) = split ' ', $line;
        push @{ $uses{$source} }, $symbol if defined $symbol;
    }
}
check(!@missing, 'every source file of src/ is built (run after make)', map { "no object: $_" } @missing);

my (%calls, %call_why);
for my $source (keys %uses) {
    for my $symbol (@{ $uses{$source} }) {
        my $callee = $defined_in{$symbol};
        next if !defined $callee || $callee eq $source;
        $calls{$source}{$callee} = 1;
        $call_why{$source}{$callee}{$symbol} = 1;
    }
}
my @call_loops = loops(\%calls);
check(!@call_loops, 'no files in a loop of calls in src/ (' . scalar(@sources) . ' files)',
      map { ('loop: ' . join(' ', @$_), describe_loop(\%calls, \%call_why, $_)) } @call_loops);

# The same for the areas: a file's area is its folder under src/pg (the
# module's entry file is "module"), or "core"; the areas call each other in
# one direction only.
sub area_of {
    my ($file) = @_;
    return 'core' if $file =~ m{^src/core/};
    return $file =~ m{^src/pg/([^/]+)/} ? $1 : 'module';
}
my (%area_calls, %area_why);
for my $from (keys %calls) {
    for my $to (keys %{ $calls{$from} }) {
        my ($a, $b) = (area_of($from), area_of($to));
        next if $a eq $b;
        $area_calls{$a}{$b} = 1;
        $area_why{$a}{$b}{"$from->$to"} = 1;
    }
}
my @area_loops = loops(\%area_calls);
check(!@area_loops, 'no areas in a loop of calls (' . scalar(keys %area_calls) . ' areas that call others)',
      map { ('loop: ' . join(' ', @$_), describe_loop(\%area_calls, \%area_why, $_)) } @area_loops);

# An entry file (the SQL functions of one family: it declares them with
# PG_FUNCTION_INFO_V1) is called by the server only: no other file takes
# anything from it but its SQL entry points.
my %entry_file = map { $_ => 1 } grep {
    my $file = $_;
    open my $fh, '<', $file or die "$file: $!";
    scalar grep { /^PG_FUNCTION_INFO_V1\(/ } <$fh>;
} grep { /\.c$/ } @sources;
my @into_entries;
for my $from (sort keys %call_why) {
    for my $to (sort keys %{ $call_why{$from} }) {
        next unless $entry_file{$to};
        my @taken = grep { !/^(pg_finfo_)?pg_cachectl_/ } sort keys %{ $call_why{$from}{$to} };
        push @into_entries, "$from takes @taken from the entry file $to" if @taken;
    }
}
check(!@into_entries, 'no file calls into an entry file (' . scalar(keys %entry_file) . ' entry files)', @into_entries);

# ---- 2. includes, from the text ----
my @texts = files_under(qr/\.(c|cpp|h|hpp)$/, 'src', 'include');
my %exists = map { $_ => 1 } @texts;
my (%includes, %unresolved);
for my $file (@texts) {
    open my $fh, '<', $file or die "$file: $!";
    while (<$fh>) {
        next unless /^\s*#\s*include\s+"([^"]+)"/;
        my $name = $1;
        my ($target) = grep { $exists{$_} } map { "$_/$name" } (dirname($file), 'src/pg', 'src/core', 'include');
        # a server header ("postgres.h", "storage/bufmgr.h") is not ours
        next unless defined $target;
        $target =~ s{/\./}{/}g;
        $includes{$file}{$target} = 1 unless $target eq $file;
    }
}
my @include_loops = loops(\%includes);
check(!@include_loops, 'no headers in a loop of includes in src/ and include/ (' . scalar(@texts) . ' files)',
      map { 'loop: ' . join(' ', @$_) } @include_loops);

# ---- 3. src/pg in area folders ----
my @top = grep { -f $_ } glob('src/pg/*.c');
check(@top <= 1, 'src/pg keeps only the module entry file at its top', map { "at the top: $_" } @top);
for my $area (sort grep { -d $_ } glob('src/pg/*')) {
    my $name = basename($area);
    my ($main) = grep { -f $_ } ("$area/$name.h", "$area/$name.c");
    $main //= "$area/$name.h";
    my $text = -f $main ? do { local (@ARGV, $/) = ($main); <> } : '';
    my ($comment) = $text =~ m{\A/\*(.*?)\*/}s;
    my $words = defined $comment ? () = $comment =~ /\w+/g : 0;
    check($words >= 25, "area $name: its main file ($name.c or $name.h) opens with a paragraph on what the area owns",
          -f $main ? "$main: $words words in its opening comment" : "no $name.c or $name.h in $area");
}

print "architecture: $passed passed, $failed failed\n";
exit($failed ? 1 : 0);
