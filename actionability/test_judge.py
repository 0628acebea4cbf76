"""The judge of the actionability scenarios (agent.judge, agent.matches) and
the checker of their `expect` vocabulary (agent.check_expect), without any
server:

    .venv/bin/python -m pytest -p no:cacheprovider actionability/test_judge.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agent  # noqa: E402
from agent import MISSING, judge, matches  # noqa: E402

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
BY_ID = {s.id: s for s in agent.load_scenarios(SCENARIOS)}


def call(tool: str = "billing", **arguments) -> dict:
    return {"tool": tool, "arguments": arguments}


# ---------------------------------------------------------------- matches


@pytest.mark.parametrize("actual, expected, ok", [
    # Literals: equality, true is not 1, an object contains, a list is as long.
    (5, 5, True),
    (5, 6, False),
    (1, True, False),
    (True, 1, False),
    (True, True, True),
    (1500, 1500.0, True),
    ("5", 5, False),
    ({"a": 1, "b": 2}, {"a": 1}, True),
    ({"a": 1}, {"a": 1, "b": 2}, False),
    ([{"q": 1, "d": "x"}], [{"q": 1}], True),
    ([1, 2], [1], False),
    ({}, {}, True),
    # Range matchers.
    (1000, {"$gte": 1}, True),
    (1, {"$gte": 1}, True),
    (0, {"$gte": 1}, False),
    (100, {"$gte": 1, "$lte": 100}, True),
    (101, {"$gte": 1, "$lte": 100}, False),
    (1, {"$gt": 1}, False),
    (99, {"$lt": 100}, True),
    ("5", {"$gte": 1}, False),
    (True, {"$gte": 0}, False),
    (None, {"$lte": 10}, False),
    # $in: a literal or a matcher each.
    ("EUR", {"$in": ["USD", "EUR", "GBP"]}, True),
    ("eur", {"$in": ["USD", "EUR", "GBP"]}, False),
    (50, {"$in": [1, {"$gte": 10, "$lte": 100}]}, True),
    (5, {"$in": [1, {"$gte": 10, "$lte": 100}]}, False),
    # $matches: the whole string.
    ("https://example.com/hook", {"$matches": "https://example\\.com/hook"}, True),
    ("https://example.com/hook/x", {"$matches": "https://example\\.com/hook"}, False),
    ("xhttps://example.com/hook", {"$matches": "https://example\\.com/hook"}, False),
    (12345, {"$matches": "\\d+"}, False),
    # $type.
    (3, {"$type": "integer"}, True),
    (3.0, {"$type": "integer"}, True),
    (3.5, {"$type": "integer"}, False),
    (True, {"$type": "integer"}, False),
    (True, {"$type": "boolean"}, True),
    ("3", {"$type": "number"}, False),
    (None, {"$type": "null"}, True),
    ([], {"$type": "array"}, True),
    ({}, {"$type": "object"}, True),
    ("a", {"$type": "string", "$matches": "[a-z]"}, True),
    ("A", {"$type": "string", "$matches": "[a-z]"}, False),
])
def test_matches_a_value(actual, expected, ok):
    assert matches(actual, expected) is ok


def test_absent_is_met_only_by_a_key_not_sent():
    assert matches({"action": "list_invoices"}, {"limit": {"$absent": True}})
    assert not matches({"action": "list_invoices", "limit": None}, {"limit": {"$absent": True}})
    assert not matches({"limit": 5}, {"limit": {"$absent": True}})
    either = {"limit": {"$in": [{"$absent": True}, {"$gte": 1, "$lte": 100}]}}
    assert matches({}, either)
    assert matches({"limit": 100}, either)
    assert not matches({"limit": 0}, either)
    # Every other matcher needs the key.
    assert not matches({}, {"limit": {"$gte": 1}})
    assert not matches({}, {"note": {"$type": "string"}})
    assert not matches(MISSING, 5)


def test_a_literal_object_is_not_a_matcher():
    assert not agent.is_matcher({})
    assert not agent.is_matcher({"gte": 1})
    assert agent.is_matcher({"$gte": 1})
    # An empty expected object is a literal: any object contains it.
    assert matches({"a": 1}, {})
    assert not matches([], {})


def test_contains_keeps_its_former_meaning():
    assert agent.contains({"action": "list_invoices", "limit": 5}, {"limit": 5})
    assert not agent.contains({"action": "list_invoices", "limit": 5}, {"limit": 6})


# ------------------------------------------------------------------ judge

SCENARIO = {
    "id": "s",
    "call": call(action="create_invoice", amount_cents=0, currency="EUR"),
    "expect": {
        "tool": "billing",
        "arguments": {"action": "create_invoice", "amount_cents": {"$gte": 1}, "currency": "EUR"},
        "accept": [{"tool": "billing_health", "arguments": {}}],
        "stop_ok": "the amount is one only the user knows",
        "stop_mentions": ["amount"],
    },
}
ASKS = "What amount should the invoice be for?"


def test_judge_a_call_against_the_expectation_and_its_alternatives():
    assert judge(SCENARIO, call(action="create_invoice", amount_cents=1, currency="EUR"), False, False) == "fixed"
    assert judge(SCENARIO, call(action="create_invoice", amount_cents=1000, currency="EUR"), False, False) == "fixed"
    assert judge(SCENARIO, call("billing_health"), False, False) == "fixed"  # accept[0]
    # The same bad value, another kept value, another tool, a failed call.
    assert judge(SCENARIO, call(action="create_invoice", amount_cents=0, currency="EUR"), False, False) == "not fixed"
    assert judge(SCENARIO, call(action="create_invoice", amount_cents=1, currency="USD"), False, False) == "not fixed"
    assert judge(SCENARIO, call("reminders", action="create_invoice", amount_cents=1, currency="EUR"), False, False) == "not fixed"
    assert judge(SCENARIO, call(action="create_invoice", amount_cents=1, currency="EUR"), True, False) == "not fixed"
    assert judge(SCENARIO, None, False, False) == "not fixed"


def test_judge_a_stop():
    assert judge(SCENARIO, None, False, True, ASKS) == "fixed"  # stop_ok, and it names the amount
    # A stop that names nothing the user must decide is giving up, not asking.
    assert agent.judged(SCENARIO, None, False, True, "The input was invalid. Please check it and try again.") == (
        "not fixed", "a stop that names none of 'amount'")
    assert judge(SCENARIO, None, False, True) == "not fixed"
    strict = {**SCENARIO, "expect": {k: v for k, v in SCENARIO["expect"].items() if k not in ("stop_ok", "stop_mentions")}}
    assert judge(strict, None, False, True) == "not fixed"
    assert agent.judged(strict, None, False, True) == ("not fixed", "stopped where a call fixes it")
    stop = {"id": "v", "call": call(action="void_invoice", id="inv_12"), "expect": {"stop": True}}
    assert judge(stop, None, False, True) == "fixed"
    # A call does not fix a stop scenario, even one that succeeded.
    assert judge(stop, call(action="get_invoice", id="inv_12"), False, False) == "not fixed"
    assert agent.judged(stop, call(action="get_invoice", id="inv_12"), False, False)[1] == "a call where only a stop fixes it"
    with pytest.raises(ValueError, match="a stop has no next call"):
        judge(stop, call(action="get_invoice", id="inv_12"), False, True)


def test_judge_says_what_fixed_it():
    assert agent.judged(SCENARIO, call(action="create_invoice", amount_cents=7, currency="EUR"), False, False) == ("fixed", "expect")
    assert agent.judged(SCENARIO, call("billing_health"), False, False) == ("fixed", "accept[0]")
    assert agent.judged(SCENARIO, None, False, True, ASKS) == ("fixed", "stop_ok")
    assert agent.judged(SCENARIO, call(action="create_invoice", amount_cents=7, currency="EUR"), True, False) == (
        "not fixed", "the next call failed")


def test_judge_defaults_the_tool_to_the_bad_calls_and_takes_a_scenario_object():
    s = agent.Scenario("t", "c", call("reminders", action="schedule", channel="emial"),
                       {"arguments": {"action": "schedule", "channel": "email"}})
    assert judge(s, call("reminders", action="schedule", channel="email"), False, False) == "fixed"
    assert judge(s, call("billing", action="schedule", channel="email"), False, False) == "not fixed"


# ------------------------------------------------------ the scenarios themselves


def test_every_scenario_file_loads():
    assert len(BY_ID) == 77


def test_the_amount_only_the_user_knows():
    s = BY_ID["range-amount-zero"]
    base = dict(s.call["arguments"])
    for amount in (1, 1000, 1500):
        assert judge(s, call(**{**base, "amount_cents": amount}), False, False) == "fixed"
    for amount in (0, -5, "1000", 100000000001):
        assert judge(s, call(**{**base, "amount_cents": amount}), False, False) == "not fixed"
    assert judge(s, None, False, True, "What amount, in cents, should the invoice be for?") == "fixed"
    assert judge(s, None, False, True, "The input provided was invalid. Please check the input and try again.") == "not fixed"
    # The customer's other values are kept.
    assert judge(s, call(**{**base, "amount_cents": 1000, "customer_email": "user@example.com"}), False, False) == "not fixed"


def test_the_meant_value_is_required_where_the_intent_is_clear():
    s = BY_ID["enum-typo-status"]
    assert judge(s, call(action="list_invoices", status="paid"), False, False) == "fixed"
    for status in ("piad", "open", "PAID"):
        assert judge(s, call(action="list_invoices", status=status), False, False) == "not fixed"
    assert judge(s, None, False, True) == "not fixed"  # a typo is not a question for the user
    mailto = BY_ID["fmt-email-mailto"]
    base = dict(mailto.call["arguments"])
    assert judge(mailto, call(**{**base, "customer_email": "ada@example.com"}), False, False) == "fixed"
    assert judge(mailto, call(**{**base, "customer_email": "user@example.com"}), False, False) == "not fixed"


def test_a_time_zone_not_given_may_be_any_but_the_date_and_time_are_kept():
    s = BY_ID["fmt-datetime-space"]
    base = dict(s.call["arguments"])
    for at in ("2026-12-24T09:00:00Z", "2026-12-24T09:00:00+01:00", "2026-12-24T09:00Z"):
        assert judge(s, call("reminders", **{**base, "at": at}), False, False) == "fixed", at
    for at in ("2026-12-24 09:00", "2026-12-24T10:00:00Z", "2026-12-25T09:00:00Z", "2026-12-24T09:00:00"):
        assert judge(s, call("reminders", **{**base, "at": at}), False, False) == "not fixed", at


def test_a_short_note_keeps_its_words():
    s = BY_ID["short-note"]
    base = dict(s.call["arguments"])
    for note in ("hi hi", "Hi there!", "hi!"):
        assert judge(s, call("reminders", **{**base, "note": note}), False, False) == "fixed", note
    for note in ("hi", "Please pay", "this invoice"):
        assert judge(s, call("reminders", **{**base, "note": note}), False, False) == "not fixed", note
    without = {k: v for k, v in base.items() if k != "note"}
    assert judge(s, call("reminders", **without), False, False) == "not fixed"


def test_a_capped_line_or_a_split_one():
    s = BY_ID["range-quantity-high"]
    base = dict(s.call["arguments"])
    line = {"description": "Consulting", "unit_price_cents": 1500}
    assert judge(s, call(**{**base, "items": [{**line, "quantity": 10000}]}), False, False) == "fixed"
    assert agent.judged(s, call(**{**base, "items": [{**line, "quantity": 10000}] * 2}), False, False) == ("fixed", "accept[0]")
    assert judge(s, call(**{**base, "items": [{**line, "quantity": 5000}]}), False, False) == "not fixed"
    assert judge(s, call(**{**base, "items": [{**line, "quantity": 20000}]}), False, False) == "not fixed"


def test_stop_scenarios_stay_strict():
    stops = [s for s in BY_ID.values() if s.expect.get("stop")]
    assert sorted(s.id for s in stops) == ["conflict-pay-void", "conflict-void-paid"]
    for s in stops:
        assert judge(s, None, False, True) == "fixed"
        assert judge(s, call(action="get_invoice", id=s.call["arguments"]["id"]), False, False) == "not fixed"
        assert judge(s, s.call, False, False) == "not fixed"


WAIT_AND_RETRY = {"rate-list", "rate-get", "rate-minute", "busy-observed", "busy-time-limit",
                  "busy-nothing-known", "foreign-busy"}


@pytest.mark.parametrize("sid", sorted(BY_ID))
def test_the_bad_call_sent_again_fixes_nothing(sid):
    s = BY_ID[sid]
    outcome = judge(s, s.call, False, False)
    # Only where the fix is the same call after a wait.
    assert outcome == ("fixed" if sid in WAIT_AND_RETRY else "not fixed")


# ---------------------------------------------------------------- checker

GOOD = {"id": "s1", "call": call(action="list_invoices"), "expect": {"tool": "billing", "arguments": {}}}


def problems_of(expect) -> list[str]:
    c = agent.Checker(Path("f.json"))
    agent.check_scenario(c, {**GOOD, "expect": expect}, "scenarios[0] (id 's1')", SCENARIOS.parent)
    return c.problems


def test_the_scenario_files_use_only_known_vocabulary():
    for path in sorted(SCENARIOS.glob("*.json")):
        c = agent.Checker(path)
        for i, raw in enumerate(json.loads(path.read_text())["scenarios"]):
            agent.check_scenario(c, raw, f"scenarios[{i}]", SCENARIOS.parent)
        assert c.problems == []


def test_good_vocabulary_passes():
    assert problems_of({
        "tool": "billing",
        "arguments": {"limit": {"$in": [{"$absent": True}, {"$gte": 1, "$lte": 100}]},
                      "items": [{"quantity": {"$gt": 0, "$lt": 5}, "d": {"$matches": "\\w+", "$type": "string"}}]},
        "accept": [{"arguments": {"action": "list_invoices"}}, {"tool": "billing", "arguments": {}}],
        "stop_ok": "only the user knows",
        "stop_mentions": ["limit", "page size"],
    }) == []


@pytest.mark.parametrize("expect, says", [
    ({"arguments": {}, "stop_ok": "", "stop_mentions": ["x"]}, "key 'expect.stop_ok' must be a non-empty string, got \"\""),
    ({"arguments": {}, "stop_ok": True, "stop_mentions": ["x"]}, "key 'expect.stop_ok' must be a non-empty string, got true"),
    ({"arguments": {}, "stop_ok": "only the user knows"}, "missing key 'expect.stop_mentions'"),
    ({"arguments": {}, "stop_ok": "x", "stop_mentions": []}, "key 'expect.stop_mentions' must list the words"),
    ({"arguments": {}, "stop_ok": "x", "stop_mentions": ["amount", " "]}, "key 'expect.stop_mentions' must list the words"),
    ({"arguments": {}, "stop_mentions": ["amount"]}, "key 'expect.stop_mentions' goes with 'expect.stop_ok'"),
    ({"arguments": {}, "accept": {"tool": "billing"}}, "key 'expect.accept' must be an array, got an object"),
    ({"arguments": {}, "accept": []}, "key 'expect.accept' is empty"),
    ({"arguments": {}, "accept": ["billing"]}, "key 'expect.accept[0]' must be an object ({tool, arguments}), got \"billing\""),
    ({"arguments": {}, "accept": [{"tool": "billing"}]}, "missing key 'expect.accept[0].arguments'"),
    ({"arguments": {}, "accept": [{"arguments": {}, "stop": True}]}, "unknown key 'expect.accept[0].stop'"),
    ({"arguments": {}, "accept": [{"tool": 3, "arguments": {}}]}, "key 'expect.accept[0].tool' must be a non-empty string, got 3"),
    ({"arguments": {}, "acept": []}, "unknown key 'expect.acept' (known: accept, arguments, stop, stop_mentions, stop_ok, tool)"),
    ({"stop": True, "stop_ok": "x"}, "key 'expect.stop_ok' cannot go with 'expect.stop': true"),
    ({"stop": True, "accept": [{"arguments": {}}]}, "key 'expect.accept' cannot go with 'expect.stop': true"),
    ({"stop": True, "arguments": {}}, "key 'expect.arguments' cannot go with 'expect.stop': true"),
    ({"arguments": {"n": {"$gte": "1"}}}, "key 'expect.arguments.n.$gte' must be a number, got \"1\""),
    ({"arguments": {"n": {"$lt": True}}}, "key 'expect.arguments.n.$lt' must be a number, got true"),
    ({"arguments": {"n": {"$gtee": 1}}}, "unknown matcher 'expect.arguments.n.$gtee' (known: $gte, $gt, $lte, $lt, $in, $matches, $type, $absent)"),
    ({"arguments": {"n": {"$gte": 1, "max": 3}}}, "key 'expect.arguments.n' mixes matcher keys ($gte) with plain keys"),
    ({"arguments": {"n": {"$in": []}}}, "key 'expect.arguments.n.$in' must be a non-empty array of values, got an array"),
    ({"arguments": {"n": {"$in": "USD"}}}, "key 'expect.arguments.n.$in' must be a non-empty array of values, got \"USD\""),
    ({"arguments": {"n": {"$in": [1, {"$gte": "x"}]}}}, "key 'expect.arguments.n.$in[1].$gte' must be a number"),
    ({"arguments": {"n": {"$matches": "("}}}, "key 'expect.arguments.n.$matches' is not a valid regular expression"),
    ({"arguments": {"n": {"$matches": 5}}}, "key 'expect.arguments.n.$matches' must be a regular expression (a string), got 5"),
    ({"arguments": {"n": {"$type": "int"}}}, "key 'expect.arguments.n.$type' must be one of string, integer, number, boolean, object, array, null, got \"int\""),
    ({"arguments": {"n": {"$absent": False}}}, "key 'expect.arguments.n.$absent' must be true"),
    ({"arguments": {"n": {"$absent": True, "$type": "string"}}}, "key 'expect.arguments.n.$absent' cannot go with other matchers"),
    ({"arguments": {"items": [{"$absent": True}]}}, "key 'expect.arguments.items[0].$absent' only means something as the value of an object's key"),
    ({"arguments": {"items": [{"q": {"$lte": "9"}}]}}, "key 'expect.arguments.items[0].q.$lte' must be a number"),
    ({"arguments": {}, "accept": [{"arguments": {"n": {"$in": 3}}}]}, "key 'expect.accept[0].arguments.n.$in' must be a non-empty array"),
])
def test_a_bad_expectation_is_named(expect, says):
    found = problems_of(expect)
    assert len(found) == 1, found
    assert found[0].startswith("f.json: scenarios[0] (id 's1'): ")
    assert says in found[0]


def test_a_bad_expectation_stops_the_agent_before_any_server(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    bad = {**GOOD, "expect": {"arguments": {"limit": {"$gte": "1"}}, "stop_ok": ""}}
    (folder / "01-bad.json").write_text(json.dumps({"category": "c", "scenarios": [GOOD, {**bad, "id": "s2"}]}))
    with pytest.raises(agent.UsageError) as e:
        agent.load_scenarios(folder)
    said = str(e.value)
    assert "01-bad.json: scenarios[1] (id 's2'): key 'expect.arguments.limit.$gte' must be a number" in said
    assert "01-bad.json: scenarios[1] (id 's2'): key 'expect.stop_ok' must be a non-empty string" in said
    assert "scenarios[0]" not in said
    monkeypatch.setattr(sys, "argv", ["agent.py", "--scenarios", str(folder), "--stack", "ours=/nonexistent/bin"])
    assert agent.main() == 2
    err = capsys.readouterr().err
    assert "expect.arguments.limit.$gte" in err and "did not start" not in err
