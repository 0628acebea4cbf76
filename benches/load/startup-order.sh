#!/usr/bin/env bash
# Writes crates/fusion-cli/startup.order: the functions the release `fusion`
# runs from its start to an idle stdio session, which the release link
# places side by side (crates/fusion-cli/build.rs says how and where).
# `fusion serve --example bench --stdio` runs under
# `valgrind --tool=callgrind --demangle=no`, gets an `initialize` request and
# the `notifications/initialized` notification, then end of input; every
# function callgrind saw is listed by its mangled name, sorted (names the
# binary does not define, such as glibc's, are skipped by the link).
#
# Run it after a change of Rust version or of dependencies (the mangled
# names carry a hash of the crate's build settings; a name the binary no
# longer has is skipped, so a stale list costs memory, never a build), then
# check the idle RSS column of benches/load/compare.sh.
#
# Usage: benches/load/startup-order.sh
# Exit codes: 0 when the list was written; 1 when the run left no profile or
# named no function; 2 for a build failure or a missing tool.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
order="$root/crates/fusion-cli/startup.order"

say() {
    printf 'startup-order: %s\n' "$*" >&2
}

for tool in cargo valgrind awk python3 sort; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "$tool not found: needed to build and profile"
        exit 2
    fi
done

say "building fusion (release)"
cargo build --release --quiet -p fusion-cli || exit 2
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
fusion="$target_dir/release/fusion"

profile="$(mktemp)"
trap 'rm -f "$profile"' EXIT
say "profiling the start-up of $fusion under callgrind"
printf '%s\n%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"startup-order","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' |
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$profile" \
        "$fusion" serve --example bench --stdio >/dev/null 2>&1 || true
if ! [ -s "$profile" ]; then
    say "callgrind left no profile"
    exit 1
fi

# `fn=(id) name` and `cfn=(id) name` name a function the first time; a
# recursion level is suffixed `'N`; `0x…` is code without a symbol. The
# names are sorted: the threads of a run meet them in a different order
# each time, and the link only needs them together.
listed="$(mktemp)"
awk '
    /^c?fn=\([0-9]+\) / {
        name = $0
        sub(/^c?fn=\([0-9]+\) /, "", name)
        sub(/'"'"'[0-9]+$/, "", name)
        if (name !~ /^0x/) print name
    }' "$profile" | LC_ALL=C sort -u >"$listed"
count="$(wc -l <"$listed")"
if [ "$count" -eq 0 ]; then
    rm -f "$listed"
    say "the profile names no function"
    exit 1
fi
{
    echo "# Written by benches/load/startup-order.sh: the functions the release"
    echo "# fusion binary runs from its start to an idle stdio session, sorted, which"
    echo "# its link places first (crates/fusion-cli/build.rs). $count names."
    cat "$listed"
} >"$order"
rm -f "$listed"
say "wrote $count names to crates/fusion-cli/startup.order; rebuild with cargo build --release -p fusion-cli"
