# The daemon as an operator meets it: embedded defaults, refd.conf and
# the command line, refd -t, --plugin-info, --print-pubkey, a refused
# plugin, clean shutdown, restart with the same state.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use File::Copy qw(copy);

use Refd;

my $B = Refd::build_dir();
my $tmp = tempdir('refd-daemon-XXXXXX', TMPDIR => 1, CLEANUP => 1);

sub write_file {
	my ($path, $text) = @_;
	open(my $f, '>', $path) or die "$path: $!";
	print $f $text;
	close($f);
}

# version, usage
my ($st, $out) = Refd::run_refd('-V');
is($st, 0, 'refd -V');
like($out, qr/^refd \d+\.\d+\.\d+/, 'prints the version');
($st, $out) = Refd::run_refd('--bogus', '1');
is($st, 2, 'unknown option: exit 2');
like($out, qr/unknown option '--bogus'/, 'names the option');

# embedded defaults, seen through refd -t -v
{
	local $ENV{XDG_RUNTIME_DIR} = "$tmp/run";
	local $ENV{XDG_STATE_HOME} = "$tmp/state";
	local $ENV{REFD_CONF};
	($st, $out) = Refd::run_refd('-t', '-v');
	is($st, 0, 'refd -t with no config file') or diag($out);
	like($out, qr{^listen ipc://\Q$tmp\E/run/refd/refd\.sock$}m,
	    'default command socket in the runtime dir');
	like($out, qr{^listen tcp://127\.0\.0\.1:7411$}m, 'default tcp command port');
	like($out, qr{^publish ipc://\Q$tmp\E/run/refd/refd-events\.sock$}m,
	    'default event socket');
	like($out, qr{^publish tcp://127\.0\.0\.1:7412$}m, 'default tcp event port');
	like($out, qr{^state-dir \Q$tmp\E/state/refd$}m, 'default state dir');
	like($out, qr{^plugin-dir \Q$B\E/plugins$}m, 'plugins from the build tree');
	like($out, qr{^ruleset-dir \Q$B\E/rulesets$}m, 'content from the build tree');
	my $n = () = glob("$B/plugins/*.so");
	like($out, qr/is ok: \Q$n\E ruleset/, 'says the configuration is ok, with every built ruleset');
}

# refd.conf and command-line overrides
write_file("$tmp/good.conf", <<"EOC");
# a comment
listen ipc://$tmp/a.sock
listen ipc://$tmp/b.sock   # two command endpoints
publish = ipc://$tmp/e.sock
fsync batch
max-message-size 64k
allow-scripted-dice yes
EOC
($st, $out) = Refd::run_refd('-t', '-v', '-f', "$tmp/good.conf",
    '--fsync=never', '--listen', "ipc://$tmp/c.sock");
is($st, 0, 'refd -t on a good file') or diag($out);
like($out, qr/^fsync never$/m, 'command line overrides the file');
like($out, qr/^max-message-size 65536$/m, 'size suffix');
like($out, qr/^allow-scripted-dice yes$/m, 'bool');
like($out, qr{^listen ipc://\Q$tmp\E/c\.sock$}m, 'command-line listen');
unlike($out, qr{a\.sock}, 'replaces the file\'s listen list');
like($out, qr{^publish ipc://\Q$tmp\E/e\.sock$}m, 'file publish kept');

write_file("$tmp/bad.conf", "fsync always\nbogus 1\n");
($st, $out) = Refd::run_refd('-t', '-f', "$tmp/bad.conf");
is($st, 1, 'refd -t on a bad file: exit 1');
like($out, qr/bad\.conf:2: unknown option 'bogus'/, 'file:line and the option');
write_file("$tmp/bad2.conf", "fsync sometimes\n");
($st, $out) = Refd::run_refd('-t', '-f', "$tmp/bad2.conf");
like($out, qr/bad2\.conf:1: option 'fsync': value 'sometimes': expected always, batch or never/,
    'bad value explained');
($st, $out) = Refd::run_refd('-t', '--max-depth', '99');
is($st, 1, 'bad command-line value: exit 1');
like($out, qr/max-depth.*'99'/, 'bad command-line value explained');
($st, $out) = Refd::run_refd('-t', '-f', "$tmp/missing.conf");
like($out, qr/missing\.conf': cannot open/, 'missing file');

# --plugin-info
($st, $out) = Refd::run_refd('--plugin-info', "$B/plugins/duel.so");
is($st, 0, '--plugin-info on duel') or diag($out);
like($out, qr/^name: duel$/m, 'names the plugin');
like($out, qr/^loadable: yes$/m, 'loadable');
($st, $out) = Refd::run_refd('--plugin-info', "$tmp/none.so");
is($st, 1, '--plugin-info on a missing file');

# a refused plugin is one line; refd serves the others
mkdir("$tmp/plugins");
copy("$B/plugins/duel.so", "$tmp/plugins/duel.so") or die;
chmod(0755, "$tmp/plugins/duel.so");
write_file("$tmp/plugins/broken.so", "not a shared object\n");
chmod(0644, "$tmp/plugins/broken.so");
my $d = Refd->new(conf => { 'plugin-dir' => "$tmp/plugins" });
my $c = $d->client;
my $rs = $c->ok('rulesets');
is_deeply([map { $_->{name} } @$rs], ['duel'], 'the good plugin is served');
my @lines = grep { /broken/ } split(/\n/, $d->log);
is(scalar @lines, 1, 'one log line for the refused plugin') or diag($d->log);
like($lines[0] // '', qr/plugin '.*broken\.so'/, 'naming the plugin');

# a match, then restart on the same state
my $id = $c->ok('create', ruleset => 'duel', scenario => 'first-duel')->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0 .. 1;
my $a1 = $c->ok('act', match => $id, seat => 0, token => $tok[0],
    cmd_id => 'k1', cmd => { type => 'defend' });
my $pk = $c->ok('hello')->{pubkey};
$c->close;
is($d->stop('INT'), 0, 'SIGINT: clean exit');
like($d->log, qr/stopped/, 'log says stopped');
my $state = $d->{state};

($st, $out) = Refd::run_refd('--print-pubkey', '--state-dir', $state,
    '--plugin-dir', "$tmp/plugins");
is($st, 0, '--print-pubkey');
is((split /\n/, $out)[-1], $pk, 'same key as hello');

my $d2 = Refd->new(state => $state, conf => { 'plugin-dir' => "$tmp/plugins" });
my $c2 = $d2->client;
my ($info) = grep { $_->{id} eq $id } @{ $c2->ok('matches') };
ok($info, 'the match survived the restart');
is($info->{seq}, $a1->{seq}, 'at the same seq');
my $again = $c2->ok('act', match => $id, seat => 0, token => $tok[0],
    cmd_id => 'k1', cmd => { type => 'defend' });
ok($again && $again->{replayed}, 'command ids survive too (replay)');
my $a2 = $c2->ok('act', match => $id, seat => 1, token => $tok[1],
    cmd_id => 'k2', cmd => { type => 'defend' });
is($a2->{seq}, $a1->{seq} + 1, 'the match resumes');
is($c2->ok('hello')->{pubkey}, $pk, 'the signing key persists');
($st, $out) = Refd::run_refd('--print-pubkey', '--state-dir', $state);
is((split /\n/, $out)[-1], $pk, '--print-pubkey while refd runs on the state');
($st, $out) = Refd::run_refd('-f', $d2->conffile, '--state-dir',
    "$tmp/other-state");
is($st, 1, 'a second refd on the same endpoints exits 1');
like($out, qr/cannot bind.*another refd running/, 'and says why');
ok(!-e "$tmp/other-state/refd.key", 'before touching its state');
ok($c2->ok('hello'), 'the first one still serves');
is($d2->stop, 0, 'clean exit');

# -d: detach, write the pid file, log to syslog, stop on SIGTERM
my $dd = Refd->new(no_start => 1, conf => { 'pid-file' => "$tmp/refd.pid" });
($st, $out) = Refd::run_refd('-d', '-f', $dd->conffile);
is($st, 0, 'refd -d returns at once') or diag($out);
my $pid;
for (1 .. 100) {
	last if -s "$tmp/refd.pid";
	select(undef, undef, undef, 0.1);
}
if (open(my $pf, '<', "$tmp/refd.pid")) {
	$pid = <$pf>;
	chomp($pid) if defined $pid;
	close($pf);
}
ok($pid && kill(0, $pid), 'the pid file names a running daemon');
my $dc = $dd->client;
my $hr;
for (1 .. 50) {
	$hr = $dc->req('hello');
	last if $hr && $hr->{ok};
}
ok($hr && $hr->{ok}, 'the detached daemon answers');
$dc->close;
kill('TERM', $pid) if $pid;
my $gone = 0;
for (1 .. 100) {
	if (!$pid || !kill(0, $pid)) {
		$gone = 1;
		last;
	}
	select(undef, undef, undef, 0.1);
}
ok($gone, 'the detached daemon stops on SIGTERM');
ok(!-e "$tmp/refd.pid", 'and removes its pid file');
done_testing;
