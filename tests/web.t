# web.t - the spectator page and the replay viewer (web/) in headless
# Chromium (Debian's chromium) driven by puppeteer-core (npm, pinned in
# web/package-lock.json), against a real refd over ws:// and refctl web.
# Node's test runner prints TAP; the screenshots go to build/web-shots/.
use strict;
use warnings;

my $src = $ENV{REFD_SRC} // '.';
my $build = $ENV{REFD_BUILD} // "$src/build";
my $dir = "$src/web";
my @missing;
push @missing, 'node' if system('sh', '-c', 'command -v node >/dev/null') != 0;
push @missing, 'chromium (Debian package)' unless -x ($ENV{CHROMIUM} // '/usr/bin/chromium');
push @missing, 'web/node_modules (npm ci)' unless -d "$dir/node_modules/puppeteer-core";
push @missing, "$build/web (make)" unless -f "$build/web/index.html";
if (@missing) {
	print "1..1\nnot ok 1 - the viewer's test needs: " . join(', ', @missing) .
	    " (make deps, then make)\n";
	exit 1;
}
$ENV{REFD_BUILD} = $build;
$ENV{WEB_SHOTS} //= ($ENV{REFD_SANITIZE} ? "$build/web-shots" : "$build/web-shots");
chdir($dir) or die "$dir: $!";
exec('node', '--test', '--test-reporter=tap', '--test-timeout=600000', 'test/') or die "exec: $!";
