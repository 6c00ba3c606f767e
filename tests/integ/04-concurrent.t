# Two clients acting at the same time in different matches; many requests
# in flight at once are each answered, to the right client.
use strict;
use warnings;
use Test::More;
use POSIX qw(_exit);

use Refd;

# Child mode: one client process playing one whole match through its own
# socket (nanomsg does not survive fork, so the child execs a fresh perl).
if (@ARGV && $ARGV[0] eq '--child') {
	my (undef, $ep, $id, $tag) = @ARGV;
	my $k = Refd::Client->new($ep);
	my @tok = map { $k->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;
	for my $n (0 .. 499) {
		my $p = $k->ok('pending', match => $id) or exit 10;
		exit 0 if $p->{finished};
		my $s = $p->{seats}[0] // exit 11;
		my $l = $k->ok('legal', match => $id, seat => $s,
		    token => $tok[$s]) or exit 12;
		my $cmd = $l->{legal}[$n % @{ $l->{legal} }]{cmd};
		my $r = $k->req('act', match => $id, seat => $s, token => $tok[$s],
		    cmd_id => "$tag-$n", expected_seq => $p->{seq}, cmd => $cmd);
		exit 13 unless $r && $r->{ok};
	}
	exit 14;
}

my $d = Refd->new;
my $c = $d->client;

my @ids = map {
	$c->ok('create', ruleset => 'duel', scenario => 'first-duel')->{match}
} 1 .. 2;
isnt($ids[0], $ids[1], 'two matches');

# A subscriber to the first match only.
my $sub = $d->subscriber($ids[0]);
$sub->drain(0.3);

my @pids;
for my $i (0 .. 1) {
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		exec($^X, (map { "-I$_" } @INC), $0, '--child', $d->endpoint,
		    $ids[$i], "p$i") or _exit(99);
	}
	push @pids, $pid;
}
for my $i (0 .. 1) {
	waitpid($pids[$i], 0);
	is($? >> 8, 0, "client $i played its match to the end");
}
for my $id (@ids) {
	ok($c->ok('pending', match => $id)->{finished}, "match $id finished");
}

my @got = $sub->drain(0.5);
ok(@got > 0, 'the subscriber got events of its match');
is(scalar(grep { $_->[0] ne $ids[0] } @got), 0,
    'and none of the other match');

# Many requests in flight at once from different connections.
my @k = map { $d->client } 1 .. 16;
for my $i (0 .. $#k) {
	my $b = $k[$i]->encode('view', match => $ids[$i % 2]);
	NanoMsg::Raw::nn_send($k[$i]{s}, $b, 0);
}
my $right = 0;
for my $i (0 .. $#k) {
	my $n = NanoMsg::Raw::nn_recv($k[$i]{s}, my $buf, 1 << 20, 0);
	my $r = defined $n ? $Refd::MP->unpack($buf) : undef;
	$right++ if $r && $r->{ok} && $r->{id} == $k[$i]{id};
}
is($right, 16, 'sixteen requests in flight, sixteen right replies');
my $s = $c->ok('stats');
ok($s->{max_batch} >= 1, "stats: largest batch $s->{max_batch}");
ok($s->{turns} <= $s->{requests}, 'stats: turns <= requests');

is($d->stop, 0, 'clean exit');
done_testing;
