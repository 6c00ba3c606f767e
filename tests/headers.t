#!/usr/bin/perl
# headers.t - the SDK boundary: no SDK header includes a msgpack, nanomsg,
# libsodium or jansson header, directly or through another header; each
# includes only the C standard headers and its SDK siblings.
use strict;
use warnings;
use Test::More;

my $src = $ENV{REFD_SRC} // '.';
my $cc = $ENV{CC} // 'cc';
my @hdrs = sort glob("$src/sdk/include/refd/*.h");
ok(scalar(@hdrs) >= 4, 'SDK headers found') or diag("in $src/sdk/include");
my %std = map { $_ => 1 } qw(stddef.h stdint.h stdarg.h stdbool.h limits.h);
my %sdk = map { m{([^/]+)$}; ($1 => 1, "refd/$1" => 1) } @hdrs;
for my $h (@hdrs) {
	my ($name) = $h =~ m{([^/]+)$};
	open(my $fh, '<', $h) or die "$h: $!";
	my @inc = map { /^\s*#\s*include\s*[<"]([^>"]+)[>"]/ ? $1 : () } <$fh>;
	close($fh);
	my @bad = grep { !$std{$_} && !$sdk{$_} } @inc;
	is("@bad", '', "$name includes only standard headers and the SDK");
	# What the preprocessor really pulls in.
	my $deps = `echo '#include <refd/$name>' | $cc -std=c99 -I$src/sdk/include -x c -M - 2>&1`;
	unlike($deps, qr{msgpack|nanomsg|sodium|jansson}i,
	    "$name pulls in no msgpack, nanomsg, sodium or jansson header");
}
done_testing();
