# Crash test: refd runs under load from several clients and is killed with
# SIGKILL at random moments, many times (every fourth time also once more
# during its start-up recovery), then restarted on the same state.
# Every acknowledged command must be in the log with the seq it was
# acknowledged with, every log must verify, and every match must resume.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);

use Refd;

my $KILLS = $ENV{REFD_CRASH_KILLS} // 20;
my $BUDGET = 60;	# seconds for the killing phase

# Child mode: one client playing matches through its own socket until the
# stop file appears, creating a new match whenever one ends.  A request
# that gets no answer (the daemon died) is sent again, with the same
# command id, until it is answered.  Lines in the acked file:
#   MATCH id token0 token1   a match this client plays
#   ACK seat cmd_id seq replayed
if (@ARGV && $ARGV[0] eq '--child') {
	my (undef, $ep, $id, $t0, $t1, $acked, $stop) = @ARGV;
	my @tok = ($t0, $t1);
	open(my $out, '>>', $acked) or die "$acked: $!";
	$out->autoflush(1);
	print $out "MATCH $id $t0 $t1\n";
	my $k = Refd::Client->new($ep, timeout => 700);
	my $ask = sub {
		my ($op, %a) = @_;
		for (1 .. 400) {
			my $r = $k->req($op, %a);
			return $r if $r;
			$k->close;
			sleep(0.05);
			$k = Refd::Client->new($ep, timeout => 700);
		}
		print $out "GAVEUP $op\n";
		exit 3;
	};
	my ($n, $games) = (0, 0);
	until (-e $stop) {
		if (!defined $id) {
			my $r = $ask->('create', ruleset => 'duel', setup =>
			    { fighters => ['brawler', 'knight'], max_rounds => 40 });
			$r->{ok} or do { print $out "ERROR create\n"; exit 6 };
			$id = $r->{result}{match};
			for my $s (0 .. 1) {
				$r = $ask->('join', match => $id, seat => $s,
				    seed => "game $games seat $s");
				next if $r->{ok} && ($tok[$s] = $r->{result}{token});
				# The reply to a join that did happen was lost with
				# the daemon: the token is gone, leave this match.
				if ($r->{error}{name} eq 'ESEATTAKEN') {
					print $out "ABANDON $id\n";
					undef $id;
					last;
				}
				print $out "ERROR join $r->{error}{name}\n";
				exit 7;
			}
			next unless defined $id;
			print $out "MATCH $id @tok\n";
		}
		my $p = $ask->('pending', match => $id);
		if (!$p->{ok}) {
			print $out "ERROR pending $p->{error}{name}: $p->{error}{message}\n";
			exit 4;
		}
		if ($p->{result}{finished}) {
			undef $id;
			$games++;
			next;
		}
		my $s = $p->{result}{seats}[0];
		my $type = ($n % 5 == 3) ? 'attack' : 'defend';
		my $cid = "$id-$n";
		my $r = $ask->('act', match => $id, seat => $s, token => $tok[$s],
		    cmd_id => $cid, cmd => { type => $type });
		if (!$r->{ok}) {
			print $out "ERROR act $cid $r->{error}{name}: $r->{error}{message}\n";
			exit 5;
		}
		print $out "ACK $s $cid $r->{result}{seq} $r->{result}{replayed}\n";
		$n++;
	}
	exit 0;
}

my $d = Refd->new(conf => { 'admin-token' => 'crash', 'fsync' => 'always',
    'checkpoint-every' => 5 });
my $dir = $d->dir;
my $c = $d->client;

my $NM = 4;
my (@ids, @tok);
for my $i (0 .. $NM - 1) {
	my $m = $c->ok('create', ruleset => 'duel',
	    setup => { fighters => ['brawler', 'knight'], max_rounds => 1000 });
	push @ids, $m->{match};
	push @tok, [map {
		$c->ok('join', match => $m->{match}, seat => $_,
		    seed => "seat $_ of match $i")->{token}
	} 0 .. 1];
}
is(scalar(grep { defined } @ids), $NM, "$NM matches created and joined");
$c->close;

my $stop = "$dir/stop";
my @kids;
for my $i (0 .. $NM - 1) {
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		exec($^X, '-I' . ($ENV{REFD_SRC} // '.') . '/tests/lib', $0,
		    '--child', $d->endpoint, $ids[$i], @{ $tok[$i] },
		    "$dir/acked.$i", $stop) or die "exec: $!";
	}
	push @kids, $pid;
}

# Kill the daemon at random moments, restart it each time.
my $t0 = time;
my $kills = 0;
srand($ENV{REFD_CRASH_SEED} // time);
while ($kills < $KILLS && time - $t0 < $BUDGET) {
	sleep(0.1 + rand(0.5));
	$d->stop('KILL');
	$kills++;
	# Now and then, also kill a refd in the middle of its recovery.
	if ($kills % 4 == 0) {
		my $pid = fork() // die "fork: $!";
		if ($pid == 0) {
			open(STDOUT, '>>', "$dir/refd.log") or POSIX::_exit(126);
			open(STDERR, '>>', "$dir/refd.log") or POSIX::_exit(126);
			exec(Refd::bin('refd'), '-f', $d->conffile) or
			    POSIX::_exit(127);
		}
		sleep(rand(0.08));
		kill('KILL', $pid);
		waitpid($pid, 0);
	}
	my $me = $$;
	my $started = eval { $d->start; 1 };
	# A failure in the child Refd::start forks must not become a second
	# copy of this test.
	POSIX::_exit(127) if $$ != $me;
	if (!$started) {
		fail("refd restarts after kill $kills");
		diag("$@\n" . $d->log);
		last;
	}
}
my $elapsed = time - $t0;
ok($kills >= 10, "killed refd $kills times in ${\ sprintf('%.1f', $elapsed)}s");

# Let the clients finish what they have in flight.
open(my $sf, '>', $stop) or die;
close($sf);
my $deadline = time + 30;
my %status;
while (keys %status < @kids && time < $deadline) {
	for my $pid (@kids) {
		next if exists $status{$pid};
		$status{$pid} = $? >> 8 if waitpid($pid, WNOHANG) == $pid;
	}
	sleep(0.05);
}
for my $i (0 .. $#kids) {
	is($status{ $kids[$i] }, 0, "client $i ended cleanly") or do {
		kill('KILL', $kids[$i]);
		system('cat', "$dir/acked.$i");
	};
}

# What the clients were told.
my (%acked, %tokens, $nacked, $nmatches);
for my $i (0 .. $NM - 1) {
	open(my $f, '<', "$dir/acked.$i") or next;
	while (<$f>) {
		if (/^MATCH (\S+) (\S+) (\S+)$/) {
			$tokens{$1} = [$2, $3];
			$nmatches++;
			next;
		}
		next unless /^ACK (\d+) (\S+)-(\d+) (\d+) (\S+)$/;
		my ($s, $id, $cid, $seq) = ($1, $2, "$2-$3", $4);
		if (exists $acked{$id}{$cid} && $acked{$id}{$cid}[1] != $seq) {
			fail("command $cid acknowledged twice with different seqs");
		}
		$acked{$id}{$cid} = [$s, $seq];
		$nacked++;
	}
}
ok($nacked > 50, "$nacked commands in $nmatches matches acknowledged "
    . 'across the kills');

# Restart once more (clean), then check every log and every match.
$d->stop('KILL');
$d->start;
my $log = $d->log;
unlike($log, qr/quarantine/, 'no log was quarantined');
my @q = glob("$d->{state}/quarantine/*");
is(scalar(@q), 0, 'the quarantine directory is empty');

# nanomsg runs threads while a socket is open, and a fork with threads
# can deadlock in the child: run refctl (a fork) only with every socket
# of this process closed.
my $refctl = Refd::bin('refctl');
my $pub = "$d->{state}/refd.pub";
my @logs = glob("$d->{state}/matches/*.log");
ok(@logs >= $NM, scalar(@logs) . ' match logs');
my ($bad_ack, $bad_resume, $bad_verify, $checked) = (0, 0, 0, 0);
my (%lastseq, %unfinished);

# 1. Offline, as the daemon left them: acknowledged commands, and the
#    structure and signatures of the unfinished logs.
for my $path (@logs) {
	my ($id) = $path =~ m{/(\w+)\.log$};
	my ($st, $out) = Refd::run_prog($refctl, 'replay', '--json', $path);
	my $recs = $st == 0 ? eval { decode_json($out) } : undef;
	if (!$recs) {
		$bad_verify++;
		diag("match $id: the log does not read back:\n$out");
		next;
	}
	my %inlog;
	$inlog{ $_->{id} } = [$_->{seat}, $_->{seq}]
	    for grep { $_->{kind} eq 'cmd' } @$recs;
	for my $cid (sort keys %{ $acked{$id} // {} }) {
		my $a = $acked{$id}{$cid};
		next if $inlog{$cid} && $inlog{$cid}[0] == $a->[0] &&
		    $inlog{$cid}[1] == $a->[1];
		$bad_ack++;
		diag("match $id: acknowledged command $cid (seq $a->[1]) is "
		    . 'not in the log');
	}
	$lastseq{$id} = (grep { defined $_->{seq} } @$recs)[-1]{seq};
	($st, $out) = Refd::run_prog($refctl, 'verify', $path,
	    '--pubkey-file', $pub);
	if ($st == 3) {
		$unfinished{$id} = 1;
	} elsif ($st != 0) {
		$bad_verify++;
		diag("match $id: verify exits $st:\n$out");
	}
}

# 2. Through the daemon: every match is served at the seq its log ends
#    with, the old tokens still act, then the unfinished ones are aborted
#    so that their seeds are revealed.
$c = $d->client;
my $listed = $c->ok('matches');
my %listed = map { $_->{id} => $_ } @{ $listed // [] };
is(scalar(grep { $listed{$_} } map { m{/(\w+)\.log$} } @logs),
    scalar(@logs), 'every match is served again');
for my $id (sort keys %lastseq) {
	my $info = $listed{$id};
	if (!$info || $info->{seq} != $lastseq{$id}) {
		$bad_resume++;
		diag("match $id: does not resume at seq $lastseq{$id}");
		next;
	}
	if ($info->{status} eq 'playing' && $tokens{$id}) {
		my $p = $c->ok('pending', match => $id);
		my $s = $p->{seats}[0];
		my $r = $c->ok('act', match => $id, seat => $s,
		    token => $tokens{$id}[$s], cmd_id => "after-$id",
		    cmd => { type => 'defend' });
		if (!$r || $r->{seq} != $p->{seq} + 1) {
			$bad_resume++;
			diag("match $id: refuses a new command after the restart");
		}
	}
	$c->ok('abort', match => $id, admin_token => 'crash',
	    reason => 'crash test over') if $unfinished{$id};
}
$c->close;
undef $c;

# 3. Offline again: every log is finished now and verifies, dice included.
for my $path (@logs) {
	my ($id) = $path =~ m{/(\w+)\.log$};
	my ($st, $out) = Refd::run_prog($refctl, 'verify', $path,
	    '--pubkey-file', $pub);
	if ($st != 0) {
		$bad_verify++;
		diag("match $id: verify exits $st:\n$out");
	}
	$checked++;
}
is($bad_ack, 0, "every acknowledged command is in its log with its seq");
is($bad_resume, 0, "every match resumes at the seq its log ends with, "
    . 'with its old tokens');
is($bad_verify, 0, "every log verifies ($checked logs, dice included; "
    . scalar(keys %unfinished) . ' were unfinished)');
is($d->stop, 0, 'refd stops cleanly');

done_testing();
