# Every reply valid: a request with a str that is not UTF-8 is refused
# with EARG naming the argument and nothing of it reaches the log; every
# str of every reply is UTF-8; a request over max-message-size gets
# ETOOBIG, one over the hard cap is dropped and the daemon goes on.
use strict;
use warnings;
use Test::More;

use Refd;

my $MPU = Data::MessagePack->new->prefer_integer->canonical->utf8;

# A request packed with ASCII placeholders, then given raw bytes of the
# same length (msgpack str headers stay right).
sub craft {
	my ($env, %sub) = @_;
	my $b = $MPU->pack($env);
	while (my ($k, $v) = each %sub) {
		length($k) == length($v) or die "placeholder length";
		$b =~ s/\Q$k\E/$v/ or die "no placeholder $k";
	}
	return $b;
}

# Whether every str in the raw msgpack bytes is well-formed UTF-8 (a
# strict decoder: Data::MessagePack with utf8 decodes leniently).
sub strict_ok {
	my ($bytes) = @_;
	my $pos = 0;
	my $bad = 0;
	my $str = sub {
		my ($n) = @_;
		my $s = substr($bytes, $pos, $n);
		$pos += $n;
		$bad++ unless utf8::decode(my $copy = $s) &&
		    $s =~ /\A(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]
		    |\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}
		    |\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}
		    |[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})*\z/x;
	};
	my $val;
	$val = sub {
		my $t = ord(substr($bytes, $pos++, 1));
		my $u = sub { my ($n, $f) = @_; my $v = unpack($f, substr($bytes, $pos, $n)); $pos += $n; $v };
		if ($t <= 0x7f || $t >= 0xe0) { return }
		if (($t & 0xf0) == 0x80) { $val->(), $val->() for 1 .. ($t & 0x0f); return }
		if (($t & 0xf0) == 0x90) { $val->() for 1 .. ($t & 0x0f); return }
		if (($t & 0xe0) == 0xa0) { $str->($t & 0x1f); return }
		if ($t == 0xc0 || $t == 0xc2 || $t == 0xc3) { return }
		if ($t == 0xc4) { $pos += $u->(1, 'C'); return }
		if ($t == 0xc5) { $pos += $u->(2, 'n'); return }
		if ($t == 0xc6) { $pos += $u->(4, 'N'); return }
		if ($t == 0xca) { $pos += 4; return }
		if ($t == 0xcb) { $pos += 8; return }
		if ($t >= 0xcc && $t <= 0xd3) { $pos += (1, 2, 4, 8)[($t - 0xcc) % 4]; return }
		if ($t == 0xd9) { $str->($u->(1, 'C')); return }
		if ($t == 0xda) { $str->($u->(2, 'n')); return }
		if ($t == 0xdb) { $str->($u->(4, 'N')); return }
		if ($t == 0xdc) { $val->() for 1 .. $u->(2, 'n'); return }
		if ($t == 0xdd) { $val->() for 1 .. $u->(4, 'N'); return }
		if ($t == 0xde) { $val->(), $val->() for 1 .. $u->(2, 'n'); return }
		if ($t == 0xdf) { $val->(), $val->() for 1 .. $u->(4, 'N'); return }
		$bad++;		# ext types: not in refd's replies
	};
	$val->();
	return !$bad && $pos == length($bytes);
}

my $d = Refd->new(conf => { 'max-message-size' => 8192 });
my $c = $d->client;
my $s = $c->{s};

# The raw reply bytes of raw request bytes.
sub rawreply {
	my ($bytes) = @_;
	NanoMsg::Raw::nn_send($s, $bytes, 0) // return undef;
	my $n = NanoMsg::Raw::nn_recv($s, my $buf, 1 << 20, 0);
	return defined $n ? $buf : undef;
}

my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my @tok = map { $c->ok('join', match => $m->{match}, seat => $_)->{token} } 0, 1;
my $cmd = { type => 'defend' };

# An act whose cmd_id is not UTF-8: EARG naming cmd_id, nothing stored.
my $log0 = $c->ok('events', match => $m->{match});
my $req = craft({ v => 1, id => 7, op => 'act', match => $m->{match},
    seat => 0, token => $tok[0], cmd_id => 'XXXXXX', cmd => $cmd },
    XXXXXX => "ok\xff\xfe\xc3\x28");
my $rb = rawreply($req);
ok(defined $rb, 'an act with a cmd_id that is not UTF-8 gets a reply');
ok(strict_ok($rb), 'the reply is strict msgpack (every str UTF-8)');
my $r = $MPU->unpack($rb);
ok(!$r->{ok}, 'it is refused');
is($r->{error}{name}, 'EARG', 'with EARG');
is($r->{error}{detail}{arg}, 'cmd_id', 'naming the argument cmd_id');
is($r->{id}, 7, 'the id is echoed');
my $log1 = $c->ok('events', match => $m->{match});
is($log1->{seq}, $log0->{seq}, 'the match did not move');
$c->close;
$d->stop;
my $raw = '';
for my $f (glob($d->dir . '/state/matches/*.log')) {
	open(my $fh, '<:raw', $f) or next;
	local $/;
	$raw .= <$fh>;
}
ok(length($raw) > 0, 'the match logs are there');
ok(index($raw, "ok\xff\xfe") < 0, 'the invalid cmd_id is not in any log');
$d->start;
$c = $d->client;
$s = $c->{s};

# Strings deeper in a request, and the id itself.
$rb = rawreply(craft({ v => 1, id => 8, op => 'act', match => $m->{match},
    seat => 0, token => $tok[0], cmd_id => 'fine',
    cmd => { type => 'ZZZZ' } }, ZZZZ => "\xed\xa0\x80z"));
$r = $MPU->unpack($rb);
is($r->{error}{name}, 'EARG', 'a surrogate inside cmd: EARG');
is($r->{error}{detail}{arg}, 'cmd', 'naming cmd');
ok(strict_ok($rb), 'strict reply');
$rb = rawreply(craft({ v => 1, id => 'IIII', op => 'hello' },
    IIII => "\xc3\x28\xa0\xa1"));
ok(strict_ok($rb), 'an id that is not UTF-8: the reply is strict');
$r = $MPU->unpack($rb);
is($r->{error}{name}, 'EARG', 'and refused with EARG');
ok(!defined $r->{id}, 'the id is not echoed');
$rb = rawreply(craft({ v => 1, id => 9, op => 'OOOO' }, OOOO => "\xff\xfe\xe2\x82"));
ok(strict_ok($rb), 'an op that is not UTF-8: the reply is strict');
$rb = rawreply(craft({ v => 1, id => 10, 'KKKK' => 1, op => 'hello' },
    KKKK => "\x80\x80\x80\x80"));
ok(strict_ok($rb), 'a key that is not UTF-8: the reply is strict');
is($MPU->unpack($rb)->{error}{name}, 'EPROTO', 'and refused with EPROTO');
# A valid quote cut inside a character by an error message's bound.
$rb = rawreply(craft({ v => 1, id => 11, op => 'view',
    match => ('m' x 63) . "\xe2\x82\xac" }));
ok(strict_ok($rb), 'a quote cut inside a character: the reply is strict');
is($MPU->unpack($rb)->{error}{name}, 'ENOMATCH', 'and the error is ENOMATCH');
# Valid UTF-8 beyond ASCII is accepted.
my $u8 = $c->ok('act', match => $m->{match}, seat => 0, token => $tok[0],
    cmd_id => "\x{e9}t\x{e9}-\x{1f3b2}", cmd => $cmd);
ok($u8, 'a cmd_id in valid UTF-8 beyond ASCII is accepted');

# Sizes: above max-message-size ETOOBIG, above the hard cap dropped.
$rb = rawreply($MPU->pack({ v => 1, id => 12, op => 'hello', pad => 'x' x 9000 }));
$r = $MPU->unpack($rb);
is($r->{error}{name}, 'ETOOBIG', 'a request over max-message-size: ETOOBIG');
is($r->{error}{detail}{limit}, 8192, 'detail gives the limit');
$rb = rawreply($MPU->pack({ v => 1, id => 13, op => 'hello',
    pad => 'x' x (2 * 8192 + (1 << 20) - 100) }));
is($MPU->unpack($rb)->{error}{name}, 'ETOOBIG',
    'just under the hard cap (2 x max-message-size + 1 MiB): ETOOBIG');
my $h = $d->client(timeout => 1500);
my $hr = $h->raw('x' x (2 * 8192 + (1 << 20) + 4096));
ok(!defined $hr, 'above the hard cap: dropped, no reply');
$h->close;
ok($c->ok('hello'), 'the daemon goes on serving');
ok($d->alive, 'and is alive');
$c->close;
$d->stop;

done_testing();
