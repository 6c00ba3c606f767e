# Resource limits, set in refd.conf and on the command line: memory per
# connection (max-connection-memory), log size per match (max-log-bytes),
# number of matches (max-matches); memory per match (max-match-memory) is
# tested in tests/unit/match.c.  Each limit gets a clear ELIMIT or
# ETOOMANY with the limit in the detail, costs nothing to anybody else,
# and the daemon serves normally afterwards.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => {
	'max-connection-memory' => 3000,
	'max-message-size' => '256k',
	'max-log-bytes' => '4k',
	'max-matches' => 50,
}, args => ['--max-matches', '3']);
my $c = $d->client;
my $pk = $c->ok('pubkey')->{pubkey};

my $h = $c->ok('hello');
is($h->{limits}{max_connection_memory}, 3000, 'hello: max_connection_memory');
is($h->{limits}{max_log_bytes}, 4096, 'hello: max_log_bytes');
is($h->{limits}{max_matches}, 3, 'hello: max_matches from the command line');
ok($h->{limits}{max_match_memory} > 0, 'hello: max_match_memory');

# Memory per connection: a request within max-message-size but more than
# the connection may hold in one turn.
my $r = $c->req('hello', pad => 'x' x 10000);
ok(!$r->{ok}, 'a 10 kB request on a 3000-byte connection budget is refused');
is($r->{error}{name}, 'ELIMIT', 'with ELIMIT');
like($r->{error}{message}, qr/max-connection-memory/, 'naming the setting');
is($r->{error}{detail}{limit}, 3000, 'the detail gives the limit');
ok($r->{error}{detail}{got} > 10000, 'and what it needed');
ok($c->ok('hello'), 'the next request of the connection is served');

# Log size per match: play until the log is full.
my $id = $c->ok('create', ruleset => 'duel', scenario => 'first-duel')->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;
my ($n, $err) = (0, undef);
while ($n < 1000) {
	my $p = $c->ok('pending', match => $id) or last;
	last if $p->{finished};
	my $s = $p->{seats}[0];
	# Defend forever: the duel never ends by itself.
	$r = $c->req('act', match => $id, seat => $s, token => $tok[$s],
	    cmd_id => "d$n", cmd => { type => 'defend' });
	if (!$r->{ok}) {
		$err = $r->{error};
		last;
	}
	$n++;
}
ok($err, "after $n commands a command is refused");
is($err->{name}, 'ELIMIT', 'with ELIMIT') if $err;
like($err->{message} // '', qr/max-log-bytes/, 'naming max-log-bytes');
my $p = $c->ok('pending', match => $id);
ok($p->{finished}, 'the match was ended');
my ($info) = grep { $_->{id} eq $id } @{ $c->ok('matches') };
ok(-s $d->dir . "/state/matches/$id.log" <= 4096,
    'the log stayed within max-log-bytes');

# A reply bigger than the connection budget: the log (more than 3000 bytes).
$r = $c->req('export', match => $id);
ok(!$r->{ok} && $r->{error}{name} eq 'ELIMIT',
    'an export larger than max-connection-memory is refused with ELIMIT');
like($r->{error}{message} // '', qr/reply.*max-connection-memory/,
    'saying the reply is too big');
ok($c->ok('stats')->{conn_limited} >= 2, 'stats count conn_limited');

# Number of matches (3, from the command line; the finished one does
# not count).
ok($c->ok('create', ruleset => 'duel', scenario => 'first-duel'), "match $_")
    for 1 .. 3;
$r = $c->req('create', ruleset => 'duel', scenario => 'first-duel');
is($r->{error}{name}, 'ETOOMANY', 'a fourth unfinished match: ETOOMANY');
like($r->{error}{message}, qr/max-matches/, 'naming max-matches');

ok($d->alive, 'daemon alive');
$c->close;
undef $c;
my @v = $d->verify_logs($pk);
my ($full) = grep { $_->[0] =~ /\Q$id\E\.log$/ } @v;
ok($full && $full->[1] == 0 && $full->[2] =~ /^VERIFIED/m,
    'the log ended at max-log-bytes verifies') or diag($full ? $full->[2] : 'no log');
is($d->stop, 0, 'clean exit');
like($d->log, qr/max-connection-memory/, 'the daemon log names the connection');
done_testing;
