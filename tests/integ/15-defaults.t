# Safe defaults on the machine: an ipc directory another user may write to
# (or that is not refd's user's) is refused at start; a 0-byte log is
# quarantined, not deleted; a last record that is whole but damaged (it
# may have been acknowledged) is reported and kept, not silently dropped.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

use Refd;

my $tmp = tempdir('refd-defaults-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# Start refd with these settings; (exit status or undef when it started
# and answered, its output).
sub try_start {
	my (%conf) = @_;
	my $also = delete $conf{listen};
	my $x = Refd->new(no_start => 1, conf => \%conf,
	    $also ? (listen_also => [$also]) : ());
	my $ok = eval { local $SIG{__WARN__} = sub {}; $x->start; 1 };
	if ($ok) {
		$x->stop;
		return (undef, $x->log);
	}
	return (1, $x->log);
}

# A world-writable ipc directory.
mkdir("$tmp/open") or die;
chmod(0777, "$tmp/open") or die;
my ($st, $out) = try_start(listen => "ipc://$tmp/open/r.sock");
ok($st, 'refd refuses to start on a world-writable ipc directory');
like($out, qr{endpoint 'ipc://\Q$tmp\E/open/r\.sock': directory '\Q$tmp\E/open' is writable by others \(mode 0777\)},
    'the error names the endpoint, the directory, who may write and the mode')
    or diag($out);
ok(!-e "$tmp/open/r.sock", 'no socket was made there');

# Group-writable: refused too.
mkdir("$tmp/group") or die;
chmod(0770, "$tmp/group") or die;
($st, $out) = try_start(publish => "ipc://$tmp/group/e.sock");
ok($st, 'a group-writable directory of a publish endpoint is refused');
like($out, qr/writable by its group \(mode 0770\)/, 'and named') or diag($out);

# A directory of another user: /usr is root's (for root, a directory
# given to nobody).
my $foreign = '/usr';
if ($> == 0) {
	mkdir("$tmp/theirs") or die;
	chown(65534, 65534, "$tmp/theirs") or die;
	chmod(0755, "$tmp/theirs");
	$foreign = "$tmp/theirs";
}
($st, $out) = try_start(listen => "ipc://$foreign/refd-test-$$.sock");
ok($st, "an ipc directory of another user ($foreign) is refused");
like($out, qr/belongs to uid \d+, not to refd's user \(uid $>\)/,
    'the error says whose it is') or diag($out);

# refd's own private directory works (the default test set-up), and the
# default directory without XDG_RUNTIME_DIR is checked the same way.
my $d = Refd->new;
ok($d->client->ok('hello'), 'a private ipc directory is accepted');
my $c = $d->client;

# A match with a few commands, then its last record damaged in place.
my $m = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
my @tok = map { $c->ok('join', match => $m->{match}, seat => $_)->{token} } 0, 1;
my $n = 0;
for my $k (1 .. 6) {
	my $p = $c->ok('pending', match => $m->{match});
	last unless @{ $p->{seats} };
	my $s = $p->{seats}[0];
	my $r = $c->req('act', match => $m->{match}, seat => $s, token => $tok[$s],
	    cmd_id => "c$k", cmd => { type => 'defend' });
	$n++ if $r->{ok};
}
ok($n >= 2, "commands acknowledged ($n)");
my $seq = $c->ok('pending', match => $m->{match})->{seq};
$c->close;
undef $c;
$d->stop;
my $log = $d->dir . "/state/matches/$m->{match}.log";
my $size = -s $log;
{
	open(my $f, '+<:raw', $log) or die "$log: $!";
	seek($f, $size - 40, 0);
	read($f, my $b, 1);
	seek($f, $size - 40, 0);
	print $f chr(ord($b) ^ 0x5a);
	close($f);
}
# And a 0-byte log, as a create a crash interrupted leaves it.
my $empty = $d->dir . '/state/matches/00112233445566aa.log';
open(my $e, '>', $empty) or die;
close($e);
$d->start;
my $rl = $d->log;
like($rl, qr/log '\Q$log\E': the last record is whole but damaged .*it may have been acknowledged/,
    'a damaged whole last record is reported as perhaps acknowledged')
    or diag($rl);
unlike($rl, qr/\Q$m->{match}\E.*never acknowledged/,
    'and not called never acknowledged');
my $kept = $d->dir . "/state/quarantine/$m->{match}.log.damaged-tail";
is(-s $kept, $size, 'the log as it was is kept in quarantine, whole');
ok(-s $log < $size, 'the match log is cut before the damaged record');
$c = $d->client;
my $after = $c->ok('pending', match => $m->{match});
is($after->{seq}, $seq - 1, 'the match resumes one record before');
like($rl, qr/00112233445566aa\.log': no header record \(an empty file\)/,
    'the 0-byte log is reported');
ok(!-e $empty, 'it left the matches directory');
my $q = $d->dir . '/state/quarantine/00112233445566aa.log';
ok(-e $q && -s $q == 0, 'the 0-byte log is in quarantine, not deleted');
$c->close;
$d->stop;

done_testing();
