# Scripted dice (tests only): refused unless the daemon allows them; when
# allowed, the draws are exactly the given ones and the match says it is
# scripted.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => { 'allow-scripted-dice' => 'yes' });
my $c = $d->client;

ok($c->ok('hello')->{scripted_dice}, 'hello says scripted dice are allowed');
my $r = $c->req('create', ruleset => 'duel', dice => 'nope');
is($r->{error}{name}, 'EARG', 'dice that is not an array');
$r = $c->req('create', ruleset => 'duel', dice => [1, 'x']);
is($r->{error}{name}, 'EARG', 'dice with a non-integer');

my $m = $c->ok('create', ruleset => 'duel',
    setup => { fighters => ['knight', 'rogue'], cards => \0 },
    dice => [20, 5, 1]);
ok($m->{scripted}, 'the match is scripted');
my $id = $m->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;
my $act = $c->ok('act', match => $id, seat => 0, token => $tok[0],
    cmd_id => 's1', cmd => { type => 'attack' });
ok($act, 'attack with scripted dice');
my ($ev) = grep { ($_->{type} // '') eq 'attack' }
    @{ $c->ok('events', match => $id)->{events} };
is($ev->{roll}, 20, 'the d20 is the first scripted value');
is($ev->{damage}, 5, 'the damage is the second');
is($ev->{hp}, 19, 'the rogue is at 24 - 5');
my ($info) = grep { $_->{id} eq $id } @{ $c->ok('matches') };
ok($info->{scripted}, 'matches marks it scripted');

is($d->stop, 0, 'clean exit');
done_testing;
