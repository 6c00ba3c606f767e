# Every match op and its error paths, on the duel ruleset.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => { 'admin-token' => 'sesame' });
my $c = $d->client;

sub err_is {
	my ($r, $name, $what) = @_;
	ok($r && !$r->{ok}, "$what: refused") or return;
	is($r->{error}{name}, $name, "$what: $name") or
	    diag("got: $r->{error}{name}: $r->{error}{message}");
}

sub still_serves {
	my ($what) = @_;
	ok($c->req('stats')->{ok}, "after $what: a normal request succeeds");
}

# create: errors first
err_is($c->req('create'), 'EARG', 'create without ruleset');
err_is($c->req('create', ruleset => 'chess'), 'ENORULESET', 'unknown ruleset');
err_is($c->req('create', ruleset => 'duel', scenario => 'nope'),
    'ENOSCENARIO', 'unknown scenario');
err_is($c->req('create', ruleset => 'duel', setup => [1]), 'EARG',
    'setup that is not a map');
err_is($c->req('create', ruleset => 'duel', scenario => 'first-duel',
    setup => {}), 'EARG', 'both setup and scenario');
err_is($c->req('create', ruleset => 'duel', scenario => 'first-duel',
    dice => [1, 2, 3]), 'EARG', 'scripted dice refused by default');
still_serves('bad creates');

# create from a scenario
my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
like($m->{match}, qr/^[0-9a-f]{16}$/, 'match id is 16 hex chars');
is($m->{ruleset}, 'duel', 'create echoes the ruleset');
ok(!$m->{scripted}, 'not a scripted match');
my $id = $m->{match};

# create from an inline setup
my $m2 = $c->ok('create', ruleset => 'duel',
    setup => { fighters => ['brawler', 'rogue'], max_rounds => 3 });
ok($m2 && $m2->{match} ne $id, 'second match from an inline setup');

# a bad inline setup: refused at create or when the match starts
my $bad = $c->req('create', ruleset => 'duel',
    setup => { fighters => ['dragon', 'rogue'] });
if (!$bad->{ok}) {
	is($bad->{error}{name}, 'ESETUP', 'bad fighter refused at create');
} else {
	my $bid = $bad->{result}{match};
	$c->ok('join', match => $bid, seat => 0);
	err_is($c->req('join', match => $bid, seat => 1), 'ESETUP',
	    'bad fighter refused when the match starts');
}

# before the match starts
err_is($c->req('act', match => $id, seat => 0, token => 'x' x 32,
    cmd_id => 'early', cmd => { type => 'attack' }), 'ETOKEN',
    'act with a token before joining');

# join
err_is($c->req('join', match => $id, seat => 2), 'ESEAT', 'seat 2 of 2');
err_is($c->req('join', match => $id, seat => -1), 'EARG', 'negative seat');
err_is($c->req('join', match => $id), 'EARG', 'join without a seat');
err_is($c->req('join', match => 'ffffffffffffffff', seat => 0), 'ENOMATCH',
    'join an unknown match');
err_is($c->req('join', match => $id, seat => 0, seed => 'x' x 65), 'EARG',
    'seed longer than 64 bytes');
my $j0 = $c->ok('join', match => $id, seat => 0, seed => 'alice');
like($j0->{token}, qr/^[0-9a-f]{32}$/, 'join gives a 32-hex token');
is($j0->{seat}, 0, 'join echoes the seat');
err_is($c->req('join', match => $id, seat => 0), 'ESEATTAKEN',
    'seat taken');
my $p = $c->req('pending', match => $id);
ok(($p->{ok} && !@{ $p->{result}{seats} }) ||
    (!$p->{ok} && $p->{error}{name} eq 'ENOTSTARTED'),
    'nobody owes a decision before the start');
my $j1 = $c->ok('join', match => $id, seat => 1, seed => 'bob');
my ($t0, $t1) = ($j0->{token}, $j1->{token});
isnt($t0, $t1, 'tokens differ');

# pending and legal
$p = $c->ok('pending', match => $id);
is_deeply($p->{seats}, [0], 'seat 0 owes the first decision');
ok(!$p->{finished}, 'not finished');
my $seq = $p->{seq};
ok($seq > 0, 'seq advanced by joins and start');
my $l = $c->ok('legal', match => $id, seat => 0, token => $t0);
ok(ref $l->{legal} eq 'ARRAY' && @{ $l->{legal} } >= 2, 'seat 0 has legal commands');
ok((grep { $_->{cmd}{type} eq 'defend' && $_->{label} } @{ $l->{legal} }),
    'defend is legal, with a label');
is_deeply($c->ok('legal', match => $id, seat => 1, token => $t1)->{legal},
    [], 'seat 1 has nothing legal off-turn');
err_is($c->req('legal', match => $id, seat => 0, token => $t1), 'ETOKEN',
    'legal with another seat\'s token');
err_is($c->req('legal', match => $id), 'ESPECTATOR', 'legal for a spectator');

# act: auth errors
my %a0 = (match => $id, seat => 0, token => $t0);
err_is($c->req('act', %a0, token => 'f' x 32, cmd_id => 'c1',
    cmd => { type => 'defend' }), 'ETOKEN', 'wrong token');
err_is($c->req('act', %a0, token => $t1, cmd_id => 'c1',
    cmd => { type => 'defend' }), 'ETOKEN', 'token of another seat');
err_is($c->req('act', match => $id, cmd_id => 'c1',
    cmd => { type => 'defend' }), 'ESPECTATOR', 'spectator acting (no seat)');
err_is($c->req('act', match => $id, seat => -1, cmd_id => 'c1',
    cmd => { type => 'defend' }), 'ESPECTATOR', 'spectator acting (seat -1)');
err_is($c->req('act', %a0, token => undef, cmd_id => 'c1',
    cmd => { type => 'defend' }), 'EARG', 'seat without a token');
err_is($c->req('act', %a0, cmd => { type => 'defend' }), 'EARG',
    'act without cmd_id');
err_is($c->req('act', %a0, cmd_id => 'c1', cmd => 'defend'), 'EARG',
    'cmd that is not a map');
err_is($c->req('act', match => 'ffffffffffffffff', seat => 0, token => $t0,
    cmd_id => 'c1', cmd => { type => 'defend' }), 'ENOMATCH', 'unknown match');
still_serves('auth errors');

# act: rule rejections carry the rule id
my $r = $c->req('act', match => $id, seat => 1, token => $t1, cmd_id => 'x1',
    cmd => { type => 'attack' });
err_is($r, 'ENOTYOURTURN', 'acting off-turn');
is($r->{error}{detail}{rule}, 'DUEL-2', 'rejection names the rule');
$r = $c->req('act', %a0, cmd_id => 'x2', cmd => { type => 'dance' });
err_is($r, 'EBADCMD', 'unknown command type');
$r = $c->req('act', %a0, cmd_id => 'x3', cmd => { type => 'attack', card => 99 });
err_is($r, 'EILLEGAL', 'card not in hand');
is($c->ok('pending', match => $id)->{seq}, $seq, 'rejections change nothing');

# stale expected seq
err_is($c->req('act', %a0, cmd_id => 'c1', expected_seq => $seq - 1,
    cmd => { type => 'defend' }), 'ESTALE', 'stale expected seq');
is($c->ok('pending', match => $id)->{seq}, $seq, 'stale command not applied');

# a good command with the right expected seq
my $first = $c->ok('act', %a0, cmd_id => 'c1', expected_seq => $seq,
    cmd => { type => 'defend' });
is($first->{seq}, $seq + 1, 'accepted: seq + 1');
ok(!$first->{replayed}, 'first time: not a replay');

# replayed command id: original reply, applied once
my $again = $c->ok('act', %a0, cmd_id => 'c1', expected_seq => $seq,
    cmd => { type => 'defend' });
is($again->{seq}, $first->{seq}, 'replay: the original seq');
ok($again->{replayed}, 'replay: flagged');
my $p2 = $c->ok('pending', match => $id);
is($p2->{seq}, $seq + 1, 'replay: applied once');
is_deeply($p2->{seats}, [1], 'turn passed once');

# same id, different body
err_is($c->req('act', %a0, cmd_id => 'c1', cmd => { type => 'attack' }),
    'EIDEMPOTENCY', 'same command id, different command');
still_serves('idempotency error');

# views
my $pub = $c->ok('view', match => $id);
is($pub->{seat}, -1, 'public view');
ok(!exists $pub->{view}{fighters}[0]{hand}, 'public view: no hand');
my $v0 = $c->ok('view', match => $id, seat => 0, token => $t0);
ok(exists $v0->{view}{fighters}[0]{hand}, 'seat view: own hand');
ok(!exists $v0->{view}{fighters}[1]{hand}, 'seat view: not the foe\'s');
err_is($c->req('view', match => $id, seat => 0, token => $t1), 'ETOKEN',
    'view with another seat\'s token');

# events since
my $ev = $c->ok('events', match => $id);
ok(@{ $ev->{events} } >= 2, 'public events since 0');
ok((grep { ($_->{type} // '') eq 'defend' } @{ $ev->{events} }),
    'the defend event is public');
my $ev2 = $c->ok('events', match => $id, since => $seq);
is(scalar @{ $ev2->{events} }, 1, 'events since the last seq: one');
is($ev2->{events}[0]{seq}, $seq + 1, 'with its seq');
err_is($c->req('events', match => $id, seat => 1, token => $t0), 'ETOKEN',
    'events with another seat\'s token');
err_is($c->req('events', match => $id, since => -1), 'EARG', 'negative since');
ok(!$ev->{more} && $ev->{until} == $ev->{seq}, 'unpaged: complete through seq');
# paging: limit 1 gives one whole seq per page, until and more chain them
{
	my ($since, $pages, $whole, @got) = (0, 0, 1);
	while (1) {
		my $pg = $c->ok('events', match => $id, since => $since, limit => 1);
		my %seqs = map { $_->{seq} => 1 } @{ $pg->{events} };
		$whole = 0 if keys(%seqs) != 1 || ($pg->{more} &&
		    $pg->{events}[-1]{seq} != $pg->{until});
		push @got, @{ $pg->{events} };
		$pages++;
		$since = $pg->{until};
		last if !$pg->{more} || $pages > 1000;
	}
	ok($whole, "limit 1: $pages pages, each one whole seq");
	is_deeply(\@got, $ev->{events}, 'the pages together are the unpaged list');
}
err_is($c->req('events', match => $id, limit => 0), 'EARG', 'limit 0');

# export refused while hidden information is live
err_is($c->req('export', match => $id), 'EUNFINISHED',
    'export of a running match');

# resign finishes the match
err_is($c->req('resign', match => $id, seat => 1, token => $t0), 'ETOKEN',
    'resign with another seat\'s token');
my $rr = $c->ok('resign', match => $id, seat => 1, token => $t1);
ok($rr->{finished}, 'resign finishes a duel');
err_is($c->req('act', match => $id, seat => 1, token => $t1, cmd_id => 'late',
    cmd => { type => 'attack' }), 'EFINISHED', 'act on a finished match');
err_is($c->req('resign', match => $id, seat => 0, token => $t0), 'EFINISHED',
    'resign on a finished match');
is_deeply($c->ok('pending', match => $id)->{seats}, [],
    'nobody owes anything when finished');

# export
my $x = $c->ok('export', match => $id);
ok(length($x->{log}) > 0, 'export gives the log bytes');
ok($x->{finished}, 'export of a finished match');

# abort needs the admin token here
err_is($c->req('abort', match => $m2->{match}), 'ETOKEN', 'abort without admin token');
my $ab = $c->ok('abort', match => $m2->{match}, admin_token => 'sesame',
    reason => 'test');
ok($ab->{finished}, 'abort finishes the match');
err_is($c->req('abort', match => $m2->{match}, admin_token => 'sesame'),
    'EFINISHED', 'abort twice');
err_is($c->req('abort', match => 'ffffffffffffffff'), 'ENOMATCH',
    'abort an unknown match');

# matches
my $ms = $c->ok('matches');
ok((grep { $_->{id} eq $id } @$ms), 'matches lists the match');
my $s = $c->ok('stats');
ok($s->{matches} >= 2, 'stats: matches');
ok($s->{commands} >= 1, 'stats: accepted commands');
ok($s->{rejected} >= 3, 'stats: rejected commands');

ok($d->alive, 'daemon alive');
is($d->stop, 0, 'clean exit');
done_testing;
