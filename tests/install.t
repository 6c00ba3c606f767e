#!/usr/bin/perl
# install.t - `make install` honours PREFIX and DESTDIR, and the installed
# SDK builds the duel example from a copy of its five-line Makefile through
# pkg-config, giving a plugin that loads and passes the checker.
#
# Runs the plain (non-sanitizer) build of the tree in REFD_SRC.
use strict;
use warnings;
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use Test::More;

my $src = $ENV{REFD_SRC} or plan skip_all => 'REFD_SRC is not set';
system('sh', '-c', 'command -v pkg-config >/dev/null') == 0
    or plan skip_all => 'pkg-config is not installed';
delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES SANITIZE)};
my $keep = $ENV{REFD_TEST_KEEP};
my $tmp = tempdir('refd-install-XXXXXX', TMPDIR => 1, CLEANUP => !$keep);
diag("keeping $tmp") if $keep;

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

# DESTDIR + PREFIX: everything lands under DESTDIR/PREFIX, paths inside
# the files name PREFIX only.
my ($rc, $out) = run('make', '-s', '-C', $src, 'install',
    "DESTDIR=$tmp/stage", 'PREFIX=/opt/refd');
is($rc, 0, 'make install DESTDIR=... PREFIX=/opt/refd') or diag($out);
my $r = "$tmp/stage/opt/refd";
for my $f (qw(bin/refd bin/refctl lib/librefdsdk.a include/refd/plugin.h
    include/refd/errors.h include/refd/mp.h include/refd/mockhost.h
    lib/pkgconfig/refd-plugin.pc share/refd/sdk/refd-plugin.mk
    lib/refd/plugins/duel.so share/refd/rulesets/duel/fighters.json
    share/refd/rulesets/duel/scenarios/first-duel.json)) {
	ok(-f "$r/$f", "installed $f");
}
ok(-x "$r/bin/refctl", 'refctl is executable');
ok(!(((stat("$r/lib/refd/plugins/duel.so"))[2] // 0) & 022),
    'installed plugin is not group- or world-writable');
ok(-f "$r/share/man/man3/refd-plugin.3", 'refd-plugin(3) installed');
ok(!-e "$r/share/refd/rulesets/.stamp", 'no build stamp installed');
open(my $pc, '<', "$r/lib/pkgconfig/refd-plugin.pc") or die;
my $pctext = do { local $/; <$pc> };
close($pc);
like($pctext, qr{^prefix=/opt/refd$}m, 'pc file names PREFIX');
unlike($pctext, qr{\Q$tmp\E}, 'pc file does not name DESTDIR');
like($pctext, qr{^abi=1\.\d+$}m, 'pc file names the ABI version');
unlike($pctext, qr/@\w+@/, 'no placeholder left in the pc file');

# PREFIX only, then build the example against the installed SDK.
($rc, $out) = run('make', '-s', '-C', $src, 'install', "PREFIX=$tmp/prefix");
is($rc, 0, 'make install PREFIX=tmp') or diag($out);
local $ENV{PKG_CONFIG_PATH} = "$tmp/prefix/lib/pkgconfig";
($rc, $out) = run('pkg-config', '--variable=sdkdir', 'refd-plugin');
is($out, "$tmp/prefix/share/refd/sdk\n", 'pkg-config finds the SDK');
($rc, $out) = run('pkg-config', '--cflags', 'refd-plugin');
is($out =~ s/\s+$//r, "-I$tmp/prefix/include", 'pkg-config cflags');

mkdir("$tmp/mygame") or die;
copy("$src/sdk/examples/duel/$_", "$tmp/mygame/$_") or die "copy $_: $!"
    for qw(Makefile duel.c);
open(my $mk, '<', "$tmp/mygame/Makefile") or die;
my @lines = grep { !/^\s*(#.*)?$/ } <$mk>;
close($mk);
ok(@lines <= 5, 'the example Makefile has at most five lines of make')
    or diag(@lines);
($rc, $out) = run('make', '-C', "$tmp/mygame");
is($rc, 0, 'the example builds against the installed SDK') or diag($out);
like($out, qr{-I\Q$tmp\E/prefix/include}, 'compiled with the installed headers');
like($out, qr{\Q$tmp\E/prefix/lib/librefdsdk\.a}, 'linked with the installed library');
unlike($out, qr{\Q$src\E/sdk}, 'nothing from the source tree');
ok(-f "$tmp/mygame/duel.so", 'duel.so built');
($rc, $out) = run("$tmp/prefix/bin/refctl", 'check-plugin',
    "$tmp/mygame/duel.so", '--content', "$tmp/prefix/share/refd/rulesets/duel",
    '--games', 10);
is($rc, 0, 'the plugin built from the installed SDK passes the checker')
    or diag($out);
system('cp', '-R', "$src/sdk/examples/duel/content", "$tmp/mygame/content") == 0
    or die "copy content";
($rc, $out) = run('make', '-C', "$tmp/mygame", 'check',
    "REFCTL=$tmp/prefix/bin/refctl", 'CHECK_FLAGS=--games 5');
is($rc, 0, 'make check in the plugin directory runs the checker')
    or diag($out);
like($out, qr/check-plugin \S*duel\.so --content content --games 5/,
    'with the content directory it found');
like($out, qr/^check-plugin: duel 1\.0\.0: 5 games .* 0 failures$/m,
    'and the checker passed');
# The plugin built out of tree, loaded into the installed refd and played.
mkdir("$tmp/myplugins") or die;
mkdir("$tmp/mycontent") or die;
copy("$tmp/mygame/duel.so", "$tmp/myplugins/duel.so") or die;
chmod(0755, "$tmp/myplugins/duel.so");
system('cp', '-R', "$tmp/mygame/content", "$tmp/mycontent/duel") == 0
    or die "copy content";
play_all("$tmp/prefix", 'out-of-tree duel', ['duel'],
    '--plugin-dir', "$tmp/myplugins", '--ruleset-dir', "$tmp/mycontent");

($rc, $out) = run('make', '-C', "$tmp/mygame", 'clean');
ok(!-e "$tmp/mygame/duel.so", 'make clean removes it');

# The tree staged under DESTDIR with PREFIX=/opt/refd works from where it
# lies: refd finds its plugins and content relative to itself (no
# plugin-dir or ruleset-dir given, nothing of the build tree in the
# environment), plays a match of every ruleset, and the installed refctl
# verifies every log.
my @all = map { m{/([^/]+)\.so$} ? $1 : () } glob("$r/lib/refd/plugins/*.so");
ok(@all >= 6, 'every ruleset plugin is installed') or diag("@all");
play_all($r, 'staged tree', \@all);

# Start PREFIX/bin/refd with @opts in a fresh state directory, play one
# match of each ruleset in @$names, stop it, and verify each log with
# PREFIX/bin/refctl.
sub play_all {
	my ($prefix, $what, $names, @opts) = @_;
	my $st = tempdir('refd-inst-run-XXXXXX', TMPDIR => 1, CLEANUP => !$keep);
	my @ep = ('-s', "ipc://$st/r.sock", '-e', "ipc://$st/e.sock");
	local $ENV{REFD_BUILD};
	delete $ENV{REFD_BUILD};
	my $pid = fork() // die "fork: $!";
	if (!$pid) {
		open(STDOUT, '>', "$st/refd.out") or die;
		open(STDERR, '>&', \*STDOUT) or die;
		exec("$prefix/bin/refd", '--state-dir', "$st/state", '--listen',
		    "ipc://$st/r.sock", '--publish', "ipc://$st/e.sock", @opts)
		    or die "exec: $!";
	}
	my $up = 0;
	for (1 .. 100) {
		my ($hrc) = run("$prefix/bin/refctl", @ep, '-T', 300, 'hello');
		if ($hrc == 0) {
			$up = 1;
			last;
		}
		select(undef, undef, undef, 0.1);
	}
	ok($up, "$what: the installed refd answers") or do {
		local $/;
		open(my $o, '<', "$st/refd.out");
		diag(<$o> // '');
	};
	for my $n (@$names) {
		my ($prc, $pout) = run("$prefix/bin/refctl", @ep, 'play', $n,
		    '--seed', 5);
		is($prc, 0, "$what: a match of $n plays to its end") or diag($pout);
	}
	kill('TERM', $pid);
	waitpid($pid, 0);
	my @logs = glob("$st/state/matches/*.log");
	is(scalar @logs, scalar @$names, "$what: one log per match");
	for my $log (@logs) {
		my ($vrc, $vout) = run("$prefix/bin/refctl", 'verify', $log,
		    '--pubkey-file', "$st/state/refd.pub", '-q');
		is($vrc, 0, "$what: the installed refctl verifies $log")
		    or diag($vout);
	}
}

done_testing();
