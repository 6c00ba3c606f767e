#!/bin/sh
# deps.sh - `make deps`: check the Debian packages the build and the tests
# need; as root with apt-get, install the missing ones (and check again),
# otherwise print the exact apt-get line and fail.
# `deps.sh fuzz` (make fuzz) checks only what the fuzz targets need beyond
# that: clang and its libFuzzer runtime (Debian 12: clang, libclang-rt-14-dev).
missing=""
mode=${1:-build}
need() { # need PACKAGE TEST...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
fuzzer_links() {
	t=$(mktemp -d) || return 1
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$t/f.c"
	${FUZZ_CC:-clang} -fsanitize=fuzzer,address,undefined -o "$t/f" "$t/f.c"
	rc=$?
	rm -rf "$t"
	return $rc
}
check() {
	missing=""
	if [ "$mode" = fuzz ]; then
		need clang sh -c "command -v ${FUZZ_CC:-clang}"
		need libclang-rt-14-dev fuzzer_links
		return
	fi
	need build-essential sh -c 'command -v cc && command -v c++ && command -v make && command -v ar'
	need pkg-config sh -c 'command -v pkg-config'
	need libnanomsg-dev pkg-config --exists nanomsg
	need libmsgpack-dev pkg-config --exists msgpack
	need libsodium-dev pkg-config --exists libsodium
	need libjansson-dev pkg-config --exists jansson
	need libseccomp-dev pkg-config --exists libseccomp
	need mandoc sh -c 'command -v mandoc'
	need groff-base sh -c 'command -v groff'
	need perl sh -c 'command -v prove'
	need libnanomsg-raw-perl perl -MNanoMsg::Raw -e1
	need libdata-messagepack-perl perl -MData::MessagePack -e1
	need libjson-pp-perl perl -MJSON::PP -e1
	need 'nodejs npm' sh -c 'command -v node && command -v npm'
	need python3-msgpack sh -c 'test -x /usr/bin/python3 && /usr/bin/python3 -c "import msgpack"'
	need chromium sh -c 'command -v chromium'
}
# npm packages of the JavaScript parts, from their lockfiles (npm ci), when
# node_modules is missing or older than the lockfile.
npm_deps() {
	[ "$mode" = build ] || return 0
	for d in clients/js web; do
		[ -f "$d/package-lock.json" ] || continue
		if [ ! -d "$d/node_modules" ] ||
		    [ "$d/package-lock.json" -nt "$d/node_modules" ]; then
			echo "deps: npm ci in $d"
			(cd "$d" && npm ci --no-audit --no-fund --loglevel=error) ||
			    { echo "deps: npm ci failed in $d" >&2; return 1; }
			touch "$d/node_modules"
		fi
	done
}
check
if [ -z "$missing" ]; then
	npm_deps
	exit $?
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || {
		echo "deps: apt-get install failed" >&2; exit 1; }
	check
	if [ -n "$missing" ]; then
		echo "deps: still missing after apt-get:$missing" >&2
		exit 1
	fi
	npm_deps || exit 1
else
	echo "deps: missing packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
