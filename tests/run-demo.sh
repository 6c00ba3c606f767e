#!/bin/sh
# make run: start refd on its embedded defaults, let seeded bots play one
# full match of every loaded ruleset, print each result, then keep refd
# running in the foreground for your own clients until Ctrl-C.
#
#   sh tests/run-demo.sh [BUILD-DIR]
B=${1:-build}
REFD=$B/bin/refd
REFCTL=$B/bin/refctl
for p in "$REFD" "$REFCTL"; do
	if [ ! -x "$p" ]; then
		echo "run-demo: '$p' is missing; run 'make' first" >&2
		exit 1
	fi
done

"$REFD" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid; exit 0' INT TERM

# Wait until it answers (or died: another refd on the same sockets?).
i=0
until "$REFCTL" -T 300 hello >/dev/null 2>&1; do
	if ! kill -0 $pid 2>/dev/null; then
		echo "run-demo: refd did not start (see its message above)" >&2
		exit 1
	fi
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "run-demo: refd does not answer" >&2
		kill -TERM $pid
		exit 1
	fi
	sleep 0.1
done

echo
echo "== refd is up; bots play one match of each ruleset"
"$REFCTL" -c play --all --seed "$(date +%s)"
status=$?
echo
if [ $status -ne 0 ]; then
	echo "run-demo: a demo match failed (exit $status); refd keeps running"
fi
cat <<MSG
== refd keeps running for your own clients; press Ctrl-C to stop it.
Try, in another terminal:
   $REFCTL rulesets
   $REFCTL create duel --scenario first-duel      # note the match id
   $REFCTL join MATCH 0                            # note the token
   $REFCTL join MATCH 1
   $REFCTL legal MATCH 0 TOKEN0
   $REFCTL act MATCH 0 TOKEN0 '{"type":"attack"}'
   $REFCTL watch MATCH
   $REFCTL export MATCH -o match.log               # once it is over
See README.md, refctl(1) and refd-protocol(7).
MSG
wait $pid
