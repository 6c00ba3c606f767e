# Hidden-information audit, for every ruleset whose descriptor says it has
# hidden information (REFD_PF_HIDDEN), among the built plugins and the
# "good" and "sealed" fixtures (tests/plugins/fixture.c, a game of secret
# numbers, and sealed bids):
#
#  - seeded games through the daemon: the event stream (PUB) carries only
#    public events; each seat's events are the public ones and its own
#    private ones, never another seat's; a seat's view and events need its
#    token; after the end, the log verifies;
#  - refctl check-plugin (tests/conformance.t runs it on every plugin
#    too; here with the fixtures and a statement per ruleset), which
#    re-deals one seat's hidden data at every
#    step and checks that no other seat's view, nor the spectators', nor
#    any event they then receive changes, and for sealed choices
#    (REFD_PF_SEALED_SETUP) that a seat's choice shows nowhere else while
#    another seat still owes one;
#  - the leaky fixture faults are caught, so the audit would catch them.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);


use Refd;

my $b = Refd::build_dir();
my $GAMES = $ENV{REFD_AUDIT_GAMES} // 2;
my $STEPS = $ENV{REFD_AUDIT_STEPS} // 150;
my $PF_HIDDEN = 1 << 1;

# Every built plugin and the fixture, with their content.
my $tmp = tempdir('refd-audit-XXXXXX', TMPDIR => 1, CLEANUP => 1);
mkdir("$tmp/plugins") && mkdir("$tmp/rulesets") or die;
chmod(0755, $tmp, "$tmp/plugins");
for my $so (glob("$b/plugins/*.so"), "$b/tests/plugins/good.so",
    "$b/tests/plugins/sealed.so") {
	(my $n = $so) =~ s{.*/}{};
	symlink($so, "$tmp/plugins/$n") or die;
	$n =~ s/\.so$//;
	my $c = -d "$b/rulesets/$n" ? "$b/rulesets/$n" : undef;
	if ($c) { symlink($c, "$tmp/rulesets/$n") or die }
	else { mkdir("$tmp/rulesets/$n") or die }
}
my $d = Refd->new(conf => { 'plugin-dir' => "$tmp/plugins",
    'ruleset-dir' => "$tmp/rulesets", fsync => 'never' });
my $c = $d->client;
my $pk = $c->ok('pubkey')->{pubkey};
my @hidden = grep { $_->{flags} & $PF_HIDDEN } @{ $c->ok('rulesets') };
ok(scalar(grep { $_->{name} eq 'good' } @hidden), 'the fixture is audited');
ok(scalar(grep { $_->{name} eq 'sealed' } @hidden), 'the sealed fixture too');
# Setups for the fixtures (the rulesets use their scenarios).
my %setup = (sealed => { sealed => Data::MessagePack::true() });
open(my $sj, '>', "$tmp/sealed.json") or die;
print $sj qq({"sealed": true}\n);
close($sj);
my %check_setup = (sealed => "$tmp/sealed.json");
note('rulesets with hidden information: ' . join(', ', map { $_->{name} } @hidden));

my $sub = $d->subscriber('');
$sub->drain(0.3);

# A template instance: each {min, max} its min, each {one_of} its first.
sub instance {
	my ($t) = @_;
	if (ref $t eq 'HASH') {
		return $t->{min} if exists $t->{min} && exists $t->{max};
		return instance($t->{one_of}[0]) if ref $t->{one_of} eq 'ARRAY';
		return { map { $_ => instance($t->{$_}) } keys %$t };
	}
	return [ map { instance($_) } @$t ] if ref $t eq 'ARRAY';
	return $t;
}

sub key_of { "$_[0]{seq}/$_[0]{i}" }

my %pub_seen;	# match id -> { seq/i -> 1 } from the PUB stream
my %ruleset_of;	# match id -> ruleset
sub pump {
	for my $m ($sub->drain(0.05)) {
		my ($topic, $ev) = @$m;
		$pub_seen{$topic}{ key_of($ev) } = 1 if $ev;
	}
}

for my $r (@hidden) {
	my $name = $r->{name};
	# Two seats at least where the ruleset allows: hidden from whom else?
	my ($lo, $hi) = @{ $r->{seats} };
	my $nseats = $lo >= 2 || $hi < 2 ? $lo : 2;
	for my $g (1 .. $GAMES) {
		srand(1000 * $g + length($name));
		my %create = (ruleset => $name, seats => $nseats);
		$create{scenario} = $r->{scenarios}[($g - 1) % @{ $r->{scenarios} }]
		    if @{ $r->{scenarios} };
		$create{setup} = $setup{$name} if $setup{$name};
		my $cr = $c->ok('create', %create) or next;
		my $id = $cr->{match};
		$ruleset_of{$id} = $name;
		my @tok = map { $c->ok('join', match => $id, seat => $_,
		    seed => "audit $g $_")->{token} } 0 .. $nseats - 1;
		my ($steps, $bad) = (0, 0);
		while ($steps < $STEPS) {
			my $p = $c->ok('pending', match => $id) or last;
			last if $p->{finished} || !@{ $p->{seats} };
			my $s = $p->{seats}[int(rand(@{ $p->{seats} }))];
			my $l = $c->ok('legal', match => $id, seat => $s,
			    token => $tok[$s]) or last;
			last unless @{ $l->{legal} };
			my $it = $l->{legal}[int(rand(@{ $l->{legal} }))];
			my $cmd = $it->{cmd} // instance($it->{template});
			my $a = $c->req('act', match => $id, seat => $s,
			    token => $tok[$s], cmd_id => "a$steps", cmd => $cmd);
			$steps++;
			pump() if $steps % 8 == 0;
		}
		my $p = $c->ok('pending', match => $id);
		$c->ok('resign', match => $id, seat => 0, token => $tok[0])
		    unless $p->{finished};
		pump();
		my $what = "$name game $g ($steps commands)";

		# Public events and each seat's events.
		my @pub = @{ $c->ok('events', match => $id)->{events} };
		my %pub = map { key_of($_) => 1 } @pub;
		my %owner;
		for my $s (0 .. $nseats - 1) {
			my @ev = @{ $c->ok('events', match => $id, seat => $s,
			    token => $tok[$s])->{events} };
			my %mine = map { key_of($_) => 1 } @ev;
			my @missing = grep { !$mine{$_} } keys %pub;
			ok(!@missing, "$what: seat $s gets every public event")
			    or diag("missing @missing");
			for my $k (grep { !$pub{$_} } keys %mine) {
				if (defined $owner{$k}) {
					fail("$what: private event $k reaches seats "
					    . "$owner{$k} and $s");
					$bad++;
				}
				$owner{$k} = $s;
			}
		}
		my @leaked = grep { !$pub{$_} } keys %{ $pub_seen{$id} // {} };
		ok(!@leaked, "$what: the event stream carried only public "
		    . 'events (' . scalar(keys %{ $pub_seen{$id} // {} })
		    . ' seen)') or diag("private on PUB: @leaked");
		ok(!$bad, "$what: " . scalar(keys %owner)
		    . ' private events, each to one seat');
		# Another seat's token opens nothing.
		if ($nseats > 1) {
			my $x = $c->req('view', match => $id, seat => 1,
			    token => $tok[0]);
			is($x->{error}{name}, 'ETOKEN',
			    "$what: seat 1's view needs seat 1's token");
		}
	}
}
$sub->close;
$c->close;
undef $sub;
undef $c;

# The logs verify (refctl runs in a fork: every socket is closed).
for my $v ($d->verify_logs($pk, sub {
	my $r = $ruleset_of{ $_[0] } // return ();
	return ('--plugin', "$tmp/plugins/$r.so", '--content', "$tmp/rulesets/$r");
})) {
	(my $n = $v->[0]) =~ s{.*/}{};
	ok($v->[1] == 0 && $v->[2] =~ /^VERIFIED/m, "log $n verifies")
	    or diag($v->[2]);
}
is($d->stop, 0, 'clean exit');

# The plugin-level audit: redeal-based view and event checks.
my $refctl = Refd::bin('refctl');
for my $r (@hidden) {
	my $so = "$tmp/plugins/$r->{name}.so";
	my ($st, $out) = Refd::run_prog($refctl, 'check-plugin', $so,
	    '--content', "$tmp/rulesets/$r->{name}", '--games',
	    $ENV{REFD_AUDIT_CHECK_GAMES} // 6, '--seed', 11, $check_setup{ $r->{name} } ?
	    ('--setup', $check_setup{ $r->{name} }) : ());
	is($st, 0, "check-plugin $r->{name}: no view or event depends on "
	    . 'another seat\'s hidden data') or diag($out);
	my ($n) = $out =~ /\((\d+) with the next command's events\)/;
	ok(($n // 0) > 0 || $out =~ /no redeal op/,
	    "check-plugin $r->{name}: " . ($n // 0) . ' event checks made');
	diag("$r->{name}: hidden information but no redeal op: its views and "
	    . 'events are not audited') if $out =~ /no redeal op/;
	my ($sc) = $out =~ /(\d+) sealed choices/;
	ok($sc > 0, "check-plugin $r->{name}: $sc sealed choices checked")
	    if $r->{flags} & (1 << 2);
}
for my $f (qw(leak leak_event leak_sealed)) {
	my $fx = $f eq 'leak_sealed' ? 'sealed' : 'faulty';
	open(my $fh, '>', "$tmp/$f.json") or die;
	print $fh qq({"fault": "$f", "sealed": true}\n);
	close($fh);
	my ($st, $out) = Refd::run_prog($refctl, 'check-plugin',
	    "$b/tests/plugins/$fx.so", '--setup', "$tmp/$f.json",
	    '--games', 8);
	is($st, 1, "the leaky fixture ($f) fails the audit");
	like($out, qr/hidden|the choice shows/, 'and the failure names the leak');
}
done_testing;
