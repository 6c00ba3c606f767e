#!/usr/bin/perl
# seeds.pl BUILD OUT PLUGIN... - write the seed corpora of the fuzz targets
# (tests/fuzz/README.md) into OUT/<target>[-<plugin>]/ from the rules
# scenarios tests/scenarios/<plugin>/*.json and the plugins' content in
# BUILD/rulesets/<plugin>/: setups, commands and requests as refd would
# receive them.
use strict;
use warnings;

use Data::MessagePack;
use File::Path qw(make_path);
use JSON::PP;

my ($build, $out, @plugins) = @ARGV;
die "usage: seeds.pl BUILD OUT PLUGIN...\n" unless defined $out;
my $mp = Data::MessagePack->new->canonical->prefer_integer->utf8;
my $json = JSON::PP->new->utf8->canonical;
my $src = $ENV{REFD_SRC} // '.';
my %ops = (hello => 0, rulesets => 1, create => 2, join => 3, act => 4,
    legal => 5, pending => 6, view => 7, events => 8, export => 9,
    resign => 10, abort => 11, matches => 12, stats => 13, pubkey => 14);

# JSON booleans as msgpack booleans.
sub plain {
	my ($v) = @_;
	return $v ? Data::MessagePack::true() : Data::MessagePack::false()
	    if JSON::PP::is_bool($v);
	return { map { $_ => plain($v->{$_}) } keys %$v } if ref $v eq 'HASH';
	return [ map { plain($_) } @$v ] if ref $v eq 'ARRAY';
	return $v;
}

sub slurp {
	my ($f) = @_;
	open(my $h, '<:raw', $f) or return undef;
	local $/;
	return scalar <$h>;
}

my $n = 0;
sub put {
	my ($target, $name, $bytes) = @_;
	my $d = "$out/$target";
	make_path($d);
	$name =~ s/[^A-Za-z0-9_.-]/_/g;
	open(my $h, '>:raw', "$d/$name") or die "$d/$name: $!\n";
	print $h $bytes;
	close($h);
	$n++;
}

sub u16 { pack('n', length($_[0])) . $_[0] }

# Generic requests for the envelope and op targets.
my @req = (
	{ v => 1, id => 1, op => 'hello' },
	{ v => 1, id => 2, op => 'rulesets' },
	{ v => 1, id => 3, op => 'matches' },
	{ v => 1, id => 4, op => 'stats' },
	{ v => 1, id => 'x', op => 'pubkey' },
	{ v => 1, id => 5, op => 'events', since => 0, seat => -1 },
);
put('envelope', "req-$_", $mp->pack($req[$_])) for 0 .. $#req;
put('envelope', 'not-a-map', $mp->pack([1, 2, 3]));

for my $p (@plugins) {
	my $cdir = "$build/rulesets/$p";
	# Content: each top-level file, as the stem it replaces.
	my @files = sort grep { -f $_ } glob("$cdir/*.json");
	for my $i (0 .. $#files) {
		my $t = slurp($files[$i]);
		(my $base = $files[$i]) =~ s{.*/}{};
		put("content-$p", $base, chr($i) . $t) if defined $t;
	}
	my @setups;
	for my $f (sort glob("$cdir/scenarios/*.json")) {
		my $t = slurp($f) // next;
		my $s = eval { $json->decode($t) } // next;
		(my $base = $f) =~ s{.*/}{};
		push @setups, [ "scenario-$base", plain($s) ];
	}
	for my $f (sort glob("$src/tests/scenarios/$p/*.json")) {
		my $sc = eval { $json->decode(slurp($f)) } or next;
		(my $base = $f) =~ s{.*/}{};
		$base =~ s/\.json$//;
		my $setup = plain($sc->{setup} // {});
		if (!$sc->{setup} && $sc->{scenario}) {
			my $t = slurp("$cdir/scenarios/$sc->{scenario}.json");
			$setup = plain($json->decode($t)) if defined $t;
		}
		push @setups, [ $base, $setup, $sc ];
	}
	@setups = ([ 'empty', {} ]) unless @setups;
	for my $s (@setups) {
		my ($name, $setup, $sc) = @$s;
		my $sb = $mp->pack($setup);
		my $seats = $sc && $sc->{seats} ? $sc->{seats} : 0;
		put("create-$p", $name, chr(0) . $sb);
		my $a = chr(0) . u16($sb);
		my @env = ({ v => 1, id => 1, op => 'create', ruleset => $p,
		    setup => $setup, ($seats ? (seats => $seats) : ()) });
		my $k = 0;
		for my $st (@{ $sc ? $sc->{steps} // [] : [] }) {
			next unless ref $st->{cmd} eq 'HASH';
			my $cmd = plain($st->{cmd});
			$a .= chr($st->{seat} // 0) . u16($mp->pack($cmd));
			push @env, { v => 1, id => 10 + $k, op => 'act',
			    match => '0000000000000000', seat => $st->{seat} // 0,
			    token => '0' x 32, cmd_id => "c$k", cmd => $cmd };
			put('op', "$p-$name-act$k", chr($ops{act}) .
			    $mp->pack({ seat => $st->{seat} // 0, cmd_id => "c$k",
			    cmd => $cmd }));
			$k++;
		}
		# A few listed commands after the scripted ones.
		$a .= join('', map { chr($_ % 2) . pack('n', 0) . chr($_) } 0 .. 7);
		put("apply-$p", $name, $a);
		put('envelope', "$p-$name-$_", $mp->pack($env[$_])) for 0 .. $#env;
		put('op', "$p-$name-create", chr($ops{create}) . $mp->pack({
		    ruleset => $p, setup => $setup }));
	}
}
for my $op (sort keys %ops) {
	put('op', "op-$op", chr($ops{$op}) . $mp->pack({ seat => 0 }));
	put('op', "op-$op-public", chr($ops{$op}) . $mp->pack({ seat => -1,
	    since => 0 }));
}
print "seeds: $n files in $out\n";
