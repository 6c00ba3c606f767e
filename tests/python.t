# python.t - the Python client (clients/python, package refd) against a
# real refd: its unittest suite, printed as TAP.  Debian's python3 with
# python3-msgpack (make deps installs it); libnanomsg through ctypes.
use strict;
use warnings;

my $src = $ENV{REFD_SRC} // '.';
my $py = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
if (system($py, '-c', 'import msgpack') != 0) {
	print "1..1\nnot ok 1 - python3-msgpack is installed (make deps " .
	    "installs it)\n";
	exit 1;
}
$ENV{PYTHONPATH} = "$src/clients/python:$src/clients/python/tests";
exec($py, "$src/clients/python/tests/tap.py", 'test_client', 'test_protocol') or die "exec: $!";
