#!/usr/bin/env bash
# The actionability measurement: the scripted agent (actionability/agent.py)
# runs every scenario of actionability/scenarios/ against servers with the
# same tools, and prints the share of failures it fixed with one retry, per
# category:
#   ours       fusion serve --example actionability (mcp-fusion)
#   ts-sdk     actionability/servers/ts: the official TypeScript SDK + zod
#   fastmcp    actionability/servers/fastmcp: FastMCP + pydantic
#   rmcp       actionability/servers/rmcp: plain rmcp (the official Rust SDK),
#              `#[tool]` with rmcp's Parameters<T> and plain-text errors
#   ours-rmcp  the same rmcp router through mcp-fusion's rmcp adapter
#              (`actionability-rmcp --adapter`): mcp-fusion's envelopes
# The first three run by default; `--stacks ours,rmcp,ours-rmcp` (or any
# list) picks others. The two rmcp stacks are left out of the default: they
# add close to two minutes of runs (ours-rmcp waits out a real minute of
# rate limit) and the build of actionability-rmcp.
# It installs what it needs under target/actionability/ (the TypeScript
# server with scripts/npm-install, FastMCP with scripts/venv-install, the
# MCP Python SDK client in the repository's .venv), builds `fusion` (and
# `actionability-rmcp` when an rmcp stack is chosen), and says whether the
# original TypeScript implementation (@vurb/core) can be installed from npm.
#
# Needs: a Rust toolchain, python3 with venv, Node.js 20+ with npm, network
# access to crates.io, PyPI and npm. Takes about 5 minutes for the default
# stacks (the busy and rate-limit scenarios wait for real).
#
# Writes target/actionability/results.txt (the table) and runs.jsonl (one
# line per stack and scenario: what the agent read, what it sent, the
# outcome); results-NAME.txt and runs-NAME.jsonl for --scenarios NAME. Exit
# 0 when mcp-fusion fixes at least 95 % of its failures in one retry, 1 when
# it does not, 2 when something could not be set up.
#
# Options: --only ID (repeatable) runs those scenarios; --stacks LIST runs a
# comma-separated list of ours,ts-sdk,fastmcp,rmcp,ours-rmcp (default
# ours,ts-sdk,fastmcp); --verbose shows every scenario's texts; --scenarios
# DIR runs the scenario files of DIR instead of actionability/scenarios (e.g.
# actionability/held-out, the set kept aside to check that the error texts
# are not tuned to the scenarios; see its README); --fusion BIN measures that
# already-built fusion binary instead of building one with cargo (the rmcp
# stacks are still built).
set -euo pipefail

caller="$(pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
out="$root/target/actionability"
fusion="${CARGO_TARGET_DIR:-$root/target}/debug/fusion"
rmcp_server="${CARGO_TARGET_DIR:-$root/target}/debug/actionability-rmcp"
mkdir -p "$out"

stacks="ours,ts-sdk,fastmcp"
scenarios=""
prebuilt=""
agent_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --only) agent_args+=(--only "$2"); shift 2 ;;
        --scenarios) scenarios="$2"; shift 2 ;;
        --fusion) prebuilt="$2"; shift 2 ;;
        --stacks) stacks="$2"; shift 2 ;;
        --verbose) agent_args+=(--verbose); shift ;;
        *) echo "run.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done

# The outputs of another folder's run are named after it (results-held-out.txt…).
tag=""
if [ -n "$scenarios" ]; then
    case "$scenarios" in /*) ;; *) scenarios="$caller/$scenarios" ;; esac
    if [ ! -d "$scenarios" ]; then
        echo "run.sh: --scenarios $scenarios: no such folder" >&2
        exit 2
    fi
    scenarios="$(cd "$scenarios" && pwd)"
    [ "$scenarios" = "$root/actionability/scenarios" ] || tag="-$(basename "$scenarios")"
else
    scenarios="$root/actionability/scenarios"
fi

say() {
    printf '==> %s\n' "$*" >&2
}

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "run.sh: $1 is needed ($2)" >&2
        exit 2
    fi
}
if [ -z "$prebuilt" ]; then
    need cargo "the Rust toolchain builds fusion (or give a built one with --fusion BIN)"
fi
need python3 "the agent and FastMCP run on it"
need node "the TypeScript SDK server runs on it (Node.js 20 or newer)"
need npm "installs the TypeScript SDK server"

. actionability/stacks.sh
setup_stacks

# The original implementation: measured beside ours if npm has it.
if vurb="$(npm view @vurb/core version 2>/dev/null)" && [ -n "$vurb" ]; then
    vurb_line="@vurb/core $vurb is in the npm registry, but no actionability server is written with it yet: not measured."
else
    vurb_line="@vurb/core (the original TypeScript implementation) cannot be installed: the npm registry answers 404 for it, so it is not measured."
fi

stack_arguments

require=()
case ",$stacks," in *,ours,*) require=(--require ours=95) ;; esac

say "the agent: $(ls "$scenarios"/*.json 2>/dev/null | wc -l) scenario files in $scenarios, stacks: $stacks"
status=0
.venv/bin/python actionability/agent.py \
    --scenarios "$scenarios" \
    --foreign "node $out/ts/server.mjs" \
    --json "$out/runs$tag.jsonl" \
    "${stack_args[@]}" "${require[@]}" "${agent_args[@]}" >"$out/table$tag.txt" || status=$?
legend="a/b: fixed with one retry / failed at first; (+n ok): the stack accepted n bad calls as they were."
{
    cat "$out/table$tag.txt"
    echo
    echo "$legend"
    echo "$vurb_line"
} | tee "$out/results$tag.txt"
echo "results: $out/results$tag.txt, every run: $out/runs$tag.jsonl"
exit "$status"
