#!/usr/bin/perl
# bench.t - refd-bench (make bench) runs start to finish with tiny sizes:
# every section works and results.json holds every figure.  Speed is never
# judged here; this only keeps the harness from rotting.
use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $bin = "$b/bench/refd-bench";
plan skip_all => "$bin is not built" unless -x $bin;
plan skip_all => 'not under the sanitizers (too slow, and it forks daemons)'
    if $ENV{REFD_SANITIZE};
my $tmp = tempdir('refd-bench-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my @cmd = ($bin, '--build', $b, '--work', "$tmp/work", '--json',
    "$tmp/results.json", '--rt', 30, '--tp-secs', 0.2, '--tp-clients', '1,3',
    '--games', 2, '--verify-records', 200, '--scale', '1,20',
    '--recover-matches', 5, '--recover-cmds', 30);
my $out = `@cmd 2>&1`;
is($?, 0, 'refd-bench exits 0') or diag($out);
like($out, qr/== $_/, "prints the $_ section")
    for ('rules speed', 'round trip', 'throughput', 'verification', 'memory',
    'recovery', 'no stall');
my $r = eval {
	local $/;
	open(my $f, '<', "$tmp/results.json") or die "$!";
	decode_json(<$f>);
};
ok($r, 'results.json is JSON') or diag($@);
ok(@{ $r->{rules} } >= 1 && $r->{rules}[0]{apply_per_s} > 0,
    'rules speed of each built plugin');
ok($r->{round_trip}{$_}{ratio_p50} > 0, "round trip ratio, fsync $_")
    for qw(never always);
ok($r->{throughput}{always_over_never} > 0, 'throughput ratio');
ok($r->{verify}{verify_records_per_s} > 0, 'verification speed');
is(scalar @{ $r->{memory}{points} }, 2, 'memory at each scale');
is($r->{recovery}{unfinished}, 5, 'recovery of the unfinished matches');
ok($r->{no_stall}{ratio_mean} > 0 && $r->{no_stall}{busy}{spins} > 0,
    'no stall: a move while another plugin spins, against idle');
ok(grep({ $_->{command} =~ /--only rt/ } @{ $r->{commands} }),
    'the command lines to re-run a figure');
done_testing();
