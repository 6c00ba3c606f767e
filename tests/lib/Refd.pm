# Refd.pm - start the real refd for a test, talk protocol v1 to it from
# Perl (NanoMsg::Raw + Data::MessagePack), stop it.
#
#   my $d = Refd->new(conf => { 'max-matches' => 2 });
#   my $c = $d->client;
#   my $r = $c->req('hello');          # the whole reply map
#   my $res = $c->ok('create', ruleset => 'duel', scenario => 'first-duel');
#   $d->stop;                          # SIGTERM; returns the exit status
#
# The daemon runs on ipc:// sockets in a fresh temporary directory with a
# fresh state directory.  Set REFD_TEST_KEEP=1 to keep the directory (it
# is kept anyway, and named, when a test failed).
package Refd;

use strict;
use warnings;

use Carp qw(croak);
use File::Temp qw(tempdir);
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use Test::More;

use Data::MessagePack;
use NanoMsg::Raw;

our $MP = Data::MessagePack->new->prefer_integer->canonical->utf8;

sub build_dir {
	return $ENV{REFD_BUILD} // do {
		require Cwd;
		Cwd::abs_path('build');
	};
}

sub bin { my ($name) = @_; return build_dir() . "/bin/$name" }

sub new {
	my ($class, %o) = @_;
	my $dir = tempdir('refd-test-XXXXXX', TMPDIR => 1, CLEANUP => 0);
	my $self = bless {
		dir => $dir,
		cmd => "ipc://$dir/cmd.sock",
		events => "ipc://$dir/events.sock",
		state => "$dir/state",
		log => "$dir/refd.log",
	}, $class;
	$self->{state} = $o{state} if defined $o{state};
	my %conf = (
		'listen' => $self->{cmd},
		'publish' => $self->{events},
		'state-dir' => $self->{state},
		'plugin-dir' => build_dir() . '/plugins',
		'ruleset-dir' => build_dir() . '/rulesets',
		'fsync' => 'always',
		%{ $o{conf} // {} },
	);
	# listen_also => [endpoints]: listen there too (e.g. on tcp://).
	$conf{listen} = [$conf{listen}, @{ $o{listen_also} }] if $o{listen_also};
	$self->{conffile} = "$dir/refd.conf";
	open(my $f, '>', $self->{conffile}) or croak "refd.conf: $!";
	print $f "# written by tests/lib/Refd.pm\n";
	for my $k (sort keys %conf) {
		print $f "$k $_\n" for ref $conf{$k} ? @{ $conf{$k} } : $conf{$k};
	}
	close($f);
	$self->start(@{ $o{args} // [] }) unless $o{no_start};
	return $self;
}

sub dir { $_[0]{dir} }
sub endpoint { $_[0]{cmd} }
sub events_endpoint { $_[0]{events} }
sub conffile { $_[0]{conffile} }
sub pid { $_[0]{pid} }

sub start {
	my ($self, @args) = @_;
	my $pid = fork() // croak "fork: $!";
	if ($pid == 0) {
		open(STDOUT, '>>', $self->{log}) or die;
		open(STDERR, '>>', $self->{log}) or die;
		exec(bin('refd'), '-f', $self->{conffile}, @args) or die "exec: $!";
	}
	$self->{pid} = $pid;
	# Ready when it answers hello.
	my $deadline = time + 20;
	while (time < $deadline) {
		if (waitpid($pid, WNOHANG) == $pid) {
			delete $self->{pid};
			diag("refd exited at start:\n" . $self->log);
			croak "refd did not start";
		}
		my $c = Refd::Client->new($self->{cmd}, timeout => 300);
		my $r = eval { $c->req('hello') };
		$c->close;
		return $self if $r && $r->{ok};
		sleep(0.05);
	}
	croak "refd did not answer within 20s:\n" . $self->log;
}

sub client {
	my ($self, %o) = @_;
	return Refd::Client->new($self->{cmd}, %o);
}

sub subscriber {
	my ($self, $topic) = @_;
	return Refd::Sub->new($self->{events}, $topic // '');
}

# SIGTERM and wait; returns the exit status ($?).
sub stop {
	my ($self, $sig) = @_;
	my $pid = delete $self->{pid} or return undef;
	kill($sig // 'TERM', $pid);
	my $deadline = time + 20;
	while (time < $deadline) {
		return $? if waitpid($pid, WNOHANG) == $pid;
		sleep(0.05);
	}
	kill('KILL', $pid);
	waitpid($pid, 0);
	return $?;
}

sub alive {
	my ($self) = @_;
	return 0 unless $self->{pid};
	return waitpid($self->{pid}, WNOHANG) == 0;
}

sub log {
	my ($self) = @_;
	open(my $f, '<', $self->{log}) or return '';
	local $/;
	return scalar <$f>;
}

sub DESTROY {
	my ($self) = @_;
	$self->stop('KILL') if $self->{pid};
	my $failed = !Test::More->builder->is_passing;
	if ($ENV{REFD_TEST_KEEP} || $failed) {
		diag("refd test directory kept: $self->{dir}");
		return;
	}
	require File::Path;
	File::Path::remove_tree($self->{dir});
}

# refctl verify every match log in the state directory with the daemon's
# public key (hex): a list of [file, exit status, output].  $more, when
# given, returns more arguments for a log (--plugin, --content) from its
# match id.  Close every nanomsg socket of the test first: refctl runs in
# a fork.
sub verify_logs {
	my ($self, $pubkey, $more) = @_;
	my @r;
	for my $f (sort glob("$self->{state}/matches/*.log")) {
		my ($id) = $f =~ m{([^/]+)\.log$};
		my ($st, $out) = run_prog(bin('refctl'), 'verify', $f,
		    '--pubkey', $pubkey, $more ? $more->($id) : ());
		push @r, [$f, $st, $out];
	}
	return @r;
}

# Deep equality of two decoded msgpack values.
sub same {
	my ($a, $b) = @_;
	return $MP->pack($a) eq $MP->pack($b);
}

# Run Perl code in a new process (fork, then exec at once: no nanomsg in
# the child before exec), with tests/lib on @INC and @ARGV = @args; its
# standard output is collected by reap_perl.
sub spawn_perl {
	my ($code, @args) = @_;
	my $lib = $INC{'Refd.pm'} =~ s{/Refd\.pm$}{}r;
	my $pid = open(my $f, '-|') // croak "fork: $!";
	if ($pid == 0) {
		exec($^X, "-I$lib", '-e', $code, @args) or die "exec: $!";
	}
	return { pid => $pid, f => $f };
}

# Wait for a spawn_perl process: [exit status, output].
sub reap_perl {
	my ($p) = @_;
	my $f = $p->{f};
	local $/;
	my $out = <$f> // '';
	close($f);
	return [$? >> 8, $out];
}

# Run a refd command line (not the daemon): (exit status, output).
sub run_refd {
	my (@args) = @_;
	return run_prog(bin('refd'), @args);
}

sub run_prog {
	my (@cmd) = @_;
	my $pid = open(my $f, '-|') // croak "fork: $!";
	if ($pid == 0) {
		open(STDERR, '>&', \*STDOUT);
		exec(@cmd) or die "exec $cmd[0]: $!";
	}
	local $/;
	my $out = <$f> // '';
	close($f);
	return ($? >> 8, $out);
}

package Refd::Client;

use strict;
use warnings;

use Carp qw(croak);
use NanoMsg::Raw;

sub new {
	my ($class, $ep, %o) = @_;
	my $s = nn_socket(AF_SP, NN_REQ);
	defined $s or croak "nn_socket: $!";
	my $t = $o{timeout} // 10000;
	nn_setsockopt($s, NN_SOL_SOCKET, NN_RCVTIMEO, $t);
	nn_setsockopt($s, NN_SOL_SOCKET, NN_SNDTIMEO, $t);
	nn_connect($s, $ep) // croak "nn_connect $ep: $!";
	return bless { s => $s, id => 0 }, $class;
}

sub close { my ($self) = @_; nn_close($self->{s}) if defined $self->{s}; delete $self->{s} }
sub DESTROY { $_[0]->close }

# Encode a request {v: 1, id, op, %args}.
sub encode {
	my ($self, $op, %args) = @_;
	my %env = (v => 1, id => ++$self->{id}, op => $op, %args);
	for (keys %env) { delete $env{$_} if !defined $env{$_} && /^(v|id)$/ }
	return $Refd::MP->pack(\%env);
}

# Send bytes, return the decoded reply, or undef after the timeout.
sub raw {
	my ($self, $bytes) = @_;
	defined nn_send($self->{s}, $bytes, 0) or return undef;
	my $n = nn_recv($self->{s}, my $buf, 16 << 20, 0);
	return undef unless defined $n;
	return $Refd::MP->unpack($buf);
}

sub req {
	my ($self, $op, %args) = @_;
	return $self->raw($self->encode($op, %args));
}

# The result of a successful op; fails the test (and returns undef) on an
# error reply.
sub ok {
	my ($self, $op, %args) = @_;
	my $r = $self->req($op, %args);
	if (!$r || !$r->{ok}) {
		my $e = $r ? $r->{error} : { name => 'TIMEOUT', message => 'no reply' };
		Test::More::diag("$op failed: $e->{name}: $e->{message}");
		return undef;
	}
	return $r->{result};
}

package Refd::Sub;

use strict;
use warnings;

use Carp qw(croak);
use NanoMsg::Raw;
use Time::HiRes qw(time);

sub new {
	my ($class, $ep, $topic) = @_;
	my $s = nn_socket(AF_SP, NN_SUB);
	nn_setsockopt($s, NN_SUB, NN_SUB_SUBSCRIBE, $topic);
	nn_setsockopt($s, NN_SOL_SOCKET, NN_RCVTIMEO, 200);
	nn_connect($s, $ep) // croak "nn_connect $ep: $!";
	return bless { s => $s }, $class;
}

# Every message until `quiet` seconds pass without one: list of
# [topic (16 chars), decoded event, raw bytes].
sub drain {
	my ($self, $quiet) = @_;
	$quiet //= 0.5;
	my @out;
	my $last = time;
	while (time - $last < $quiet) {
		my $n = nn_recv($self->{s}, my $buf, 1 << 20, 0);
		next unless defined $n;
		$last = time;
		my $topic = substr($buf, 0, 16);
		my $ev = eval { $Refd::MP->unpack(substr($buf, 16)) };
		push @out, [$topic, $ev, $buf];
	}
	return @out;
}

sub close { my ($self) = @_; nn_close($self->{s}) if defined $self->{s}; delete $self->{s} }
sub DESTROY { $_[0]->close }

1;
