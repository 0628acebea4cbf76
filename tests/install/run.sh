#!/usr/bin/env bash
# The install step itself: scripts/npm-install must install the same versions
# whichever npm runs it and whichever npm wrote the lock.
#
# The lock: tests/conformance/package-lock.json as another npm writes it,
# without vite's Windows-only optional entry
# node_modules/napi-windows-process-start-time (the lock npm 11.0 and npm 10
# write; npm 11.6 and later refuse it in `npm ci` as out of sync) and without
# the "libc" fields npm 10 leaves out. The npms: the machine's, and the newest
# npm 10 and npm 11 (pinned in tests/install/package.json). With each one:
#
#  1. scripts/npm-install exits 0;
#  2. the lock it was given is byte for byte the same afterwards;
#  3. what it installed is what the committed lock locks (checked against
#     tests/conformance/package-lock.json, not the lock it was given).
#
# Then the check can fail: one installed package's version changed, and
# scripts/npm-installed.mjs must exit 1 naming it.
#
# Needs node and npm and the npm registry. About 15 s per npm (npm's cache
# makes the later ones faster). Work folders: target/install-test/.
# Exit status: 0 every check held; 1 one did not (each printed).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
work="${CARGO_TARGET_DIR:-$root/target}/install-test"
committed="$root/tests/conformance"
failed=0

say() {
    printf '  %s\n' "$*"
}
fail() {
    printf '  FAIL: %s\n' "$*"
    failed=1
}

rm -rf "$work"
mkdir -p "$work"

# The npms under test.
bash scripts/npm-install tests/install "$work/npms" >/dev/null
for v in 10 11; do
    mkdir -p "$work/bin-npm$v"
    printf '#!/bin/sh\nexec node "%s" "$@"\n' "$work/npms/node_modules/npm$v/bin/npm-cli.js" >"$work/bin-npm$v/npm"
    chmod +x "$work/bin-npm$v/npm"
done

# The lock as another npm writes it.
other_lock="$work/other-npm-package-lock.json"
node -e '
    const fs = require("fs");
    const lock = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const gone = "node_modules/napi-windows-process-start-time";
    if (!lock.packages[gone]) { console.error(`the committed lock has no ${gone}: update tests/install/run.sh`); process.exit(1); }
    delete lock.packages[gone];
    for (const entry of Object.values(lock.packages)) delete entry.libc;
    fs.writeFileSync(process.argv[2], JSON.stringify(lock, null, 2) + "\n");' \
    "$committed/package-lock.json" "$other_lock"

for npm_bin in machine "$work/bin-npm10" "$work/bin-npm11"; do
    path="$PATH"
    [[ $npm_bin != machine ]] && path="$npm_bin:$PATH"
    version="$(PATH="$path" npm --version)"
    dest="$work/with-npm-$version"
    [[ $npm_bin == machine ]] && dest+="-machine"
    mkdir -p "$dest"
    cp "$committed/package.json" "$dest/"
    cp "$other_lock" "$dest/package-lock.json"
    who=""
    [[ $npm_bin == machine ]] && who=" (the machine's)"
    echo "npm $version$who, a lock another npm wrote:"
    rc=0
    PATH="$path" bash scripts/npm-install "$dest" >"$dest.log" 2>&1 || rc=$?
    sed 's/^/    /' "$dest.log"
    if [[ $rc != 0 ]]; then fail "scripts/npm-install exited $rc"; continue; fi
    say "scripts/npm-install exited 0"
    if cmp -s "$other_lock" "$dest/package-lock.json"; then say "the lock it was given is unchanged"; else fail "the lock changed"; fi
    cp "$committed/package-lock.json" "$dest/package-lock.json"
    if node scripts/npm-installed.mjs "$dest" >/dev/null 2>"$dest.check"; then
        say "installed: the versions tests/conformance/package-lock.json locks"
    else
        sed 's/^/    /' "$dest.check"
        fail "installed versions differ from tests/conformance/package-lock.json"
    fi
done

echo "the check catches a version that is not the locked one:"
probe="$(ls -d "$work"/with-npm-*-machine)"
pkg="$probe/node_modules/@modelcontextprotocol/conformance/package.json"
node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    p.version = "0.0.1";
    fs.writeFileSync(process.argv[1], JSON.stringify(p));' "$pkg"
rc=0
node scripts/npm-installed.mjs "$probe" >/dev/null 2>"$probe.tampered" || rc=$?
locked="$(node -e '
    const lock = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(lock.packages["node_modules/@modelcontextprotocol/conformance"].version);' "$committed/package-lock.json")"
if [[ $rc == 1 ]] && grep -qF "node_modules/@modelcontextprotocol/conformance: locked at $locked, installed 0.0.1" "$probe.tampered"; then
    say "exit 1: $(head -n 1 "$probe.tampered" | sed 's/^ *//')"
else
    fail "scripts/npm-installed.mjs exited $rc on a changed version"
fi

if [[ $failed != 0 ]]; then
    echo "tests/install: FAILED"
    exit 1
fi
echo "tests/install: passed"
