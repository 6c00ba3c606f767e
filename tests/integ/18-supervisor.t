# refd -d keeps a supervisor: the serving refd killed by a signal (SIGKILL
# first, which AddressSanitizer cannot turn into an exit; then the real
# transport library assertion) is started again on the same state, every
# acknowledged command is still there and clients go on; a clean stop
# (SIGTERM to the supervisor) stops both.
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(sleep time);
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);

use Refd;

my $d = Refd->new(no_start => 1);
my $dir = $d->dir;
my $pidf = "$dir/refd.pid";
system(Refd::bin('refd'), '-f', $d->conffile, '-d', '--pid-file', $pidf) == 0
    or BAIL_OUT('refd -d did not start');

sub wait_for {
	my ($what, $f) = @_;
	my $t = time + 20;
	while (time < $t) {
		my $v = $f->();
		return $v if $v;
		sleep(0.05);
	}
	fail("waiting for $what");
	return undef;
}
sub children {
	my ($p) = @_;
	open(my $f, '<', "/proc/$p/task/$p/children") or return ();
	my $l = <$f> // '';
	return split ' ', $l;
}
sub serving {
	my ($sup) = @_;
	my @c = children($sup);
	for my $k (@c) {
		open(my $f, '<', "/proc/$k/cmdline") or next;
		local $/;
		my $cmd = <$f> // '';
		return $k if $cmd !~ /--publisher|--plugin-worker/;
	}
	return undef;
}

my $sup = wait_for('the pid file', sub {
	open(my $f, '<', $pidf) or return undef;
	my $p = <$f>;
	return $p && $p =~ /(\d+)/ ? $1 : undef;
});
ok($sup && kill(0, $sup), 'the supervisor runs');
my $child = wait_for('the serving refd', sub { serving($sup) });
ok($child, "it serves from a child ($child)");
my $c = $d->client;
ok(wait_for('hello', sub { my $r = eval { $c->req('hello') }; $r && $r->{ok} }),
    'refd answers');

my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my $id = $m->{match};
my @tok = map { $c->ok('join', match => $id, seat => $_)->{token} } 0, 1;
my $n = 0;
my @acked;
sub turn {
	my $p = $c->req('pending', match => $id);
	return 0 unless $p && $p->{ok} && !$p->{result}{finished};
	my $s = $p->{result}{seats}[0];
	my $r = $c->req('act', match => $id, seat => $s, token => $tok[$s],
	    cmd => { type => 'defend' }, cmd_id => 'd' . ++$n);
	push @acked, $r->{result}{seq} if $r && $r->{ok};
	return 1;
}
turn() for 1 .. 3;
is(scalar(@acked), 3, 'three commands acknowledged');

kill('KILL', $child);
my $child2 = wait_for('a new serving refd', sub {
	my $k = serving($sup);
	return $k && $k != $child ? $k : undef;
});
ok($child2, "the supervisor started refd again ($child2)");
$c = $d->client;
ok(wait_for('hello again', sub { my $r = eval { $c->req('hello') }; $r && $r->{ok} }),
    'refd answers again');
my $p = $c->ok('pending', match => $id);
is($p->{seq}, $acked[-1], 'the match is at the last acknowledged seq');
turn() for 1 .. 2;
is(scalar(@acked), 5, 'and takes commands again');

# The real thing: libnanomsg 1.1.5 aborts on an ipc frame whose type byte
# is not 1 (sipc.c), sent here to the command socket while a client plays.
$SIG{PIPE} = 'IGNORE';
my $path = $d->endpoint =~ s{^ipc://}{}r;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path);
ok($s, 'a raw connection to the ipc command socket');
syswrite($s, "\0SP\0" . pack('n', 0x30) . "\0\0");
sysread($s, my $peer, 8);
turn();
my $before = scalar(@acked);
syswrite($s, chr(2) . pack('Q>', 0));
close($s);
my $child3 = wait_for('refd started again after the ipc abort', sub {
	my $k = serving($sup);
	return $k && $k != $child2 ? $k : undef;
});
ok($child3, "the ipc abort killed the serving refd and the supervisor " .
    "started it again ($child3)");
$c = $d->client;
ok(wait_for('hello after the abort', sub { my $r = eval { $c->req('hello') };
    $r && $r->{ok} }), 'refd answers after the abort');
is($c->ok('pending', match => $id)->{seq}, $acked[-1],
    'every acknowledged command is still there');
turn();
is(scalar(@acked), $before + 1, 'the match goes on');

kill('TERM', $sup);
ok(wait_for('the supervisor to stop', sub { !kill(0, $sup) }),
    'SIGTERM to the supervisor stops it');
ok(!kill(0, $child3 // $child2), 'and the serving refd');
done_testing();
