# Hostile bytes on every endpoint kind.  libnanomsg 1.1.5 aborts the
# process that holds a PUB socket when a subscriber sends it a frame
# (src/protocols/pubsub/xpub.c: nn_xpub_in is nn_assert (0)): 16 bytes on
# tcp (the SP header and one empty frame) did it.  refd keeps its publish
# endpoints in a publisher process of their own; a frame costs that process,
# refd restarts it and keeps serving, and subscribers reconnect.  The same
# library aborts on an ipc frame whose type byte is not 1
# (src/transports/ipc/sipc.c); that one is on the command socket, so it is
# reproduced here and survived by refd -d's supervisor.
use strict;
use warnings;
use Test::More;
use IO::Select;
use IO::Socket::INET;
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);
use Time::HiRes qw(sleep time);
use File::Temp qw(tempdir);

use Refd;

# A publisher that died closes our socket under us.
$SIG{PIPE} = "IGNORE";

sub free_port {
	my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
	    Listen => 1) or die "no free port: $!";
	return $s->sockport;
}

# SP protocol ids (nanomsg: protocol * 16 + role).
my %PROTO = (pub => 0x20, sub => 0x21, req => 0x30, rep => 0x31);

sub sp_header { return "\0SP\0" . pack('n', $PROTO{ $_[0] }) . "\0\0" }

sub read_n {
	my ($fh, $n) = @_;
	my $buf = '';
	my $deadline = time + 3;
	my $sel = IO::Select->new($fh);
	while (length($buf) < $n && time < $deadline) {
		next unless $sel->can_read(0.2);
		my $got = sysread($fh, my $part, $n - length($buf));
		last unless $got;
		$buf .= $part;
	}
	return $buf;
}

# A subscriber's handshake on tcp://, then one frame: 8-byte length, body.
sub tcp_frame {
	my ($port, $role, $body) = @_;
	my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port)
	    or return 0;
	syswrite($s, sp_header($role));
	my $peer = read_n($s, 8);
	syswrite($s, pack('Q>', length $body) . $body);
	sleep(0.3);
	close($s);
	return length($peer) == 8;
}

# The same on ipc://: a type byte (1: a message), 8-byte length, body.
sub ipc_frame {
	my ($path, $role, $type, $body) = @_;
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path)
	    or return 0;
	syswrite($s, sp_header($role));
	my $peer = read_n($s, 8);
	syswrite($s, chr($type) . pack('Q>', length $body) . $body);
	sleep(0.3);
	close($s);
	return length($peer) == 8;
}

# ws://: the upgrade as a subscriber, then one masked binary frame.
sub ws_frame {
	my ($port, $body) = @_;
	my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port)
	    or return 0;
	syswrite($s, "GET / HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n"
	    . "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    . "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	    . "Sec-WebSocket-Version: 13\r\n"
	    . "Sec-WebSocket-Protocol: sub.sp.nanomsg.org\r\n\r\n");
	my $resp = '';
	my $deadline = time + 3;
	my $sel = IO::Select->new($s);
	while ($resp !~ /\r\n\r\n/ && time < $deadline) {
		next unless $sel->can_read(0.2);
		sysread($s, my $part, 1) or last;
		$resp .= $part;
	}
	my $mask = "\x01\x02\x03\x04";
	my $masked = $body ^ substr($mask x (1 + length($body) / 4), 0,
	    length $body);
	syswrite($s, "\x82" . chr(0x80 | length $body) . $mask . $masked);
	sleep(0.3);
	close($s);
	return $resp =~ m{^HTTP/1\.1 101};
}

my ($cport, $pport, $wport) = (free_port(), free_port(), free_port());
my $dir = tempdir('refd-transport-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $d = Refd->new(conf => { publish => ["ipc://$dir/pub.sock",
    "tcp://127.0.0.1:$pport", "ws://127.0.0.1:$wport"] },
    listen_also => ["tcp://127.0.0.1:$cport"]);
my $c = $d->client;
my $id = $c->ok('create', ruleset => 'duel', scenario => 'first-duel')->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;
my $n = 0;

sub serving {
	my ($what) = @_;
	my $h = $d->client(timeout => 5000);
	my $r = $h->req('hello');
	ok($d->alive && $r && $r->{ok}, "$what: refd still serves") or
	    diag($d->log);
	$h->close;
}

# After an attack, a subscriber on each publish endpoint gets the next
# events (nanomsg reconnects on its own).
sub publishing {
	my ($what) = @_;
	my @subs = map { Refd::Sub->new($_, $id) } "ipc://$dir/pub.sock",
	    "tcp://127.0.0.1:$pport", "ws://127.0.0.1:$wport";
	my @got = (0) x @subs;
	my $deadline = time + 10;
	while (time < $deadline && grep { !$_ } @got) {
		my $seat = $n++ % 2;
		$c->ok('act', match => $id, seat => $seat, token => $tok[$seat],
		    cmd_id => "c$n", cmd => { type => 'defend' });
		for my $i (0 .. $#subs) {
			$got[$i] += scalar $subs[$i]->drain(0.2);
		}
	}
	ok(!grep({ !$_ } @got), "$what: every publish endpoint publishes again")
	    or diag("events per endpoint: @got");
	$_->close for @subs;
}

publishing('before any attack');
ok(tcp_frame($pport, 'sub', ''), 'tcp: the publish port completes the SP handshake');
serving('an empty frame to the tcp publish port');
publishing('an empty frame to the tcp publish port');
tcp_frame($pport, 'sub', 'subscribe me');
serving('a frame with a body to the tcp publish port');
ok(ipc_frame("$dir/pub.sock", 'sub', 1, 'x'), 'ipc: the publish socket completes the handshake');
serving('a frame to the ipc publish socket');
ipc_frame("$dir/pub.sock", 'sub', 2, '');
serving('a frame of another type to the ipc publish socket');
{
	# This hand-made upgrade gets no 101 yet, so the frame may not reach
	# the publisher: the ws case is not proven until it does.
	local $TODO = 'the test\'s ws upgrade is not answered yet';
	ok(ws_frame($wport, 'hello'), 'ws: the publish port upgrades');
}
serving('a frame to the ws publish port');
publishing('after frames on all three');
# Many in a row: refd restarts the publisher each time.
tcp_frame($pport, 'sub', '') for 1 .. 5;
serving('five frames in a row');
publishing('after five frames in a row');
my @lines = grep { /publisher/ } split /\n/, $d->log;
ok(@lines >= 1 && @lines <= 40, 'each publisher restart is logged')
    or diag($d->log);
like($d->log, qr/publisher .*(signal|exit)/, 'the log says how it ended');

# The command port over tcp takes any bytes (a REQ frame of garbage).
tcp_frame($cport, 'req', "\xff" x 40);
serving('garbage on the tcp command port');

# The ipc command socket: a frame whose type byte is not 1 aborts the
# process (libnanomsg 1.1.5, sipc.c).  refd alone dies; see refd(8).
ok(ipc_frame($d->endpoint =~ s{^ipc://}{}r, 'req', 2, ''),
    'ipc: the command socket completes the handshake');
my $dead = 0;
for (1 .. 50) {
	if (!$d->alive) {
		$dead = 1;
		last;
	}
	sleep(0.1);
}
ok($dead, 'a malformed ipc frame on the command socket aborts refd '
    . '(libnanomsg 1.1.5, known issue)');
like($d->log, qr/sipc\.c/, 'in libnanomsg\'s sipc.c') or diag($d->log);
$d->stop;	# reap it here, not in global destruction (which sets $?)
done_testing;
