#!/bin/sh
# run.sh BUILD - run every fuzz target of BUILD/fuzz (made by make fuzz)
# for FUZZ_SECONDS (default 30) each, seeded from the scenario tests, the
# plugins' content, logs of played matches and the regression inputs in
# tests/fuzz/regress/.  The protocol and log targets run with the duel
# plugin; content, create and apply with each plugin in FUZZ_PLUGINS
# (default: every plugin built in BUILD/plugins).  FUZZ_TARGETS picks
# targets (default: all).  A crash leaves its input in BUILD/fuzz-crashes/
# and makes the run fail.
set -u
B=$1
S=${FUZZ_SECONDS:-30}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export REFD_BUILD=$(cd "$B" && pwd) REFD_SRC=$SRC
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -z "${FUZZ_PLUGINS:-}" ]; then
	FUZZ_PLUGINS=$(cd "$B/plugins" && ls *.so | sed 's/\.so$//' | tr '\n' ' ')
fi
seeds=$B/fuzz-seeds
crashes=$B/fuzz-crashes
rm -rf "$seeds"
mkdir -p "$seeds" "$crashes"
perl "$SRC/tests/fuzz/seeds.pl" "$B" "$seeds" $FUZZ_PLUGINS || exit 1
mkdir -p "$seeds/log"
FUZZ_PLUGIN=$B/plugins/duel.so FUZZ_MKSEEDS=$seeds/log "$B/fuzz/log" \
    >/dev/null 2>&1 || { echo "fuzz: cannot make log seeds" >&2; exit 1; }

failed=""
# fuzz TARGET NAME [PLUGIN]
fuzz() {
	t=$1 name=$2 pl=${3:-duel}
	corpus=$B/fuzz-corpus/$name
	mkdir -p "$corpus"
	dirs="$corpus"
	# At most 12 seeds (spread over the list): libFuzzer runs every
	# seed before its time limit counts, and some rulesets are slow.
	if [ -d "$seeds/$name" ]; then
		rm -rf "$seeds/$name.pick"
		mkdir -p "$seeds/$name.pick"
		n=$(ls "$seeds/$name" | wc -l)
		ls "$seeds/$name" | awk -v n="$n" \
		    'n <= 12 || int((NR - 1) * 12 / n) != int(NR * 12 / n)' |
		while read -r f; do cp "$seeds/$name/$f" "$seeds/$name.pick/"; done
		dirs="$dirs $seeds/$name.pick"
	fi
	[ -d "$SRC/tests/fuzz/regress/$name" ] && dirs="$dirs $SRC/tests/fuzz/regress/$name"
	printf 'fuzz: %-24s %ss ... ' "$name" "$S"
	if FUZZ_PLUGIN=$B/plugins/$pl.so "$B/fuzz/$t" -max_total_time="$S" \
	    -timeout=25 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=3 \
	    -artifact_prefix="$crashes/$name-" -print_final_stats=1 \
	    $dirs >"$B/fuzz-$name.out" 2>&1; then
		echo "ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' \
		    "$B/fuzz-$name.out" | sed 's/.*: *//') runs)"
	else
		echo "FAILED"
		tail -n 40 "$B/fuzz-$name.out" | sed 's/^/    /'
		failed="$failed $name"
	fi
}

for t in ${FUZZ_TARGETS:-envelope op log content create apply}; do
	case $t in
	envelope|op|log)
		fuzz "$t" "$t" ;;
	content|create|apply)
		for p in $FUZZ_PLUGINS; do
			fuzz "$t" "$t-$p" "$p"
		done ;;
	*)
		echo "fuzz: unknown target '$t'" >&2; exit 2 ;;
	esac
done
if [ -n "$failed" ]; then
	echo "fuzz: crashes in:$failed; inputs in $crashes/; reproduce with" >&2
	echo "  FUZZ_PLUGIN=$B/plugins/NAME.so $B/fuzz/TARGET $crashes/FILE" >&2
	echo "and add the input to tests/fuzz/regress/<name>/ once fixed" >&2
	exit 1
fi
echo "fuzz: every target ran ${S}s without a crash"
