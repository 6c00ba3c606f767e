#!/bin/sh
# debian.sh - build the Debian packages from the committed tree, check them
# with lintian, install them, check the installed refd and SDK, and purge
# them leaving nothing behind.  Run by .ci/run as root on a Debian machine
# (it installs and removes packages: never on a machine of your own that
# has refd installed from elsewhere).
#
#   sh tests/debian.sh
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || ! command -v dpkg-buildpackage >/dev/null; then
	echo "debian.sh: needs root and dpkg-dev (apt-get install dpkg-dev" \
	    "debhelper lintian)" >&2
	exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/refd"
# The committed tree (what a source package would hold), plus any
# uncommitted changes of a work tree, without the build directory.
tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$T/refd"

echo "== dpkg-buildpackage -us -uc -b"
(cd "$T/refd" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b \
    >"$T/build.log" 2>&1) || { tail -40 "$T/build.log"; exit 1; }
ls "$T"/*.deb

echo "== lintian"
lintian "$T"/refd_*.changes >"$T/lintian.log" 2>&1 || true
cat "$T/lintian.log"
if grep -q '^E:' "$T/lintian.log"; then
	echo "debian.sh: lintian reports errors" >&2
	exit 1
fi

echo "== dpkg -i"
dpkg -i "$T"/refd_*.deb "$T"/refd-plugins_*.deb "$T"/refd-dev_*.deb \
    "$T"/python3-refd_*.deb
test -f /etc/refd.conf
test -f /lib/systemd/system/refd.service
/usr/bin/refd -t -f /etc/refd.conf --state-dir "$T/state"
(cd / && env -u PYTHONPATH /usr/bin/python3 -c \
    'import refd; print("python3-refd", refd.__version__)')

echo "== an out-of-tree plugin against the installed SDK"
mkdir "$T/mygame" "$T/plugins" "$T/rulesets"
cp sdk/examples/duel/duel.c "$T/mygame/"
cat >"$T/mygame/Makefile" <<'MK'
mygame.so: duel.c
	cc -shared -fPIC -o $@ duel.c $$(pkg-config --cflags --libs refd-plugin)
MK
make -s -C "$T/mygame"
cp "$T/mygame/mygame.so" "$T/plugins/duel.so"
chmod 755 "$T/plugins/duel.so"
cp -R sdk/examples/duel/content "$T/rulesets/duel"
/usr/bin/refd -t --state-dir "$T/state" --plugin-dir "$T/plugins" \
    --ruleset-dir "$T/rulesets"
/usr/bin/refctl check-plugin "$T/plugins/duel.so" \
    --content "$T/rulesets/duel" --games 5

echo "== dpkg --purge"
dpkg --purge python3-refd refd-dev refd-plugins refd
left=""
for f in /usr/bin/refd /usr/bin/refctl /etc/refd.conf /usr/lib/refd \
    /usr/share/refd /usr/include/refd /usr/lib/librefdsdk.a \
    /usr/lib/pkgconfig/refd-plugin.pc /lib/systemd/system/refd.service \
    /usr/share/doc/refd /var/lib/refd /usr/lib/python3/dist-packages/refd \
    /etc/systemd/system/multi-user.target.wants/refd.service; do
	[ -e "$f" ] && left="$left $f"
done
if [ -n "$left" ]; then
	echo "debian.sh: left behind after purge:$left" >&2
	exit 1
fi
echo "debian.sh: packages built, lintian clean, installed, checked and purged"
