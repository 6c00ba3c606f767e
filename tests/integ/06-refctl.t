# refctl against the real daemon: JSON in and out, exit statuses, watch,
# export and play.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX qw(_exit);
use Time::HiRes qw(sleep);

use Refd;

my $d = Refd->new(conf => { 'admin-token' => 'opensesame' });
my $json = JSON::PP->new;
my @R = (Refd::bin('refctl'), '-c', '-s', $d->endpoint, '-e', $d->events_endpoint);

sub refctl {
	my ($st, $out) = Refd::run_prog(@R, @_);
	return ($st, $out);
}

sub refctl_json {
	my ($st, $out) = refctl(@_);
	is($st, 0, "refctl @_[0..0]: exit 0") or diag($out);
	my $j = eval { $json->decode($out) };
	ok($j, "refctl $_[0]: JSON output") or diag($out);
	return $j;
}

my $h = refctl_json('hello');
is($h->{server}, 'refd', 'hello');
my $rs = refctl_json('rulesets');
ok((grep { $_->{name} eq 'duel' } @$rs), 'rulesets lists duel');

my $m = refctl_json('create', 'duel', '--scenario', 'first-duel');
my $id = $m->{match};
like($id, qr/^[0-9a-f]{16}$/, 'create gives a match id');
my $j0 = refctl_json('join', $id, 0, '--seed', 'alice');
my $j1 = refctl_json('join', $id, 1);
my ($t0, $t1) = ($j0->{token}, $j1->{token});

# errors: exit 1 and a clear line on stderr
my ($st, $out) = refctl('join', $id, 0);
is($st, 1, 'seat taken: exit 1');
like($out, qr/ESEATTAKEN/, 'seat taken: error name printed');
($st, $out) = refctl('act', $id, 0, $t1, '{"type":"defend"}');
is($st, 1, 'wrong token: exit 1');
like($out, qr/ETOKEN/, 'wrong token: named');
($st, $out) = refctl('act', $id, 0, $t0, '{"type":');
is($st, 2, 'bad JSON: usage exit 2');
like($out, qr/invalid JSON/, 'bad JSON: said so');
($st, $out) = refctl('frobnicate');
is($st, 2, 'unknown command: exit 2');
($st, $out) = Refd::run_prog(Refd::bin('refctl'), '-T', '300', '-s',
    'ipc://' . $d->dir . '/nobody.sock', 'hello');
is($st, 3, 'no server: exit 3');
like($out, qr/no reply/, 'no server: said so');

# watch in the background while the match is played
my $wfile = $d->dir . '/watch.out';
my $wpid = fork() // die;
if ($wpid == 0) {
	open(STDOUT, '>', $wfile) or _exit(1);
	exec(@R, 'watch', $id) or _exit(1);
}
sleep(0.3);

my $p = refctl_json('pending', $id);
is_deeply($p->{seats}, [0], 'pending: seat 0');
my $l = refctl_json('legal', $id, 0, $t0);
ok(@{ $l->{legal} } >= 2, 'legal commands');
my $act = refctl_json('act', $id, 0, $t0, '{"type":"defend"}', '--id', 'r1',
    '--expect', $p->{seq});
is($act->{seq}, $p->{seq} + 1, 'act applied');
my $again = refctl_json('act', $id, 0, $t0, '{"type":"defend"}', '--id', 'r1');
ok($again->{replayed}, 'act with the same --id is a replay');
($st, $out) = refctl('act', $id, 1, $t1, '{"type":"defend"}', '--expect', 0);
like($out, qr/ESTALE/, 'stale --expect refused');
my $v = refctl_json('view', $id);
ok(!exists $v->{view}{fighters}[0]{hand}, 'public view has no hand');
$v = refctl_json('view', $id, 1, $t1);
ok(exists $v->{view}{fighters}[1]{hand}, 'seat view has the hand');
my $e = refctl_json('events', $id, 1, $t1);
ok((grep { ($_->{type} // '') eq 'dealt' } @{ $e->{events} }),
    'seat events include its deal');
$e = refctl_json('events', $id, '--since', $p->{seq});
is(scalar @{ $e->{events} }, 1, 'events --since');

# export refused while running, then play the rest and export
($st, $out) = refctl('export', $id, '-o', $d->dir . '/early.log');
is($st, 1, 'export of a running match refused');
like($out, qr/EUNFINISHED/, 'with EUNFINISHED');
my ($pst, $pout) = refctl('play', $id, '--seed', 7);
is($pst, 1, 'play refuses a match whose seats are taken');
like($pout, qr/ESEATTAKEN/, 'and says why');

# The seats are ours: finish the match by resigning.
my $res = refctl_json('resign', $id, 1, $t1);
ok($res->{finished}, 'resign finishes');
my $log = $d->dir . '/m.log';
($st, $out) = refctl('export', $id, '-o', $log);
is($st, 0, 'export after the end') or diag($out);
ok(-s $log, 'log written');

# watch saw the events and exited when the match finished
my $waited = 0;
while ($waited < 50 && waitpid($wpid, POSIX::WNOHANG()) == 0) {
	sleep(0.1);
	$waited++;
}
kill('TERM', $wpid) if $waited == 50;
ok($waited < 50, 'watch exits when the match is over');
open(my $wf, '<', $wfile) or die;
my @lines = <$wf>;
close($wf);
my @evs = map { eval { $json->decode($_) } } @lines;
ok(@evs >= 3, 'watch printed events') or diag(@lines);
ok(!(grep { ($_->{type} // '') =~ /^(dealt|drew)$/ } @evs),
    'watch without a seat shows no private events');
my @seqs = map { $_->{seq} } @evs;
is_deeply(\@seqs, [sort { $a <=> $b } @seqs], 'watch: events in order');

# play a fresh match of the duel to the end
my $pl = refctl_json('play', 'duel', '--seed', 3);
ok($pl->{info}{finished} || ($pl->{info}{status} // '') eq 'finished',
    'play duel: finished');
ok($pl->{commands} > 0, 'play duel: commands were played');
my ($ast, $aout) = refctl('play', '--all', '--seed', 4);
is($ast, 0, 'play --all');
like($aout, qr/== duel/, 'play --all names each ruleset');

# abort and raw
my $m2 = refctl_json('create', 'duel');
my $ab = refctl_json('abort', $m2->{match}, '--reason', 'test',
    '--admin-token', 'opensesame');
ok($ab->{finished}, 'abort');
my $raw = refctl_json('raw', '{"op":"stats"}');
ok($raw->{ok}, 'raw request');
like(refctl('pubkey') ? (refctl('pubkey'))[1] : '', qr/^[0-9a-f]{64}$/,
    'pubkey prints the hex key');
ok(refctl_json('matches'), 'matches');
{
	my $all = refctl_json('matches');
	my $p1 = refctl_json('matches', '--limit', 1);
	is(scalar(@$p1), 1, 'matches --limit 1: one match');
	my $p2 = refctl_json('matches', '--after', $p1->[0]{id}, '--limit', 1);
	is($p2->[0]{id}, $all->[1]{id}, 'matches --after: the next page');
}
ok(refctl_json('stats'), 'stats');

is($d->stop, 0, 'clean exit');
done_testing;
