#!/bin/sh
# make run: start refd on its embedded defaults, but with command and event
# endpoints and a state directory of its own (so that it can never collide
# with another refd, nor a demo bot talk to another daemon), let seeded bots
# play one full match of every loaded ruleset, print what happened in each,
# then keep refd running in the foreground for your own clients until
# Ctrl-C.
#
#   sh tests/run-demo.sh [BUILD-DIR]
#   REFD_DEMO_ONCE=1 sh tests/run-demo.sh    stop after the matches (tests)
#   REFD_DEMO_SEED=N                         the bots' seed (default: the time)
#   REFD_DEMO_RATE=N                         the bots' requests per second
#                                            (default 25, watchable; 0: unpaced)
#
# refd also listens on loopback ws:// endpoints and refctl web serves the
# viewer, so that the matches can be watched live in a browser and their
# exported logs replayed there.
B=${1:-build}
REFD=$B/bin/refd
REFCTL=$B/bin/refctl
for p in "$REFD" "$REFCTL"; do
	if [ ! -x "$p" ]; then
		echo "run-demo: '$p' is missing; run 'make' first" >&2
		exit 1
	fi
done

D=$(mktemp -d "${TMPDIR:-/tmp}/refd-demo-XXXXXX") || exit 1
CMD="ipc://$D/refd.sock"
EV="ipc://$D/refd-events.sock"
# Loopback ws:// endpoints for the browser, on ports free now (another try
# with other ports if refd cannot bind them).
tries=0
while :; do
	port=$(awk -v s="$$$tries" 'BEGIN { srand(s); print 20000 + int(rand() * 40000) }')
	WSCMD="ws://127.0.0.1:$port"
	WSEV="ws://127.0.0.1:$((port + 1))"
	"$REFD" --state-dir "$D/state" --listen "$CMD" --listen "$WSCMD" \
	    --publish "$EV" --publish "$WSEV" >"$D/refd.out" 2>&1 &
	pid=$!
	sleep 0.2
	if kill -0 $pid 2>/dev/null || [ $tries -ge 5 ]; then
		break
	fi
	tries=$((tries + 1))
done
webpid=""
trap 'kill -TERM $pid $webpid 2>/dev/null; wait $pid; exit 0' INT TERM

# Wait until our refd answers on our own socket (or stop if it died).
i=0
until "$REFCTL" -s "$CMD" -e "$EV" -T 300 hello >/dev/null 2>&1; do
	if ! kill -0 $pid 2>/dev/null; then
		cat "$D/refd.out" >&2
		echo "run-demo: refd did not start (its message is above);" \
		    "nothing was played" >&2
		exit 1
	fi
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "run-demo: refd does not answer on $CMD" >&2
		kill -TERM $pid
		exit 1
	fi
	sleep 0.1
done

# The scenario each ruleset's demo plays: one where the bots come to blows.
# A ruleset not named here plays its first scenario.
scenario_for() {
	case $1 in
	dungeon) echo sunken-cellar ;;
	encounter) echo brawl-in-the-hall ;;
	massbattle) echo border-clash ;;
	skirmish) echo demo-skirmish ;;
	warband) echo crossroads-short ;;
	*) echo "" ;;
	esac
}

# The viewer, if it was built (make deps installs what it needs).
url=""
if [ -f "$B/web/index.html" ]; then
	"$REFCTL" -s "$WSCMD" -e "$WSEV" web --port 0 >"$D/web.out" 2>&1 &
	webpid=$!
	i=0
	while [ -z "$url" ] && [ $i -lt 50 ]; do
		url=$(sed -n 's/.* at \(http:[^ ]*\) .*/\1/p' "$D/web.out")
		i=$((i + 1))
		sleep 0.1
	done
fi

echo
echo "== refd is up ($CMD, $WSCMD); bots play one match of each ruleset"
if [ -n "$url" ]; then
	echo "== watch them live in a browser: $url"
fi
seed=${REFD_DEMO_SEED:-$(date +%s)}
rate=${REFD_DEMO_RATE:-25}
[ -n "$REFD_DEMO_ONCE" ] && rate=${REFD_DEMO_RATE:-}
mkdir -p "$D/logs"
status=0
for r in $("$REFCTL" -s "$CMD" -c rulesets | tr ',' '\n' |
    sed -n 's/.*"name":"\([^"]*\)".*/\1/p'); do
	s=$(scenario_for "$r")
	echo "== $r${s:+, scenario $s}"
	if ! "$REFCTL" -s "$CMD" -e "$EV" play "$r" ${s:+--scenario "$s"} \
	    --seed "$seed" ${rate:+--rate "$rate"} --engage --story \
	    >"$D/play.out"; then
		status=1
	fi
	grep -v '^{' "$D/play.out"
	m=$(sed -n 's/.*: match \([0-9a-f]\{16\}\) over after.*/\1/p' "$D/play.out")
	if [ -n "$m" ]; then
		"$REFCTL" -s "$CMD" export "$m" -o "$D/logs/$r.log" 2>/dev/null
	fi
done
# refd's own warnings during the demo, if any.
if grep -q 'warning' "$D/refd.out"; then
	echo
	echo "== refd said:"
	grep 'warning' "$D/refd.out"
fi
echo
if [ $status -ne 0 ]; then
	echo "run-demo: a demo match failed; refd keeps running"
fi
if [ -n "$REFD_DEMO_ONCE" ]; then
	if [ -n "$url" ] && ! curl --version >/dev/null 2>&1; then
		: # no curl: the viewer's own test (tests/web.t) covers it
	elif [ -n "$url" ] && ! curl -sf "$url" >/dev/null; then
		echo "run-demo: the viewer does not answer at $url" >&2
		status=1
	fi
	ls "$D/logs"/*.log >/dev/null 2>&1 || { echo "run-demo: no log was exported" >&2; status=1; }
	kill -TERM $pid $webpid 2>/dev/null
	wait $pid
	rm -rf "$D"
	exit $status
fi
R="$REFCTL -s $CMD -e $EV"
if [ -n "$url" ]; then
	cat <<MSG
== The viewer: $url
   Live: the matches of this refd (click Watch); Replay a log: open one of
   $D/logs/*.log (the key: $("$REFCTL" -s "$CMD" pubkey 2>/dev/null))
MSG
fi
cat <<MSG
== refd keeps running for your own clients; press Ctrl-C to stop it.
Its sockets and state are in $D. Try, in another terminal:
   $R rulesets
   $R create duel --scenario first-duel      # note the match id
   $R join MATCH 0                            # note the token
   $R join MATCH 1
   $R legal MATCH 0 TOKEN0
   $R act MATCH 0 TOKEN0 '{"type":"attack"}'
   $R watch MATCH
   $R export MATCH -o match.log               # once it is over
See README.md, refctl(1) and refd-protocol(7).
MSG
wait $pid
