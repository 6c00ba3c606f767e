#!/usr/bin/perl
# plugins.t - the real daemon with every fixture plugin in its plugin
# directory: each bad one is refused with its own one-line diagnostic in
# refd's log, the good ones (and duel) are served, and a match runs.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

use Refd;

my $b = $ENV{REFD_BUILD} or plan skip_all => 'REFD_BUILD is not set';
my $tmp = tempdir('refd-plugins-XXXXXX', TMPDIR => 1, CLEANUP => 1);
mkdir("$tmp/plugins") or die;
mkdir("$tmp/rulesets") or die;
symlink("$b/plugins/duel.so", "$tmp/plugins/duel.so") or die;
symlink("$b/rulesets/duel", "$tmp/rulesets/duel") or die;
my %refused = (
	bad_magic => qr/magic: found 0x46455253, expected 0x52454644;/,
	newer_major => qr/abi major: found 2 \(symbol 'refd_plugin_v2'\), expected 1;/,
	newer_minor => qr/abi minor: found \d+, expected at most \d+; upgrade refd/,
	size_too_big => qr/size: found \d+, expected \d+ for ABI 1\.\d+;/,
	size_lies => qr/size: found \d+, but the descriptor object is \d+ bytes;/,
	entry_function => qr/entry: 'refd_plugin_v1' is a function, expected a const data object;/,
	wild_ops => qr/ops: found a pointer outside the plugin, expected the plugin's own ops table;/,
	no_entry => qr/entry: symbol 'refd_plugin_v1' not found;/,
	init_fails => qr/init: returned EINIT \(-309\), expected OK: the fixture refuses to start;/,
	name_mismatch => qr/name: found 'someone_else', expected 'name_mismatch' \(the file name\);/,
	unknown_cap => qr/required caps: found 0x10000000003, this refd knows 0x7 \(unknown 0x10000000000\);/,
);
my @good = qw(good good_old_minor faulty);
for my $f (sort(keys %refused), @good) {
	symlink("$b/tests/plugins/$f.so", "$tmp/plugins/$f.so")
	    or die "$f: $!";
}
mkdir("$tmp/rulesets/$_") or die for @good;

my $d = Refd->new(conf => { 'plugin-dir' => "$tmp/plugins",
    'ruleset-dir' => "$tmp/rulesets" });
my $c = $d->client;
my $hello = $c->req('hello');
ok($hello->{ok}, 'refd serves after refusing the bad plugins');

my $log = $d->log;
for my $f (sort keys %refused) {
	my @lines = grep { /plugin '\Q$tmp\E\/plugins\/$f\.so'/ } split(/\n/, $log);
	is(scalar(@lines), 1, "$f: exactly one log line names it");
	like($lines[0] // '', $refused{$f}, "$f: its own diagnostic");
}

my $rs = $c->ok('rulesets');
my %names = map { $_->{name} => $_ } @$rs;
is_deeply([sort keys %names], [sort('duel', @good)],
    'exactly duel and the good fixtures are served');
is($names{good_old_minor}{abi}, '1.0', 'the 1.0 build is served as ABI 1.0');

my $m = $c->ok('create', ruleset => 'good_old_minor', seats => 2,
    setup => {});
ok($m->{match}, 'a match of the plugin built against the 1.0 headers')
    or diag(explain($m));
$m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
ok($m->{match}, 'and a duel');
is($d->stop, 0, 'refd stops cleanly');
done_testing();
