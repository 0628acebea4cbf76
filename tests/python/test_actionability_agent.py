"""The reading and repair rules of the actionability agent
(actionability/agent.py), on texts of each stack: they must read what the
text says, the same way for every stack, and nothing more."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "actionability"))

import agent  # noqa: E402

TOOLS = {"billing": None, "reminders": None}

OURS_VALIDATION = """Fix the fields below and call billing again.
<validation_error action="billing.create_invoice">
  <field name="currency">Missing required field. You sent: (missing). Expected one of: 'USD', 'EUR', 'GBP'.</field>
  <field name="items.0.quantity">Too small. You sent: 0. Expected an integer >= 1 and &lt;= 10000.</field>
  <field name="items.0.unit_price">Unrecognized field "unit_price". You sent: 5. Did you mean "unit_price_cents"?</field>
  <recovery>Do not explain the error.</recovery>
</validation_error>"""


def test_our_field_lines_are_read_and_each_repaired():
    reading = agent.read(OURS_VALIDATION)
    assert [path for path, _ in reading.fields] == [["currency"], ["items", 0, "quantity"], ["items", 0, "unit_price"]]
    assert not reading.stop
    call = {
        "tool": "billing",
        "arguments": {"action": "create_invoice", "items": [{"description": "x", "quantity": 0, "unit_price": 5}]},
    }
    what, nxt, wait = agent.repair(call, reading, TOOLS, failed=True)
    assert (what, wait) == ("fields", 0.0)
    assert nxt["arguments"] == {
        "action": "create_invoice",
        "currency": "USD",
        "items": [{"description": "x", "quantity": 1, "unit_price_cents": 5}],
    }


def test_zod_and_pydantic_texts_are_read_into_the_same_field_problems():
    zod = agent.read(
        "MCP error -32602: Input validation error: Invalid arguments for tool billing: "
        'Invalid option: expected one of "draft"|"open"|"paid" at status'
    )
    pydantic = agent.read(
        "1 validation error for call[billing]\nstatus\n  Input should be 'draft', 'open' or 'paid' "
        "[type=literal_error, input_value='PAID', input_type=str]"
    )
    for reading in (zod, pydantic):
        assert [path for path, _ in reading.fields] == [["status"]]
        path, message = reading.fields[0]
        assert agent.options_in(message) == ["draft", "open", "paid"]
        call = {"tool": "billing", "arguments": {"action": "list_invoices", "status": "PAID"}}
        _, nxt, _ = agent.repair(call, reading, TOOLS, failed=True)
        assert nxt["arguments"]["status"] == "paid"


def test_a_value_suggested_alone_is_taken_for_a_string_sent():
    reading = agent.read(
        "Fix the fields below and call billing again.\n"
        '<validation_error action="billing">\n'
        "  <field name=\"status\">Invalid value. You sent: 'piad'. Did you mean 'paid'?</field>\n"
        "  <field name=\"action\">Invalid value. You sent: 'list'. Did you mean 'list_invoices'?</field>\n"
        "  <recovery>Do not explain the error.</recovery>\n"
        "</validation_error>"
    )
    call = {"tool": "billing", "arguments": {"action": "list", "status": "piad", "limit": 5}}
    _, nxt, _ = agent.repair(call, reading, TOOLS, failed=True)
    assert nxt["arguments"] == {"action": "list_invoices", "status": "paid", "limit": 5}
    # Not for a value that is not a string: a suggestion is an option's name.
    assert agent.options_or_suggestion(3, "Invalid value. You sent: 3. Did you mean 'paid'?") == []


def test_an_unknown_key_without_a_suggestion_is_removed_not_guessed():
    reading = agent.read(
        "MCP error -32602: Input validation error: Invalid arguments for tool billing: " 'Unrecognized key: "stauts"'
    )
    call = {"tool": "billing", "arguments": {"action": "list_invoices", "stauts": "paid"}}
    _, nxt, _ = agent.repair(call, reading, TOOLS, failed=True)
    assert nxt["arguments"] == {"action": "list_invoices"}


def test_waits_what_the_text_says_and_stops_only_when_told():
    limited = agent.read(
        "Call billing.list_invoices again with the same arguments: this refusal is about timing, not about them.\n"
        '<tool_error code="RATE_LIMITED" severity="error">\n  <message>Too many calls.</message>\n'
        "  <recovery>Wait 20 seconds, then call billing.list_invoices again.</recovery>\n"
        "  <retry_after>20 seconds</retry_after>\n</tool_error>"
    )
    call = {"tool": "billing", "arguments": {"action": "list_invoices"}}
    assert agent.repair(call, limited, TOOLS, failed=True) == ("wait", call, 20.0)
    plain = agent.read("Rate limit exceeded. Try again later.")
    assert agent.repair(call, plain, TOOLS, failed=True) == ("wait", call, 1.0)
    told = agent.read("Invoice inv_1 is paid. Do not retry. Tell the user.")
    assert agent.repair(call, told, TOOLS, failed=True)[0] == "stop"


def test_a_named_action_is_called_with_the_identifier_only():
    reading = agent.read(
        '<tool_error code="CONFLICT" severity="error">\n  <message>Invoice inv_7 is paid.</message>\n'
        "  <recovery>Call billing.get_invoice to show the user its current state.</recovery>\n"
        "  <available_actions>\n    <action>billing.get_invoice</action>\n  </available_actions>\n</tool_error>"
    )
    call = {"tool": "reminders", "arguments": {"action": "schedule", "invoice_id": "inv_7", "channel": "sms"}}
    assert agent.repair(call, reading, TOOLS, failed=True) == (
        "switch",
        {"tool": "billing", "arguments": {"action": "get_invoice", "id": "inv_7"}},
        0.0,
    )


def test_formats_are_written_from_the_value():
    assert agent.email_from("Ada <ada@example.com>") == "ada@example.com"
    assert agent.email_from("ada at example.com") == "ada@example.com"
    assert agent.uri_from("example.com/hook") == "https://example.com/hook"
    assert agent.datetime_from("2026/12/24 09:00") == "2026-12-24T09:00:00Z"
    assert agent.date_from("December 24, 2026") == "2026-12-24"
    assert agent.format_fixer("input should be a valid date or datetime") is agent.date_from
    assert agent.format_fixer("invalid iso datetime") is agent.datetime_from


# ------------------------------------------------- robustness of the harness

import json  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402

AGENT = Path(agent.__file__)
SCENARIOS = AGENT.parent / "scenarios"
GOOD = {"id": "s1", "call": {"tool": "billing", "arguments": {"action": "list_invoices"}},
        "expect": {"tool": "billing", "arguments": {}}}


def run_agent(monkeypatch, capsys, *argv):
    """agent.main() in this process: (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["agent.py", *argv])
    status = agent.main()
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def folder_with(tmp_path, **files):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name, content in files.items():
        (folder / f"{name}.json").write_text(content if isinstance(content, str) else json.dumps(content))
    return folder


@pytest.mark.parametrize("content, says", [
    ({"category": "c", "scenarios": "abc"}, "key 'scenarios' must be an array, got \"abc\""),
    ([GOOD], "must hold a JSON object"),
    ({"category": "c", "scenarios": ["x"]}, "scenarios[0]: must be an object, got \"x\""),
    ({"scenarios": [GOOD]}, "missing key 'category'"),
    ({"category": "c", "scenarios": [{**GOOD, "call": None}]}, "scenarios[0] (id 's1'): key 'call' must be an object, got null"),
    ({"category": "c", "scenarios": [{k: v for k, v in GOOD.items() if k != "expect"}]}, "scenarios[0] (id 's1'): missing key 'expect'"),
    ({"category": "c", "scenarios": [{k: v for k, v in GOOD.items() if k != "id"}]}, "scenarios[0]: missing key 'id'"),
    ({"category": "c", "scenarios": [{**GOOD, "call": {"tool": "billing"}}]}, "missing key 'call.arguments'"),
    ({"category": "c", "scenarios": [{**GOOD, "setup": [{"sleep": "1"}]}]}, "key 'setup[0].sleep' must be a number >= 0"),
    ({"category": "c", "scenarios": [GOOD, GOOD]}, "scenarios[1] (id 's1'): id 's1' is used twice"),
    ("{bad json", "cannot be read"),
])
def test_a_bad_scenario_file_is_named_and_exits_2_before_any_server(monkeypatch, capsys, tmp_path, content, says):
    folder = folder_with(tmp_path, **{"01-good": {"category": "c", "scenarios": [{**GOOD, "id": "other"}]}, "02-bad": content})
    status, out, err = run_agent(monkeypatch, capsys, "--scenarios", str(folder), "--stack", "ours=/nonexistent/bin")
    assert status == 2
    assert "02-bad.json" in err and says in err
    assert "01-good.json" not in err
    assert "did not start" not in err  # no server was started: the files are checked first


@pytest.mark.parametrize("files, argv, says", [
    ({}, [], "no scenario files"),
    ({"a": {"category": "c", "scenarios": []}}, ["--require", "ours=95"], "no scenarios to run"),
    ({"a": {"category": "c", "scenarios": [GOOD]}}, ["--only", "nope", "--require", "ours=95"], "--only: no scenario"),
])
def test_no_scenario_selected_exits_2(monkeypatch, capsys, tmp_path, files, argv, says):
    folder = folder_with(tmp_path, **files)
    status, _, err = run_agent(monkeypatch, capsys, "--scenarios", str(folder), "--stack", "ours=/bin/true", *argv)
    assert status == 2 and says in err


def test_a_missing_scenario_folder_exits_2(monkeypatch, capsys, tmp_path):
    status, _, err = run_agent(monkeypatch, capsys, "--scenarios", str(tmp_path / "none"), "--stack", "ours=/bin/true")
    assert status == 2 and "no such folder" in err


@pytest.mark.parametrize("argv, says", [
    (["--stack", "=/bin/true"], "--stack wants NAME=COMMAND"),
    (["--stack", "ours"], "--stack wants NAME=COMMAND"),
    (["--stack", "ours=  "], "--stack ours: the command is empty"),
    (["--stack", "ours=/bin/true 'x"], "--stack ours: cannot split"),
    (["--stack", "a=/bin/true", "--stack", "a=/bin/true"], "--stack a: given twice"),
    (["--stack", "ours=/bin/true", "--foreign", "node \"x"], "--foreign: cannot split"),
    (["--stack", "ours=/bin/true", "--require", "ts=95"], "no --stack is named 'ts'"),
    (["--stack", "ours=/bin/true", "--require", "ours=lots"], "--require wants NAME=PERCENT"),
])
def test_bad_options_exit_2_naming_the_flag(monkeypatch, capsys, argv, says):
    status, _, err = run_agent(monkeypatch, capsys, "--scenarios", str(SCENARIOS), *argv)
    assert status == 2 and says in err


@pytest.mark.parametrize("command, says", [("/bin/true", "Connection closed"), ("/nonexistent/bin", "No such file")])
def test_a_server_that_does_not_start_exits_2_naming_the_stack(tmp_path, command, says):
    # A real process: the exit status run.sh sees, and no traceback.
    done = subprocess.run(
        [sys.executable, str(AGENT), "--scenarios", str(SCENARIOS), "--stack", f"ts-sdk={command}",
         "--only", "type-limit-string", "--require", "ts-sdk=95"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "--stack ts-sdk: the server" in done.stderr and "did not start" in done.stderr and says in done.stderr
    assert "Traceback" not in done.stderr


def test_a_crashed_or_timed_out_run_is_an_error_for_every_stack_and_exits_2(monkeypatch, capsys, tmp_path):
    async def started(*_):  # let /bin/true past the start check, so that each run crashes
        return None

    monkeypatch.setattr(agent, "probe", started)
    monkeypatch.setattr(agent, "SCENARIO_TIMEOUT", 2)
    out_json = tmp_path / "runs.jsonl"
    status, out, err = run_agent(
        monkeypatch, capsys, "--scenarios", str(SCENARIOS), "--only", "type-limit-string", "--only", "range-limit-high",
        "--stack", "ours=/bin/true", "--stack", "other=/bin/sleep 30", "--require", "ours=0", "--json", str(out_json),
    )
    assert status == 2
    for stack in ("ours", "other"):
        for sid in ("type-limit-string", "range-limit-high"):
            assert f"[error] {stack} {sid}:" in err
    assert "[error] ours type-limit-string: MCPError: Connection closed" in err
    assert "[error] other range-limit-high: timed out after 2 s" in err
    lines = out.splitlines()
    assert lines[-1].split() == ["errors", "2", "2"]
    assert all("0/0" not in line and "not fixed" not in line for line in lines)
    assert "- (2 errors)" in next(line for line in lines if line.startswith("all"))
    runs = [json.loads(line) for line in out_json.read_text().splitlines()]
    assert {r["outcome"] for r in runs} == {"error"} and len(runs) == 4


def test_errors_are_left_out_of_the_share_and_shown_on_their_own_line():
    s = agent.Scenario("x", "cat", {"tool": "t", "arguments": {}}, {})
    results = [agent.Result("ours", s, "fixed"), agent.Result("ours", s, "error", "error: timed out"),
               agent.Result("ts", s, "not fixed")]
    assert agent.share_fixed(results[:2]) == 100.0
    lines = agent.table(results, ["ours", "ts"]).splitlines()
    assert lines[1].split() == ["cat", "1/1", "(1", "error)", "0/1"]
    assert lines[-1].split() == ["errors", "1", "0"]
    assert "errors" not in agent.table(results[:1], ["ours"])
