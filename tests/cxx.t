#!/usr/bin/perl
# cxx.t - the SDK from C++: tests/plugins/cxx.cc, a complete plugin using
# REFD_PLUGIN_DEFINE and the msgpack helpers, compiles as C++11 with
# -Wall -Wextra -Werror -pedantic, links against librefdsdk.a, loads and
# passes the conformance checker.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $src = $ENV{REFD_SRC} // '.';
my $cxx = $ENV{CXX} // 'c++';
my $tmp = tempdir(CLEANUP => 1);
my @san = $ENV{REFD_SANITIZE} ?
    ('-fsanitize=address,undefined', '-fno-omit-frame-pointer') : ();

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

my ($rc, $out) = run($cxx, '-std=c++11', '-O2', '-fPIC', '-fvisibility=hidden',
    '-Wall', '-Wextra', '-Werror', '-pedantic', @san, "-I$src/sdk/include",
    '-shared', '-Wl,-z,defs', '-o', "$tmp/cxx.so", "$src/tests/plugins/cxx.cc",
    "$b/lib/librefdsdk.a", '-lmsgpackc');
is($rc, 0, 'a C++ plugin compiles cleanly and links') or diag($out);
chmod(0755, "$tmp/cxx.so");
($rc, $out) = run("$b/bin/refctl", 'check-plugin', "$tmp/cxx.so", '--games', 20);
is($rc, 0, 'and passes the conformance checker') or diag($out);
like($out, qr/^check-plugin: cxx 1\.0\.0: 20 games \(20 finished\)/m,
    'every game finished');
done_testing();
