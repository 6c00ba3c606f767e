# The shared protocol cases (tests/protocol/cases.json) from Perl: the same
# cases the Python (clients/python/tests/test_protocol.py) and JavaScript
# (clients/js/test/protocol.test.js) suites run against a real refd.
use strict;
use warnings;
use Test::More;
use JSON::PP;

use Refd;

my $src = $ENV{REFD_SRC} // '.';
my $cases = do {
	open(my $f, '<', "$src/tests/protocol/cases.json") or die "cases: $!";
	local $/;
	decode_json(<$f>);
};

my $d = Refd->new(conf => { 'rate-limit' => 0 });
my $c = $d->client;

sub subst {
	my ($v, $names) = @_;
	return $names->{ substr($v, 1) } if !ref $v && defined $v && $v =~ /^\$/;
	return [map { subst($_, $names) } @$v] if ref $v eq 'ARRAY';
	return { map { $_ => subst($v->{$_}, $names) } keys %$v }
	    if ref $v eq 'HASH';
	return $v;
}

# Booleans of both decoders as 1 or 0, the rest as it is.
sub plain {
	my ($v) = @_;
	return [map { plain($_) } @$v] if ref $v eq 'ARRAY';
	return { map { $_ => plain($v->{$_}) } keys %$v } if ref $v eq 'HASH';
	return $v ? 1 : 0 if ref $v && (ref $v) =~ /Boolean/;
	return $v;
}

for my $case (@{ $cases->{cases} }) {
	my %names;
	my $i = -1;
	for my $st (@{ $case->{steps} }) {
		$i++;
		my $where = "$case->{name}, step $i";
		if ($st->{restart}) {
			$d->stop;
			$d->start;
			$c = $d->client;
			next;
		}
		if ($st->{events_numbered} || $st->{follow}) {
			my $m = subst($st->{events_numbered} // $st->{follow}, \%names);
			my ($since, @evs) = ($st->{since} // 0);
			while (1) {
				my $pg = $c->ok('events', match => $m, since => $since);
				push @evs, @{ $pg->{events} };
				last unless $pg->{more};
				$since = $pg->{until};
			}
			if ($st->{events_numbered}) {
				is_deeply([map { $_->{n} } @evs], [1 .. scalar(@evs)],
				    "$where: public events numbered 1.." . scalar(@evs));
			} else {
				is($evs[-1]{type}, 'end', "$where: the events end " .
				    'with the end event');
			}
			next;
		}
		my $r = $c->req($st->{op}, %{ subst($st->{args} // {}, \%names) });
		my $exp = $st->{expect};
		if (defined $exp->{error}) {
			ok($r && !$r->{ok}, "$where: $st->{op} fails") or next;
			is($r->{error}{name}, $exp->{error}, "$where: with $exp->{error}")
			    or diag($r->{error}{message});
			next;
		}
		ok($r && $r->{ok}, "$where: $st->{op} succeeds") or do {
			diag("$r->{error}{name}: $r->{error}{message}");
			next;
		};
		my $res = $r->{result};
		for my $k (@{ $exp->{has} // [] }) {
			ok(exists $res->{$k}, "$where: has $k");
		}
		for my $k (sort keys %{ $exp->{equal} // {} }) {
			is_deeply(plain($res->{$k}), plain($exp->{equal}{$k}),
			    "$where: $k");
		}
		for my $n (keys %{ $st->{save} // {} }) {
			$names{$n} = $res->{ $st->{save}{$n} };
		}
	}
}
done_testing();
