#!/bin/sh
# assemble.sh OUT - the viewer as a static tree: the pages of web/ and, under
# vendor/, the browser builds of its npm dependencies (web/node_modules, from
# web/package-lock.json by `make deps`) and of the JavaScript client.
set -e
out=$1
here=$(cd "$(dirname "$0")" && pwd)
nm=$here/node_modules
if [ ! -f "$nm/libsodium-wrappers/dist/modules/libsodium-wrappers.js" ] ||
    [ ! -f "$nm/@msgpack/msgpack/dist.esm/index.mjs" ]; then
	echo "web: web/node_modules is missing or incomplete; run 'make deps' (npm ci in web/)" >&2
	exit 1
fi
rm -rf "$out.tmp"
mkdir -p "$out.tmp/vendor/msgpack" "$out.tmp/vendor/libsodium" "$out.tmp/vendor/refd-client"
cp "$here"/*.html "$here"/*.js "$here"/*.css "$out.tmp/"
cp "$nm"/@msgpack/msgpack/dist.esm/*.mjs "$out.tmp/vendor/msgpack/"
[ -d "$nm/@msgpack/msgpack/dist.esm/utils" ] && cp -R "$nm/@msgpack/msgpack/dist.esm/utils" "$out.tmp/vendor/msgpack/"
cp "$nm/libsodium/dist/modules/libsodium.js" "$nm/libsodium-wrappers/dist/modules/libsodium-wrappers.js" "$out.tmp/vendor/libsodium/"
cp "$here/../clients/js/src/index.js" "$out.tmp/vendor/refd-client/index.js"
cp "$nm/libsodium/LICENSE" "$out.tmp/vendor/libsodium/LICENSE" 2>/dev/null || true
cp "$nm/@msgpack/msgpack/LICENSE" "$out.tmp/vendor/msgpack/LICENSE" 2>/dev/null || true
rm -f "$out.tmp/assemble.sh"
rm -rf "$out"
mv "$out.tmp" "$out"
