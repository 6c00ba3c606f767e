# The fuzz targets (tests/fuzz/) built without libFuzzer replay their seed
# inputs and every regression input in tests/fuzz/regress/: each crash the
# fuzzers ever found stays fixed.  `make fuzz` does the fuzzing itself.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

my $b = $ENV{REFD_BUILD} // 'build';
my $src = $ENV{REFD_SRC} // '.';
my @plugins = sort map { m{/([^/]+)\.so$} ? $1 : () } glob("$b/plugins/*.so");
my $seeds = tempdir('refd-fuzz-t-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $out = `perl $src/tests/fuzz/seeds.pl $b $seeds @plugins 2>&1`;
is($?, 0, 'seeds written') or diag($out);
mkdir("$seeds/log");
system("FUZZ_PLUGIN=$b/plugins/duel.so FUZZ_MKSEEDS=$seeds/log $b/tests/fuzz/log >/dev/null 2>&1");
is($?, 0, 'log seeds written from played matches');

# Every regression input, and up to 16 seeds (spread over the list).
sub replay {
	my ($t, $name, $pl) = @_;
	my @seed = sort glob("$seeds/$name/*");
	@seed = @seed[map { int($_ * @seed / 16) } 0 .. 15] if @seed > 16;
	my @in = (@seed, grep { -d } "$src/tests/fuzz/regress/$name");
	return unless @in;
	local $ENV{FUZZ_PLUGIN} = "$b/plugins/$pl.so";
	my $o = `$b/tests/fuzz/$t @in 2>&1`;
	my ($n) = $o =~ /^1\.\.(\d+)$/m;
	ok($? == 0 && defined $n && $o !~ /^not ok/m,
	    "$name: " . ($n // 0) . " inputs replayed") or diag($o);
}

replay('envelope', 'envelope', 'duel');
replay('op', 'op', 'duel');
replay('log', 'log', 'duel');
for my $p (@plugins) {
	replay($_, "$_-$p", $p) for qw(content create apply);
}
done_testing;
