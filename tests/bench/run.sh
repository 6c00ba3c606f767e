#!/bin/sh
# tests/bench/run.sh - the driver of `make bench`: runs refd-bench over the
# build in $REFD_BUILD and keeps its output in $REFD_BUILD/bench/.
#
#   make bench                          everything, default sizes
#   make bench BENCH_FLAGS='--only rt'  one section (see refd-bench --help)
#
# Figures only: a slow machine never fails this.  It fails (exit 1) when
# something is broken: the daemon does not start, a command is refused,
# a log does not verify, a plugin misbehaves.
set -eu
B=${REFD_BUILD:?set REFD_BUILD to the build directory}
B=$(cd "$B" && pwd)
mkdir -p "$B/bench"
unset REFD_CONF || true
# The benchmark's matches need many log files open at once.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
set -- "$B/bench/refd-bench" --build "$B" --work "$B/bench/work" \
	--json "$B/bench/results.json" "$@"
echo "command: $*"
rm -f "$B/bench/.status"
{ "$@"; echo $? >"$B/bench/.status"; } 2>&1 | tee "$B/bench/results.txt"
status=$(cat "$B/bench/.status" 2>/dev/null || echo 1)
[ "$status" = 0 ] || echo "refd-bench: FAILED (exit $status)" >&2
exit "$status"
