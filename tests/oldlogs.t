# Logs written by an earlier refd (tests/fixtures/logs/) still verify with
# today's refctl, against the key that signed them.
use strict;
use warnings;
use Test::More;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $src = $ENV{REFD_SRC} // '.';
my $dir = "$src/tests/fixtures/logs";
my $refctl = "$b/bin/refctl";

open(my $fh, '<', "$dir/refd.pub") or die "$dir/refd.pub: $!";
chomp(my $pub = <$fh>);
close $fh;
like($pub, qr/^[0-9a-f]{64}$/, 'the fixtures name the key that signed them');

# Logs that a rules fix no longer replays (refd-evlog(5), "Logs that a
# rules fix no longer replays"): everything but the replay must still hold.
my %rules_fix = (dungeon => 1, encounter => 1);

my @logs = sort glob("$dir/*.log");
is(scalar @logs, 6, 'one fixture log for each of the six rulesets');
for my $log (@logs) {
	my ($name) = $log =~ m{([^/]+)\.log$};
	my $out = `'$refctl' verify '$log' --plugin '$b/plugins/$name.so' --content '$b/rulesets/$name' --pubkey $pub 2>&1`;
	my $rc = $? >> 8;
	if ($rules_fix{$name}) {
		ok($rc != 0 && $out =~ /replay diverges/ &&
		    $out =~ /every frame hash holds/ &&
		    $out =~ /chain: intact/ &&
		    $out =~ /seed: the revealed server seed matches/,
		    "$name: a log of format 1 holds but for a rules fix's " .
		    "replay") or diag($out);
		next;
	}
	is($rc, 0, "$name: a log of format 1 still verifies") or diag($out);
}
done_testing();
