#!/usr/bin/perl
# coverage.t - every special ability, creature type, weapon property, spell
# level and spell kind a plugin implements is used by at least one entry of
# the shipped content, so that every rule can be played with it.  The lists
# are read from the plugins' own parsers, so a new keyword without content
# fails here.
use strict;
use warnings;
use JSON::PP;
use Test::More;

my $src = $ENV{REFD_SRC} // '.';

sub slurp {
	my ($f) = @_;
	open(my $fh, '<', $f) or die "$f: $!";
	local $/;
	my $s = <$fh>;
	close($fh);
	return $s;
}

sub json { return JSON::PP->new->decode(slurp("$src/$_[0]")); }

# Each wanted keyword must be in the used set.
sub covers {
	my ($what, $wanted, $used) = @_;
	ok(scalar(@$wanted) > 0, "$what: the plugin's list is found");
	for my $k (@$wanted) {
		ok($used->{$k}, "$what '$k' is used by the content");
	}
}

# ---- skirmish: abilities (the abilnames table) and creature types
{
	my $c = slurp("$src/plugins/skirmish/content.c");
	my ($tab) = $c =~ /abilnames\[\] = \{(.*?)\{ NULL, 0, 0 \}/s;
	my @abil = ($tab // '') =~ /\{ "([^"]+)",/g;
	my %types = map { $_ => 1 } $c =~ /strcmp\(ty, "([a-z ]+)"\)/g;
	my $cards = json('rulesets/skirmish/cards.json');
	my (%ua, %ut);
	for my $k (values %$cards) {
		$ut{lc($k->{type} // '')} = 1;
		for my $a (@{$k->{abilities} // []}) {
			my $n = lc($a);
			$n =~ s/\s*\(.*$//;
			$n =~ s/\s+\d+$//;
			$ua{$n} = 1;
		}
	}
	covers('skirmish ability', \@abil, \%ua);
	covers('skirmish creature type', [sort keys %types], \%ut);
}

# ---- encounter: weapon properties and categories, spell levels and kinds
{
	my $c = slurp("$src/plugins/encounter/content.c");
	my ($pw) = $c =~ /(\nparse_weapon\(.*?\n\}\n)/s;
	my %skip = map { $_ => 1 } qw(damage threat multiplier category type
	    hardness hp doc name increment);
	my @props = grep { !$skip{$_} } ($pw // '') =~ /strcmp\(k, "([a-z_]+)"\)/g;
	my @rk = ($pw // '') =~ /refd_mpv_streq\(x, "([a-z]+)"\)/g;
	my $w = json('rulesets/encounter/weapons.json');
	my (%up, %uc);
	for my $k (values %$w) {
		for my $p (keys %$k) {
			$up{$p} = 1 if $k->{$p};
		}
		$up{"ranged $k->{ranged}"} = 1 if defined $k->{ranged};
		$uc{$k->{category} // 'one-handed'} = 1;
	}
	covers('encounter weapon property', [grep { $_ ne 'ranged' } @props],
	    \%up);
	covers('encounter ranged weapon kind', [map { "ranged $_" } @rk], \%up);
	covers('encounter weapon category',
	    [qw(light one-handed two-handed)], \%uc);

	my ($max) = $c =~ /"level"\) == 0\)\s*bad = get_int\(x, 0, (\d+)/;
	my $s = json('rulesets/encounter/spells.json');
	my %ul;
	my %kind = (time => {}, effect => {}, attack => {}, save => {});
	for my $k (values %$s) {
		$ul{$k->{level} // 0} = 1;
		$ul{"3 standard"} = 1
		    if ($k->{level} // 0) == 3 && ($k->{time} // '') eq 'standard';
		for my $f (keys %kind) {
			$kind{$f}{$k->{$f}} = 1 if defined $k->{$f};
		}
	}
	ok(defined $max, 'encounter: the highest spell level is found');
	covers('encounter spell level', [0 .. ($max // 0), '3 standard'], \%ul);
	for my $f (qw(time effect attack save)) {
		my ($arr) = $c =~ /\Q${f}s\E\[\] = \{(.*?)\};/s;
		my @v = grep { $_ ne 'none' } ($arr // '') =~ /"([a-z_]+)"/g;
		covers("encounter spell $f", \@v, $kind{$f});
	}
}

done_testing();
