#!/usr/bin/perl
# deps.t - tests/deps.sh (`make deps`): silent when everything is there;
# with packages missing and not root, names the exact apt-get line; as
# root, runs apt-get with exactly the missing packages.  The missing
# packages, the user id and apt-get are faked through PATH.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $src = $ENV{REFD_SRC} // '.';
my $deps = "$src/tests/deps.sh";
my $tmp = tempdir(CLEANUP => 1);

sub fake {
	my ($name, $body) = @_;
	open(my $fh, '>', "$tmp/bin/$name") or die;
	print $fh "#!/bin/sh\n$body\n";
	close($fh);
	chmod(0755, "$tmp/bin/$name") or die;
}

sub run {
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if (!$pid) {
		open(STDERR, '>&', \*STDOUT) or die;
		exec('sh', $deps) or die;
	}
	local $/;
	my $out = <$fh> // '';
	close($fh);
	return ($? >> 8, $out);
}

my ($rc, $out) = run();
is($rc, 0, 'this machine has everything') or diag($out);
is($out, '', 'and deps says nothing');

mkdir("$tmp/bin") or die;
my $pc = `sh -c 'command -v pkg-config'`;
chomp($pc);
# pkg-config that knows no libsodium and no jansson; no mandoc; not root.
fake('pkg-config', qq{case "\$*" in *libsodium*|*jansson*) exit 1;; esac; exec '$pc' "\$@"});
fake('id', 'echo 1000');
{
	local $ENV{PATH} = "$tmp/bin:$ENV{PATH}";
	my @dirs = grep { $_ ne '' } split(/:/, $ENV{PATH});
	# A PATH of symlinks to everything but mandoc, fakes first.
	mkdir("$tmp/path") or die;
	for my $d (@dirs) {
		opendir(my $dh, $d) or next;
		for my $f (readdir($dh)) {
			next if $f eq 'mandoc' || $f =~ /^\./ || -e "$tmp/path/$f";
			symlink("$d/$f", "$tmp/path/$f");
		}
		closedir($dh);
	}
	local $ENV{PATH} = "$tmp/path";
	ok(!-e "$tmp/path/mandoc" && -e "$tmp/path/pkg-config", 'faked PATH ready');
	($rc, $out) = run();
	is($rc, 1, 'missing packages, not root: exit 1');
	is($out, "deps: missing packages; run as root:\n"
	    . "  apt-get install -y libsodium-dev libjansson-dev mandoc\n",
	    'the exact apt-get line');

	# As root: apt-get is called with exactly the missing packages.
	unlink("$tmp/path/id");
	symlink("$tmp/bin/id0", "$tmp/path/id");
	fake('id0', 'echo 0');
	unlink("$tmp/path/apt-get");
	fake('apt-get', qq(echo "apt-get \$*" >> '$tmp/apt.log'));
	symlink("$tmp/bin/apt-get", "$tmp/path/apt-get");
	($rc, $out) = run();
	open(my $log, '<', "$tmp/apt.log") or die "no apt-get call";
	my @calls = <$log>;
	close($log);
	is($calls[0], "apt-get update -qq\n", 'root: apt-get update');
	is($calls[1], "apt-get install -y -qq libsodium-dev libjansson-dev mandoc\n",
	    'root: apt-get install of exactly the missing packages');
	is($rc, 1, 'still missing after a fake apt-get: exit 1');
	like($out, qr/still missing after apt-get: libsodium-dev libjansson-dev mandoc/,
	    'and says what is still missing');
}
done_testing();
