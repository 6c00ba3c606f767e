# Protocol 1.1 (refd-protocol(7), VERSIONS): hello says so, create returns
# the seat count, an inline setup with a key the ruleset does not take is
# refused with ESETUP naming the key, and public events are numbered (n)
# so that a subscriber tells a dropped event from a record without one.
use strict;
use warnings;
use Test::More;

use Refd;

my $d = Refd->new(conf => { 'rate-limit' => 0 });
my $c = $d->client;

my $h = $c->ok('hello');
is($h->{protocol_minor}, 1, 'hello: protocol 1.1');
is_deeply($h->{protocol}, [1], 'still protocol 1');

# create: seats
my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
is($m->{seats}, 2, 'create returns the seat count');
my $rs = $c->ok('rulesets');
for my $r (@$rs) {
	my $x = $c->req('create', ruleset => $r->{name});
	next unless $x->{ok};
	is($x->{result}{seats}, $r->{seats}[0],
	    "$r->{name}: create without seats has the ruleset's minimum");
}

# unknown setup keys, in every ruleset
for my $r (@$rs) {
	my $x = $c->req('create', ruleset => $r->{name},
	    setup => { no_such_option => 1 });
	ok(!$x->{ok}, "$r->{name}: an unknown setup key is refused");
	is($x->{error}{name}, 'ESETUP', "$r->{name}: with ESETUP");
	like($x->{error}{message}, qr/unknown key 'no_such_option'/,
	    "$r->{name}: naming the key");
	my @opts = sort keys %{ $r->{describe}{options} // {} };
	like($x->{error}{message}, qr/\Q$opts[0]\E/,
	    "$r->{name}: and listing the options it takes") if @opts;
}
ok($c->ok('create', ruleset => 'duel', setup => { seats => 2,
    fighters => ['brawler', 'rogue'] }), 'seats and known keys are accepted');

# A command argument of the wrong type: EARG naming it, in every ruleset,
# for every typed argument its describe lists (checked before the rules).
for my $r (@$rs) {
	my ($scen) = grep { !/template/ } @{ $r->{scenarios} // [] };
	my $x = $c->req('create', ruleset => $r->{name},
	    $scen ? (scenario => $scen) : ());
	ok($x->{ok}, "$r->{name}: a match to send commands to") or next;
	my $mid = $x->{result}{match};
	my @t = map { $c->ok('join', match => $mid, seat => $_)->{token} }
	    0 .. $x->{result}{seats} - 1;
	my ($checked, $bad) = (0, 0);
	my $cmds = $r->{describe}{commands} // {};
	for my $type (sort keys %$cmds) {
		my $args = $cmds->{$type}{args} // {};
		next unless ref $args eq 'HASH';
		for my $a (sort keys %$args) {
			next unless $args->{$a} =~ /^\s*(int|bool|str|"|\[)/;
			my $e = $c->req('act', match => $mid, seat => 0,
			    token => $t[0], cmd_id => "t$type$a",
			    cmd => { type => $type, $a => { wrong => 1 } });
			$checked++;
			if ($e->{ok} || $e->{error}{name} ne 'EARG' ||
			    $e->{error}{message} !~ /argument '\Q$a\E'/) {
				$bad++;
				diag("$r->{name} $type.$a: " . ($e->{ok} ?
				    'accepted' : "$e->{error}{name}: $e->{error}{message}"));
			}
		}
	}
	if ($checked == 0) {
		# No types in its describe: the plugin checks its own.
		my $ps = $c->ok('pending', match => $mid)->{seats}[0] // 0;
		my $l = $c->ok('legal', match => $mid, seat => $ps,
		    token => $t[$ps]);
		my ($cmd) = grep { $_ && grep { $_ ne 'type' } keys %$_ }
		    map { $_->{cmd} } @{ $l->{legal} };
		ok($cmd, "$r->{name}: a legal command with an argument") or next;
		my ($arg) = grep { $_ ne 'type' } sort keys %$cmd;
		my $e = $c->req('act', match => $mid, seat => $ps,
		    token => $t[$ps], cmd_id => 'untyped',
		    cmd => { %$cmd, $arg => { wrong => 1 } });
		is($e->{error}{name}, 'EARG', "$r->{name}: a mistyped argument is EARG")
		    or diag($e->{error}{message});
		like($e->{error}{message}, qr/\Q$arg\E/, "$r->{name}: naming it");
		next;
	}
	is($bad, 0, "$r->{name}: $checked typed arguments of describe: a map " .
	    'where each wants another type is EARG naming it');
}

# n: every public event numbered from 1, on the channel and in events.
my $sub = $d->subscriber('');
$sub->drain(0.3);
my $w = $c->ok('create', ruleset => 'warband', scenario => 'crossroads-short');
my $id = $w->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0, 1;
my $steps = 0;
while ($steps++ < 400) {
	my $p = $c->ok('pending', match => $id);
	last if $p->{finished};
	my $s = $p->{seats}[0];
	my $l = $c->ok('legal', match => $id, seat => $s, token => $tok[$s]);
	my ($cmd) = grep { $_->{cmd} } @{ $l->{legal} };
	last unless $cmd;
	$c->ok('act', match => $id, seat => $s, token => $tok[$s],
	    cmd => $cmd->{cmd}, cmd_id => "c$steps");
}
my @all;
my $since = 0;
while (1) {
	my $pg = $c->ok('events', match => $id, since => $since);
	push @all, @{ $pg->{events} };
	last unless $pg->{more};
	$since = $pg->{until};
}
my @n = map { $_->{n} } @all;
is_deeply(\@n, [1 .. scalar(@all)], scalar(@all) .
    ' public events, numbered 1 to ' . scalar(@all) . ' in the events op');
my %seqs = map { $_->{seq} => 1 } @all;
my $last = $all[-1]{seq};
ok(scalar(keys %seqs) < $last, 'some records have no public event ' .
    '(a jump in seq is no gap)');
my @chan = map { $_->[1] } grep { $_->[0] eq $id } $sub->drain(0.8);
is_deeply([map { $_->{n} } @chan], [1 .. scalar(@chan)],
    'the channel carries the same numbers') if @chan;
is(scalar(@chan), scalar(@all), 'every public event was published');

# After a restart the numbers go on where they were.
my $u = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my @t2 = map { $c->ok('join', match => $u->{match}, seat => $_)->{token} } 0, 1;
my $ev1 = $c->ok('events', match => $u->{match})->{events};
$d->stop;
$d->start;
$c = $d->client;
my $ev2 = $c->ok('events', match => $u->{match})->{events};
is_deeply([map { $_->{n} } @$ev2], [map { $_->{n} } @$ev1],
    'a restarted refd numbers the events as before');
done_testing();
