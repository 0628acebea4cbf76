#!/usr/bin/env python3
"""The real-model actionability runner: a language model reads each failure.

For every scenario of actionability/agent.py (the same files, servers, setup
calls and judging), a fresh server of each stack is started, the scenario's
bad call is sent, and a language model is shown what an MCP client shows a
model, the same for every stack:

  system     SYSTEM_PROMPT, the answer's format (FORMAT_LINE) and the tool list
             as that server's tools/list returned it (name, description,
             inputSchema; one JSON object a line)
  assistant  the previous call, {"tool": NAME, "arguments": {...}}
  tool       the exact text of the result: its text content, or a JSON-RPC
             error as the official TypeScript SDK client surfaces it
             ("MCP error CODE: MESSAGE")

in the model's chat format (ChatML; the tool's turn as Qwen2.5's chat
template writes it). A results scenario (one with a "goal", the user's
request) measures what the model does after a call that succeeded: the
system prompt is GOAL_PROMPT, the user's request comes first, then the calls
of its "history" (sent for real, in order, before the call) with their
answers, then the call and its answer; the model is asked whatever the
answer was. The answer is constrained by a grammar (ANSWER_SCHEMA) to
a next call {"tool", "arguments"} (optionally with "wait_seconds", honoured up
to --max-wait seconds before the call) or {"stop": MESSAGE FOR THE USER}.

Judging is agent.py's: a stop is right where the scenario expects one (and
no call is sent there); a call is fixed when the server accepts it and it
matches the expectation; "accepted" when the stack took the bad call as it
was (the model is not asked). A run the harness could not finish is an
"error", left out of the shares.

The model is a separate process (MODEL COMMAND) that speaks JSON lines, so a
deterministic stub (stub.py) can stand in for it in tests:
  <- {"ready": true, "model": NAME}
  -> {"id": N, "prompt": TEXT, "schema": SCHEMA, "max_tokens": N}
  <- {"id": N, "text": ANSWER, "tokens_in": N, "tokens_evaluated": N, "tokens_out": N, "seconds": S}
  -> {"id": N, "count": TEXT}
  <- {"id": N, "tokens": N}
llm.mjs is the real one (node-llama-cpp). run.sh beside this file sets it up.

Writes one JSON line per (stack, scenario) to --json (the prompt, the raw
answer, the outcome, tokens and seconds; see record()) and prints the table.
Exit status: 0 when every run finished; 2 on bad usage, a server or model
that does not start, or a run that ended in an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import agent  # noqa: E402  (the scenarios, servers and judging are agent.py's)
from mcp import MCPError  # noqa: E402

SYSTEM_PROMPT = (
    "You are an assistant using tools of an MCP server. Your last tool call failed or returned a "
    "warning; decide the next step. Reply with JSON only: the next tool call, or stop with a "
    "message for the user if retrying cannot help."
)
GOAL_PROMPT = (
    "You are an assistant using tools of an MCP server to do what the user asks. Read the tool's "
    "last answer and decide the next step. Reply with JSON only: the next tool call, or stop with "
    "a message for the user when the request is done or only the user can go on."
)
FORMAT_LINE = (
    'Format: {"tool": NAME, "arguments": {...}} for the next call (add "wait_seconds": N to wait '
    'N seconds before it), or {"stop": "message for the user"}.'
)
_ARGS = {"type": "object", "additionalProperties": True}
ANSWER_SCHEMA = {
    "oneOf": [
        {"type": "object", "properties": {"tool": {"type": "string"}, "arguments": _ARGS}},
        {"type": "object", "properties": {"tool": {"type": "string"}, "arguments": _ARGS,
                                          "wait_seconds": {"type": "number"}}},
        {"type": "object", "properties": {"stop": {"type": "string"}}},
    ]
}
MAX_ANSWER_TOKENS = 512
MODEL_TIMEOUT = 600  # seconds for one answer (a first prompt on one thread takes about a minute)


# ------------------------------------------------------------------ prompt


def tool_line(tool) -> str:
    """One tool of tools/list as the model reads it: name, description, inputSchema."""
    wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    entry = {"name": wire["name"], "description": wire.get("description", ""), "inputSchema": wire["inputSchema"]}
    return json.dumps(entry, ensure_ascii=False)


def call_text(call: dict) -> str:
    return json.dumps({"tool": call["tool"], "arguments": call["arguments"]}, ensure_ascii=False)


def result_text(outcome) -> tuple[bool, str]:
    """(failed, text the model reads) of a call's outcome: a result or a JSON-RPC error."""
    if isinstance(outcome, MCPError):
        return True, f"MCP error {outcome.error.code}: {outcome.error.message}"
    return agent.text_of(outcome)


def build_prompt(tools: list, call: dict, text: str, goal: str = "",
                 history: list[tuple[dict, str]] = ()) -> str:
    """The whole prompt in ChatML, ending where the model's answer starts. A
    scenario with a user's goal (a results scenario) shows it first, then the
    earlier calls of its history with their answers, then the call."""
    system = "\n".join([GOAL_PROMPT if goal else SYSTEM_PROMPT, FORMAT_LINE, "", "Tools of the server:",
                        "<tools>", *(tool_line(t) for t in tools), "</tools>"])
    turns = [f"<|im_start|>system\n{system}<|im_end|>\n"]
    if goal:
        turns.append(f"<|im_start|>user\n{goal}<|im_end|>\n")
    for earlier, answer in [*history, (call, text)]:
        turns.append(f"<|im_start|>assistant\n{call_text(earlier)}<|im_end|>\n")
        turns.append(f"<|im_start|>user\n<tool_response>\n{answer}\n</tool_response><|im_end|>\n")
    turns.append("<|im_start|>assistant\n")
    return "".join(turns)


# ------------------------------------------------------------------ answer


@dataclass
class Decision:
    kind: str  # call | stop | invalid
    call: dict | None = None
    wait: float | None = None
    message: str = ""


def decide(raw: str) -> Decision:
    """The model's answer read back: a call, a stop, or invalid (not one of the two shapes)."""
    try:
        answer = json.loads(raw)
    except ValueError:
        return Decision("invalid", message="not JSON")
    if not isinstance(answer, dict):
        return Decision("invalid", message="not a JSON object")
    if isinstance(answer.get("stop"), str):
        return Decision("stop", message=answer["stop"])
    tool, args = answer.get("tool"), answer.get("arguments")
    if not isinstance(tool, str) or not isinstance(args, dict):
        return Decision("invalid", message="neither a call nor a stop")
    wait = answer.get("wait_seconds")
    wait = float(wait) if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait > 0 else None
    return Decision("call", {"tool": tool, "arguments": args}, wait)


# ------------------------------------------------------------------- model


class Model:
    """The model process (MODEL COMMAND): one request at a time over JSON lines."""

    def __init__(self, command: str):
        self.command = command
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.next_id = 0
        ready = self._read()
        if not ready.get("ready"):
            raise agent.UsageError(f"--model `{command}` did not say it was ready: {ready}")
        self.name = str(ready.get("model", "model"))

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise agent.UsageError(f"--model `{self.command}` exited (status {self.proc.poll()})")
        return json.loads(line)

    def _ask(self, request: dict) -> dict:
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": self.next_id, **request}) + "\n")
        self.proc.stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"the model process failed: {reply['error']}")
        return reply

    async def answer(self, prompt: str) -> dict:
        request = {"prompt": prompt, "schema": ANSWER_SCHEMA, "max_tokens": MAX_ANSWER_TOKENS}
        return await asyncio.wait_for(asyncio.to_thread(self._ask, request), MODEL_TIMEOUT)

    async def count(self, text: str) -> int:
        return int((await asyncio.to_thread(self._ask, {"count": text}))["tokens"])

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# ------------------------------------------------------------------- a run


@dataclass
class Run:
    """What one (stack, scenario) run did, for the table and the JSON line."""

    result: agent.Result
    decision: Decision | None = None
    prompt: str = ""
    reply: dict | None = None
    failure_tokens: int = 0
    seconds: float = 0.0
    second_failed: bool | None = None
    why: str = ""  # agent.judged's reason: what fixed it, or why not


async def follow(session, s: agent.Scenario, run: Run, max_wait: float) -> None:
    """Act on the model's decision: judge a stop, or send the call (after its wait) and judge it."""
    d, r = run.decision, run.result
    r.step = d.kind
    if d.kind == "stop":
        r.outcome, run.why = agent.judged(s, None, False, True, d.message)
        return
    if d.kind != "call":
        return  # invalid: not fixed
    r.next_call = d.call
    if s.expect.get("stop"):
        r.outcome, run.why = agent.judged(s, d.call, False, False)
        return  # a call where a stop is expected is not sent
    if d.wait:
        r.waited = min(d.wait, max_wait)
        await asyncio.sleep(r.waited)
    run.second_failed, r.second = result_text(await agent.call_tool(session, d.call))
    r.outcome, run.why = agent.judged(s, d.call, run.second_failed, False)


async def run_one(stack: str, command: str, s: agent.Scenario, root: Path, foreign: str | None,
                  model: Model, max_wait: float, carts: dict | None = None) -> Run:
    command, flavor = agent.server_of(stack, command, s, foreign, carts)
    async with agent.serve(command, flavor, s.profile, root) as (session, _):
        background = await agent.run_setup(session, s)
        history = [(call, result_text(await agent.call_tool(session, call))[1]) for call in s.history]
        failed, text = result_text(await agent.call_tool(session, s.call))
        run = Run(agent.Result(stack, s, "not fixed", "", text))
        if not s.goal and not failed and not warned(text):
            run.result.outcome, run.result.step = "accepted", "accepted"
        else:
            # The tools as a client shows them now: listed again after the
            # calls, as a client does on notifications/tools/list_changed
            # (a state gate changes the list).
            tools = (await session.list_tools()).tools
            run.prompt = build_prompt(tools, s.call, text, s.goal, history)
            run.failure_tokens = await model.count(text)
            started = time.monotonic()
            run.reply = await model.answer(run.prompt)
            run.seconds = time.monotonic() - started
            run.decision = decide(run.reply["text"])
            await follow(session, s, run, max_wait)
        for task in background:
            await task
        return run


def warned(text: str) -> bool:
    """A success that is still to act on: agent.py's rule, a notice that says "deprecated"."""
    return re.search(r"(?i)deprecated", text) is not None


async def run_guarded(stack: str, command: str, s: agent.Scenario, root: Path, foreign: str | None,
                      model: Model, max_wait: float, carts: dict | None = None) -> Run:
    """run_one, with a crash or a time-out turned into an "error" run saying why."""
    limit = agent.SCENARIO_TIMEOUT + MODEL_TIMEOUT + max_wait
    try:
        return await asyncio.wait_for(run_one(stack, command, s, root, foreign, model, max_wait, carts), limit)
    except Exception as e:
        reason = f"timed out after {limit:.0f} s" if isinstance(e, (TimeoutError, asyncio.TimeoutError)) else agent.describe(e)
        return Run(agent.Result(stack, s, "error", f"error: {reason}"))


def record(run: Run, set_name: str, model: str) -> dict:
    """The JSON line of one run."""
    r, reply = run.result, run.reply or {}
    return {
        "stack": r.stack, "scenario": r.scenario.id, "category": r.scenario.category, "set": set_name,
        "model": model, "expect_stop": bool(r.scenario.expect.get("stop")), "outcome": r.outcome,
        "decision": run.decision.kind if run.decision else None, "first": r.first,
        "failure_tokens": run.failure_tokens, "prompt": run.prompt, "raw": reply.get("text"),
        "next_call": r.next_call, "wait_seconds": run.decision.wait if run.decision else None,
        "waited": r.waited, "second": r.second, "second_failed": run.second_failed, "judged": run.why, "error": r.step if r.outcome == "error" else None,
        "tokens_in": reply.get("tokens_in", 0), "tokens_evaluated": reply.get("tokens_evaluated", 0),
        "tokens_out": reply.get("tokens_out", 0), "seconds": round(run.seconds, 3),
    }


def progress(i: int, n: int, run: Run, started: float) -> str:
    r, reply = run.result, run.reply or {}
    extra = f", {run.seconds:.1f} s, {reply.get('tokens_evaluated', 0)} tokens read, {reply.get('tokens_out', 0)} written" if reply else ""
    return f"[{r.stack} {i}/{n}, {time.monotonic() - started:.0f} s] {r.scenario.id}: {r.outcome} ({r.step}{extra})"


# ------------------------------------------------------------------- usage


def limit_per_category(scenarios: list[agent.Scenario], n: int | None) -> list[agent.Scenario]:
    if n is None:
        return scenarios
    kept, seen = [], {}
    for s in scenarios:
        seen[s.category] = seen.get(s.category, 0) + 1
        if seen[s.category] <= n:
            kept.append(s)
    return kept


async def main_async(args) -> int:
    stacks = agent.parse_stacks(args.stack)
    folder = Path(args.scenarios)
    root = folder.resolve().parent
    scenarios = agent.select(agent.load_scenarios(folder), args.only, args.scenarios)
    scenarios = limit_per_category(scenarios, args.limit_per_category)
    if any(s.profile.get("server") == "foreign" for s in scenarios) and not args.foreign:
        raise agent.UsageError("a selected scenario needs --foreign COMMAND")
    carts = dict(agent.parse_stacks(args.cart_stack)) if args.cart_stack else {}
    if any(s.profile.get("server") == "cart" for s in scenarios):
        missing = [name for name, _ in stacks if name not in carts]
        if missing:
            raise agent.UsageError(f"a selected scenario needs the cart twin of {', '.join(missing)} (--cart-stack NAME=COMMAND)")
    for name, command in stacks:
        await agent.probe(f"--stack {name}", command, name, root)
    model = Model(args.model)
    set_name = args.set or folder.name
    runs: list[Run] = []
    out = open(args.json, "a" if args.append else "w") if args.json else None
    try:
        for name, command in stacks:
            started = time.monotonic()
            for i, s in enumerate(scenarios, 1):
                run = await run_guarded(name, command, s, root, args.foreign, model, args.max_wait, carts)
                runs.append(run)
                print(progress(i, len(scenarios), run, started), file=sys.stderr, flush=True)
                if out:
                    out.write(json.dumps(record(run, set_name, model.name), ensure_ascii=False) + "\n")
                    out.flush()
    finally:
        model.close()
        if out:
            out.close()
    print(agent.table([r.result for r in runs], [n for n, _ in stacks]))
    errors = sum(r.result.outcome == "error" for r in runs)
    if errors:
        print(f"runner.py: {errors} runs ended in an error (left out of the table); the measurement is not valid",
              file=sys.stderr)
        return 2
    return 0


def rejudge(line: dict, scenarios: dict) -> dict:
    """A recorded run judged again with today's scenario files (a reviewed
    expectation), from what was recorded: the stop's message, or the call and
    whether the server refused it. Runs that sent no call stay as they were."""
    s = scenarios.get(line["scenario"])
    if s is None or line["outcome"] in ("accepted", "error") or line["decision"] == "invalid":
        return line
    if line["decision"] == "stop":
        outcome, why = agent.judged(s, None, False, True, decide(line["raw"]).message)
    elif line["second_failed"] is None and not s.expect.get("stop"):
        return line  # a call that was not sent: nothing to judge again
    else:
        outcome, why = agent.judged(s, line["next_call"], bool(line["second_failed"]), False)
    return {**line, "outcome": outcome, "judged": why}


def rejudge_file(path: str, folder: str) -> int:
    """--rejudge: every line of `path` judged again, written back in place."""
    scenarios = {s.id: s for s in agent.load_scenarios(Path(folder))}
    lines = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
    judged_again = [rejudge(x, scenarios) for x in lines]
    changed = sum(a["outcome"] != b["outcome"] for a, b in zip(lines, judged_again))
    Path(path).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in judged_again), encoding="utf-8")
    print(f"runner.py: {path}: {len(lines)} runs judged again, {changed} outcomes changed", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", required=True, help="the folder of scenario files (*.json)")
    parser.add_argument("--rejudge", metavar="RUNS",
                        help="judge the recorded runs of RUNS again with today's scenario files, in place; nothing is run")
    parser.add_argument("--stack", action="append", metavar="NAME=COMMAND",
                        help="a stack and its stdio server command (repeatable); `ours` is mcp-fusion")
    parser.add_argument("--foreign", metavar="COMMAND", help="the foreign server (profile server: foreign)")
    parser.add_argument("--cart-stack", action="append", metavar="NAME=COMMAND",
                        help="a stack's cart twin, for the scenarios whose profile says server: cart (repeatable)")
    parser.add_argument("--model", metavar="COMMAND", help="the model process (llm.mjs or stub.py)")
    parser.add_argument("--only", action="append", metavar="ID", help="run only this scenario (repeatable)")
    parser.add_argument("--limit-per-category", type=int, metavar="N", help="the first N scenarios of each category")
    parser.add_argument("--max-wait", type=float, default=65.0, metavar="SECONDS",
                        help="the longest wait_seconds honoured (default 65)")
    parser.add_argument("--json", metavar="OUT", help="write one JSON line per (stack, scenario) here")
    parser.add_argument("--append", action="store_true", help="append to --json instead of replacing it")
    parser.add_argument("--set", help="the set name written in the JSON lines (default: the folder's name)")
    args = parser.parse_args()
    try:
        if args.rejudge:
            return rejudge_file(args.rejudge, args.scenarios)
        if not args.stack or not args.model:
            raise agent.UsageError("--stack and --model are needed to run (or --rejudge RUNS)")
        return asyncio.run(main_async(args))
    except (agent.UsageError, OSError) as e:
        print(f"runner.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
