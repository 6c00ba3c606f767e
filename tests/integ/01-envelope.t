# Protocol v1 envelope: hello, version, unknown op, malformed, oversized,
# too deep; after each abuse a normal request still succeeds.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => { 'max-message-size' => 4096, 'max-depth' => 8 });
my $c = $d->client;
my $MP = $Refd::MP;

sub still_serves {
	my ($what) = @_;
	my $r = $c->req('hello');
	ok($r && $r->{ok}, "after $what: hello still answered");
}

sub is_error {
	my ($r, $name, $what) = @_;
	ok($r, "$what: got a reply") or return;
	ok(!$r->{ok}, "$what: ok is false");
	is($r->{error}{name}, $name, "$what: error $name");
	like($r->{error}{message}, qr/\S/, "$what: has a message");
	ok(defined $r->{error}{code} && $r->{error}{code} < 0,
	    "$what: negative code");
}

# hello
my $r = $c->req('hello');
ok($r->{ok}, 'hello ok');
is($r->{v}, 1, 'reply carries v 1');
is($r->{id}, 1, 'reply echoes the request id');
is($r->{result}{server}, 'refd', 'server name');
is_deeply($r->{result}{protocol}, [1], 'protocol versions');
is($r->{result}{limits}{max_message_size}, 4096, 'limit: message size');
is($r->{result}{limits}{max_depth}, 8, 'limit: depth');
ok(grep({ $_ eq 'act' } @{ $r->{result}{ops} }), 'ops list has act');
like($r->{result}{pubkey}, qr/^[0-9a-f]{64}$/, 'pubkey in hello');
is_deeply($r->{result}{publish}, [$d->events_endpoint], 'publish endpoints');

# string ids are echoed too
$r = $c->raw($MP->pack({ v => 1, id => 'abc-1', op => 'hello' }));
is($r->{id}, 'abc-1', 'string id echoed');

# hello may omit the version (to learn it)
$r = $c->raw($MP->pack({ id => 2, op => 'hello' }));
ok($r->{ok}, 'hello without v');

# unknown op
$r = $c->req('fly');
is_error($r, 'EOP', 'unknown op');
is($r->{error}{code}, -3, 'EOP is -3');
is($r->{error}{detail}{arg}, 'op', 'detail names the op argument');
still_serves('unknown op');

# wrong and missing version
$r = $c->raw($MP->pack({ v => 2, id => 9, op => 'stats' }));
is_error($r, 'EVERSION', 'version 2');
is($r->{id}, 9, 'version error echoes the id');
$r = $c->raw($MP->pack({ id => 10, op => 'stats' }));
is_error($r, 'EVERSION', 'missing version');
still_serves('bad version');

# missing op
$r = $c->raw($MP->pack({ v => 1, id => 11 }));
is_error($r, 'EARG', 'missing op');

# malformed msgpack: a truncated map, a reserved byte, trailing bytes
$r = $c->raw("\x83\xa1v\x01");
is_error($r, 'EPROTO', 'truncated msgpack');
ok(!defined $r->{id}, 'malformed: id is nil');
still_serves('truncated msgpack');
$r = $c->raw("\xc1");
is_error($r, 'EPROTO', 'reserved byte 0xc1');
still_serves('reserved byte');
$r = $c->raw($MP->pack({ v => 1, id => 12, op => 'hello' }) . "\x00");
is_error($r, 'EPROTO', 'trailing bytes');
still_serves('trailing bytes');
$r = $c->raw('');
is_error($r, 'EPROTO', 'empty message');
still_serves('empty message');

# not a map
$r = $c->raw($MP->pack([1, 2, 3]));
is_error($r, 'EPROTO', 'array instead of map');
$r = $c->raw($MP->pack({ v => 1, id => [1], op => 'hello' }));
is_error($r, 'EARG', 'id of the wrong type');
$r = $c->raw("\x81\x01\x02");
is_error($r, 'EPROTO', 'integer map key');
still_serves('not a map');

# oversized
$r = $c->raw($MP->pack({ v => 1, id => 13, op => 'hello', pad => 'x' x 5000 }));
is_error($r, 'ETOOBIG', 'oversized message');
is($r->{error}{detail}{limit}, 4096, 'detail gives the limit');
ok($r->{error}{detail}{got} > 4096, 'detail gives the size');
still_serves('oversized message');

# far larger than the limit: still a clear error, not a dropped connection
$r = $c->raw('x' x (1 << 20));
is_error($r, 'ETOOBIG', 'one MiB message');
still_serves('one MiB message');

# too deep
my $deep = 1;
$deep = [$deep] for 1 .. 20;
$r = $c->raw($MP->pack({ v => 1, id => 14, op => 'hello', deep => $deep }));
is_error($r, 'EDEPTH', 'nesting 20 deep');
is($r->{error}{detail}{limit}, 8, 'depth limit in detail');
still_serves('too deep');
my $ok_depth = 1;
$ok_depth = [$ok_depth] for 1 .. 5;
$r = $c->raw($MP->pack({ v => 1, id => 15, op => 'hello', deep => $ok_depth }));
ok($r->{ok}, 'nesting within the limit is fine');

# stats count what happened
my $s = $c->ok('stats');
ok($s->{requests} >= 20, 'stats: requests counted');
ok($s->{too_big} >= 2, 'stats: oversized counted');
ok($s->{malformed} >= 4, 'stats: malformed counted');
is($s->{matches}, 0, 'stats: no matches yet');
my @built = glob("$ENV{REFD_BUILD}/plugins/*.so");
is($s->{rulesets}, scalar(@built), 'stats: one ruleset per built plugin');

# rulesets
my $rs = $c->ok('rulesets');
is(ref $rs, 'ARRAY', 'rulesets is an array');
my ($duel) = grep { $_->{name} eq 'duel' } @$rs;
ok($duel, 'duel is loaded');
is($duel->{abi}, '1.0', 'duel ABI');
like($duel->{version}, qr/^\d+\.\d+/, 'duel version');
is_deeply($duel->{seats}, [2, 2], 'duel seats');
is_deeply($duel->{scenarios}, ['first-duel'], 'duel scenarios');
ok($duel->{describe}{commands}{attack}, 'describe: command schema');
ok($duel->{describe}{options}{max_rounds}, 'describe: options');

# matches, pubkey
is_deeply($c->ok('matches'), [], 'no matches');
like($c->ok('pubkey')->{pubkey}, qr/^[0-9a-f]{64}$/, 'pubkey op');

ok($d->alive, 'daemon alive after all abuse');
is($d->stop, 0, 'clean exit on SIGTERM');
like($d->log, qr/stopped/, 'log says stopped');
done_testing;
