#!/usr/bin/env bash
# The side-by-side load bench: the same tool, get_invoice (three checks:
# id pattern, email, integer >= 1), served by
#   fusion   `fusion serve --example bench` (mcp-fusion)
#   gateway  `fusion gateway` with that server mounted as its one upstream
#            (namespace bench: the call is bench.get_invoice), forwarding
#            over stdio (stdio section) or Streamable HTTP (HTTP section)
#   floor    bare rmcp with three hand-written checks (benches/load/src/floor.rs)
#   ts       the official TypeScript SDK with zod (benches/load/ts/server.mjs)
#   fastmcp  FastMCP with pydantic (benches/load/fastmcp/server.py)
#   before   `$FUSION_BEFORE serve --example bench`, only with FUSION_BEFORE
#            set: a fusion built before a change, measured in the same run
#   otel     `fusion serve --example bench --otel export`, every call traced
#            (OTEL_TRACES_SAMPLER=always_on), spans and metrics exported over
#            OTLP/HTTP to `otlp-sink` (benches/load/src/bin/otlp_sink.rs)
#   otel-out the same, every call sampled out (OTEL_TRACES_SAMPLER=always_off):
#            no span recorded, the duration histogram still recorded
#            (not in the default STACKS: STACKS="fusion otel otel-out")
# driven by the `load` binary (raw JSON-RPC, closed loop).
#
# Stdio section: each server x path (fail, ok) x mode
#   w1   one call in flight, server pinned to cpu 0 and driver to cpu 1
#        (taskset; a gateway and its upstream both on cpu 0)
#   w32  32 calls in flight, nothing pinned
# Streamable HTTP section: each server x path with $CONNECTIONS sessions of
# one call in flight each (k16), nothing pinned.
# Every combination runs $RUNS times, the servers taking turns (round-robin)
# so that noise spreads over all of them; the tables show the medians:
# calls/s, p50 and p99 latency (µs), the server's idle RSS after the
# handshake (MiB; a gateway's own, without its upstream), and calls/s as a
# ratio of the floor's (stdio) or the TypeScript SDK's (HTTP) on the same
# path and mode; then the gateway's p50 against the direct call's (fusion's)
# and, with FUSION_BEFORE, fusion against fusion (before).
#
# Usage: benches/load/compare.sh
# Settings (environment):
#   DURATION=3        seconds measured per run
#   WARMUP=0.5        seconds of warm-up per run (checked, not measured)
#   RUNS=3            runs of each combination
#   CONNECTIONS=16    HTTP sessions
#   STACKS="fusion gateway floor ts fastmcp"   the servers, a subset of these
#   FUSION_BEFORE=PATH  also measure this fusion binary as "fusion (before)",
#                     e.g. a release build of main before a change
#   HTTP=1            0 leaves the HTTP section out
#   HTTP_PORT=18470   the first port of the HTTP servers (one per server, and
#                     one more for the gateway's upstream)
#   OTLP_PORT=18469   the port of the otel stacks' OTLP sink
#   DRIVER_THREADS=1  threads of the driver's runtime
# Installs the TypeScript SDK (scripts/npm-install) and FastMCP
# (scripts/venv-install) into target/load-bench/ once; a stack whose install
# fails (no registry, no node, no python3) is left out, saying so. Progress
# goes to stderr, one line per run; the tables to stdout and
# target/load-bench/results.md; every run's JSON report to
# target/load-bench/runs.jsonl. The default run takes about 12 minutes
# (14 with FUSION_BEFORE: 90 and 108 runs of about 4.5 s, and the installs).
# Exit codes: 0 when every run got only the answers it expects; 1 when a run
# failed or got an unexpected answer (its rows say "failed"); 2 for a build
# failure or a missing tool.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
out="$root/target/load-bench"
src="$root/benches/load"

DURATION="${DURATION:-3}"
WARMUP="${WARMUP:-0.5}"
RUNS="${RUNS:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
STACKS="${STACKS:-fusion gateway floor ts fastmcp}"
FUSION_BEFORE="${FUSION_BEFORE:-}"
HTTP="${HTTP:-1}"
HTTP_PORT="${HTTP_PORT:-18470}"
OTLP_PORT="${OTLP_PORT:-18469}"
DRIVER_THREADS="${DRIVER_THREADS:-1}"

say() {
    printf 'compare: %s\n' "$*" >&2
}

for tool in cargo python3 taskset; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "$tool not found: needed to build, pin and tabulate"
        exit 2
    fi
done

if [ "$(nproc)" -lt 2 ]; then
    say "the w1 runs pin the server and the driver to cpus 0 and 1: this machine has $(nproc) cpu"
    exit 2
fi

mkdir -p "$out"

# Two builds, not one: together, cargo would unify their features and build
# a second copy of fusion's dependencies.
say "building fusion and load-bench (release)"
cargo build --release --quiet -p fusion-cli || exit 2
cargo build --release --quiet -p load-bench || exit 2
bin="${CARGO_TARGET_DIR:-$root/target}/release"
fusion="$bin/fusion"
load="$bin/load"
floor="$bin/floor"
otlp_sink="$bin/otlp-sink"
if [ -n "$FUSION_BEFORE" ] && [ ! -x "$FUSION_BEFORE" ]; then
    say "FUSION_BEFORE=$FUSION_BEFORE is not an executable"
    exit 2
fi

wanted() {
    case " $STACKS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# --- the TypeScript SDK server: scripts/npm-install into target/load-bench/ts
install_ts() {
    local dir="$out/ts"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        say "node or npm not found: the TypeScript SDK is left out"
        return 1
    fi
    say "installing the TypeScript SDK (scripts/npm-install into $dir)"
    if ! bash "$root/scripts/npm-install" "$src/ts" "$dir" >&2; then
        say "the install failed (is the npm registry reachable?): the TypeScript SDK is left out"
        return 1
    fi
    cp "$src/ts/server.mjs" "$dir/"
}

# --- FastMCP: a venv in target/load-bench/fastmcp-venv --------------------
install_fastmcp() {
    say "installing FastMCP (scripts/venv-install into $out/fastmcp-venv)"
    if ! bash "$root/scripts/venv-install" "$out/fastmcp-venv" "$src/fastmcp/requirements.txt" >&2; then
        say "the install failed (python3 with venv, is PyPI reachable?): FastMCP is left out"
        return 1
    fi
}

servers=()
for stack in fusion before otel otel-out gateway floor ts fastmcp; do
    if [ "$stack" = before ]; then
        [ -n "$FUSION_BEFORE" ] || continue
    else
        wanted "$stack" || continue
    fi
    case "$stack" in
    ts) install_ts || continue ;;
    fastmcp) install_fastmcp || continue ;;
    esac
    servers+=("$stack")
done
if [ "${#servers[@]}" -eq 0 ]; then
    say "no server to measure (STACKS=\"$STACKS\")"
    exit 2
fi

# The gateway's configuration: the bench server mounted under `bench`, as
# a stdio command, or (with a port) at its Streamable HTTP URL.
gateway_config() {
    local port="${1:-}" file
    if [ -n "$port" ]; then
        file="$out/gateway-http.toml"
        printf '[[upstream]]\nnamespace = "bench"\nurl = "http://127.0.0.1:%s/mcp"\n' "$port" >"$file"
    else
        file="$out/gateway-stdio.toml"
        printf '[[upstream]]\nnamespace = "bench"\ncommand = ["%s", "serve", "--example", "bench", "--stdio"]\n' "$fusion" >"$file"
    fi
    printf '%s' "$file"
}

# The command line of a server: stdio, or Streamable HTTP on port $2 (a
# gateway's upstream on port $3).
server_command() {
    local stack="$1" port="${2:-}" upstream_port="${3:-}"
    case "$stack" in
    fusion) cmd=("$fusion" serve --example bench ${port:+--port "$port"}) ;;
    before) cmd=("$FUSION_BEFORE" serve --example bench ${port:+--port "$port"}) ;;
    otel | otel-out)
        local sampler=always_on
        [ "$stack" = otel ] || sampler=always_off
        cmd=(env "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$OTLP_PORT" "OTEL_TRACES_SAMPLER=$sampler"
            OTEL_SERVICE_NAME=bench "$fusion" serve --example bench --otel export ${port:+--port "$port"})
        ;;
    gateway) cmd=("$fusion" gateway --config "$(gateway_config "$upstream_port")" ${port:+--port "$port"}) ;;
    floor) cmd=("$floor" ${port:+--http "$port"}) ;;
    ts) cmd=(node "$out/ts/server.mjs" ${port:+--http "$port"}) ;;
    fastmcp) cmd=("$out/fastmcp-venv/bin/python" "$src/fastmcp/server.py" ${port:+--http "$port"}) ;;
    esac
    case "$stack" in
    fusion | before | otel | otel-out | gateway) [ -n "$port" ] || cmd+=(--stdio) ;;
    esac
}

# The driver's options for a server: the gateway's tool is mounted as
# bench.get_invoice, and is listed (its upstream connected) before the
# first call.
call_options() {
    case "$1" in
    gateway) call=(--tool bench.get_invoice --list-tools) ;;
    *) call=() ;;
    esac
}

load_at_start="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
runs_file="$out/runs.jsonl"
: >"$runs_file"
failures=0
server_pid=""
upstream_pid=""
sink_pid=""
trap 'for pid in $server_pid $upstream_pid $sink_pid; do kill "$pid" 2>/dev/null || true; done' EXIT
case " ${servers[*]} " in
*" otel "* | *" otel-out "*)
    "$otlp_sink" --port "$OTLP_PORT" &
    sink_pid=$!
    ;;
esac

# Records one run: its JSON report with the section and mode added, or a
# failed row. Args: section mode stack path exit-code json progress-label.
record() {
    local section="$1" mode="$2" stack="$3" path="$4" rc="$5" json="$6" label="$7"
    if [ "$rc" -ne 0 ]; then
        failures=$((failures + 1))
    fi
    if [ -n "$json" ]; then
        printf '%s\n' "$json" |
            python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r.update(section=sys.argv[1], mode=sys.argv[2], server=sys.argv[3], exit=int(sys.argv[4])); print(json.dumps(r))' \
                "$section" "$mode" "$stack" "$rc" >>"$runs_file"
        local rate note=""
        rate="$(printf '%s\n' "$json" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["calls_per_s"]))')"
        if [ "$rc" -ne 0 ]; then
            note=" (unexpected answers, exit $rc)"
        fi
        say "$label: $rate calls/s$note"
    else
        printf '{"section":"%s","mode":"%s","server":"%s","path":"%s","exit":%s}\n' \
            "$section" "$mode" "$stack" "$path" "$rc" >>"$runs_file"
        say "$label: failed (exit $rc)"
    fi
}

common=(--json --duration "${DURATION}s" --warmup "${WARMUP}s" --threads "$DRIVER_THREADS")

# --- stdio ----------------------------------------------------------------
total=$((2 * 2 * RUNS * ${#servers[@]}))
n=0
for path in fail ok; do
    for mode in w1 w32; do
        for run in $(seq 1 "$RUNS"); do
            for stack in "${servers[@]}"; do
                n=$((n + 1))
                server_command "$stack"
                call_options "$stack"
                if [ "$mode" = w1 ]; then
                    driver=(taskset -c 1 "$load" -w 1)
                    cmd=(taskset -c 0 "${cmd[@]}")
                else
                    driver=("$load" -w 32)
                fi
                rc=0
                json="$("${driver[@]}" "${common[@]}" ${call[@]+"${call[@]}"} --path "$path" --label "$stack" -- "${cmd[@]}")" || rc=$?
                record stdio "$mode" "$stack" "$path" "$rc" "$json" \
                    "[$n/$total] stdio $stack $path $mode run $run/$RUNS"
            done
        done
    done
done

# --- Streamable HTTP ------------------------------------------------------
# Waits until something listens on 127.0.0.1:$1 (10 s at most) while
# process $2 runs.
wait_for_port() {
    local port="$1" pid="$2" tries=0
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
            return 1
        fi
        sleep 0.1
    done
}

# Whether something listens on 127.0.0.1:$1 already (a server left by an
# earlier, killed run would answer in place of this one's): says so.
port_taken() {
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
        say "port $1 is already in use: stop what listens there, or set HTTP_PORT"
        return 0
    fi
    return 1
}

# Stops the HTTP server (and a gateway's upstream) of a run.
stop_servers() {
    for pid in $server_pid $upstream_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    server_pid=""
    upstream_pid=""
}

if [ "$HTTP" != 0 ]; then
    total=$((2 * RUNS * ${#servers[@]}))
    n=0
    mode="k$CONNECTIONS"
    for path in fail ok; do
        for run in $(seq 1 "$RUNS"); do
            index=0
            for stack in "${servers[@]}"; do
                n=$((n + 1))
                port=$((HTTP_PORT + index))
                index=$((index + 1))
                # The gateway's upstream: the bench server on the port after
                # every server's.
                upstream_port=""
                if [ "$stack" = gateway ]; then
                    upstream_port=$((HTTP_PORT + ${#servers[@]}))
                fi
                if port_taken "$port" || { [ -n "$upstream_port" ] && port_taken "$upstream_port"; }; then
                    exit 2
                fi
                label="[$n/$total] http $stack $path $mode run $run/$RUNS"
                rc=0
                json=""
                started=1
                if [ -n "$upstream_port" ]; then
                    "$fusion" serve --example bench --port "$upstream_port" >/dev/null 2>"$out/http-upstream.log" &
                    upstream_pid=$!
                    if ! wait_for_port "$upstream_port" "$upstream_pid"; then
                        say "the gateway's upstream did not listen on port $upstream_port; its stderr: $(tail -c 600 "$out/http-upstream.log")"
                        started=0
                    fi
                fi
                server_command "$stack" "$port" "$upstream_port"
                call_options "$stack"
                if [ "$started" = 1 ]; then
                    "${cmd[@]}" >/dev/null 2>"$out/http-$stack.log" &
                    server_pid=$!
                    if wait_for_port "$port" "$server_pid"; then
                        json="$("$load" "${common[@]}" ${call[@]+"${call[@]}"} --url "http://127.0.0.1:$port/mcp" \
                            --pid "$server_pid" -k "$CONNECTIONS" -w 1 --path "$path" --label "$stack")" || rc=$?
                    else
                        say "$stack did not listen on port $port; its stderr: $(tail -c 600 "$out/http-$stack.log")"
                        started=0
                    fi
                fi
                if [ "$started" = 0 ]; then
                    rc=2
                fi
                stop_servers
                record http "$mode" "$stack" "$path" "$rc" "$json" "$label"
            done
        done
    done
fi

# --- the table --------------------------------------------------------------
settings="DURATION=${DURATION}s, WARMUP=${WARMUP}s, RUNS=$RUNS, CONNECTIONS=$CONNECTIONS, DRIVER_THREADS=$DRIVER_THREADS; $(nproc) cpus; load average at the start: $load_at_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
python3 - "$runs_file" "$out/results.md" "$CONNECTIONS" "$settings" <<'PY'
import json
import statistics
import sys

runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
order = {"fusion": 0, "before": 1, "otel": 2, "otel-out": 3, "gateway": 4, "floor": 5, "ts": 6, "fastmcp": 7}
names = {
    "fusion": "fusion",
    "before": "fusion (before)",
    "otel": "fusion, OpenTelemetry (every call traced)",
    "otel-out": "fusion, OpenTelemetry (sampled out)",
    "gateway": "fusion gateway",
    "floor": "rmcp floor",
    "ts": "TS SDK",
    "fastmcp": "FastMCP",
}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def rows(section):
    groups = {}
    for r in runs:
        if r["section"] == section:
            groups.setdefault((r["path"], r["mode"], r["server"]), []).append(r)
    out = {}
    for key, group in groups.items():
        good = [r for r in group if r["exit"] == 0 and "calls_per_s" in r]
        out[key] = {
            "failed": len(group) - len(good),
            "runs": len(group),
            "rate": median([r["calls_per_s"] for r in good]),
            "p50": median([r["p50_us"] for r in good]),
            "p99": median([r["p99_us"] for r in good]),
            "rss": median([r["rss_idle_mib"] for r in good]),
        }
    return out


def table(section, baseline, title):
    data = rows(section)
    if not data:
        return []
    lines = [
        f"### {title}",
        "",
        f"| server | path | mode | calls/s | p50 µs | p99 µs | idle RSS MiB | vs {names[baseline]} |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    fmt = lambda v, spec: "-" if v is None else format(v, spec)
    paths = {"fail": 0, "ok": 1}
    for key in sorted(data, key=lambda k: (paths.get(k[0], 9), k[1], order.get(k[2], 9))):
        path, mode, server = key
        row = data[key]
        base = data.get((path, mode, baseline), {}).get("rate")
        ratio = "-" if row["rate"] is None or not base else f"{row['rate'] / base:.2f}×"
        rate = fmt(row["rate"], ".0f")
        if row["failed"]:
            rate += f" ({row['failed']}/{row['runs']} runs failed)"
        lines.append(
            f"| {names.get(server, server)} | {path} | {mode} | {rate} | {fmt(row['p50'], '.1f')} "
            f"| {fmt(row['p99'], '.1f')} | {fmt(row['rss'], '.1f')} | {ratio} |"
        )
    lines.append("")
    return lines


def against(server, baseline, title, what):
    """`server` against `baseline` on each section, path and mode both ran:
    p50 and calls/s side by side, and their ratios."""
    lines = []
    paths = {"fail": 0, "ok": 1}
    for section in ("stdio", "http"):
        data = rows(section)
        for key in sorted(data, key=lambda k: (paths.get(k[0], 9), k[1])):
            path, mode, name = key
            if name != server or (path, mode, baseline) not in data:
                continue
            mine, base = data[key], data[(path, mode, baseline)]
            fmt = lambda v, spec: "-" if v is None else format(v, spec)
            ratio = lambda a, b: "-" if a is None or not b else f"{a / b:.2f}×"
            lines.append(
                f"| {section} | {path} | {mode} | {fmt(base['p50'], '.1f')} | {fmt(mine['p50'], '.1f')} "
                f"| {ratio(mine['p50'], base['p50'])} | {fmt(base['rate'], '.0f')} | {fmt(mine['rate'], '.0f')} "
                f"| {ratio(mine['rate'], base['rate'])} |"
            )
    if not lines:
        return []
    b, m = names[baseline], names[server]
    return [
        f"### {title}",
        "",
        what,
        "",
        f"| section | path | mode | {b} p50 µs | {m} p50 µs | p50 ratio | {b} calls/s | {m} calls/s | calls/s ratio |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ] + lines + [""]


text = ["## Load bench: medians", "", sys.argv[4], ""]
text += table("stdio", "floor", "stdio (w1: 1 in flight, server on cpu 0, driver on cpu 1; w32: 32 in flight, unpinned)")
k = sys.argv[3]
text += table("http", "ts", f"Streamable HTTP (k{k}: {k} sessions, 1 call in flight each, unpinned)")
text += against(
    "gateway",
    "fusion",
    "The gateway against the direct call",
    "A call of bench.get_invoice through `fusion gateway` to a `fusion serve --example bench` upstream "
    "(stdio: a child process; HTTP: a Streamable HTTP server), against get_invoice called directly.",
)
text += against(
    "fusion",
    "before",
    "fusion against fusion (before)",
    "The same server built before the change (FUSION_BEFORE) and after it; a p50 ratio below 1 and a "
    "calls/s ratio above 1 mean the change made it faster.",
)
# The otel stacks against fusion built without the feature (FUSION_BEFORE,
# e.g. `cargo build --release -p fusion-cli --no-default-features --features
# example`) when it was measured, else against fusion without `--otel`.
base = "before" if any(r["server"] == "before" for r in runs) else "fusion"
for stack, how in (("otel", "every call traced and exported"), ("otel-out", "every call sampled out")):
    text += against(
        stack,
        base,
        f"OpenTelemetry against {names[base]} ({how})",
        "`fusion serve --example bench --otel export` exporting over OTLP/HTTP to a sink, against "
        f"{names[base]}; the calls/s ratio is what tracing costs.",
    )
output = "\n".join(text)
print(output)
with open(sys.argv[2], "w") as f:
    f.write(output + "\n")
PY

say "table saved to ${out#"$root"/}/results.md, every run in ${runs_file#"$root"/}"
if [ "$failures" -ne 0 ]; then
    say "$failures runs failed or got unexpected answers (runs.jsonl has their exit codes)"
    exit 1
fi
