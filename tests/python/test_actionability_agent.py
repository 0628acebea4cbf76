"""The reading and repair rules of the actionability agent
(actionability/agent.py), on texts of each stack: they must read what the
text says, the same way for every stack, and nothing more."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "actionability"))

import agent  # noqa: E402

TOOLS = {"billing": None, "reminders": None}

OURS_VALIDATION = """<validation_error action="billing.create_invoice">
  <field name="currency">Missing required field. You sent: (missing). Expected one of: 'USD', 'EUR', 'GBP'.</field>
  <field name="items.0.quantity">Too small. You sent: 0. Expected an integer >= 1 and &lt;= 10000.</field>
  <field name="items.0.unit_price">Unrecognized field "unit_price". You sent: 5. Known fields: "description", "quantity", "unit_price_cents". Check for typos. Did you mean "unit_price_cents"?</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
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


def test_an_unknown_key_without_a_suggestion_is_removed_not_guessed():
    reading = agent.read(
        "MCP error -32602: Input validation error: Invalid arguments for tool billing: " 'Unrecognized key: "stauts"'
    )
    call = {"tool": "billing", "arguments": {"action": "list_invoices", "stauts": "paid"}}
    _, nxt, _ = agent.repair(call, reading, TOOLS, failed=True)
    assert nxt["arguments"] == {"action": "list_invoices"}


def test_waits_what_the_text_says_and_stops_only_when_told():
    limited = agent.read(
        '<tool_error code="RATE_LIMITED" severity="error">\n  <message>Too many calls.</message>\n'
        "  <recovery>Wait 20 seconds, then call billing.list_invoices again; calls before then are refused.</recovery>\n"
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
