# Protocol abuse through the real daemon: guessed and misused seat tokens,
# spectators acting, a command id reused with another body, commands for
# finished and unknown matches, oversized and deeply nested messages, a
# flood from one client while another plays, clients that never read
# replies or events, and connections that send half a message.  After
# each, the daemon serves normal traffic, and at the end every match log
# verifies.
use strict;
use warnings;
use Test::More;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);

use Refd;

# A free TCP port for raw connections (ipc is for trusted local clients:
# libnanomsg 1.1.5 aborts on a malformed ipc frame; see refd(8)).
my $port = do {
	my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
	    Listen => 1) or die "no free port: $!";
	$s->sockport;
};
my $tcp = "tcp://127.0.0.1:$port";
my $admin = 'abuse-admin';
my $d = Refd->new(conf => { 'admin-token' => $admin, 'max-depth' => 16 },
    listen_also => [$tcp]);
my $c = $d->client;
my $pk = $c->ok('pubkey')->{pubkey};

sub err_is {
	my ($r, $name, $what) = @_;
	ok($r && !$r->{ok} && $r->{error}{name} eq $name, "$what: $name")
	    or diag(explain($r));
	like($r->{error}{message} // '', qr/\S/, "$what: explained")
	    if $r && !$r->{ok};
}

sub healthy {
	my ($what) = @_;
	my $h = $d->client(timeout => 5000);
	my $r = $h->req('hello');
	ok($d->alive && $r && $r->{ok}, "after $what: the daemon serves");
	$h->close;
}

sub new_match {
	my $id = $c->ok('create', ruleset => 'duel', scenario => 'first-duel')
	    ->{match};
	my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} }
	    0 .. 1;
	return ($id, @tok);
}

# Play n listed commands (or to the end) with client $cl.
sub play {
	my ($cl, $id, $tok, $n, $tag) = @_;
	my $done = 0;
	for my $k (1 .. $n) {
		my $p = $cl->ok('pending', match => $id) or return -1;
		last if $p->{finished};
		my $s = $p->{seats}[0];
		my $l = $cl->ok('legal', match => $id, seat => $s,
		    token => $tok->[$s]) or return -1;
		my $r = $cl->req('act', match => $id, seat => $s,
		    token => $tok->[$s], cmd_id => "$tag$k",
		    cmd => $l->{legal}[$k % @{ $l->{legal} }]{cmd});
		return -1 unless $r && $r->{ok};
		$done++;
	}
	return $done;
}

my ($m1, @t1) = new_match();
my ($m2, @t2) = new_match();
my $legal = $c->ok('legal', match => $m1, seat => 0, token => $t1[0])->{legal};
my $cmd = $legal->[0]{cmd};

# Tokens.
err_is($c->req('act', match => $m1, seat => 0, token => 'f' x 32,
    cmd_id => 'g1', cmd => $cmd), 'ETOKEN', 'a guessed token');
err_is($c->req('act', match => $m1, seat => 0, token => 'abc',
    cmd_id => 'g2', cmd => $cmd), 'ETOKEN', 'a short token');
err_is($c->req('legal', match => $m1, seat => 0, token => 'x' x 4000),
    'ETOKEN', 'a 4000-byte token');
err_is($c->req('act', match => $m1, seat => 0, token => $t2[0],
    cmd_id => 'g3', cmd => $cmd), 'ETOKEN',
    'the same seat\'s token of another match');
err_is($c->req('act', match => $m1, seat => 0, token => $t1[1],
    cmd_id => 'g4', cmd => $cmd), 'ETOKEN', 'the other seat\'s token');
err_is($c->req('view', match => $m1, seat => 1, token => $t1[0]),
    'ETOKEN', 'a view of the other seat with my token');
err_is($c->req('events', match => $m1, seat => 1, token => $t1[0]),
    'ETOKEN', 'the other seat\'s private events with my token');
err_is($c->req('resign', match => $m1, seat => 1, token => $t1[0]),
    'ETOKEN', 'resigning for the other seat');
{
	my $guessed = 0;
	for my $k (1 .. 200) {
		my $t = join('', map { sprintf('%x', int(rand(16))) } 1 .. 32);
		my $r = $c->req('legal', match => $m1, seat => 0, token => $t);
		$guessed++ if $r && $r->{ok};
	}
	is($guessed, 0, '200 random tokens: none accepted');
}
healthy('bad tokens');

# Spectators.
err_is($c->req('act', match => $m1, cmd_id => 's1', cmd => $cmd),
    'ESPECTATOR', 'acting without a seat');
err_is($c->req('act', match => $m1, seat => -1, cmd_id => 's2', cmd => $cmd),
    'ESPECTATOR', 'acting as seat -1');
err_is($c->req('legal', match => $m1, seat => -1), 'ESPECTATOR',
    'legal for spectators');
err_is($c->req('resign', match => $m1, seat => -1), 'ESPECTATOR',
    'resigning as a spectator');
err_is($c->req('act', match => $m1, seat => 7, token => $t1[0],
    cmd_id => 's3', cmd => $cmd), 'ESEAT', 'acting for a seat that does not exist')
    if 1;
ok($c->ok('view', match => $m1, seat => -1), 'the spectators\' view works');

# The same command id with another body.
{
	my $r = $c->ok('act', match => $m1, seat => 0, token => $t1[0],
	    cmd_id => 'dup', cmd => $cmd);
	ok($r && !$r->{replayed}, 'a command is applied');
	my $again = $c->ok('act', match => $m1, seat => 0, token => $t1[0],
	    cmd_id => 'dup', cmd => $cmd);
	ok($again && $again->{replayed} && $again->{seq} == $r->{seq},
	    'sent again: the first result, applied once');
	my ($other) = grep { !Refd::same($_->{cmd}, $cmd) } @$legal;
	err_is($c->req('act', match => $m1, seat => 0, token => $t1[0],
	    cmd_id => 'dup', cmd => $other ? $other->{cmd} : { type => 'zzz' }),
	    'EIDEMPOTENCY', 'the same id with another command');
	err_is($c->req('act', match => $m1, seat => 0, token => $t1[0],
	    cmd_id => 'dup', cmd => { %$cmd, extra => 1 }),
	    'EIDEMPOTENCY', 'the same id with an extra key');
	is($c->ok('pending', match => $m1)->{seq}, $r->{seq},
	    'nothing else was applied');
}
healthy('reused command ids');

# Finished and unknown matches.
ok($c->ok('resign', match => $m2, seat => 1, token => $t2[1]), 'match 2 resigned');
err_is($c->req('act', match => $m2, seat => 0, token => $t2[0],
    cmd_id => 'f1', cmd => $cmd), 'EFINISHED', 'acting in a finished match');
err_is($c->req('resign', match => $m2, seat => 0, token => $t2[0]),
    'EFINISHED', 'resigning a finished match');
err_is($c->req('join', match => $m2, seat => 0), 'EFINISHED',
    'joining a finished match');
err_is($c->req('act', match => '0123456789abcdef', seat => 0,
    token => $t1[0], cmd_id => 'u1', cmd => $cmd), 'ENOMATCH', 'an unknown match');
err_is($c->req('act', match => '../../etc/passwd', seat => 0,
    token => $t1[0], cmd_id => 'u2', cmd => $cmd), 'ENOMATCH',
    'a match id that is a path');
err_is($c->req('view', match => 'x' x 5000), 'ENOMATCH', 'a 5000-byte match id');
healthy('finished and unknown matches');

# Oversized and deeply nested messages.
{
	my $big = $c->req('act', match => $m1, seat => 1, token => $t1[1],
	    cmd_id => 'big', cmd => { type => 'attack', pad => 'x' x (2 << 20) });
	err_is($big, 'ETOOBIG', 'a 2 MiB command');
	my $deep = 'leaf';
	$deep = [$deep] for 1 .. 30;
	err_is($c->req('act', match => $m1, seat => 1, token => $t1[1],
	    cmd_id => 'deep', cmd => { type => 'attack', x => $deep }),
	    'EDEPTH', 'a command nested 30 deep');
	my $wide = { map { ("k$_" => $_) } 1 .. 20000 };
	my $r = $c->req('act', match => $m1, seat => 1, token => $t1[1],
	    cmd_id => 'wide', cmd => { type => 'nonsense', %$wide });
	ok($r && !$r->{ok}, 'a command with 20000 keys is refused: '
	    . ($r ? $r->{error}{name} : 'no reply'));
	# 16 levels of 1-element maps inside the envelope: within max-depth
	# but the command is garbage to the rules.
	my $ok = $c->req('act', match => $m1, seat => 1, token => $t1[1],
	    cmd_id => 'nest', cmd => { type => 'attack', x => [[[[[1]]]]] });
	ok($ok, 'a nested but legal-depth command gets a reply');
	# Far beyond max-message-size * 4 + 1 MiB: nanomsg drops the
	# connection; the daemon goes on.
	my $huge = $d->client(timeout => 2000);
	my $hr = $huge->raw('x' x (12 << 20));
	ok(!defined $hr || !$hr->{ok}, 'a 12 MiB message gets no result');
	$huge->close;
	my $garbage = $d->client(timeout => 2000);
	err_is($garbage->raw("\xc1\xc1\xc1"), 'EPROTO', 'bytes that are not msgpack');
	err_is($garbage->raw("\xdf\xff\xff\xff\xff"), 'EPROTO',
	    'a map claiming 4 billion entries');
	err_is($garbage->raw("\xdd\x7f\xff\xff\xff"), 'EPROTO',
	    'an array claiming 2 billion items');
	$garbage->close;
}
healthy('oversized and nested messages');

# Clients that send and never read the reply, and sockets that send half
# a message or nothing at all.
{
	for (1 .. 20) {
		my $q = $d->client(timeout => 100);
		NanoMsg::Raw::nn_send($q->{s}, $q->encode('matches'), 0);
		$q->close;
	}
	my @raw;
	my $hdr = "\0SP\0\0\x30\0\0";	# the SP header of a REQ peer
	my @say = (
		$hdr . pack('Q>', 100) . 'abc',	# 3 of 100 bytes
		$hdr . pack('Q>', ~0),		# a length of 2^64 - 1
		$hdr . pack('Q>', 0),		# an empty message
		$hdr . pack('Q>', 3) . "\1\2\3",	# no backtrace
		"\0SP\0\0\x31\0\0" . pack('Q>', 5) . 'hello',	# a REP peer
		'GET / HTTP/1.0' . "\r\n" x 2,	# not SP at all
		'',				# connects, says nothing
		join('', map { chr(int(rand(256))) } 1 .. 64),
	);
	for my $k (0 .. 23) {
		my $u = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port")
		    or next;
		$u->syswrite($say[$k % @say]) if length $say[$k % @say];
		push @raw, $u;
	}
	is(scalar(@raw), 24, '24 raw tcp connections: half messages, huge '
	    . 'lengths, garbage, silence');
	my $ipc = $d->endpoint =~ s{^ipc://}{}r;
	my $mode = (stat($ipc))[2] & 07777;
	ok(!($mode & 022), sprintf('the ipc socket is writable by its owner '
	    . 'only (mode %04o)', $mode));
	healthy('silent and half-sent connections');
	my $n = play($c, $m1, \@t1, 3, 'idle');
	ok($n > 0, "a match goes on while they hang ($n commands)");
	close($_) for @raw;
}
healthy('clients that never read');

# Subscribers that never read the event stream.
{
	my @subs;
	for (1 .. 20) {
		my $s = NanoMsg::Raw::nn_socket(NanoMsg::Raw::AF_SP(),
		    NanoMsg::Raw::NN_SUB());
		NanoMsg::Raw::nn_setsockopt($s, NanoMsg::Raw::NN_SUB(),
		    NanoMsg::Raw::NN_SUB_SUBSCRIBE(), '');
		NanoMsg::Raw::nn_setsockopt($s, NanoMsg::Raw::NN_SOL_SOCKET(),
		    NanoMsg::Raw::NN_RCVBUF(), 1024);
		NanoMsg::Raw::nn_connect($s, $d->events_endpoint);
		push @subs, $s;
	}
	my $rss0 = rss($d->pid);
	my $t0 = time;
	my ($id, @tok) = new_match();
	my $games = 0;
	while (time - $t0 < 4) {
		my $n = play($c, $id, \@tok, 500, "nr$games");
		last if $n < 0;
		($id, @tok) = new_match();
		$games++;
	}
	ok($games >= 2, "$games matches played while 20 subscribers never read");
	my $rss1 = rss($d->pid);
	ok($rss1 - $rss0 < 64 << 10, "the daemon's memory grew by "
	    . ($rss1 - $rss0) . ' KiB, not without bound');
	NanoMsg::Raw::nn_close($_) for @subs;
	$c->ok('resign', match => $id, seat => 0, token => $tok[0]);
}
healthy('subscribers that never read');

sub rss {
	my ($pid) = @_;
	open(my $f, '<', "/proc/$pid/status") or return 0;
	while (<$f>) {
		return $1 if /^VmRSS:\s+(\d+)/;
	}
	return 0;
}

# A flood from one client (many sockets, as fast as it can, including
# garbage and big requests) while another plays a whole match normally.
{
	my ($id, @tok) = new_match();
	my $flooder = Refd::spawn_perl(<<'PERL', $d->endpoint, $id);
use Refd;
my ($ep, $id) = @ARGV;
my @s = map { Refd::Client->new($ep, timeout => 2000) } 1 .. 8;
my $end = time + 6;
my $k = 0;
while (time < $end) {
	for my $s (@s) {
		my $r = $k % 4;
		if ($r == 0) { $s->req('matches') }
		elsif ($r == 1) { $s->raw("\x93\x01\x02") }
		elsif ($r == 2) { $s->req('view', match => $id) }
		else { $s->req('act', match => $id, seat => 0, token => 'f' x 32,
		    cmd_id => "x$k", cmd => { type => 'attack', pad => 'y' x 60000 }) }
		$k++;
	}
}
print "$k\n";
PERL
	sleep(0.5);
	my $normal = $d->client(timeout => 10000);
	my ($served, $slow) = (0, 0);
	my $t0 = time;
	my $n = 0;
	while ($n < 200) {
		my $t = time;
		my $p = $normal->ok('pending', match => $id) or last;
		last if $p->{finished};
		my $s = $p->{seats}[0];
		my $l = $normal->ok('legal', match => $id, seat => $s,
		    token => $tok[$s]) or last;
		my $r = $normal->req('act', match => $id, seat => $s,
		    token => $tok[$s], cmd_id => "n$n",
		    cmd => $l->{legal}[0]{cmd});
		last unless $r && $r->{ok};
		$slow = time - $t if time - $t > $slow;
		$n++;
	}
	my $fin = $normal->ok('pending', match => $id);
	ok($fin && $fin->{finished}, "during the flood the normal client played "
	    . "its match to the end ($n commands, slowest turn "
	    . sprintf('%.3f', $slow) . ' s)');
	my $fl = Refd::reap_perl($flooder);
	ok($fl->[0] == 0, "the flooder sent " . ($fl->[1] =~ s/\s+//gr)
	    . ' requests');
	my $st = $normal->ok('stats');
	ok($st->{rate_limited} > 0 || $st->{requests} > 1000,
	    "the daemon counted them ($st->{requests} requests, "
	    . "$st->{rate_limited} rate limited)");
	$normal->close;
}
healthy('a flood');

# Abort what is left, then every log verifies.
for my $mi (@{ $c->ok('matches') }) {
	next if $mi->{status} eq 'finished';
	$c->ok('abort', match => $mi->{id}, admin_token => $admin);
}
$c->close;
undef $c;
my @v = $d->verify_logs($pk);
ok(@v >= 4, scalar(@v) . ' logs');
for my $v (@v) {
	(my $n = $v->[0]) =~ s{.*/}{};
	ok($v->[1] == 0 && $v->[2] =~ /^VERIFIED/m, "$n verifies")
	    or diag($v->[2]);
}
ok($d->alive, 'daemon alive');
is($d->stop, 0, 'clean exit');
done_testing;
