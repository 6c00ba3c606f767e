# events.t - every event each ruleset emits in seeded games of every
# scenario, and each of its fields with its type, is in the ruleset's
# manual (the EVENTS table of refd-<ruleset>(7)), so the manual cannot
# drift from the plugins.  tests/events/fields.py plays the games through
# a real refd with the Python client and prints TAP; `python3
# tests/events/fields.py write` rewrites the tables.
use strict;
use warnings;

my $src = $ENV{REFD_SRC} // '.';
my $py = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
if (system($py, '-c', 'import msgpack') != 0) {
	print "1..1\nnot ok 1 - python3-msgpack is installed (make deps " .
	    "installs it)\n";
	exit 1;
}
$ENV{REFD_BUILD} //= "$src/build";
exec($py, "$src/tests/events/fields.py", 'check') or die "exec: $!";
