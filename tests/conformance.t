#!/usr/bin/perl
# conformance.t - refctl check-plugin on every plugin of the build, with its
# content; then on the fixture plugins, proving the checker catches each
# kind of misbehaviour with its own message.
#
# Needs REFD_BUILD.  REFD_SANITIZE=1 (an ASan build) plays fewer games of
# the real rulesets; REFD_CHECK_GAMES overrides the count.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $refctl = "$b/bin/refctl";
my $games = $ENV{REFD_CHECK_GAMES} // ($ENV{REFD_SANITIZE} ? 50 : 200);

sub run {
	my @cmd = @_;
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if (!$pid) {
		open(STDERR, '>&', \*STDOUT) or die;
		exec(@cmd) or die "exec $cmd[0]: $!";
	}
	local $/;
	my $out = <$fh> // '';
	close($fh);
	return ($? >> 8, $out);
}

my @plugins = sort glob("$b/plugins/*.so");
ok(scalar(@plugins) >= 1, 'the build has plugins to check');
for my $so (@plugins) {
	my ($name) = $so =~ m{([^/]+)\.so$};
	my @args = ($refctl, 'check-plugin', $so, '--games', $games,
	    '--seed', 20261122);
	push @args, '--content', "$b/rulesets/$name" if -d "$b/rulesets/$name";
	my ($rc, $out) = run(@args);
	is($rc, 0, "$name: $games seeded games pass the conformance checker")
	    or diag($out);
	like($out, qr/^check-plugin: \Q$name\E \S+: $games games .* 0 failures$/m,
	    "$name: summary line");
	like($out, qr/ (\d+) round trips/, "$name: round trips were checked");
	my ($steps) = $out =~ /, (\d+) steps,/;
	ok(defined $steps && $steps > 0, "$name: games took steps");
	# Another process, the same seed: the same outcomes, bit for bit.
	my @few = (@args[0 .. 2], '--games', 5, @args[5 .. $#args]);
	my ($r1, $o1) = run(@few);
	my ($r2, $o2) = run(@few);
	my ($d1) = $o1 =~ /events digest ([0-9a-f]{32})/;
	my ($d2) = $o2 =~ /events digest ([0-9a-f]{32})/;
	ok(defined $d1 && defined $d2 && $d1 eq $d2,
	    "$name: two processes, same seed, same events digest")
	    or diag("$o1\n$o2");
}

# The fixtures: a good one passes, each fault is caught by its check.
my $fx = "$b/tests/plugins";
my ($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--games', 50);
is($rc, 0, 'good fixture passes') or diag($out);
like($out, qr/50 games \(50 finished\).* \d+ redeals \(\d+ with the next command.s events\), \d+ sealed choices, 50 replays/,
    'good fixture: every game finished, was re-dealt and replayed');

my $tmp = tempdir(CLEANUP => 1);
my %caught = (
	badevent => qr/listed command .* was rejected .*EPLUGINFAULT \(event is not one msgpack map\)/,
	dirty_reject => qr/rejected .* changed the state/,
	accept_garbage => qr/(garbage|non-command|mutated command|owes nothing) .* was accepted/,
	illegal_legal => qr/listed command \{"type":"add","n":4\} was rejected/,
	nondet => qr/gave different events or draws/,
	nondet_create => qr/replay with the same seed: create gave different events/,
	roundtrip => qr/restore\(serialize\(state\)\) shows a different view/,
	roundtrip_legal => qr/restore\(serialize\(state\)\) lists other legal commands for seat \d: serialize leaves something out/,
	leak => qr/redeal of seat \d's hidden data changed (the spectators'|seat \d's) view/,
	leak_event => qr/the events (the spectators|seat \d) receive depend on seat \d's hidden data .* an event leaks hidden information/,
	endless => qr/the game did not end within 300 steps/,
	nopending => qr/pending is empty while the game is not over/,
	output_in_apply => qr/EPLUGINFAULT \(output during apply\)/,
	draw_in_view => qr/view for seat -?\d: EPLUGINFAULT \(draw outside create, apply or redeal\)/,
	bad_output => qr/legal for seat \d: output is not one msgpack array \(truncated msgpack\)/,
	deep_view => qr/view for seat -?\d: output is not one msgpack map \(msgpack nested too deeply\)/,
	undescribed => qr/legal for seat \d: command type 'jump' is not among describe's commands/,
	nostate => qr/create with \d seats and setup .*: EPLUGINFAULT \(create returned no state\)/,
	badutf8 => qr/view for seat -?\d: a string is not UTF-8/,
);
for my $f (sort keys %caught) {
	open(my $fh, '>', "$tmp/$f.json") or die;
	print $fh qq({"fault": "$f"}\n);
	close($fh);
	($rc, $out) = run($refctl, 'check-plugin', "$fx/faulty.so", '--setup',
	    "$tmp/$f.json", '--games', 8, '--max-steps', 300);
	is($rc, 1, "fault $f: the checker fails");
	like($out, $caught{$f}, "fault $f: named by its check") or diag($out);
	like($out, qr/[1-9]\d* failures?$/m, "fault $f: summary counts it");
}

# Events emitted by an apply that then rejects are discarded: allowed.
open(my $fh, '>', "$tmp/eor.json") or die;
print $fh qq({"fault": "emit_on_reject"}\n);
close($fh);
($rc, $out) = run($refctl, 'check-plugin', "$fx/faulty.so", '--setup',
    "$tmp/eor.json", '--games', 8);
is($rc, 0, 'events of a rejected apply are discarded, not a failure')
    or diag($out);

# With REFD_PF_ROLLBACK the host undoes what a rejected apply dirtied.
($rc, $out) = run($refctl, 'check-plugin', "$fx/rollback.so", '--setup',
    "$tmp/dirty_reject.json", '--games', 8);
is($rc, 0, 'dirty rejections pass when the plugin asks for rollback')
    or diag($out);

# Templates instead of commands: the checker instantiates them.
open($fh, '>', "$tmp/templates.json") or die;
print $fh qq({"fault": "templates"}\n);
close($fh);
($rc, $out) = run($refctl, 'check-plugin', "$fx/faulty.so", '--setup',
    "$tmp/templates.json", '--games', 8);
is($rc, 0, 'a plugin listing templates passes') or diag($out);
like($out, qr/8 games \(8 finished\).* [1-9]\d* templates seen; 0 failures/,
    'its games were played from instantiated templates');

# A setup that takes one seat count only: the checker finds it.
open($fh, '>', "$tmp/three.json") or die;
print $fh qq({"need_seats": 3}\n);
close($fh);
($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--setup',
    "$tmp/three.json", '--games', 6, '-v');
is($rc, 0, 'a setup needing 3 seats: every game finds them') or diag($out);
is(scalar(() = $out =~ /\(\Q$tmp\E\/three\.json, 3 seats\): ok/g), 6,
    'all 6 games played with 3 seats');
open($fh, '>', "$tmp/nine.json") or die;
print $fh qq({"need_seats": 9}\n);
close($fh);
($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--setup',
    "$tmp/nine.json", '--games', 2);
is($rc, 1, 'a setup no seat count satisfies fails');
like($out, qr/refused for every seat count 1\.\.4, with 1 seats: ESETUP/,
    'and says so with the first refusal');

# Usage and refusals exit 2 with a message.
($rc, $out) = run($refctl, 'check-plugin');
is($rc, 2, 'no plugin: usage');
like($out, qr/usage: refctl check-plugin/, 'usage printed');
($rc, $out) = run($refctl, 'check-plugin', "$fx/bad_magic.so");
is($rc, 2, 'a plugin that does not load: exit 2');
like($out, qr/plugin '.*bad_magic\.so': magic: found/, 'loader message shown');
($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--games', 'many');
is($rc, 2, 'bad --games: exit 2');
like($out, qr/option '--games': expected a number/, 'bad number named');
($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--seats', 9);
is($rc, 2, '--seats outside the plugin range: exit 2');
($rc, $out) = run($refctl, 'check-plugin', "$fx/good.so", '--scenario', 'x');
like($out, qr/scenario 'x': not found/, 'unknown scenario named');

# The same seed gives the same summary; another seed plays other games.
my ($r1, $o1) = run($refctl, 'check-plugin', "$fx/good.so", '--seed', 5);
my ($r2, $o2) = run($refctl, 'check-plugin', "$fx/good.so", '--seed', 5);
my ($r3, $o3) = run($refctl, 'check-plugin', "$fx/good.so", '--seed', 6);
is($o1, $o2, 'same seed, same run');
isnt($o1, $o3, 'another seed, other games');
my ($g1) = $o1 =~ /events digest (\w+)/;
my ($g3) = $o3 =~ /events digest (\w+)/;
ok(defined $g1 && defined $g3 && $g1 ne $g3, 'another seed, another digest');

# A plugin named by its file name alone is that file in the current
# directory, not a library for the dynamic loader to search for; and a
# file that is no shared object is said to be one, with no advice to
# rebuild what needs no rebuilding.
{
	my $d = tempdir('refd-conf-XXXXXX', TMPDIR => 1, CLEANUP => 1);
	system('cp', "$fx/good.so", "$d/good.so") == 0 or die;
	open(my $j, '>', "$d/junk.so") or die;
	print $j "not a shared object\n";
	close($j);
	chmod(0644, "$d/junk.so");
	require Cwd;
	my $here = Cwd::getcwd();
	my $abs = Cwd::abs_path($refctl);
	chdir($d) or die;
	($rc, $out) = run($abs, 'check-plugin', 'good.so', '--games', 2);
	is($rc, 0, 'check-plugin NAME.so loads ./NAME.so') or diag($out);
	($rc, $out) = run($abs, 'check-plugin', 'junk.so');
	like($out, qr/'junk\.so': dlopen: .*not a shared object for this system/,
	    'a file that is no shared object is named as such');
	unlike($out, qr/rebuild the plugin against/, 'with no rebuild advice');
	chdir($here) or die;
}

done_testing();
