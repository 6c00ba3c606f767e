# Hostile plugins (tests/plugins/hostile.c) through the real daemon: a
# plugin that reads refd's signing key or memory, dials out, forks, execs,
# writes files, allocates without bound, or spins while loading.  Each
# attempt must fail: the file is not read or written, no connection is
# made, no process appears; the op fails with EPLUGINFAULT and refd logs
# one line naming the plugin and the system call (or, in a SANITIZE=1
# build, where the sandbox answers EPERM instead of killing, the plugin
# sees its call fail).  A plugin that attacks at load is refused with a
# clear error.  refd keeps serving a good ruleset's match alongside, and
# every log verifies.
use strict;
use warnings;
use Test::More;

use Digest::SHA qw(sha256_hex);
use IO::Select;
use IO::Socket::INET;
use Time::HiRes;

use Refd;

my $san = ($ENV{REFD_SANITIZE} // '') eq '1';
my $b = Refd::build_dir();
my $tmp = File::Temp::tempdir('refd-hostile-XXXXXX', TMPDIR => 1,
    CLEANUP => 1);
mkdir("$tmp/plugins") or die;
mkdir("$tmp/rulesets") or die;
my @acts = qw(steal dial fork exec write hog ctor);
my @load = qw(spin_init spin_load);
for my $f ('good', map { "hostile_$_" } @acts, @load) {
	symlink("$b/tests/plugins/$f.so", "$tmp/plugins/$f.so") or die;
	mkdir("$tmp/rulesets/$f") or die;
}

# hostile_ctor's constructor reads $tmp/secret: refd's signing key, made
# by a first start (plugins load before refd makes its key).
symlink("$tmp/state/refd.key", "$tmp/secret") or die;
my $d0 = Refd->new(state => "$tmp/state");
is($d0->stop, 0, 'a first start makes the signing key');

my $t0 = Time::HiRes::time();
my $d = Refd->new(state => "$tmp/state", conf => {
	'plugin-dir' => "$tmp/plugins",
	'ruleset-dir' => "$tmp/rulesets",
	'plugin-timeout' => 400,
	'plugin-memory' => 256 << 20,
});
my $c = $d->client;
my $rpid = $d->pid;
my $state = $d->{state};

# 1. Attacks at load: the plugin is refused, the others load.
my %rs = map { $_->{name} => 1 } @{ $c->ok('rulesets') // [] };
ok($rs{good}, 'the good ruleset is served');
ok($rs{"hostile_$_"}, "hostile_$_ loads (its attack waits for a command)")
    for @acts;
for my $p (@load) {
	ok(!$rs{"hostile_$p"}, "hostile_$p is refused at load");
	my @lines = grep { /hostile_$p/ && /(error|warning):/ }
	    split(/\n/, $d->log);
	is(scalar(@lines), 1, '... in one log line') or diag($d->log);
	like($lines[0] // '', qr/error: plugin '[^']*hostile_$p[^']*': .*plugin timed out: load ran longer than plugin-timeout/,
	    '... saying it timed out while loading');
}

# A two-seat race of ruleset $rs: (match id, tokens).
sub race {
	my ($rs) = @_;
	my $m = $c->ok('create', ruleset => $rs, seats => 2,
	    setup => { target => 30 }) or return;
	my @tok;
	for my $s (0, 1) {
		my $j = $c->ok('join', match => $m->{match}, seat => $s,
		    seed => "$rs seat $s") or return;
		$tok[$s] = $j->{token};
	}
	return ($m->{match}, \@tok);
}

my $n = 0;
sub act {
	my ($id, $tok, $seat, $cmd) = @_;
	return $c->req('act', match => $id, seat => $seat,
	    token => $tok->[$seat], cmd_id => 'h' . ++$n, cmd => $cmd);
}

my ($good, $gtok) = race('good');
ok($good, 'a good match is running');
my $gturn = 0;
sub good_turn {
	my $r = act($good, $gtok, $gturn, { type => 'add', n => 1 });
	$gturn = 1 - $gturn;
	return $r && $r->{ok} ? $r->{result}{seq} : undef;
}
ok(good_turn(), 'the good match takes a command');
my $glog = "$state/matches/$good.log";
ok(-f $glog, 'the good match has a log');

sub slurp {
	open(my $f, '<', $_[0]) or return undef;
	local $/;
	return scalar <$f>;
}

# Processes of this test's process group that run as plugin workers but
# are not refd's children: what a worker's fork would leave.
sub strays {
	my $pg = getpgrp();
	my @s;
	for my $p (glob('/proc/[0-9]*')) {
		my $st = slurp("$p/stat") // next;
		my ($pid, $ppid, $pgrp) = $st =~ /^(\d+) \(.*\) \S+ (\d+) (\d+)/
		    or next;
		next if $pgrp != $pg || $ppid == $rpid;
		push(@s, $pid) if (slurp("$p/cmdline") // '') =~ /--plugin-worker/;
	}
	return @s;
}

# Attack with ruleset hostile_$p: the command's reply must be a failure,
# contained: EPLUGINFAULT naming the denied system call (matching $call),
# with one log line naming plugin and call, or under SANITIZE=1 the
# plugin's own report that the call failed.  Each attack has a match of
# its own (three faults in a row suspend a match).  Returns the reply.
my @matches;
sub attack {
	my ($p, $cmd, $call, $what) = @_;
	my $rs = "hostile_$p";
	my ($id, $tok) = race($rs);
	push(@matches, [$rs, $id, $tok]);
	my $before = () = $d->log =~ /plugin '\Q$rs\E'.*sandbox denies/g;
	my $r = act($id, $tok, 0, { type => 'attack', %$cmd });
	ok($r && !$r->{ok}, "$what: the command fails")
	    or diag(explain($r));
	my $e = $r && $r->{error} ? $r->{error} : {};
	if ($san && ($e->{name} // '') eq 'EILLEGAL') {
		like($e->{message}, qr/^denied: \w+: Operation not permitted/,
		    "... the call fails with EPERM (SANITIZE=1)");
		pass('... (no worker killed, so no log line)');
		return $r;
	}
	is($e->{name}, 'EPLUGINFAULT', '... with EPLUGINFAULT')
	    or diag(explain($r));
	if (!defined $call) {
		return $r;
	}
	like($e->{message}, qr/system call its sandbox denies in apply: $call/,
	    "... naming the system call ($call)") or diag(explain($r));
	my @lines = grep { /plugin '\Q$rs\E'.*sandbox denies/ }
	    split(/\n/, $d->log);
	is(scalar(@lines) - $before, 1, '... in one log line') or diag($d->log);
	like($lines[-1] // '', qr/plugin '\Q$rs\E'.* $call/,
	    '... naming the plugin and the call');
	return $r;
}

# 2. Reading refd's secrets.
my $key = "$state/refd.key";
ok(-r $key, 'refd has a signing key file');
attack('steal', { what => 'key', path => $key }, 'openat',
    'reading the signing key');
ok(good_turn(), 'the good match goes on');
attack('steal', { what => 'mem', pid => $rpid }, 'openat',
    "opening refd's memory");
attack('steal', { what => 'vm', pid => $rpid, addr => 4096 },
    'process_vm_readv', "reading refd's memory");
ok(good_turn(), 'the good match goes on');

# A constructor, run by the dynamic loader before any entry point, may
# open files for reading (the loader needs to), but only the plugin's file
# and the system's libraries.
ok(-r "$tmp/secret", 'the secret is readable from outside the sandbox');
{
	my ($id, $tok) = race('hostile_ctor');
	push(@matches, ['hostile_ctor', $id, $tok]);
	my $r = act($id, $tok, 0, { type => 'attack', what => 'ctor' });
	ok($r && !$r->{ok}, 'a constructor that reads the signing key gets '
	    . 'nothing') or diag(explain($r));
	like($r->{error}{message} // '',
	    qr/^denied: open: (Permission denied|Operation not permitted)/,
	    '... its open was refused') or diag(explain($r));
}

# 3. Dialling out: nothing reaches a listener on a free loopback port or
#    refd's own command socket.
my $l = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1',
    LocalPort => 0, Proto => 'tcp', ReuseAddr => 1) or die "listen: $!";
attack('dial', { what => 'tcp', port => $l->sockport }, 'socket',
    'a tcp connection');
ok(!IO::Select->new($l)->can_read(0.3), '... the listener sees no connection');
my ($cmdsock) = $d->endpoint =~ m{^ipc://(.*)$};
attack('dial', { what => 'unix', path => $cmdsock }, 'socket',
    "a connection to refd's command socket");
ok(good_turn(), 'the good match goes on');

# 4. Processes.
attack('fork', { what => 'fork', secs => 5 }, 'clone3?|fork', 'a fork');
Time::HiRes::sleep(0.2);
is(scalar(strays()), 0, '... no process appears');
my $marker = "$tmp/exec-marker";
attack('exec', { path => $marker }, 'execve', 'an exec');
Time::HiRes::sleep(0.3);
ok(!-e $marker, '... the program did not run');
is(scalar(strays()), 0, '... no process appears');
attack('fork', { what => 'kill', pid => $rpid }, 'kill', 'killing refd');
ok($d->alive, '... refd lives');
ok(good_turn(), 'the good match goes on');

# 5. Files: nothing is created, and the good match's log is not altered.
my $created = "$tmp/created";
attack('write', { what => 'create', path => $created }, 'openat',
    'creating a file');
ok(!-e $created, '... no file is created');
my $sum = sha256_hex(slurp($glog));
attack('write', { what => 'append', path => $glog }, 'openat',
    "appending to a match's log");
attack('write', { what => 'truncate', path => $glog }, 'truncate',
    "truncating a match's log");
attack('write', { what => 'unlink', path => $glog }, 'unlink(at)?',
    "removing a match's log");
is(sha256_hex(slurp($glog) // ''), $sum, '... the log is as it was');
ok(good_turn(), 'the good match goes on');

# 6. Memory: the worker's address space is bounded by plugin-memory (256
#    MiB here); the hog takes 16 MiB blocks until one is refused and then
#    uses it unchecked.  It is given 8 GiB to stop at, which it must not
#    reach.
my $r = attack('hog', { mb => 8192 }, undef, 'allocating without bound');
like($r->{error}{message} // '',
    qr/plugin crashed in apply|plugin timed out: apply/,
    '... the worker dies or runs out of time') or diag(explain($r));
ok(good_turn(), 'the good match goes on');

# Each hostile match is still usable, and none saw a breach.
for my $m (@matches) {
	my ($rs, $id, $tok) = @$m;
	my $r = act($id, $tok, 0, { type => 'add', n => 2 });
	ok($r && $r->{ok}, "the $rs match $id takes its next command")
	    or diag(explain($r));
	my $evs = $c->ok('events', match => $id);
	is(scalar(grep { ($_->{type} // '') eq 'breach' }
	    @{ $evs->{events} // [] }), 0, '... and has no breach event');
	ok($c->ok('resign', match => $id, seat => 1, token => $tok->[1]),
	    '... and ends with a resignation');
}
ok($d->alive, 'refd lives');

# The good match plays to its end.
for (1 .. 40) {
	good_turn() or last;
}
my $ginfo = (grep { $_->{id} eq $good } @{ $c->ok('matches') })[0];
is($ginfo->{status}, 'finished', 'the good match finished');
$c->close;
undef $c;

# Every log verifies.
my %rs_of = ($good => 'good');
$rs_of{ $_->[1] } = $_->[0] for @matches;
my @logs = glob("$state/matches/*.log");
is(scalar(@logs), scalar(keys %rs_of), 'one log per match');
for my $f (@logs) {
	my ($id) = $f =~ m{([^/]+)\.log$};
	my $rs = $rs_of{$id} // 'good';
	my ($st, $out) = Refd::run_prog(Refd::bin('refctl'), 'verify', $f,
	    '--plugin', "$tmp/plugins/$rs.so", '--content', "$tmp/rulesets/$rs",
	    '--pubkey-file', "$state/refd.pub");
	is($st, 0, "the log of the $rs match verifies") or diag($out);
}
is($d->stop, 0, 'refd stops cleanly');
diag(sprintf('%.1f s', Time::HiRes::time() - $t0));
done_testing();
