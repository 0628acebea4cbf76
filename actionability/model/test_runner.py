"""actionability/model/runner.py without the model: its prompt, its reading
of an answer, its judging and its waits, on every change.

- Unit tests: build_prompt's whole ChatML text for a small tool list,
  decide() on every shape of answer, result_text, limit_per_category and
  record()'s fields.
- End to end: runner.py as a subprocess against `ours` (`fusion serve
  --example actionability --stdio`; $FUSION_BIN, default target/debug/fusion;
  skipped when it is not built) with stub.py as the model, answering from a
  script per failure text: a right call (fixed), wrong calls (not fixed), a
  stop where one is expected (fixed, nothing sent), a call where a stop is
  expected (not sent, not fixed), an invalid answer, an asked wait honoured
  and one capped by --max-wait; the prompt the stub was shown (its --log)
  holds the server's tools/list and the exact failure text.
- Replay: real answers of the model (testdata/recorded.json, copied from a
  run of run.sh) sent again through the stub give the recorded outcomes.

Run: .venv/bin/python -m pytest -p no:cacheprovider actionability/model"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import MCPError
from mcp.types import CallToolResult, Tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import runner  # noqa: E402  (puts actionability/ on sys.path for agent)
import agent  # noqa: E402

FUSION = os.environ.get("FUSION_BIN") or str(ROOT / "target" / "debug" / "fusion")
OURS = f"{shlex.quote(FUSION)} serve --example actionability --stdio"
SCENARIOS = HERE.parent / "scenarios"
RECORDED = HERE / "testdata" / "recorded.json"

needs_fusion = pytest.mark.skipif(
    not Path(FUSION).is_file(),
    reason=f"no fusion binary at {FUSION}: build it (cargo build -p fusion-cli) or set FUSION_BIN",
)


def data_of(text: str):
    """The data of a result's text as the runner shows it: its first block
    (a presenter's guidance, wire contract §9.1, follows on later lines)."""
    return json.loads(text.split("\n", 1)[0])


# ------------------------------------------------------------------ prompt

NOTES = Tool.model_validate({
    "name": "notes", "title": "Notes", "description": "Keep a note — short or long.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "minLength": 3}},
                    "required": ["text"]},
    "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": False}, "_meta": {"x": 1},
})
PING = Tool.model_validate({"name": "ping", "inputSchema": {"type": "object"}})


def test_build_prompt_is_the_whole_chatml_text():
    call = {"tool": "notes", "arguments": {"text": "hé"}}
    failure = 'MCP error -32602: text: too short (at least 3 characters)\n<hint>"hé" has 2</hint>'
    prompt = runner.build_prompt([NOTES, PING], call, failure)
    # Only name, description (empty when none) and inputSchema of a tool; the
    # title, outputSchema, annotations and _meta are not shown. Not ASCII-escaped.
    assert prompt == (
        "<|im_start|>system\n"
        "You are an assistant using tools of an MCP server. Your last tool call failed or returned a "
        "warning; decide the next step. Reply with JSON only: the next tool call, or stop with a "
        "message for the user if retrying cannot help.\n"
        'Format: {"tool": NAME, "arguments": {...}} for the next call (add "wait_seconds": N to wait '
        'N seconds before it), or {"stop": "message for the user"}.\n'
        "\n"
        "Tools of the server:\n"
        "<tools>\n"
        '{"name": "notes", "description": "Keep a note — short or long.", "inputSchema": {"type": "object", '
        '"properties": {"text": {"type": "string", "minLength": 3}}, "required": ["text"]}}\n'
        '{"name": "ping", "description": "", "inputSchema": {"type": "object"}}\n'
        "</tools><|im_end|>\n"
        "<|im_start|>assistant\n"
        '{"tool": "notes", "arguments": {"text": "hé"}}<|im_end|>\n'
        "<|im_start|>user\n"
        "<tool_response>\n"
        'MCP error -32602: text: too short (at least 3 characters)\n<hint>"hé" has 2</hint>\n'
        "</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_build_prompt_of_a_goal_shows_the_request_the_history_and_the_call():
    earlier = {"tool": "ping", "arguments": {}}
    call = {"tool": "notes", "arguments": {"text": "abc"}}
    prompt = runner.build_prompt([PING], call, '{"id":"n_1"}', "Keep a note of abc.",
                                 [(earlier, "pong")])
    assert prompt == (
        "<|im_start|>system\n"
        "You are an assistant using tools of an MCP server to do what the user asks. Read the tool's "
        "last answer and decide the next step. Reply with JSON only: the next tool call, or stop with "
        "a message for the user when the request is done or only the user can go on.\n"
        'Format: {"tool": NAME, "arguments": {...}} for the next call (add "wait_seconds": N to wait '
        'N seconds before it), or {"stop": "message for the user"}.\n'
        "\n"
        "Tools of the server:\n"
        "<tools>\n"
        '{"name": "ping", "description": "", "inputSchema": {"type": "object"}}\n'
        "</tools><|im_end|>\n"
        "<|im_start|>user\nKeep a note of abc.<|im_end|>\n"
        '<|im_start|>assistant\n{"tool": "ping", "arguments": {}}<|im_end|>\n'
        "<|im_start|>user\n<tool_response>\npong\n</tool_response><|im_end|>\n"
        '<|im_start|>assistant\n{"tool": "notes", "arguments": {"text": "abc"}}<|im_end|>\n'
        '<|im_start|>user\n<tool_response>\n{"id":"n_1"}\n</tool_response><|im_end|>\n'
        "<|im_start|>assistant\n"
    )


def test_a_history_without_a_goal_is_a_bad_scenario(tmp_path):
    scenario = {"id": "h", "call": {"tool": "ping", "arguments": {}}, "expect": {"stop": True},
                "history": [{"call": {"tool": "ping", "arguments": {}}}]}
    (tmp_path / "x.json").write_text(json.dumps({"category": "c", "scenarios": [scenario]}))
    with pytest.raises(agent.UsageError, match="key 'history' needs a 'goal'"):
        agent.load_scenarios(tmp_path)


def test_build_prompt_shows_only_tool_and_arguments_of_the_call():
    call = {"tool": "ping", "arguments": {}, "note": "not shown"}
    prompt = runner.build_prompt([], call, "x")
    assert "<tools>\n</tools><|im_end|>\n" in prompt
    assert '<|im_start|>assistant\n{"tool": "ping", "arguments": {}}<|im_end|>\n' in prompt
    assert "not shown" not in prompt


# ------------------------------------------------------------------ answer

D = runner.Decision
LIST5 = {"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}}


@pytest.mark.parametrize("raw, expected", [
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}}', D("call", LIST5)),
    # Keys besides the call's are ignored; the call is tool and arguments only.
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "why": "x"}', D("call", LIST5)),
    ('{"tool": "ping", "arguments": {}}', D("call", {"tool": "ping", "arguments": {}})),
    # A wait: a positive number, as a float; anything else is no wait.
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": 2.5}',
     D("call", LIST5, 2.5)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": 3}',
     D("call", LIST5, 3.0)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": 0}',
     D("call", LIST5, None)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": -4}',
     D("call", LIST5, None)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": true}',
     D("call", LIST5, None)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": "5"}',
     D("call", LIST5, None)),
    ('{"tool": "billing", "arguments": {"action": "list_invoices", "limit": 5}, "wait_seconds": null}',
     D("call", LIST5, None)),
    # A stop; a stop wins over a call in the same object.
    ('{"stop": "Invoice inv_12 is paid: a person must refund it."}',
     D("stop", message="Invoice inv_12 is paid: a person must refund it.")),
    ('{"stop": "", "tool": "billing", "arguments": {}}', D("stop", message="")),
    # Not JSON.
    ("I would call billing.list_invoices with limit 5.", D("invalid", message="not JSON")),
    ("", D("invalid", message="not JSON")),
    ('{"tool": "billing", "arguments": {"action": "list_invoices"', D("invalid", message="not JSON")),
    ('{"tool": "billing", "arguments": {}} and then', D("invalid", message="not JSON")),
    # JSON, not an object.
    ('[{"tool": "billing", "arguments": {}}]', D("invalid", message="not a JSON object")),
    ('"stop"', D("invalid", message="not a JSON object")),
    ("null", D("invalid", message="not a JSON object")),
    # An object of neither shape.
    ('{"tool": "billing"}', D("invalid", message="neither a call nor a stop")),
    ('{"arguments": {"action": "list_invoices"}}', D("invalid", message="neither a call nor a stop")),
    ('{"tool": "billing", "arguments": ["list_invoices"]}', D("invalid", message="neither a call nor a stop")),
    ('{"tool": "billing", "arguments": "{\\"limit\\": 5}"}', D("invalid", message="neither a call nor a stop")),
    ('{"tool": 7, "arguments": {}}', D("invalid", message="neither a call nor a stop")),
    ('{"stop": true}', D("invalid", message="neither a call nor a stop")),
    ("{}", D("invalid", message="neither a call nor a stop")),
])
def test_decide(raw, expected):
    assert runner.decide(raw) == expected


def test_decide_reads_a_nan_wait_as_no_wait():
    d = runner.decide('{"tool": "ping", "arguments": {}, "wait_seconds": NaN}')
    assert (d.kind, d.call, d.wait) == ("call", {"tool": "ping", "arguments": {}}, None)


# ------------------------------------------------------------------ results


def test_result_text_of_a_json_rpc_error_is_the_typescript_clients():
    failed, text = runner.result_text(MCPError(-32602, "Invalid params: limit must be <= 100"))
    assert (failed, text) == (True, "MCP error -32602: Invalid params: limit must be <= 100")


def test_result_text_of_a_result_is_its_text_content():
    result = CallToolResult.model_validate({"content": [
        {"type": "text", "text": "first"},
        {"type": "image", "data": "AA==", "mimeType": "image/png"},
        {"type": "text", "text": "second"},
    ], "isError": True})
    assert runner.result_text(result) == (True, "first\nsecond")
    ok = CallToolResult.model_validate({"content": [{"type": "text", "text": '{"invoices": []}'}]})
    assert runner.result_text(ok) == (False, '{"invoices": []}')


def scenario(sid: str, category: str, **kw) -> agent.Scenario:
    return agent.Scenario(id=sid, category=category, call=kw.pop("call", {"tool": "t", "arguments": {}}),
                          expect=kw.pop("expect", {}), **kw)


def test_limit_per_category_keeps_the_first_n_of_each_in_order():
    ss = [scenario("a1", "a"), scenario("b1", "b"), scenario("a2", "a"), scenario("a3", "a"),
          scenario("c1", "c"), scenario("b2", "b")]
    ids = lambda kept: [s.id for s in kept]  # noqa: E731
    assert ids(runner.limit_per_category(ss, 1)) == ["a1", "b1", "c1"]
    assert ids(runner.limit_per_category(ss, 2)) == ["a1", "b1", "a2", "c1", "b2"]
    assert ids(runner.limit_per_category(ss, 5)) == ["a1", "b1", "a2", "a3", "c1", "b2"]
    assert runner.limit_per_category(ss, None) is ss
    assert runner.limit_per_category(ss, 0) == []


def test_record_of_a_call_that_was_sent():
    s = scenario("rate-get", "rate limited (wait, retry)",
                 expect={"tool": "billing", "arguments": {"action": "get_invoice", "id": "inv_2"}})
    call = {"tool": "billing", "arguments": {"action": "get_invoice", "id": "inv_2"}}
    r = agent.Result("ours", s, "fixed", "call", "<tool_error>slow down</tool_error>", '{"id":"inv_2"}', call, 1.0)
    reply = {"text": '{"tool": "billing", "arguments": {}, "wait_seconds": 3}', "tokens_in": 812,
             "tokens_evaluated": 40, "tokens_out": 19, "seconds": 2.2}
    run = runner.Run(r, D("call", call, 3.0), "PROMPT", reply, failure_tokens=35, seconds=2.34567,
                     second_failed=False, why="expect")
    assert runner.record(run, "scenarios", "qwen") == {
        "stack": "ours", "scenario": "rate-get", "category": "rate limited (wait, retry)", "set": "scenarios",
        "model": "qwen", "expect_stop": False, "outcome": "fixed", "decision": "call",
        "first": "<tool_error>slow down</tool_error>", "failure_tokens": 35, "prompt": "PROMPT",
        "raw": '{"tool": "billing", "arguments": {}, "wait_seconds": 3}', "next_call": call,
        "wait_seconds": 3.0, "waited": 1.0, "second": '{"id":"inv_2"}', "second_failed": False, "judged": "expect",
        "error": None, "tokens_in": 812, "tokens_evaluated": 40, "tokens_out": 19, "seconds": 2.346,
    }


def test_record_of_a_stop_an_accepted_call_and_an_error():
    s = scenario("conflict-void-paid", "already done (conflict)", expect={"stop": True})
    stop = runner.Run(agent.Result("ours", s, "fixed", "stop", "paid"), D("stop", message="refund it"), "P",
                      {"text": '{"stop": "refund it"}', "tokens_in": 5, "tokens_evaluated": 5, "tokens_out": 4})
    line = runner.record(stop, "held-out", "m")
    assert (line["expect_stop"], line["outcome"], line["decision"], line["next_call"], line["wait_seconds"],
            line["waited"], line["second"], line["second_failed"], line["error"], line["set"]) == (
        True, "fixed", "stop", None, None, 0.0, "", None, None, "held-out")

    accepted = runner.Run(agent.Result("ts-sdk", s, "accepted", "accepted", "voided"))
    line = runner.record(accepted, "scenarios", "m")
    assert (line["stack"], line["outcome"], line["decision"], line["prompt"], line["raw"], line["tokens_in"],
            line["tokens_evaluated"], line["tokens_out"], line["seconds"], line["error"]) == (
        "ts-sdk", "accepted", None, "", None, 0, 0, 0, 0.0, None)

    error = runner.Run(agent.Result("fastmcp", s, "error", "error: timed out after 755 s"))
    line = runner.record(error, "scenarios", "m")
    assert (line["outcome"], line["error"], line["decision"], line["raw"], line["first"]) == (
        "error", "error: timed out after 755 s", None, None, "")


def test_a_model_process_that_exits_at_once_is_a_usage_error():
    with pytest.raises(agent.UsageError, match=r"exited \(status"):
        runner.Model(f"{shlex.quote(sys.executable)} -c pass")


def test_a_model_process_that_is_not_ready_is_a_usage_error():
    command = f"""{shlex.quote(sys.executable)} -c 'print("{{\\"ready\\": false}}")'"""
    with pytest.raises(agent.UsageError, match="did not say it was ready"):
        runner.Model(command)


# --------------------------------------------------------- end to end (stub)


def stub_command(script: Path, log: Path) -> str:
    return " ".join(shlex.quote(str(a)) for a in (sys.executable, HERE / "stub.py", "--script", script, "--log", log))


def run_runner(folder: Path, rules: list, only: list[str], *extra: str) -> dict:
    """runner.py with stub.py answering from `rules`: its exit status, output,
    JSON lines (by scenario id), the stub's log and the run's seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    script, log, out = folder / "script.json", folder / "log.jsonl", folder / "runs.jsonl"
    script.write_text(json.dumps(rules), encoding="utf-8")
    argv = [sys.executable, str(HERE / "runner.py"), "--scenarios", str(SCENARIOS), "--stack", f"ours={OURS}",
            "--model", stub_command(script, log), "--json", str(out), *extra]
    for sid in only:
        argv += ["--only", sid]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=180)
    seconds = time.monotonic() - started
    assert done.returncode == 0, f"runner.py exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    logged = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return {"stdout": done.stdout, "stderr": done.stderr, "lines": {x["scenario"]: x for x in lines},
            "order": [x["scenario"] for x in lines], "log": logged, "seconds": seconds}


def call(action: str, **args) -> dict:
    return {"tool": "billing", "arguments": {"action": action, **args}}


# Each rule's `when` is a piece of one scenario's failure text (stub.py).
ITEMS = [{"description": "Consulting", "quantity": 1, "unit_price_cents": 1500}]
MAIN_RULES = [
    {"when": "Wrong type. You sent: '1500'. Expected an integer.",
     "answer": call("create_invoice", customer_email="ada@example.com", amount_cents=1500, currency="euros",
                    items=ITEMS)},
    {"when": "Wrong type. You sent: '5'. Expected an integer or null.", "answer": call("list_invoices", limit=5)},
    {"when": "Too large. You sent: 500.", "answer": call("list_invoices", limit=1000)},
    {"when": "Too small. You sent: 0.", "answer": call("get_invoice", id="inv_2")},
    {"when": "Invoice inv_12 is paid", "answer": {"stop": "Invoice inv_12 is paid: a person must refund it."}},
    {"when": "Invoice inv_5 is void", "answer": call("pay_invoice", id="inv_5")},
    {"when": "You sent: 'PAID'", "answer": "I would list the paid invoices."},
    {"when": '<field name="period">Missing required field.', "answer": {"stop": "I cannot do that."}},
    {"when": "the limit is 1 per second", "answer": {**call("get_invoice", id="inv_2"), "wait_seconds": 1.5}},
]
MAIN_ONLY = ["type-amount-string", "type-limit-string", "range-limit-high", "range-limit-zero", "enum-case-status",
             "missing-period", "conflict-void-paid", "conflict-pay-void", "rate-get"]
TYPE_LIMIT_FAILURE = (
    'Replace "limit": "5" with "limit": 5, keep your other arguments, and call billing again.\n'
    '<validation_error action="billing.list_invoices">\n'
    "  <field name=\"limit\">Wrong type. You sent: '5'. Expected an integer or null.</field>\n"
    "  <recovery>Do not explain the error.</recovery>\n"
    "</validation_error>"
)


@pytest.fixture(scope="module")
def main_run(tmp_path_factory):
    if not Path(FUSION).is_file():
        pytest.skip(f"no fusion binary at {FUSION}: build it (cargo build -p fusion-cli) or set FUSION_BIN")
    return run_runner(tmp_path_factory.mktemp("main"), MAIN_RULES, MAIN_ONLY)


@needs_fusion
def test_runner_prints_the_table_and_a_line_per_scenario(main_run):
    assert main_run["order"] == MAIN_ONLY  # the scenario files' order
    rows = [line.split() for line in main_run["stdout"].splitlines()]
    assert rows == [
        ["category", "ours"],
        ["wrong", "type", "1/2"],
        ["out-of-range", "number", "0/2"],
        ["bad", "enum", "value", "0/1"],
        ["missing", "required", "field", "0/1"],
        ["already", "done", "(conflict)", "1/2"],
        ["rate", "limited", "(wait,", "retry)", "1/1"],
        ["all", "3/9"],
        ["share", "fixed", "33.3", "%"],
    ]
    assert {x["model"] for x in main_run["lines"].values()} == {"stub"}
    assert {x["set"] for x in main_run["lines"].values()} == {"scenarios"}
    assert "[ours 2/9, " in main_run["stderr"] and "] type-limit-string: fixed (call, " in main_run["stderr"]


@needs_fusion
def test_a_right_call_is_sent_and_fixed(main_run):
    x = main_run["lines"]["type-limit-string"]
    assert (x["outcome"], x["decision"], x["next_call"], x["second_failed"], x["wait_seconds"], x["waited"]) == (
        "fixed", "call", call("list_invoices", limit=5), False, None, 0.0)
    assert x["first"] == TYPE_LIMIT_FAILURE
    assert x["raw"] == json.dumps(call("list_invoices", limit=5))
    assert data_of(x["second"])["next_cursor"] == "after_5"  # the server's answer to the call sent
    assert x["failure_tokens"] == len(TYPE_LIMIT_FAILURE.split())  # stub.py counts words


@needs_fusion
def test_a_wrong_call_the_server_refuses_is_not_fixed(main_run):
    x = main_run["lines"]["range-limit-high"]
    assert (x["outcome"], x["decision"], x["next_call"], x["second_failed"]) == (
        "not fixed", "call", call("list_invoices", limit=1000), True)
    assert "Too large. You sent: 1000." in x["second"]


@needs_fusion
def test_a_call_matching_the_expectation_that_the_server_refuses_is_not_fixed(main_run):
    # amount_cents is the expected 1500 now, but the currency is wrong: refused.
    x = main_run["lines"]["type-amount-string"]
    sent = call("create_invoice", customer_email="ada@example.com", amount_cents=1500, currency="euros", items=ITEMS)
    assert (x["outcome"], x["decision"], x["next_call"], x["second_failed"]) == ("not fixed", "call", sent, True)
    assert "You sent: 'euros'." in x["second"]


@needs_fusion
def test_an_accepted_call_other_than_the_expected_one_is_not_fixed(main_run):
    # The scenario expects a listing with a limit from 1 to 100; reading an
    # invoice succeeds but is not that.
    x = main_run["lines"]["range-limit-zero"]
    assert (x["outcome"], x["judged"], x["decision"], x["next_call"], x["second_failed"]) == (
        "not fixed", "not the expected call", "call", call("get_invoice", id="inv_2"), False)
    assert data_of(x["second"])["id"] == "inv_2"


@needs_fusion
def test_a_stop_where_a_stop_is_expected_is_fixed_and_sends_nothing(main_run):
    x = main_run["lines"]["conflict-void-paid"]
    assert (x["expect_stop"], x["outcome"], x["decision"], x["next_call"], x["second"], x["second_failed"]) == (
        True, "fixed", "stop", None, "", None)
    assert x["raw"] == '{"stop": "Invoice inv_12 is paid: a person must refund it."}'


@needs_fusion
def test_a_stop_where_a_call_is_expected_is_not_fixed(main_run):
    # Asking the user for the period would be as right (stop_ok); a stop that
    # names nothing the user must decide is not.
    x = main_run["lines"]["missing-period"]
    assert (x["expect_stop"], x["outcome"], x["decision"], x["next_call"], x["second"], x["second_failed"]) == (
        False, "not fixed", "stop", None, "", None)
    assert x["judged"] == "a stop that names none of 'period'"


@needs_fusion
def test_a_call_where_a_stop_is_expected_is_not_sent_and_not_fixed(main_run):
    x = main_run["lines"]["conflict-pay-void"]
    assert (x["expect_stop"], x["outcome"], x["decision"], x["next_call"], x["second"], x["second_failed"]) == (
        True, "not fixed", "call", call("pay_invoice", id="inv_5"), "", None)


@needs_fusion
def test_an_invalid_answer_is_not_fixed_and_sends_nothing(main_run):
    x = main_run["lines"]["enum-case-status"]
    assert (x["outcome"], x["decision"], x["raw"], x["next_call"], x["second"], x["second_failed"]) == (
        "not fixed", "invalid", "I would list the paid invoices.", None, "", None)


@needs_fusion
def test_the_asked_wait_is_honoured_before_the_call(main_run):
    x = main_run["lines"]["rate-get"]
    assert "<retry_after>1 second</retry_after>" in x["first"]
    assert (x["outcome"], x["wait_seconds"], x["waited"], x["next_call"], x["second_failed"]) == (
        "fixed", 1.5, 1.5, call("get_invoice", id="inv_2"), False)
    assert data_of(x["second"])["id"] == "inv_2"
    assert main_run["seconds"] >= 1.5


async def listed_tools() -> list:
    async with agent.serve(OURS, "ours", {}, HERE.parent) as (_, tools):
        return list(tools.values())


@needs_fusion
def test_the_model_is_shown_the_tools_list_the_call_and_the_exact_failure(main_run):
    log, lines = main_run["log"], main_run["lines"]
    assert len(log) == len(MAIN_ONLY)  # one prompt per scenario
    assert all(e["schema"] == runner.ANSWER_SCHEMA for e in log)

    assert [e["prompt"] for e in log] == [lines[sid]["prompt"] for sid in MAIN_ONLY]
    prompt = lines["type-limit-string"]["prompt"]
    tools = asyncio.run(listed_tools())
    names = [t.name for t in tools]
    assert "billing" in names and "reminders" in names
    block = prompt[prompt.index("<tools>\n") + len("<tools>\n"):prompt.index("\n</tools>")]
    assert [json.loads(t)["name"] for t in block.split("\n")] == names  # every tool, in tools/list's order
    assert block == "\n".join(runner.tool_line(t) for t in tools)
    assert f"<tool_response>\n{TYPE_LIMIT_FAILURE}\n</tool_response>" in prompt
    s = next(s for s in agent.load_scenarios(SCENARIOS) if s.id == "type-limit-string")
    assert prompt == runner.build_prompt(tools, s.call, TYPE_LIMIT_FAILURE)
    for e, sid in zip(log, MAIN_ONLY):  # every prompt ends on its scenario's exact failure text
        assert e["prompt"].endswith(f"<tool_response>\n{lines[sid]['first']}\n</tool_response><|im_end|>\n"
                                    "<|im_start|>assistant\n")


@needs_fusion
def test_a_longer_wait_is_capped_by_max_wait(tmp_path):
    # 3 calls a minute: the text says 20 seconds, the model asks 30, --max-wait allows 0.2.
    rules = [{"when": "the limit is 3 per minute",
              "answer": {**call("generate_report", period="week"), "wait_seconds": 30}}]
    result = run_runner(tmp_path, rules, ["rate-minute"], "--max-wait", "0.2")
    x = result["lines"]["rate-minute"]
    assert "<retry_after>20 seconds</retry_after>" in x["first"]
    assert (x["wait_seconds"], x["waited"], x["next_call"], x["second_failed"], x["outcome"]) == (
        30.0, 0.2, call("generate_report", period="week"), True, "not fixed")
    assert '<tool_error code="RATE_LIMITED"' in x["second"]  # sent after 0.2 s: still refused
    assert result["seconds"] < 20


# ------------------------------------------------------------------ replay


def recorded() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def test_the_recorded_answers_are_real_model_answers():
    data = recorded()
    assert "qwen2.5-coder" in data["note"]
    assert len(data["answers"]) >= 2
    assert {a["decision"] for a in data["answers"]} >= {"call", "stop"}
    for a in data["answers"]:
        assert runner.decide(a["raw"]).kind == a["decision"]


@pytest.fixture(scope="module")
def replay_run(tmp_path_factory):
    if not Path(FUSION).is_file():
        pytest.skip(f"no fusion binary at {FUSION}: build it (cargo build -p fusion-cli) or set FUSION_BIN")
    answers = recorded()["answers"]
    rules = [{"when": a["when"], "answer": a["raw"]} for a in answers]  # a string is sent as it is
    return run_runner(tmp_path_factory.mktemp("replay"), rules, [a["scenario"] for a in answers])


@needs_fusion
@pytest.mark.parametrize("answer", recorded()["answers"], ids=lambda a: a["scenario"])
def test_replaying_a_recorded_answer_gives_the_recorded_outcome(replay_run, answer):
    x = replay_run["lines"][answer["scenario"]]
    assert answer["when"] in x["first"]  # the failure the model read is still there
    assert x["raw"] == answer["raw"]  # so the stub answered it with the recorded answer
    assert (x["decision"], x["outcome"], x["next_call"], x["second_failed"]) == (
        answer["decision"], answer["outcome"], answer["next_call"], answer["second_failed"])


# ------------------------------------------------------------ cart (state gate)

CART = str(Path(FUSION).with_name("cart"))
RESULTS = HERE.parent / "results"
needs_cart = pytest.mark.skipif(
    not (Path(FUSION).is_file() and Path(CART).is_file()),
    reason=f"no fusion and cart binaries beside {FUSION}: cargo build -p fusion-cli -p cart-example",
)


def run_cart(folder: Path, *extra: str) -> subprocess.CompletedProcess:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "script.json"
    script.write_text(json.dumps([{"when": "tea", "answer": {"tool": "cart", "arguments": {"action": "checkout"}}}]),
                      encoding="utf-8")
    argv = [sys.executable, str(HERE / "runner.py"), "--scenarios", str(RESULTS), "--stack", f"ours={OURS}",
            "--model", stub_command(script, folder / "log.jsonl"), "--json", str(folder / "runs.jsonl"),
            "--only", "gate-pay-needs-checkout", *extra]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)


@needs_cart
def test_a_cart_scenario_runs_on_the_cart_twin_and_shows_the_tools_listed_after_its_history(tmp_path):
    done = run_cart(tmp_path, "--cart-stack", f"ours={shlex.quote(CART)}")
    assert done.returncode == 0, done.stderr
    line = json.loads((tmp_path / "runs.jsonl").read_text(encoding="utf-8"))
    # The cart was empty when the server started (add_item, view); after the
    # history's add_item the state gate lists checkout too, and the prompt
    # shows the list as it is then.
    tools = line["prompt"][line["prompt"].index("<tools>\n") + 8:line["prompt"].index("\n</tools>")]
    cart = json.loads(tools)
    assert cart["name"] == "cart"
    assert cart["inputSchema"]["properties"]["action"]["enum"] == ["add_item", "view", "checkout"]
    assert (line["first"], line["next_call"], line["outcome"]) == (
        '{"items":["tea"]}', {"tool": "cart", "arguments": {"action": "checkout"}}, "fixed")
    assert line["second"] == 'Order ord_1 holds 1 item. Pay it with cart.pay, order "ord_1".'


@needs_cart
def test_a_cart_scenario_without_the_stacks_cart_twin_is_a_usage_error(tmp_path):
    done = run_cart(tmp_path)
    assert done.returncode == 2
    assert "a selected scenario needs the cart twin of ours (--cart-stack NAME=COMMAND)" in done.stderr
