# Limits: maximum matches and per-connection request rate; each violation
# gets a clear error while everyone else keeps being served.
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(sleep);

use Refd;

my $d = Refd->new(conf => {
	'max-matches' => 2,
	'rate-limit' => 5,
	'rate-burst' => 5,
});

# max matches
my $c = $d->client;
ok($c->ok('create', ruleset => 'duel', scenario => 'first-duel'), 'match 1');
ok($c->ok('create', ruleset => 'duel', scenario => 'first-duel'), 'match 2');
my $r = $c->req('create', ruleset => 'duel', scenario => 'first-duel');
ok(!$r->{ok}, 'match 3 refused');
is($r->{error}{name}, 'ETOOMANY', 'with ETOOMANY');
like($r->{error}{message}, qr/\S/, 'and a message');
is(scalar @{ $c->ok('matches') }, 2, 'still two matches');
sleep(1.2);		# refill the bucket

# rate: one greedy connection, one polite one
my $greedy = $d->client;
my $polite = $d->client;
my ($ok, $limited) = (0, 0);
my $err;
for (1 .. 12) {
	my $x = $greedy->req('hello');
	if ($x->{ok}) {
		$ok++;
	} elsif ($x->{error}{name} eq 'ERATE') {
		$limited++;
		$err = $x->{error};
	}
}
ok($ok >= 5, "greedy connection: burst served ($ok)");
ok($limited >= 1, "greedy connection: then refused ($limited)");
is($err->{code}, -7, 'ERATE is -7') if $err;
like($err->{message}, qr/rate/, 'message names the rate limit') if $err;
my $p = $polite->req('hello');
ok($p->{ok}, 'another connection is still served');
sleep(1.2);
ok($greedy->req('hello')->{ok}, 'the greedy connection is served again later');
ok($c->ok('stats')->{rate_limited} >= 1, 'stats count rate-limited requests');

ok($d->alive, 'daemon alive');
is($d->stop, 0, 'clean exit');
like($d->log, qr/rate limit/, 'the log names the limited connection once');
done_testing;
