# An unfinished log is replayed to its end with the dice it records (their
# fairness waits for the server seed): a command, a die or anything else
# changed after the last checkpoint, with the frame hashes and the chain
# recomputed by someone without the daemon's key, fails (exit 1) instead of
# passing as an intact unfinished log (exit 3).
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => { 'checkpoint-every' => 1000 });
my $c = $d->client;
my $refctl = Refd::bin('refctl');
my $src = $ENV{REFD_SRC} // '.';
my $py = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';

my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my $id = $m->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0, 1;
for my $n (1 .. 6) {
	my $p = $c->ok('pending', match => $id);
	my $s = $p->{seats}[0];
	$c->ok('act', match => $id, seat => $s, token => $tok[$s],
	    cmd => { type => $n % 3 ? 'attack' : 'defend' }, cmd_id => "c$n");
}
ok(!$c->ok('pending', match => $id)->{finished}, 'the match goes on');
my $dir = $d->dir;
my $log = "$dir/state/matches/$id.log";

my ($st, $out) = Refd::run_prog($refctl, 'verify', $log);
is($st, 3, 'the intact unfinished log: incomplete (3)') or diag($out);
like($out, qr/replay: \d+ commands with the recorded dice; every draw, event and state hash matches/,
    'after replaying every command');

for my $mode (qw(illegal dice)) {
	system($py, "$src/tests/lib/tamper_tail.py", $log, "$dir/$mode.log",
	    $mode) == 0 or die "tamper_tail $mode";
	($st, $out) = Refd::run_prog($refctl, 'verify', "$dir/$mode.log");
	is($st, 1, "a changed $mode after the last checkpoint fails (1)")
	    or diag($out);
	like($out, qr/replay diverges/, "$mode: named as a divergence");
}

# Without the plugin the commands cannot be replayed: still incomplete.
($st, $out) = Refd::run_prog($refctl, 'verify', '--plugin',
    "$dir/no-such.so", $log);
is($st, 3, 'no plugin: the unfinished log stays incomplete (3)') or diag($out);
like($out, qr/the commands are not replayed/, 'and says so');
done_testing();
