# Plugin faults through the real daemon: a plugin that emits malformed
# events, emits events on a rejection, crashes or never returns must cost
# only the command it was running.  The daemon keeps serving, a good match
# played alongside goes on to its end and its log verifies, and the faulty
# match reports the fault clearly and stays usable.
use strict;
use warnings;
use Test::More;

use Time::HiRes;

use Refd;

my $b = Refd::build_dir();
my $tmp = File::Temp::tempdir('refd-faults-XXXXXX', TMPDIR => 1,
    CLEANUP => 1);
mkdir("$tmp/plugins") or die;
mkdir("$tmp/rulesets") or die;
for my $f (qw(good faulty crashes loops)) {
	symlink("$b/tests/plugins/$f.so", "$tmp/plugins/$f.so") or die;
	mkdir("$tmp/rulesets/$f") or die;
}

my $d = Refd->new(conf => {
	'plugin-dir' => "$tmp/plugins",
	'ruleset-dir' => "$tmp/rulesets",
	'plugin-timeout' => 400,
	'admin-token' => 'faults',
});
my $c = $d->client;

# A two-seat race of ruleset $rs: (match id, tokens).
sub race {
	my ($rs, %setup) = @_;
	my $m = $c->ok('create', ruleset => $rs, seats => 2,
	    setup => { target => 30, %setup }) or return;
	my @tok;
	for my $s (0, 1) {
		my $j = $c->ok('join', match => $m->{match}, seat => $s,
		    seed => "$rs seat $s") or return;
		$tok[$s] = $j->{token};
	}
	return ($m->{match}, \@tok);
}

# Seat $turn of match $id sends $cmd: the whole reply.
my $n = 0;
my $t0;
sub act {
	my ($id, $tok, $seat, $cmd) = @_;
	return $c->req('act', match => $id, seat => $seat,
	    token => $tok->[$seat], cmd_id => 'c' . ++$n, cmd => $cmd);
}

# The good match: plays one turn per call, returns the new seq.
my ($good, $gtok) = race('good');
ok($good, 'a good match is running');
my $gturn = 0;
sub good_turn {
	my $r = act($good, $gtok, $gturn, { type => 'add', n => 1 });
	$gturn = 1 - $gturn;
	return $r && $r->{ok} ? $r->{result}{seq} : undef;
}
ok(good_turn(), 'the good match takes a command');

# 1. Malformed event: the command fails with EPLUGINFAULT, nothing is
#    logged, the match stays usable at the same seq.
my ($bad, $btok) = race('faulty', fault => 'badevent');
my $seq0 = $c->ok('pending', match => $bad)->{seq};
my $r = act($bad, $btok, 0, { type => 'add', n => 1 });
ok($r && !$r->{ok}, 'a malformed event fails the command');
is($r->{error}{name}, 'EPLUGINFAULT', '... as EPLUGINFAULT');
like($r->{error}{message}, qr/ruleset 'faulty' misbehaved in apply: event is not one msgpack map/,
    '... saying what the plugin did');
is($r->{error}{detail}{reason}, 'fault', '... detail: fault');
is($c->ok('pending', match => $bad)->{seq}, $seq0, '... and logs nothing');
ok($c->ok('view', match => $bad, seat => -1), 'the match still answers');
ok(good_turn(), 'the good match goes on');

# 2. Events emitted on a rejection are dropped with the rejection.
my ($rej, $rtok) = race('faulty', fault => 'emit_on_reject');
$r = act($rej, $rtok, 0, { type => 'add', n => 7 });
is($r->{error}{name}, 'ERANGE', 'a rejection stays a rejection');
$r = act($rej, $rtok, 0, { type => 'add', n => 2 });
ok($r->{ok}, 'the next command is accepted');
my $evs = $c->ok('events', match => $rej);
ok(scalar(grep { ($_->{type} // '') eq 'added' } @{ $evs->{events} }),
    'the accepted command\'s event is public');
is(scalar(grep { ($_->{type} // '') eq 'oops' } @{ $evs->{events} }), 0,
    'the rejected command\'s event is in no stream');

# Strings go to clients in any language, which may decode them strictly:
# an event with a string that is not UTF-8 is a fault, and a rejection
# message that is not UTF-8 arrives with '?' for its non-ASCII bytes.
my ($u8, $u8tok) = race('faulty', fault => 'badutf8');
$r = act($u8, $u8tok, 0, { type => 'add', n => 1 });
is($r->{error}{name}, 'EPLUGINFAULT', 'an event that is not UTF-8 fails the command');
like($r->{error}{message}, qr/event has a string that is not UTF-8/,
    '... saying so');
$r = $c->req('view', match => $u8, seat => -1);
like($r->{error}{message}, qr/misbehaved in view: view gave a string that is not UTF-8/,
    'so does a view');
my ($br, $brtok) = race('faulty', fault => 'badreject');
$r = act($br, $brtok, 0, { type => 'add', n => 1 });
is($r->{error}{name}, 'EILLEGAL', 'a rejection that is not UTF-8 stays a rejection');
is($r->{error}{message}, 'no adding today ??', '... its message made ASCII');
is($r->{error}{detail}{rule}, 'RACE-?', '... and its rule');

# 3. Crashes: a segfault and an abort in apply, an abort in view.  Each
#    costs its own command; two matches of the crashing plugin share a
#    worker, and the one that did not crash loses nothing.
my ($cr, $ctok) = race('crashes');
my ($cr2, $c2tok) = race('crashes');
$r = act($cr2, $c2tok, 0, { type => 'add', n => 3 });
ok($r->{ok}, 'a second match of the crashing plugin plays');
my $cr2seq = $r->{result}{seq};
for my $how (qw(segv abort)) {
	my $seq = $c->ok('pending', match => $cr)->{seq};
	$r = act($cr, $ctok, 0, { type => $how });
	ok($r && !$r->{ok}, "$how in apply: the command fails");
	is($r->{error}{name}, 'EPLUGINFAULT', '... with EPLUGINFAULT');
	like($r->{error}{message},
	    qr/ruleset 'crashes' misbehaved in apply: plugin crashed in apply: its worker (was killed by signal \d+|exited with status \d+)/,
	    '... saying the plugin crashed') or diag(explain($r));
	is($r->{error}{detail}{reason}, 'crash', '... detail: crash');
	ok($d->alive, '... refd lives');
	is($c->ok('pending', match => $cr)->{seq}, $seq, '... nothing logged');
	ok(good_turn(), '... the good match goes on');
}
$r = act($cr, $ctok, 0, { type => 'add', n => 2 });
ok($r->{ok}, 'the crashed match takes its next command');
$r = act($cr2, $c2tok, 1, { type => 'add', n => 1 });
ok($r->{ok}, 'the other match of the plugin goes on where it was')
    or diag(explain($r));
is($r->{result}{seq}, $cr2seq + 1, '... at the right seq');
is($c->ok('view', match => $cr2, seat => -1)->{view}{total}, 4,
    '... with its state');
$r = $c->req('create', ruleset => 'crashes', seats => 4, setup => {});
my $m4 = $r->{result}{match};
my @t4 = map { $c->ok('join', match => $m4, seat => $_)->{token} } 0 .. 3;
$r = $c->req('view', match => $m4, seat => 3, token => $t4[3]);
is($r->{error}{name}, 'EPLUGINFAULT', 'a crash in view fails the view');
like($r->{error}{message}, qr/plugin crashed in view/, '... saying so');
ok($c->ok('view', match => $m4, seat => 2, token => $t4[2]),
    '... the next view works');

# Three crashes in a row suspend the match: the plugin is not run for it
# again (each fault may hold the daemon up), the players can still resign.
my ($cr3, $c3tok) = race('crashes');
act($cr3, $c3tok, 0, { type => 'segv' }) for 1 .. 3;
$t0 = Time::HiRes::time();
$r = act($cr3, $c3tok, 0, { type => 'add', n => 1 });
is($r->{error}{name}, 'EPLUGINFAULT', 'three crashes in a row suspend the match');
is($r->{error}{detail}{reason}, 'suspended', '... detail: suspended');
like($r->{error}{message}, qr/suspended after 3 crashes or timeouts of ruleset 'crashes' in a row/,
    '... saying why');
is($c->req('legal', match => $cr3, seat => 0, token => $c3tok->[0])->{error}{detail}{reason},
    'suspended', '... legal too');
ok($c->ok('resign', match => $cr3, seat => 1, token => $c3tok->[1]),
    '... a player can resign');
ok(act($cr2, $c2tok, 0, { type => 'add', n => 1 })->{ok},
    'the other matches of the plugin go on');

$r = $c->req('create', ruleset => 'crashes', seats => 2,
    setup => { crash => 'create' });
is($r->{error}{name}, 'EPLUGINFAULT', 'a crash in create fails the create');
like($r->{error}{message}, qr/ruleset 'crashes' misbehaved in create: plugin crashed in create/,
    '... saying so');

# 4. A plugin that never returns: the command fails after plugin-timeout.
my ($lp, $ltok) = race('loops');
ok(act($lp, $ltok, 0, { type => 'add', n => 1 })->{ok}, 'a looping plugin '
    . 'plays until it loops');
$t0 = Time::HiRes::time();
$r = act($lp, $ltok, 1, { type => 'spin' });
my $took = Time::HiRes::time() - $t0;
is($r->{error}{name}, 'EPLUGINFAULT', 'an endless apply fails the command');
like($r->{error}{message}, qr/plugin timed out: apply ran longer than plugin-timeout \(400 ms\)/,
    '... saying it timed out');
is($r->{error}{detail}{reason}, 'timeout', '... detail: timeout');
ok($took >= 0.35 && $took < 10, sprintf('... after the timeout (%.2f s)',
    $took));
ok(act($lp, $ltok, 1, { type => 'add', n => 3 })->{ok},
    'the match takes its next command');
ok(good_turn(), 'the good match goes on');

# Workers killed while idle (by an operator, by the out-of-memory killer):
# the next op starts a new worker instead of failing.
my @idle = children($d->pid);
ok(@idle >= 3, 'workers are running (' . scalar(@idle) . ')');
kill('KILL', @idle);
for (1 .. 100) {
	last if !grep { !zombie($_) } @idle;
	Time::HiRes::sleep(0.05);
}
ok(good_turn(), 'after its worker was killed, the good match goes on');
ok(act($cr2, $c2tok, 1, { type => 'add', n => 1 })->{ok},
    '... and so does a match of the crashing plugin');

my $stats = $c->ok("stats");
ok($stats->{plugin_crashes} >= 3, "stats count the crashes ($stats->{plugin_crashes})");
is($stats->{plugin_timeouts}, 1, 'and the timeout');

# The good match plays to its end and its log verifies.
my $last;
for (1 .. 40) {
	my $s = good_turn() or last;
	$last = $s;
	my $info = $c->ok('pending', match => $good);
	last if !@{ $info->{seats} };
}
my $ginfo = (grep { $_->{id} eq $good } @{ $c->ok('matches') })[0];
is($ginfo->{status}, 'finished', 'the good match finished');
for my $id ($bad, $rej, $u8, $br, $cr, $cr2, $m4, $lp) {
	$c->ok('abort', match => $id, admin_token => 'faults');
}
$c->close;
undef $c;
for my $v ([good => $good], [crashes => $cr], [crashes => $cr2],
    [crashes => $cr3], [loops => $lp]) {
	my ($rs, $id) = @$v;
	my ($st, $out) = Refd::run_prog(Refd::bin('refctl'), 'verify',
	    "$d->{state}/matches/$id.log", '--plugin', "$tmp/plugins/$rs.so",
	    '--content', "$tmp/rulesets/$rs", '--pubkey-file',
	    "$d->{state}/refd.pub");
	is($st, 0, "the log of the $rs match $id verifies") or diag($out);
}
is($d->stop, 0, 'refd stops cleanly');

# In-process mode: no workers, and the host table's checks still hold.
my $d2 = Refd->new(conf => {
	'plugin-dir' => "$tmp/plugins",
	'ruleset-dir' => "$tmp/rulesets",
	'plugin-workers' => 'no',
});
$c = $d2->client;
($bad, $btok) = race('faulty', fault => 'badevent');
$r = act($bad, $btok, 0, { type => 'add', n => 1 });
is($r->{error}{name}, 'EPLUGINFAULT', 'plugin-workers no: a malformed event '
    . 'fails the command');
is($r->{error}{detail}{reason}, 'fault', '... detail: fault');
($good, $gtok) = race('good');
$gturn = 0;
ok(good_turn() && good_turn(), '... and a good match plays');
$stats = $c->ok('stats');
is($stats->{plugin_workers_started}, 0, '... with no worker');
$c->close;
undef $c;
is($d2->stop, 0, 'refd stops cleanly');

# Workers die with refd, even with SIGKILL (they must not keep running
# plugin code, or hold anything of the daemon's).
my $d3 = Refd->new(conf => {
	'plugin-dir' => "$tmp/plugins",
	'ruleset-dir' => "$tmp/rulesets",
});
$c = $d3->client;
race('good');
race('crashes');
$c->close;
undef $c;
my $rpid = $d3->pid;
# The plugin workers among refd's children (its publishers are children
# too: publisher.h).
my @kids = grep { cmdline($_) =~ /--plugin-worker/ } children($rpid);
# Each plugin is loaded in its own worker, used or not.
is(scalar(@kids), 4, 'four plugins, four workers');
kill('TERM', @kids);
kill('INT', @kids);
Time::HiRes::sleep(0.3);
is(scalar(grep { -e "/proc/$_" && !zombie($_) } @kids), 4,
    'workers ignore SIGTERM and SIGINT (a stop of the process group)');
$d3->stop('KILL');
my $left = @kids;
for (1 .. 100) {
	$left = grep { -e "/proc/$_" && !zombie($_) } @kids;
	last if !$left;
	Time::HiRes::sleep(0.05);
}
is($left, 0, 'the workers die with refd');

# The processes refd forked (its workers).
sub children {
	my ($pid) = @_;
	my @k;
	for my $t (glob("/proc/$pid/task/*/children")) {
		open(my $f, '<', $t) or next;
		push(@k, split(' ', <$f> // ''));
	}
	return @k;
}

sub cmdline {
	open(my $f, '<', "/proc/$_[0]/cmdline") or return '';
	local $/;
	return <$f> // '';
}

sub zombie {
	open(my $f, '<', "/proc/$_[0]/stat") or return 1;
	my $st = <$f> // '';
	return $st =~ /^\d+ \(.*\) Z/;
}
done_testing();
