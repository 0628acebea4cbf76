#!/usr/bin/env bash
# Work per call, in instructions: the figure that does not move with the
# machine's load. Each server of benches/load/compare.sh that is native code
#   fusion   `fusion serve --example bench --stdio` (mcp-fusion)
#   floor    bare rmcp with three hand-written checks (benches/load/src/floor.rs)
# runs under `valgrind --tool=callgrind`, driven over stdio by the `load`
# binary (no warm-up, one call in flight by default) twice: for $SMALL calls
# and for $BIG calls. The difference of the two runs' instruction counts
# (Ir) over the difference of their calls is the work of one call; the
# start-up, the handshake and the exit cancel out. For each path (fail:
# three field errors; ok: a success) the table shows Ir per call, the fixed
# Ir of a run (start, handshake, exit: Ir(small) - small × per call) and the
# ratio to the floor's per-call Ir.
#
# Usage: benches/load/callgrind.sh
# The presented paths (PATHS="show show-plain list list-plain") measure what
# a presenter costs: fusion serves them with `--example bench-presented`, the
# same value with a presenter (show: one invoice, a field left out, one
# redacted, a rule, a suggestion; list: 100 invoices cut to 10) and without
# (-plain); the floor does not serve them (it is left out of those paths),
# and a line under the table gives each presented path's Ir per call minus
# its plain twin's.
#
# Settings (environment):
#   FUSION=PATH          the fusion binary measured [default: built here, release]
#   FUSION_BEFORE=PATH   also measure this fusion binary, as "fusion (before)"
#                        (e.g. a build of main before a change)
#   SMALL=300 BIG=1500   calls of the two runs
#   WORKERS=1            calls in flight
#   PATHS="fail ok"      the paths: fail ok show show-plain list list-plain
#   STACKS="fusion floor"  the servers, a subset of these
# Builds load-bench (the `load` driver and `floor`) in release, and fusion
# unless FUSION is set. Progress goes to stderr, one line per run; the table
# to stdout and target/load-bench/callgrind.md; the profiles stay in
# target/load-bench/callgrind/ (callgrind_annotate reads them).
# Exit codes: 0 when every run got only the answers it expects and left a
# profile; 1 when a run failed, got an unexpected answer or left no profile
# (its row says "failed"); 2 for a build failure or a missing tool.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
out="$root/target/load-bench"
profiles="$out/callgrind"

SMALL="${SMALL:-300}"
BIG="${BIG:-1500}"
WORKERS="${WORKERS:-1}"
PATHS="${PATHS:-fail ok}"
STACKS="${STACKS:-fusion floor}"
FUSION_BEFORE="${FUSION_BEFORE:-}"

say() {
    printf 'callgrind: %s\n' "$*" >&2
}

for tool in cargo valgrind awk; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "$tool not found: needed to build, count and tabulate"
        exit 2
    fi
done
if ! [ "$SMALL" -ge 1 ] 2>/dev/null || ! [ "$BIG" -gt "$SMALL" ] 2>/dev/null; then
    say "SMALL ($SMALL) and BIG ($BIG) must be whole numbers with 1 <= SMALL < BIG"
    exit 2
fi

mkdir -p "$profiles"
bin="${CARGO_TARGET_DIR:-$root/target}/release"
# Two builds, not one: together, cargo would unify their features and build
# a second copy of fusion's dependencies.
if [ -z "${FUSION:-}" ]; then
    say "building fusion (release)"
    cargo build --release --quiet -p fusion-cli || exit 2
    FUSION="$bin/fusion"
fi
say "building load-bench (release)"
cargo build --release --quiet -p load-bench || exit 2
load="$bin/load"
floor="$bin/floor"
for binary in "$FUSION" ${FUSION_BEFORE:+"$FUSION_BEFORE"}; do
    if [ ! -x "$binary" ]; then
        say "$binary is not an executable"
        exit 2
    fi
done

servers=()
for stack in fusion before floor; do
    case "$stack" in
    before) [ -n "$FUSION_BEFORE" ] && servers+=(before) ;;
    *) case " $STACKS " in *" $stack "*) servers+=("$stack") ;; esac ;;
    esac
done

# The command line of server $1 (stdio) for path $2.
server_command() {
    local example=bench
    case "$2" in fail | ok) ;; *) example=bench-presented ;; esac
    case "$1" in
    fusion) cmd=("$FUSION" serve --example "$example" --stdio) ;;
    before) cmd=("$FUSION_BEFORE" serve --example "$example" --stdio) ;;
    floor) cmd=("$floor") ;;
    esac
}

# The total Ir of a callgrind profile (its `summary:` or `totals:` line).
total_ir() {
    awk '/^(summary|totals):/ { print $2; exit }' "$1" 2>/dev/null
}

results="$out/callgrind.tsv"
: >"$results"
failures=0
# The floor serves get_invoice only.
runs_path() {
    [ "$1" != floor ] || [ "$2" = fail ] || [ "$2" = ok ]
}
total=0
for path in $PATHS; do
    for stack in "${servers[@]}"; do
        if runs_path "$stack" "$path"; then total=$((total + 2)); fi
    done
done
n=0
for path in $PATHS; do
    for stack in "${servers[@]}"; do
        runs_path "$stack" "$path" || continue
        server_command "$stack" "$path"
        irs=()
        for calls in "$SMALL" "$BIG"; do
            n=$((n + 1))
            profile="$profiles/$stack-$path-$calls.out"
            rm -f "$profile"
            rc=0
            # Slow under valgrind: a long handshake timeout, and time to
            # write the profile on exit.
            "$load" --path "$path" -w "$WORKERS" --warmup 0s --calls "$calls" \
                --timeout 120s --exit-grace 120s --label "$stack" -- \
                valgrind --tool=callgrind --callgrind-out-file="$profile" "${cmd[@]}" \
                >/dev/null 2>"$profiles/$stack-$path-$calls.log" || rc=$?
            ir="$(total_ir "$profile")"
            if [ "$rc" -ne 0 ] || [ -z "$ir" ]; then
                say "[$n/$total] $stack $path $calls calls: failed (load exit $rc; see ${profiles#"$root"/}/$stack-$path-$calls.log)"
                irs+=("")
            else
                say "[$n/$total] $stack $path $calls calls: $ir Ir"
                irs+=("$ir")
            fi
        done
        if [ -z "${irs[0]}" ] || [ -z "${irs[1]}" ]; then
            failures=$((failures + 1))
            printf '%s\t%s\tfailed\t\n' "$stack" "$path" >>"$results"
        else
            printf '%s\t%s\t%s\t%s\n' "$stack" "$path" "${irs[0]}" "${irs[1]}" >>"$results"
        fi
    done
done

awk -F'\t' -v small="$SMALL" -v big="$BIG" -v workers="$WORKERS" -v out="$out/callgrind.md" '
function name(s) { return s == "before" ? "fusion (before)" : (s == "floor" ? "rmcp floor" : s) }
function group(n,   s) { s = sprintf("%.0f", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($| )/, " &", s); return s }
{
    rows[NR] = $0
    if ($3 != "failed") { per[$1, $2] = ($4 - $3) / (big - small); fixed[$1, $2] = $3 - small * per[$1, $2] }
}
END {
    line("## Instructions per call (callgrind)")
    line("")
    line("(Ir(" big " calls) - Ir(" small " calls)) / " (big - small) "; " workers " in flight; no warm-up.")
    line("")
    line("| server | path | Ir per call | fixed Ir per run | vs floor |")
    line("|---|---|---:|---:|---:|")
    for (i = 1; i <= NR; i++) {
        split(rows[i], f, "\t")
        if (f[3] == "failed") { line("| " name(f[1]) " | " f[2] " | failed | - | - |"); continue }
        p = per[f[1], f[2]]
        base = per["floor", f[2]]
        ratio = base > 0 ? sprintf("%.2f×", p / base) : "-"
        line("| " name(f[1]) " | " f[2] " | " group(p) " | " group(fixed[f[1], f[2]]) " | " ratio " |")
    }
    twins = ""
    for (i = 1; i <= NR; i++) {
        split(rows[i], f, "\t")
        if ((f[2] == "show" || f[2] == "list") && ((f[1], f[2]) in per) && ((f[1], f[2] "-plain") in per))
            twins = twins sprintf("%s%s %s: %+.0f Ir", twins == "" ? "" : "; ", name(f[1]), f[2], per[f[1], f[2]] - per[f[1], f[2] "-plain"])
    }
    if (twins != "") { line(""); line("Presented minus plain, per call: " twins ".") }
}
function line(s) { print s; print s > out }
' "$results"

say "table saved to ${out#"$root"/}/callgrind.md, the profiles in ${profiles#"$root"/}/"
if [ "$failures" -ne 0 ]; then
    say "$failures measurements failed"
    exit 1
fi
