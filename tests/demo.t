# demo.t - `make run`'s demo (tests/run-demo.sh) on its own refd: every
# ruleset's match plays to its end, says what happened, and refd logs no
# warning (the bots stay under the rate limit they are given).
use strict;
use warnings;
use Test::More;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $src = $ENV{REFD_SRC} // '.';
local $ENV{REFD_DEMO_ONCE} = 1;
local $ENV{REFD_DEMO_SEED} = 4;
my $out = `sh '$src/tests/run-demo.sh' '$b' 2>&1`;
my $rc = $? >> 8;
is($rc, 0, 'the demo plays every match and stops') or diag($out);
my @rulesets = map { m{/([^/]+)\.so$} ? $1 : () } glob("$b/plugins/*.so");
for my $r (@rulesets) {
	like($out, qr/^   \Q$r\E: match [0-9a-f]{16} over after \d+ commands: \{/m,
	    "$r: the match ends with a result");
	like($out, qr/^== \Q$r\E\b.*\n(?:.*\n)*?   what happened: \w+ x \d+/m,
	    "$r: a line says what happened");
}
unlike($out, qr/refd said|warning|rate limit/i, 'refd logged no warning');
like($out, qr/dungeon.*\n(?:.*\n)*?   what happened:.*attack/m,
    'the dungeon demo comes to blows');
like($out, qr/skirmish.*\n(?:.*\n)*?   what happened:.*attack/m,
    'the skirmish demo comes to blows');
done_testing();
