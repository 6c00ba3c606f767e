# js.t - the JavaScript client (clients/js, npm package refd-client)
# against a real refd over ws://, with Node's own test runner printing TAP.
# make deps installs its npm dependencies (npm ci, from the lockfile).
use strict;
use warnings;

my $src = $ENV{REFD_SRC} // '.';
my $dir = "$src/clients/js";
if (system('sh', '-c', 'command -v node >/dev/null') != 0 ||
    !-d "$dir/node_modules/\@msgpack/msgpack" || !-d "$dir/node_modules/ws") {
	print "1..1\nnot ok 1 - node and the client's npm packages are " .
	    "installed (make deps)\n";
	exit 1;
}
chdir($dir) or die "$dir: $!";
exec('node', '--test', '--test-reporter=tap', 'test/') or die "exec: $!";
