# A match played through the real daemon, exported over the protocol and
# checked offline: refctl verify with the daemon's public key accepts it,
# and the events clients were served are the events in the log.
use strict;
use warnings;
use Test::More;
use JSON::PP;

use Refd;

my $d = Refd->new;
my $c = $d->client;

my $pk = $c->ok('pubkey');
like($pk->{pubkey}, qr/^[0-9a-f]{64}$/, 'the daemon gives its public key');

my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my $id = $m->{match};
like($m->{seed_commit}, qr/^[0-9a-f]{64}$/,
    'create gives the server seed\'s commitment');
my @joins = map {
	$c->ok('join', match => $id, seat => $_, seed => "player $_")
} 0 .. 1;
my @tok = map { $_->{token} } @joins;
is(scalar(grep { defined } @tok), 2, 'both seats joined');
is(scalar(grep { ($_->{seed_commit} // '') eq $m->{seed_commit} } @joins), 2,
    'each join gives the same commitment');
is($c->ok('view', match => $id, seat => 0, token => $tok[0])->{seed_commit},
    $m->{seed_commit}, 'and so does the seat\'s view');

{
	my $r = $c->req('export', match => $id);
	ok(!$r->{ok} && $r->{error}{name} eq 'EUNFINISHED',
	    'an unfinished match is not exported (its log holds hidden data)');
}

my $n = 0;
while ($n < 500) {
	my $p = $c->ok('pending', match => $id) or last;
	last if $p->{finished};
	my $s = $p->{seats}[0];
	my $l = $c->ok('legal', match => $id, seat => $s, token => $tok[$s]);
	my $cmd = $l->{legal}[$n % @{ $l->{legal} }]{cmd};
	$c->ok('act', match => $id, seat => $s, token => $tok[$s],
	    cmd_id => "c$n", expected_seq => $p->{seq}, cmd => $cmd) or last;
	$n++;
}
my $p = $c->ok('pending', match => $id);
ok($p->{finished}, "the match ended after $n commands");

my $x = $c->ok('export', match => $id);
ok($x && length($x->{log}) > 100, 'the finished match is exported');
my $file = $d->dir . "/$id.log";
open(my $f, '>:raw', $file) or die;
print $f $x->{log};
close($f);

# The events clients are served, before the sockets close: refctl runs
# in a fork, and a fork of a process with nanomsg threads can deadlock.
my $ev = $c->ok('events', match => $id, since => 0);
my $e0 = $c->ok('events', match => $id, since => 0, seat => 0,
    token => $tok[0]);
$c->close;
undef $c;

my $refctl = Refd::bin('refctl');
my ($st, $out) = Refd::run_prog($refctl, 'verify', $file, '--pubkey',
    $pk->{pubkey});
is($st, 0, 'refctl verify accepts the exported log') or diag($out);
like($out, qr/VERIFIED\n/, 'and says VERIFIED');
like($out, qr/\(the key you gave\)/, 'against the daemon\'s key');

($st, $out) = Refd::run_prog($refctl, 'verify', $file, '--pubkey',
    '0' x 64);
is($st, 1, 'another key is refused');

# The public events served over the protocol are the log's, in order.
($st, $out) = Refd::run_prog($refctl, 'replay', '--json', $file);
is($st, 0, 'replay --json');
my $recs = decode_json($out);
is($recs->[0]{commit}, $m->{seed_commit},
    'the commitment the seats were given is the log header\'s');
my @logged;
for my $r (@$recs) {
	next unless $r->{events};
	my $i = 0;
	for my $e (@{ $r->{events} }) {
		push @logged, "$r->{seq}/$i/$e->{event}{type}"
		    unless defined $e->{to};
		$i++;
	}
}
my @served = map { "$_->{seq}/$_->{i}/$_->{type}" } @{ $ev->{events} };
is_deeply(\@served, \@logged, scalar(@served) . ' public events served, '
    . 'the same as the log\'s');

# Private events reach their seat only.
my @mine = grep { defined $_->{seat} && $_->{type} eq 'dealt' }
    @{ $e0->{events} };
is(scalar(@mine), 1, 'seat 0 sees its own deal');
is($mine[0]{seat}, 0, 'tagged with its seat');

# The exit-code contract of refctl(1) and refd-evlog(5).
my $dir = $d->dir;
($st, $out) = Refd::run_prog($refctl, 'verify');
is($st, 2, 'no log: a usage error exits 2');
($st, $out) = Refd::run_prog($refctl, 'verify', '--nonsense', $file);
is($st, 2, 'an unknown option exits 2');
($st, $out) = Refd::run_prog($refctl, 'verify', "$dir/no-such.log");
is($st, 4, 'a missing log is the environment: exit 4');
like($out, qr/cannot read: No such file/, 'and says it cannot be read');
($st, $out) = Refd::run_prog($refctl, 'verify', $file, '--content',
    "$dir/no-such-content");
is($st, 4, 'a missing content directory exits 4');
like($out, qr/content directory '[^']*no-such-content' is missing/,
    'and is reported as missing, not as broken content');
($st, $out) = Refd::run_prog($refctl, 'verify', $file, '--plugin',
    "$dir/no-such.so");
is($st, 4, 'a missing plugin exits 4');
like($out, qr/plugin '[^']*no-such\.so' is missing/, 'named as missing');
($st, $out) = Refd::run_prog($refctl, 'verify', $file,
    '--require-plugin', 'duel=0.0.1');
is($st, 1, 'a log of another plugin version fails --require-plugin');
like($out, qr/plugin: required duel 0\.0\.1, the log was played with duel /,
    'saying which was required and which was used');
my ($ver) = $out =~ /the log was played with duel (\S+)/;
($st, $out) = Refd::run_prog($refctl, 'verify', $file,
    '--require-plugin', "duel=$ver");
is($st, 0, 'the right version passes --require-plugin') or diag($out);
($st, $out) = Refd::run_prog($refctl, 'verify', $file,
    '--require-plugin', "duel=$ver:00000000");
is($st, 1, 'another build hash fails --require-plugin');
like($out, qr/plugin build: required hash 00000000/, 'naming the hash');

# A batch: a directory, a cut copy, a tampered copy and a missing file.
mkdir("$dir/batch") or die;
my $bytes = do { open(my $g, '<:raw', $file) or die; local $/; <$g> };
for my $v ([good => $bytes], [cut => substr($bytes, 0, -5)]) {
	open(my $g, '>:raw', "$dir/batch/$v->[0].log") or die;
	print $g $v->[1];
	close($g);
}
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', "$dir/batch");
is($st, 3, 'a directory with a cut log exits 3') or diag($out);
like($out, qr/cut short after record \d+/, 'the cut log is named as cut');
like($out, qr/summary: 2 logs: 1 verified, 0 tampered or diverging, 1 incomplete, 0 not checked/,
    'one summary line');
my $t = $bytes;
substr($t, length($t) - 200, 1) ^= "\x01";
open(my $g, '>:raw', "$dir/tampered.log") or die;
print $g $t;
close($g);
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', "$dir/batch",
    "$dir/tampered.log", "$dir/no-such.log");
is($st, 1, 'a batch with a tampered log exits 1, whatever else is in it');
like($out, qr/summary: 4 logs: 1 verified, 1 tampered or diverging, 1 incomplete, 1 not checked/,
    'the summary counts each verdict');
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', "$dir/batch/good.log",
    "$dir/no-such.log");
is($st, 4, 'a batch with a missing file and no tampering exits 4');

# The same batch in parallel: the same verdicts, in the order of the logs.
my ($st1, $out1) = Refd::run_prog($refctl, 'verify', '-j', '1', "$dir/batch",
    "$dir/tampered.log", "$dir/no-such.log");
my ($st3, $out3) = Refd::run_prog($refctl, 'verify', '-j', '3', "$dir/batch",
    "$dir/tampered.log", "$dir/no-such.log");
is($st3, $st1, '-j 3 exits as -j 1');
my @order1 = $out1 =~ /^(\S+\.log): (?:VERIFIED|FAILED|INCOMPLETE|NOT CHECKED)/mg;
my @order3 = $out3 =~ /^(\S+\.log): (?:VERIFIED|FAILED|INCOMPLETE|NOT CHECKED)/mg;
is_deeply(\@order3, \@order1, 'and prints the verdicts in the order of the logs')
    or diag("$out1\n----\n$out3");
is(scalar(@order1), 4, 'one verdict per log');
($st, $out) = Refd::run_prog($refctl, 'verify', '-j', '0', $file);
is($st, 2, '-j 0 is a usage error');

# --json: one object per log, nothing else on standard output.
{
	my $jout = `'$refctl' verify --json -j 2 '$dir/batch' '$dir/tampered.log' 2>/dev/null`;
	my @objs = map { JSON::PP::decode_json($_) } grep { /\S/ } split /\n/, $jout;
	is(scalar(@objs), 3, '--json prints one object per log');
	my %by = map { ($_->{file} =~ m{([^/]+)$})[0] => $_ } @objs;
	is($by{'good.log'}{verdict}, 'verified', 'the good log is verified');
	is($by{'good.log'}{match}, $id, 'with its match id');
	is($by{'good.log'}{ruleset}, 'duel', 'its ruleset');
	like($by{'good.log'}{plugin_hash}, qr/^[0-9a-f]{64}$/, 'its plugin build');
	ok($by{'good.log'}{finished}, 'finished');
	ok(ref $by{'good.log'}{result}{winners} eq 'ARRAY', 'and its result');
	is($by{'cut.log'}{verdict}, 'incomplete', 'the cut log is incomplete');
	is($by{'cut.log'}{exit}, 3, 'exit 3');
	is($by{'tampered.log'}{verdict}, 'tampered', 'the tampered log is tampered');
	like($by{'tampered.log'}{why}, qr/record \d+/, 'with why');
	like($by{'tampered.log'}{bad_record}, qr/^\d+$/, 'and the first bad record');
}

# --require-finished: a cut or unfinished log fails instead of being
# incomplete.
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', '--require-finished',
    "$dir/batch/cut.log");
is($st, 1, '--require-finished fails a cut log');
like($out, qr/--require-finished refuses a log that is not finished/,
    'and says why');
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', '--require-finished',
    $file);
is($st, 0, '--require-finished accepts a finished log') or diag($out);

# --keyring: the accepted daemon keys, one per line.
open(my $kr, '>', "$dir/keys") or die;
print $kr "# accepted daemons\n" . ('ab' x 32) . "\n\n  $pk->{pubkey}  # this one\n";
close($kr);
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', '--keyring', "$dir/keys",
    $file);
is($st, 0, 'a key in the keyring is accepted') or diag($out);
open($kr, '>', "$dir/keys2") or die;
print $kr ('cd' x 32) . "\n";
close($kr);
($st, $out) = Refd::run_prog($refctl, 'verify', '-q', '--keyring', "$dir/keys2",
    $file);
is($st, 1, 'a key not in the keyring is refused');
like($out, qr/is not one of the 1 keys of the keyring/, 'and named');
open($kr, '>', "$dir/keys3") or die;
print $kr "not a key\n";
close($kr);
($st, $out) = Refd::run_prog($refctl, 'verify', '--keyring', "$dir/keys3", $file);
is($st, 2, 'a keyring with a bad line is a usage error');
like($out, qr/line 1: expected a key/, 'naming the line');

# replay: verified first, then the match in words.
($st, $out) = Refd::run_prog($refctl, 'replay', $file);
is($st, 0, 'replay of the finished log exits 0') or diag($out);
like($out, qr/\AVERIFIED: match \Q$id\E, duel /, 'and says VERIFIED first');
like($out, qr/^(?:\[round \d+\] )?seq \d+: seat [01]: (?:Attack|Defend)/m,
    'then every command in words');
like($out, qr/^\s+dice: d20 -> \d+/m, 'with the dice');
like($out, qr/the match ends \(result\)/, 'and the end');
($st, $out) = Refd::run_prog($refctl, 'replay', "$dir/tampered.log");
isnt($st, 0, 'replay of a tampered log exits non-zero');
like($out, qr/\AWARNING: this log is NOT verified: /, 'with a warning first');

# log-info: the header without a replay.
($st, $out) = Refd::run_prog($refctl, 'log-info', $file,
    "$dir/batch/cut.log");
is($st, 3, 'log-info of a finished and a cut log exits 3');
like($out, qr/match: \Q$id\E\nruleset: duel \S+ \(ABI [\d.]+\)\nplugin build: [0-9a-f]{64}\n/,
    'log-info prints match, ruleset and plugin build');
like($out, qr/key: \Q$pk->{pubkey}\E\n/, 'and the key');
like($out, qr/state: finished \(result\)/, 'the finished log is finished');
like($out, qr/state: damaged or cut after record \d+/, 'the cut one is not');
($st, $out) = Refd::run_prog($refctl, 'log-info');
is($st, 2, 'log-info without a log is a usage error');

done_testing();
