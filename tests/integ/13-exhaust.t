# Matches a stranger cannot exhaust: a create flood from one connection,
# the cap on matches nobody joined, abort by a stranger and by the seated
# players' consent, waiting-expiry (logged, closed with an end reason, not
# brought back as waiting at restart), and the pages of the matches op.
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(sleep);

use Refd;

sub err_is {
	my ($r, $name, $what) = @_;
	ok($r && !$r->{ok}, "$what: refused") or return;
	is($r->{error}{name}, $name, "$what: $name") or
	    diag("got: $r->{error}{name}: $r->{error}{message}");
}

my $d = Refd->new(conf => {
	'max-matches' => 50,
	'max-waiting-matches' => 8,
	'max-waiting-per-connection' => 3,
	'waiting-expiry' => 0,
});

# One connection floods creates: it gets three matches nobody joined, then
# ETOOMANY naming the setting, and the match table keeps room for others.
my $flood = $d->client;
my ($made, $refused, $err) = (0, 0);
for (1 .. 40) {
	my $r = $flood->req('create', ruleset => 'duel', scenario => 'first-duel');
	if ($r->{ok}) {
		$made++;
	} else {
		$refused++;
		$err //= $r->{error};
	}
}
is($made, 3, 'one connection creates max-waiting-per-connection matches');
is($refused, 37, 'then every create of the flood is refused');
is($err->{name}, 'ETOOMANY', 'the refusal is ETOOMANY');
like($err->{message}, qr/max-waiting-per-connection/,
    'the message names the setting');
is($err->{detail}{limit}, 3, 'detail gives the limit');

# Another connection still creates, joins and plays.
my $other = $d->client;
my $m = $other->ok('create', ruleset => 'duel', scenario => 'first-duel');
ok($m, 'another connection still creates a match');
my @tok = map { $other->ok('join', match => $m->{match}, seat => $_)->{token} }
    0, 1;
ok($tok[0] && $tok[1], 'and both seats join it');

# Once somebody joined one of its matches, the flooder may create again.
my $mine = (grep { $_->{status} eq 'waiting' } @{ $flood->ok('matches') })[0];
ok($flood->ok('join', match => $mine->{id}, seat => 0),
    'the flooder joins one of its waiting matches');
ok($flood->req('create', ruleset => 'duel')->{ok},
    'then it may create one more');
err_is($flood->req('create', ruleset => 'duel'), 'ETOOMANY',
    'and no more');

# The total of matches nobody joined is capped across connections.
my @c = map { $d->client } 1 .. 4;
my ($tot, $terr) = (0);
for my $k (@c) {
	for (1 .. 3) {
		my $r = $k->req('create', ruleset => 'duel');
		if ($r->{ok}) { $tot++ } else { $terr //= $r->{error} }
	}
}
is($tot, 5, 'every connection together stops at max-waiting-matches (8)');
like($terr->{message} // '', qr/max-waiting-matches/,
    'the refusal names max-waiting-matches');

# Abort: nobody without the admin token or the seats' consent.
my $stranger = $d->client;
my $r = $stranger->req('abort', match => $m->{match});
err_is($r, 'ETOKEN', 'abort by a stranger (no admin-token set)');
like($r->{error}{message}, qr/admin_token or every seated player/,
    'the error says what abort needs');
err_is($stranger->req('abort', match => $m->{match}, admin_token => 'guess'),
    'ETOKEN', 'abort with a made-up admin token where none is set');
err_is($stranger->req('abort', match => $m->{match}, seat => 0,
    token => 'f' x 32), 'ETOKEN', 'abort with a wrong seat token');
my $info = (grep { $_->{id} eq $m->{match} } @{ $other->ok('matches') })[0];
is($info->{status}, 'playing', 'the match still runs after the attempts');

# Abort by consent: seat 0 asks, the match goes on; seat 1 asks, it ends.
my $a0 = $other->ok('abort', match => $m->{match}, seat => 0,
    token => $tok[0]);
ok($a0 && !$a0->{finished}, 'one seat asking does not end the match');
is_deeply($a0->{consents}, [0], 'the reply lists the seats that asked');
my $a0b = $other->ok('abort', match => $m->{match}, seat => 0,
    token => $tok[0]);
ok($a0b && !$a0b->{finished}, 'asking twice is not consent of two');
my $a1 = $other->ok('abort', match => $m->{match}, seat => 1,
    token => $tok[1]);
ok($a1 && $a1->{finished}, 'every seated player asked: the match ends');
is_deeply($a1->{consents}, [0, 1], 'both seats consented');
$info = (grep { $_->{id} eq $m->{match} } @{ $other->ok('matches') })[0];
is($info->{end}, 'abort', 'its end reason is abort');
is($info->{result}{reason}, 'aborted by every seated player',
    'the result says who aborted it');
like($d->log, qr/match '$m->{match}': seat 0 asks to abort it/,
    'refd logs a seat asking');

# The matches op in pages.
my $all = $other->ok('matches');
my $n = scalar @$all;
ok($n >= 10, "matches lists every match ($n)");
my @paged;
my $after;
for (1 .. $n + 1) {
	my $p = $other->ok('matches', limit => 5,
	    defined $after ? (after => $after) : ());
	last unless $p && @$p;
	ok(@$p <= 5, 'a page holds at most limit matches') if @paged < 5;
	push @paged, @$p;
	$after = $p->[-1]{id};
	last if @$p < 5;
}
is_deeply([map { $_->{id} } @paged], [map { $_->{id} } @$all],
    'the pages, in order, are the whole list');
err_is($other->req('matches', after => 'ffffffffffffffff'), 'ENOMATCH',
    'matches after an unknown match');
err_is($other->req('matches', limit => 0), 'EARG', 'matches with limit 0');
err_is($other->req('matches', limit => 1001), 'EARG',
    'matches with limit above 1000');
$d->stop;

# With an admin token, the operator aborts; a wrong token is refused.
my $da = Refd->new(conf => { 'admin-token' => 'sesame' });
my $ca = $da->client;
my $ma = $ca->ok('create', ruleset => 'duel');
err_is($ca->req('abort', match => $ma->{match}), 'ETOKEN',
    'abort without a token when admin-token is set');
err_is($ca->req('abort', match => $ma->{match}, admin_token => 'sesamx'),
    'ETOKEN', 'abort with a wrong admin token');
my $ab = $ca->ok('abort', match => $ma->{match}, admin_token => 'sesame');
ok($ab && $ab->{finished}, 'abort with the admin token');
$da->stop;

# waiting-expiry: a match that does not start in time is closed with an
# end reason, logged, kept (its log verifies), not waiting after a restart.
my $de = Refd->new(conf => { 'waiting-expiry' => 2 });
my $ce = $de->client;
my $w1 = $ce->ok('create', ruleset => 'duel', scenario => 'first-duel');
my $w2 = $ce->ok('create', ruleset => 'duel', scenario => 'first-duel');
ok($ce->ok('join', match => $w2->{match}, seat => 0),
    'one seat of the second match joins');
my $pl = $ce->ok('create', ruleset => 'duel', scenario => 'first-duel');
$ce->ok('join', match => $pl->{match}, seat => $_) for 0, 1;
my $sub = $de->subscriber($w1->{match});
sleep(0.3);
my $st = sub {
	my ($id) = @_;
	return (grep { $_->{id} eq $id } @{ $ce->ok('matches') })[0];
};
is($st->($w1->{match})->{status}, 'waiting', 'a new match waits');
sleep(3.5);
$ce->req('hello');
for my $w ($w1, $w2) {
	my $i = $st->($w->{match});
	is($i->{status}, 'finished', "an unstarted match is closed after "
	    . "waiting-expiry");
	is($i->{end}, 'abort', 'its end reason is abort');
	like($i->{result}{reason} // '', qr/^expired: .*waiting-expiry/,
	    'the result says it expired');
}
is($st->($pl->{match})->{status}, 'playing', 'a started match is untouched');
like($de->log, qr/match '$w1->{match}': expired: .*waiting-expiry/,
    'refd logs the expiry');
my @ev = $sub->drain(0.5);
ok((grep { $_->[1]{type} eq 'end' } @ev), 'subscribers see the end event');
err_is($ce->req('join', match => $w1->{match}, seat => 0), 'EFINISHED',
    'an expired match cannot be joined');
my $exp = $ce->ok('export', match => $w1->{match});
ok($exp && length($exp->{log}) > 0, 'the expired match\'s log is exported');
my $w3 = $ce->ok('create', ruleset => 'duel', scenario => 'first-duel');
$de->stop;
sleep(2.5);	# w3 passes waiting-expiry while refd is down
$de->start;
$ce = $de->client;
is($st->($w1->{match})->{status}, 'finished',
    'after a restart the expired match is finished, not waiting');
sleep(1.2);
my $i3 = $st->($w3->{match});
is($i3->{status}, 'finished',
    'a match that expired while refd was down is closed at start');
like($i3->{result}{reason} // '', qr/^expired: /, 'as expired');
my $pk = $ce->ok('pubkey')->{pubkey};
$ce->close;
undef $sub;
$de->stop;
for my $v ($de->verify_logs($pk)) {
	my ($f, $vst, $out) = @$v;
	next unless $f =~ /\Q$w1->{match}\E|\Q$w2->{match}\E|\Q$w3->{match}\E/;
	is($vst >> 8, 0, "the expired match's log verifies") or diag($out);
}

# Rate-limit refusals are logged at most once a minute per connection,
# with a count; max-connections refuses requests of connections beyond it.
my $dr = Refd->new(conf => { 'rate-limit' => 2, 'rate-burst' => 2,
    'max-connections' => 3 });
my $g = $dr->client;
my $nrefused = 0;
for my $round (1 .. 3) {
	for (1 .. 8) {
		my $x = $g->req('hello');
		$nrefused++ if $x && !$x->{ok} && $x->{error}{name} eq 'ERATE';
	}
	sleep(1.2);	# the bucket refills: the connection is served again
}
ok($nrefused >= 12, "the greedy connection was refused ($nrefused times)");
my @lines = $dr->log =~ /(.*over the request rate limit.*)/g;
is(scalar(@lines), 1, 'one log line for the three floods within a minute')
    or diag(join("\n", @lines));
like($lines[0] // '', qr/refused 1 request so far/, 'it counts');
my @k = map { $dr->client } 1 .. 2;
ok($_->ok('pubkey'), 'a second and third connection are served') for @k;
my $fourth = $dr->client;
my $fr = $fourth->req('pubkey');
is($fr->{error}{name}, 'ELIMIT', 'a fourth gets ELIMIT (max-connections 3)');
like($fr->{error}{message}, qr/max-connections/, 'naming the setting');
like($dr->log, qr/3 connections are served at once \(max-connections\); refused 1 request/,
    'and refd logs it');
$_->close for $g, @k;
sleep(3.5);	# idle connections leave the table
ok($fourth->ok('pubkey'), 'once the others went idle, the fourth is served');
$fourth->close;
$dr->stop;

# Finished matches leave memory after finished-eviction seconds unused,
# and come back from their logs when asked for.
my $dv = Refd->new(conf => { 'finished-eviction' => 1 });
my $cv = $dv->client;
my $fm = $cv->ok('create', ruleset => 'duel', scenario => 'first-duel');
my @ft = map { $cv->ok('join', match => $fm->{match}, seat => $_)->{token} } 0, 1;
my $p0 = $cv->ok('pending', match => $fm->{match});
my $s0 = $p0->{seats}[0];
my $a = $cv->ok('act', match => $fm->{match}, seat => $s0, token => $ft[$s0],
    cmd_id => 'first', cmd => { type => 'defend' });
ok($a, 'a command is played');
ok($cv->ok('resign', match => $fm->{match}, seat => 1, token => $ft[1]),
    'a seat resigns: the match is finished');
my $evb = $cv->ok('events', match => $fm->{match});
my $vb = $cv->ok('view', match => $fm->{match}, seat => 0, token => $ft[0]);
sleep(2.5);
$cv->ok('hello');
sleep(1.2);
my $sv = $cv->ok('stats');
ok($sv->{evicted} >= 1, "the finished match was evicted ($sv->{evicted})");
my $info2 = (grep { $_->{id} eq $fm->{match} } @{ $cv->ok('matches') })[0];
is($info2->{status}, 'finished', 'matches still lists it, finished');
is($cv->ok('stats')->{revived}, 0, 'the summary needs no revival');
my $eva = $cv->ok('events', match => $fm->{match});
ok(Refd::same($eva, $evb), 'its events come back from the log, the same');
ok($cv->ok('stats')->{revived} >= 1, 'it was revived');
my $va = $cv->ok('view', match => $fm->{match}, seat => 0, token => $ft[0]);
ok(Refd::same($va, $vb), 'its view is the same');
sleep(2.5);
$cv->ok('hello');
sleep(1.2);
my $again = $cv->ok('act', match => $fm->{match}, seat => $s0,
    token => $ft[$s0], cmd_id => 'first', cmd => { type => 'defend' });
ok($again && $again->{replayed} && $again->{seq} == $a->{seq},
    'a retried command id is still recognised after an eviction');
ok($cv->ok('export', match => $fm->{match})->{log}, 'and the log exports');
$cv->close;
$dv->stop;

# refd -t -v prints the memory bound the settings give.
my ($tst, $tout) = Refd::run_refd('-t', '-v', '-f', $dr->conffile,
    '--max-message-size', '64k', '--max-batch', '10', '--max-matches', '5',
    '--max-match-memory', '1M', '--max-log-bytes', '2M',
    '--max-connection-memory', '1M');
is($tst, 0, 'refd -t -v') or diag($tout);
my $cap = 2 * 65536 + (1 << 20);
my $turn = 10 * $cap < 3 * (1 << 20) ? 10 * $cap : 3 * (1 << 20);
my $want = 3 * $cap + $turn + 5 * (3 << 20);
like($tout, qr/^#   transport \Q${\(3 * $cap)}\E /m,
    'transport: max-connections x the receive cap');
like($tout, qr/^#   total \Q$want\E /m, "total: $want bytes") or diag($tout);

done_testing();
