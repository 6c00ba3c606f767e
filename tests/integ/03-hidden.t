# Hidden information: the duel's hands and draws are private.  Neither the
# PUB stream, nor public events-since, nor the spectator view may carry
# them; a seat sees its own and never the other's.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new;
my $c = $d->client;
my $sub = $d->subscriber('');	# everything, every match
$sub->drain(0.3);		# let the subscription settle

# Any key named 'hand' or 'cards', or a private event type, anywhere.
sub leaks {
	my ($v) = @_;
	if (ref $v eq 'HASH') {
		return 1 if exists $v->{hand} || exists $v->{cards};
		return 1 if defined $v->{type} && $v->{type} =~ /^(dealt|drew)$/;
		return scalar grep { leaks($_) } values %$v;
	}
	if (ref $v eq 'ARRAY') {
		return scalar grep { leaks($_) } @$v;
	}
	return 0;
}

my $id = $c->ok('create', ruleset => 'duel', scenario => 'first-duel')->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;

# Seats' own views and private events.
my @hand;
for my $s (0 .. 1) {
	my $v = $c->ok('view', match => $id, seat => $s, token => $tok[$s]);
	$hand[$s] = $v->{view}{fighters}[$s]{hand};
	is(scalar @{ $hand[$s] }, 2, "seat $s sees its two cards");
	ok(!exists $v->{view}{fighters}[1 - $s]{hand},
	    "seat $s does not see the other hand");
	my $ev = $c->ok('events', match => $id, seat => $s, token => $tok[$s]);
	my @dealt = grep { ($_->{type} // '') eq 'dealt' } @{ $ev->{events} };
	is(scalar @dealt, 1, "seat $s gets exactly one dealt event");
	is_deeply([sort { $a <=> $b } @{ $dealt[0]{cards} }],
	    [sort { $a <=> $b } @{ $hand[$s] }], "seat $s: dealt = its hand");
}

# Play to the end, boosting with a card whenever one is legal so that
# private "drew" events happen.
my %seen_private;
my $steps = 0;
while ($steps < 200) {
	my $p = $c->ok('pending', match => $id);
	last if $p->{finished} || !@{ $p->{seats} };
	my $s = $p->{seats}[0];
	my $l = $c->ok('legal', match => $id, seat => $s, token => $tok[$s])->{legal};
	my ($pick) = grep { exists $_->{cmd}{card} } @$l;
	$pick //= $l->[0];
	my $r = $c->ok('act', match => $id, seat => $s, token => $tok[$s],
	    cmd_id => "h$steps", cmd => $pick->{cmd});
	last unless $r;
	$steps++;
	# the spectator view never shows a hand, at any point
	my $pv = $c->ok('view', match => $id);
	ok(!leaks($pv->{view}), "spectator view after step $steps: no hidden data")
	    or diag(explain($pv));
}
ok($c->ok('pending', match => $id)->{finished}, 'the duel finished');

my $drew = 0;
for my $s (0 .. 1) {
	my $ev = $c->ok('events', match => $id, seat => $s, token => $tok[$s]);
	for my $e (@{ $ev->{events} }) {
		next unless ($e->{type} // '') =~ /^(dealt|drew)$/;
		$drew++ if $e->{type} eq 'drew';
		$seen_private{"$s"}++;
	}
}
ok($drew > 0, 'private draw events happened');

# public events-since
my $pubev = $c->ok('events', match => $id)->{events};
ok(@$pubev > 0, 'public events exist');
ok(!leaks($pubev), 'public events-since: no hidden data')
    or diag(explain([grep { leaks($_) } @$pubev]));

# the PUB stream
my @msgs = $sub->drain(0.8);
ok(@msgs > 0, 'PUB delivered events');
my @ours = grep { $_->[0] eq $id } @msgs;
is(scalar @ours, scalar @msgs, 'every PUB message carries the match id topic');
ok(!(grep { !defined $_->[1] } @msgs), 'every PUB payload is msgpack');
ok(!(grep { !defined $_->[1]{seq} } @msgs), 'every PUB event has a seq');
ok(!(grep { leaks($_->[1]) } @msgs), 'PUB: no hidden data')
    or diag(explain([map { $_->[1] } grep { leaks($_->[1]) } @msgs]));
my @seqs = map { $_->[1]{seq} } @msgs;
is_deeply(\@seqs, [sort { $a <=> $b } @seqs], 'PUB seqs in order');
is(scalar @msgs, scalar @$pubev, 'PUB carried exactly the public events');

# After the end, the export is allowed; the live stream never had hands.
ok($c->ok('export', match => $id), 'export after the end');

is($d->stop, 0, 'clean exit');
done_testing;
