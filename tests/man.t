#!/usr/bin/perl
# man.t - every page in man/ passes `mandoc -Tlint -Wwarning` without a
# single message, and has the section its file name says.
use strict;
use warnings;
use Test::More;

my $src = $ENV{REFD_SRC} // '.';
my @pages = sort grep { -f } glob("$src/man/*.[1-9]");
ok(system('sh', '-c', 'command -v mandoc >/dev/null') == 0,
    'mandoc is installed (make deps installs it)')
    or BAIL_OUT('mandoc is missing');
ok(scalar(@pages) >= 1, 'there are man pages') or diag("none in $src/man");
for my $p (@pages) {
	my ($name, $sec) = $p =~ m{([^/]+)\.(\d)$};
	my $out = `mandoc -Tlint -Wwarning '$p' 2>&1`;
	is($out, '', "$name($sec): mandoc -Tlint -Wwarning is silent");
	is($? >> 8, 0, "$name($sec): mandoc exit status 0");
	open(my $fh, '<', $p) or die "$p: $!";
	my ($dt) = grep { /^\.Dt / } <$fh>;
	close($fh);
	like($dt // '', qr/^\.Dt \S+ \Q$sec\E\b/, "$name($sec): .Dt names section $sec");
	# Rendered as a reader sees it: enclosure macros nested by mistake
	# show as doubled quotes or a quote opened and never closed before
	# the next item ({"summary, "seats""}).
	for my $fmt (['mandoc', "mandoc -Tascii '$p'"],
	    ['groff', "groff -mandoc -Tascii '$p' 2>/dev/null"]) {
		my ($tool, $cmd) = @$fmt;
		next if $tool eq 'groff' &&
		    system('sh', '-c', 'command -v groff >/dev/null') != 0;
		my $txt = `$cmd`;
		$txt =~ s/.\x08//g;
		my @bad = grep { /""|(?:^|[\s{(\[])"[A-Za-z_]+[,;]/ }
		    split(/\n/, $txt);
		is(scalar @bad, 0, "$name($sec): no unbalanced quotes as $tool " .
		    'renders it') or diag(join("\n", @bad));
	}
}
done_testing();
