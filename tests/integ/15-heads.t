# Heads (refd-evlog(5), Heads): the daemon signs a match's record count and
# last hash at any time; refctl verify --head proves a log covers a head it
# was given, so a log cut short after a head was seen is named as cut
# (exit 1), not merely unfinished (exit 3).
use strict;
use warnings;
use Test::More;
use JSON::PP;

use Refd;

my $d = Refd->new;
my $c = $d->client;
my $refctl = Refd::bin('refctl');

my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my $id = $m->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0, 1;
my $n = 0;
sub turn {
	my $p = $c->ok('pending', match => $id);
	return 0 if $p->{finished};
	my $s = $p->{seats}[0];
	$c->ok('act', match => $id, seat => $s, token => $tok[$s],
	    cmd => { type => 'defend' }, cmd_id => 'd' . ++$n);
	return 1;
}
turn() for 1 .. 4;

# The head now.
my $h = $c->ok('head', match => $id);
is($h->{match}, $id, 'head: the match');
like($h->{hash}, qr/^[0-9a-f]{64}$/, 'the last record\'s hash');
like($h->{sig}, qr/^[0-9a-f]{128}$/, 'signed');
is($h->{seq}, $c->ok('pending', match => $id)->{seq}, 'at the match\'s seq');
ok($h->{records} >= $h->{seq}, 'with the record count');
is($h->{pubkey}, $c->ok('pubkey')->{pubkey}, 'by the daemon\'s key');
my $dir = $d->dir;
open(my $f, '>', "$dir/head.json") or die;
print $f encode_json($h);
close($f);

# refctl head prints the same thing.
my ($st, $out) = Refd::run_prog($refctl, '-s', $d->endpoint, 'head', $id);
is($st, 0, 'refctl head');
my $h2 = decode_json($out);
is($h2->{records}, $h->{records}, 'refctl head gives the same head');

turn() for 1 .. 2;
my $log = "$dir/state/matches/$id.log";
ok(-f $log, 'the match\'s log');
my $bytes = do { open(my $g, '<:raw', $log) or die; local $/; <$g> };

# Frames: their ends, to cut the log at a record boundary.
my @ends;
for (my $o = 8; $o < length($bytes); ) {
	my $len = unpack('N', substr($bytes, $o, 4));
	$o += 8 + $len + 32;
	push @ends, $o;
}
sub write_log {
	my ($name, $data) = @_;
	open(my $g, '>:raw', "$dir/$name") or die;
	print $g $data;
	close($g);
	return "$dir/$name";
}

my $whole = write_log('whole.log', $bytes);
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/head.json",
    $whole);
is($st, 3, 'an unfinished log covering the head: incomplete (3)') or diag($out);
like($out, qr/head: the log covers the head the daemon signed at record \d+/,
    'and says it covers the head');

my $cut = write_log('cut.log', substr($bytes, 0, $ends[$h->{records} - 2]));
($st, $out) = Refd::run_prog($refctl, 'verify', $cut);
is($st, 3, 'the log cut before the head, without the head: incomplete (3)');
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/head.json",
    $cut);
is($st, 1, 'with the head: cut (1)') or diag($out);
like($out, qr/cut: the log ends after record \d+, but the daemon signed a head at record \d+/,
    'named as cut after the head');
my $torn = write_log('torn.log', substr($bytes, 0, $ends[$h->{records} - 2] + 20));
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/head.json",
    $torn);
is($st, 1, 'cut inside a record before the head: cut (1) too') or diag($out);

# A forged head: the signature fails.
my %bad = (%$h, records => $h->{records} - 1);
open($f, '>', "$dir/forged.json") or die;
print $f encode_json(\%bad);
close($f);
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/forged.json",
    $whole);
is($st, 1, 'a head whose numbers were changed fails');
like($out, qr/the signature is not the log's daemon's/, 'its signature');
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/nonesuch.json",
    $whole);
is($st, 4, 'a missing head file is the environment (4)');

# At the end of the match the head covers the final record.
1 while turn() && $n < 200;
my $hf = $c->ok('head', match => $id);
open($f, '>', "$dir/final.json") or die;
print $f encode_json($hf);
close($f);
my $x = $c->ok('export', match => $id);
my $fin = write_log('final.log', $x->{log});
($st, $out) = Refd::run_prog($refctl, 'verify', '--head', "$dir/final.json",
    '--head', "$dir/head.json", $fin);
is($st, 0, 'a finished log covers both heads') or diag($out);
done_testing();
