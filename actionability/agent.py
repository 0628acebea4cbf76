#!/usr/bin/env python3
"""The scripted agent of the actionability measurement.

It plays the model's part in a failed tool call, with no model: it sends a
scenario's bad call to a server, reads ONLY the text the model would read (the
result's text content, or a JSON-RPC error's message), applies the repair
rules below, sends ONE corrected call and judges it against what the scenario
says a correct next call looks like. It never reads `_meta`,
`structuredContent` or the tools' schemas, so that what it can fix is exactly
what the error text says. Every stack gets the same rules.

Reading the text
  An error is read into field problems (path, message) and the rest:
  - a `<validation_error>`'s `<field name="…">` lines, or a `<tool_error>`'s
    message, recovery, actions and retry_after (XML, read with the standard
    library's parser);
  - a zod issue list or zod's one-line `…: message at path` form;
  - pydantic's `N validation error(s) for …` blocks (`path` line, indented
    message line);
  - otherwise the whole text is one message.

The repair rules, in order (the first that applies decides)
  1. Stop: the text says "Do not retry", or its severity is critical. The
     agent stops and tells the user (correct when the scenario expects it).
  2. Wait: the text gives a wait (`<retry_after>N seconds`, "wait about N
     seconds", "retry in N seconds", "try again in N s"): sleep exactly N
     seconds and send the same call again. A text about a rate limit, a busy
     server or a time-out with no number: wait 1 second and retry.
  3. Field problems, each repaired in place (all in the one next call):
     - unknown key: rename it to the field the text suggests ("did you
       mean …", "was renamed to …"), else remove it;
     - a value outside a list of options: the option the text suggests ("did
       you mean …", "… took its place"), else the option equal ignoring case,
       else the option the value starts with or that starts with it, else the
       closest option by similarity (difflib, cutoff 0.6); a text that lists
       no options but suggests a value ("did you mean 'x'?") for a string
       sent: that value;
     - missing field: the first option listed, else the example given
       ("e.g. X"), else the lower bound of a number;
     - wrong type: a numeric string to the number, a number to a string;
     - out of range: clamped to the bound named (">= N", "at least N", "at
       most N", "<= N", …); a too short string is repeated up to the length
       named, a too long one cut;
     - bad format: the named format (email, uri/url, date-time, or a date
       when "date" is named before any date-time) written
       from the value (the address inside "Name <a@b>" or "a at b", an
       https:// prefix, an ISO form of a date written another way);
     - pattern: the literal prefix of the pattern (`^inv_` → "inv_") put in
       front of a value that lacks it.
  4. Switch: the text names another action or tool to call, in order of
     preference: the one it suggests ("did you mean \"x\"", "use X instead",
     "call X"), else the first of its available actions. A switch within the
     same grouped tool keeps the other arguments; a switch to another action
     keeps only identifiers (`id`, `*_id`, passed as `id`) and a switch to a
     listing (`list…`) sends none.
  5. Otherwise the agent gives up (not fixed).
  A success whose text carries a deprecation notice naming a replacement
  ("deprecated … use X instead") is switched by rule 4.

Judging (the function `judge`, shared with any other runner that imports
this file, e.g. one where a language model makes the next call)
  A scenario's `expect` says what fixes it: `stop: true` (only stopping to
  tell the user fixes it; any call does not), or a call: `tool` (default:
  the bad call's tool) and `arguments`, which the next call's arguments must
  contain (extra keys are free; a list must have as many elements, each
  contained). `accept` lists other calls that are as right (`{tool,
  arguments}` each); `stop_ok` (a reason) says stopping to ask the user is
  as right as a call, when the stop's message names what the user must
  decide: one of `stop_mentions` (words, case-insensitive; required with
  `stop_ok`), so that "please check your input" is not credited. A call
  fixes the scenario only when it did not fail.
  In `arguments` a literal value means equality; an object whose keys all
  start with "$" is a matcher, all of whose conditions must hold:
    {"$gte": N} {"$gt": N} {"$lte": N} {"$lt": N}  a number in that range
    {"$in": [V, …]}       one of the values (each a literal or a matcher)
    {"$matches": "RE"}    a string the regular expression matches in full
    {"$type": "T"}        string, integer, number, boolean, object, array, null
    {"$absent": true}     the key is not sent
  actionability/JUDGING.md describes them, with the scenarios that use them.

Usage (run.sh calls it):
  agent.py --scenarios DIR --stack NAME=COMMAND [--stack …] [--foreign COMMAND]
           [--only ID …] [--require NAME=PERCENT …] [--json OUT] [--verbose]
COMMAND is a stdio server command; the agent adds the scenario profile's
flags in that stack's spelling (the stack named `ours` is `fusion serve`;
every other stack, `ours-rmcp` included, takes the TypeScript twin's).
--foreign is needed when a selected scenario has profile server: foreign.
profile server: cart is the real-model runner's (runner.py --cart-stack).

Before any server starts, the agent checks the options and every scenario
file (a problem names the file, the scenario's index and id, and the key),
then starts each stack's server once: it must answer the MCP handshake. A
scenario run that crashes or times out is an error of the harness or the
server, not a failure the agent did not fix: it is printed for every stack,
counted on an "errors" line and left out of the shares.

Exit status: 0 once every stack ran; 1 when a stack named by --require fixes
less than PERCENT % of its failures; 2 on bad usage, a bad scenario file, no
scenario selected, a server that does not start, or any scenario run that
ended in an error (the table is then not a valid measurement).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import difflib
import json
import os
import re
import shlex
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

try:
    from mcp import ClientSession, MCPError, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError:  # the checker and the judge need no MCP client; main() says so
    ClientSession = MCPError = StdioServerParameters = stdio_client = None

# ---------------------------------------------------------------- scenarios

MISSING = object()


@dataclass
class Scenario:
    id: str
    category: str
    call: dict
    expect: dict
    profile: dict = field(default_factory=dict)
    setup: list = field(default_factory=list)
    note: str = ""
    goal: str = ""
    history: list = field(default_factory=list)


class UsageError(Exception):
    """Bad usage, a bad scenario file or a stack that cannot start: exit 2."""


def json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)


def shown(value) -> str:
    if isinstance(value, (dict, list)):
        return "an array" if isinstance(value, list) else "an object"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


KINDS = {  # JSON kind -> (test, what the message says is wanted)
    "object": (lambda v: isinstance(v, dict), "an object"),
    "array": (lambda v: isinstance(v, list), "an array"),
    "string": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
    "number": (lambda v: json_type(v) == "number" and v >= 0, "a number >= 0"),
}

PROFILE_KEYS = {"report_ms": "number", "max_active": "number", "rate_limit": "string",
                "timeout_ms": "number", "lock": "string", "server": "string"}


class Checker:
    """The problems of one scenario file, each naming the file, the scenario
    (index and id) and the key."""

    def __init__(self, path: Path):
        self.path = path
        self.problems: list[str] = []

    def fail(self, where: str, problem: str) -> None:
        self.problems.append(f"{self.path}: {where}: {problem}" if where else f"{self.path}: {problem}")

    def get(self, obj: dict, key: str, kind: str, where: str, prefix: str = "", required: bool = True):
        """obj[key] when it is of the JSON kind named; else MISSING and a problem."""
        if key not in obj:
            if required:
                self.fail(where, f"missing key {prefix + key!r}")
            return MISSING
        test, wanted = KINDS[kind]
        if not test(obj[key]):
            self.fail(where, f"key {prefix + key!r} must be {wanted}, got {shown(obj[key])}")
            return MISSING
        return obj[key]

    def only(self, obj: dict, known, where: str, prefix: str = "") -> None:
        for key in obj:
            if key not in known:
                self.fail(where, f"unknown key {prefix + key!r} (known: {', '.join(sorted(known))})")

    def call(self, obj: dict, key: str, where: str, prefix: str = "") -> None:
        call = self.get(obj, key, "object", where, prefix)
        if call is not MISSING:
            at = f"{prefix}{key}."
            self.only(call, {"tool", "arguments"}, where, at)
            self.get(call, "tool", "string", where, at)
            self.get(call, "arguments", "object", where, at)


def check_expect(c: Checker, expect: dict, where: str) -> None:
    """`expect` and its judging vocabulary (see judge())."""
    c.only(expect, {"tool", "arguments", "stop", "accept", "stop_ok", "stop_mentions"}, where, "expect.")
    c.get(expect, "tool", "string", where, "expect.", required=False)
    arguments = c.get(expect, "arguments", "object", where, "expect.", required=False)
    if arguments is not MISSING:
        check_arguments(c, arguments, where, "expect.arguments")
    stop = c.get(expect, "stop", "boolean", where, "expect.", required=False)
    stop_ok = c.get(expect, "stop_ok", "string", where, "expect.", required=False)
    mentions = c.get(expect, "stop_mentions", "array", where, "expect.",
                     required=stop_ok is not MISSING and stop is not True)
    if mentions is not MISSING and (not mentions or not all(isinstance(m, str) and m.strip() for m in mentions)):
        c.fail(where, "key 'expect.stop_mentions' must list the words (non-empty strings) a right stop names")
    if mentions is not MISSING and "stop_ok" not in expect:
        c.fail(where, "key 'expect.stop_mentions' goes with 'expect.stop_ok'")
    accept = c.get(expect, "accept", "array", where, "expect.", required=False)
    if accept is not MISSING:
        if not accept:
            c.fail(where, "key 'expect.accept' is empty: leave it out, or list the other right calls")
        for j, alt in enumerate(accept):
            at = f"expect.accept[{j}]"
            if not isinstance(alt, dict):
                c.fail(where, f"key {at!r} must be an object ({{tool, arguments}}), got {shown(alt)}")
                continue
            c.only(alt, {"tool", "arguments"}, where, at + ".")
            c.get(alt, "tool", "string", where, at + ".", required=False)
            alt_args = c.get(alt, "arguments", "object", where, at + ".")
            if alt_args is not MISSING:
                check_arguments(c, alt_args, where, at + ".arguments")
    if stop is True:
        for key in ("tool", "arguments", "accept", "stop_ok", "stop_mentions"):
            if key in expect:
                c.fail(where, f"key 'expect.{key}' cannot go with 'expect.stop': true "
                              "(only a stop fixes such a scenario; no call does)")


MATCHERS = ("$gte", "$gt", "$lte", "$lt", "$in", "$matches", "$type", "$absent")
TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")


def is_matcher(value) -> bool:
    """An expected value that is a matcher: a non-empty object whose keys all
    start with "$" (tool arguments have no such keys)."""
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and k.startswith("$") for k in value)


def check_arguments(c: Checker, value, where: str, at: str, under_key: bool = False) -> None:
    """The matchers in an expected value, at every depth; `at` names the key."""
    if isinstance(value, list):
        for j, item in enumerate(value):
            check_arguments(c, item, where, f"{at}[{j}]")
        return
    if not isinstance(value, dict):
        return
    if not is_matcher(value):
        odd = [k for k in value if k.startswith("$")]
        if odd:
            c.fail(where, f"key {at!r} mixes matcher keys ({', '.join(odd)}) with plain keys: "
                          "a matcher holds only $ keys")
        for k, v in value.items():
            check_arguments(c, v, where, f"{at}.{k}", under_key=True)
        return
    for op, arg in value.items():
        key = f"{at}.{op}"
        if op not in MATCHERS:
            c.fail(where, f"unknown matcher {key!r} (known: {', '.join(MATCHERS)})")
        elif op in ("$gte", "$gt", "$lte", "$lt"):
            if json_type(arg) != "number":
                c.fail(where, f"key {key!r} must be a number, got {shown(arg)}")
        elif op == "$in":
            if not isinstance(arg, list) or not arg:
                c.fail(where, f"key {key!r} must be a non-empty array of values, got {shown(arg)}")
            else:
                for j, item in enumerate(arg):
                    check_arguments(c, item, where, f"{key}[{j}]", under_key)
        elif op == "$matches":
            if not isinstance(arg, str):
                c.fail(where, f"key {key!r} must be a regular expression (a string), got {shown(arg)}")
            else:
                try:
                    re.compile(arg)
                except re.error as e:
                    c.fail(where, f"key {key!r} is not a valid regular expression: {e}")
        elif op == "$type":
            if arg not in TYPES:
                c.fail(where, f"key {key!r} must be one of {', '.join(TYPES)}, got {shown(arg)}")
        elif op == "$absent":
            if arg is not True:
                c.fail(where, f"key {key!r} must be true (a key that must be sent is said with a value "
                              f"or another matcher), got {shown(arg)}")
            elif len(value) > 1:
                c.fail(where, f"key {key!r} cannot go with other matchers: an absent key has no value")
            elif not under_key:
                c.fail(where, f"key {key!r} only means something as the value of an object's key")


def check_scenario(c: Checker, raw: dict, where: str, root: Path) -> None:
    c.only(raw, {"id", "note", "call", "expect", "profile", "setup", "goal", "history"}, where)
    c.get(raw, "note", "string", where, required=False)
    goal = c.get(raw, "goal", "string", where, required=False)
    history = c.get(raw, "history", "array", where, required=False)
    if history is not MISSING and goal is MISSING:
        c.fail(where, "key 'history' needs a 'goal': earlier calls are shown on the way to a user's request")
    for j, step in enumerate(history if history is not MISSING else []):
        at = f"history[{j}]."
        if not isinstance(step, dict):
            c.fail(where, f"key {at[:-1]!r} must be an object, got {shown(step)}")
        else:
            c.only(step, {"call"}, where, at)
            c.call(step, "call", where, at)
    c.call(raw, "call", where)
    expect = c.get(raw, "expect", "object", where)
    if expect is not MISSING:
        check_expect(c, expect, where)
    profile = c.get(raw, "profile", "object", where, required=False)
    if profile is not MISSING:
        c.only(profile, PROFILE_KEYS, where, "profile.")
        for key, kind in PROFILE_KEYS.items():
            c.get(profile, key, kind, where, "profile.", required=False)
        if profile.get("server", "foreign") not in ("foreign", "cart"):
            c.fail(where, f"key 'profile.server' must be \"foreign\" or \"cart\", got {shown(profile['server'])}")
        if isinstance(profile.get("lock"), str) and not (root / profile["lock"]).is_file():
            c.fail(where, f"key 'profile.lock': no file {root / profile['lock']}")
    setup = c.get(raw, "setup", "array", where, required=False)
    for j, step in enumerate(setup if setup is not MISSING else []):
        at = f"setup[{j}]."
        if not isinstance(step, dict):
            c.fail(where, f"key {at[:-1]!r} must be an object, got {shown(step)}")
        elif "sleep" in step:
            c.only(step, {"sleep"}, where, at)
            c.get(step, "sleep", "number", where, at)
        else:
            c.only(step, {"call", "background"}, where, at)
            c.call(step, "call", where, at)
            c.get(step, "background", "boolean", where, at, required=False)


def load_scenarios(folder: Path) -> list[Scenario]:
    """Every scenario of the folder's *.json files, checked in full first: a
    UsageError lists every problem found (file, scenario, key)."""
    if not folder.is_dir():
        raise UsageError(f"--scenarios {folder}: no such folder")
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise UsageError(f"--scenarios {folder}: no scenario files (*.json) in it")
    root = folder.resolve().parent
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    problems: list[str] = []
    for path in paths:
        c = Checker(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:  # ValueError: bad JSON or bad UTF-8
            c.fail("", f"cannot be read: {e}")
            problems += c.problems
            continue
        if not isinstance(data, dict):
            c.fail("", f"must hold a JSON object with 'category' and 'scenarios', got {shown(data)}")
            problems += c.problems
            continue
        c.only(data, {"category", "scenarios"}, "")
        category = c.get(data, "category", "string", "")
        entries = c.get(data, "scenarios", "array", "")
        for i, raw in enumerate(entries if entries is not MISSING else []):
            where = f"scenarios[{i}]"
            if not isinstance(raw, dict):
                c.fail(where, f"must be an object, got {shown(raw)}")
                continue
            sid = c.get(raw, "id", "string", where)
            if sid is not MISSING:
                where += f" (id {sid!r})"
                if sid in seen:
                    c.fail(where, f"id {sid!r} is used twice (also in {seen[sid]})")
                seen.setdefault(sid, str(path))
            before = len(c.problems)
            check_scenario(c, raw, where, root)
            if len(c.problems) == before and sid is not MISSING and category is not MISSING:
                scenarios.append(Scenario(
                    id=sid,
                    category=category,
                    call=raw["call"],
                    expect=raw["expect"],
                    profile=raw.get("profile", {}),
                    setup=raw.get("setup", []),
                    note=raw.get("note", ""),
                    goal=raw.get("goal", ""),
                    history=[step["call"] for step in raw.get("history", [])],
                ))
        problems += c.problems
    if problems:
        raise UsageError("bad scenario files:\n  " + "\n  ".join(problems))
    return scenarios


def profile_flags(stack: str, profile: dict, root: Path) -> list[str]:
    """A scenario profile's server flags in the stack's spelling: ours
    (`fusion serve`) takes durations and --timeout; the others (ts-sdk,
    fastmcp, rmcp and ours-rmcp, the rmcp router with mcp-fusion's adapter)
    take the TypeScript twin's --report-ms N, --max-active N, --rate-limit
    N/PERIOD and --timeout-ms N; a lockfile goes to the two mcp-fusion
    stacks."""
    ours = stack == "ours"
    flags: list[str] = []
    if "report_ms" in profile:
        ms = profile["report_ms"]
        flags += ["--report-ms", f"{ms}ms" if ours else str(ms)]
    if "max_active" in profile:
        flags += ["--max-active", str(profile["max_active"])]
    if "rate_limit" in profile:
        flags += ["--rate-limit", profile["rate_limit"]]
    if "timeout_ms" in profile:
        ms = profile["timeout_ms"]
        flags += ["--timeout", f"{ms}ms"] if ours else ["--timeout-ms", str(ms)]
    if "lock" in profile and ours:
        flags += ["--lock", str(root / profile["lock"])]
    elif "lock" in profile and stack == "ours-rmcp":
        # The rmcp router's own lockfile (its `billing` is one flat tool):
        # contracts/v1.rmcp.lock beside contracts/v1.lock, with the same
        # changes (contracts/make_v1.py).
        flags += ["--lock", str(root / profile["lock"].replace(".lock", ".rmcp.lock"))]
    # The other stacks keep no lockfile: they serve the current contract and
    # say nothing about the change.
    return flags


# ------------------------------------------------------------ reading text


@dataclass
class Reading:
    text: str
    fields: list = field(default_factory=list)  # (path list, message)
    actions: list = field(default_factory=list)  # names, in order of preference
    retry_seconds: float | None = None
    stop: bool = False
    waitable: bool = False
    corrected: bool = False  # the first action is a "did you mean" correction
    renames: dict = field(default_factory=dict)  # old key -> new key (contract deltas)
    replacements: dict = field(default_factory=dict)  # old value -> new value


NUMBER = r"(\d+(?:\.\d+)?)"


def split_path(path: str) -> list:
    out: list = []
    for part in re.split(r"[./]", path.strip().strip("/")):
        if part == "":
            continue
        out.append(int(part) if part.isdigit() else part)
    return out


def read_xml(text: str, reading: Reading) -> bool:
    start = min([i for i in (text.find("<tool_error"), text.find("<validation_error")) if i >= 0], default=-1)
    if start < 0:
        return False
    found = False
    for match in re.finditer(r"<(tool_error|validation_error)\b.*?</\1>", text, re.S):
        try:
            root = ET.fromstring(match.group(0))
        except ET.ParseError:
            continue
        found = True
        if root.get("severity") == "critical":
            reading.stop = True
        for f in root.iter("field"):
            reading.fields.append((split_path(f.get("name", "")), f.text or ""))
        for a in root.iter("action"):
            if a.text and a.text not in reading.actions:
                reading.actions.append(a.text.strip())
        ra = root.find("retry_after")
        if ra is not None and ra.text:
            m = re.search(NUMBER, ra.text)
            if m:
                reading.retry_seconds = float(m.group(1))
        for delta in root.iter("delta"):
            parse_delta(delta.text or "", reading)
    return found


def parse_delta(text: str, reading: Reading) -> None:
    m = re.search(r'Field "([^"]+)" was renamed to "([^"]+)"', text)
    if m:
        reading.renames[m.group(1).split(".")[-1]] = m.group(2).split(".")[-1]
    m = re.search(r'no longer accepts "([^"]+)"; "([^"]+)" took its place', text)
    if m:
        reading.replacements[m.group(1)] = m.group(2)


def read_zod(text: str, reading: Reading) -> bool:
    # A JSON issue list (zod 3 / older SDKs).
    i = text.find("[")
    if i >= 0:
        try:
            issues = json.loads(text[i:text.rfind("]") + 1])
            if isinstance(issues, list) and issues and all(isinstance(x, dict) and "message" in x for x in issues):
                for issue in issues:
                    path = issue.get("path", [])
                    message = issue["message"]
                    for key in issue.get("keys", []) or []:
                        reading.fields.append((list(path) + [key], "Unrecognized key " + json.dumps(key)))
                    if not issue.get("keys"):
                        reading.fields.append((list(path), message))
                return True
        except (ValueError, TypeError):
            pass
    # zod 4 one-line form: "Invalid arguments for tool X: msg at path; msg2 at path2"
    m = re.search(r"Invalid arguments for tool [^:]+: (.*)", text, re.S)
    if not m:
        return False
    for part in re.split(r";\s*|\n", m.group(1)):
        part = part.strip()
        if not part:
            continue
        at = re.match(r"(.*) at ([\w.\[\]]+)$", part, re.S)
        if at:
            reading.fields.append((split_path(at.group(2).replace("[", ".").replace("]", "")), at.group(1)))
        else:
            keys = re.findall(r'"([^"]+)"', part) if re.search(r"(?i)unrecognized key", part) else []
            if keys:
                for key in keys:
                    reading.fields.append(([key], part))
            else:
                reading.fields.append(([], part))
    return True


def read_pydantic(text: str, reading: Reading) -> bool:
    if not re.search(r"\d+ validation errors? for ", text):
        return False
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line and not line.startswith(" ") and lines[i + 1].startswith("  ") and "validation error" not in line:
            message = lines[i + 1].strip()
            path = line.strip()
            path = re.sub(r"^call\[[^\]]*\]\.?", "", path)
            reading.fields.append((split_path(path), message))
    return True


def read(text: str) -> Reading:
    reading = Reading(text=text)
    if not read_xml(text, reading):
        read_zod(text, reading) or read_pydantic(text, reading)
    if re.search(r"(?i)do not retry", text):
        reading.stop = True
    m = re.search(
        r"(?i)(?:wait(?: about)?|retry(?: after| in)?|try again in)\s+" + NUMBER + r"\s*(?:s\b|sec|second)", text
    )
    if m and reading.retry_seconds is None:
        reading.retry_seconds = float(m.group(1))
    if re.search(r"(?i)rate limit|busy|at capacity|too many requests|try again later|timed out", text):
        reading.waitable = True
    # Actions or tools the text tells the model to call.
    named: list[str] = []
    for pattern in (
        r'[Dd]id you mean "([\w.\-]+)"',
        r"(?i)use (?:the )?[`\"']?([\w.\-]+)[`\"']?(?: action)? instead",
        r"(?i)\bcall ([a-z_]+\.[a-z_]+)",
    ):
        for m in re.finditer(pattern, text):
            if not named and pattern.startswith("[Dd]id"):
                reading.corrected = True
            if m.group(1) not in named:
                named.append(m.group(1))
    reading.actions = named + [a for a in reading.actions if a not in named]
    return reading


# ---------------------------------------------------------- repair helpers


def get_at(obj, path):
    for part in path:
        if isinstance(part, int) and isinstance(obj, list) and part < len(obj):
            obj = obj[part]
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return MISSING
    return obj


def set_at(obj, path, value):
    for part in path[:-1]:
        obj = obj[part]
    obj[path[-1]] = value


def del_at(obj, path):
    parent = get_at(obj, path[:-1])
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def quoted_items(s: str) -> list[str]:
    return re.findall(r"""['"]([^'"]+)['"]""", s)


def options_in(message: str) -> list[str]:
    for pattern in (
        r"(?i)one of:?\s*(.*?)(?:\.\s|\.$|$)",
        r"(?i)expected one of\s*(.*?)(?:\s+at\s|$)",
        r"(?i)input should be (.*?)(?:\s*\[|$)",
        r"(?i)expected (['\"][^'\"]+['\"](?:\s*\|\s*['\"][^'\"]+['\"])+)",
    ):
        m = re.search(pattern, message)
        if m:
            items = quoted_items(m.group(1))
            if items:
                return items
    return []


def options_or_suggestion(value, message: str) -> list[str]:
    """The options a line lists, else the one value it suggests in place
    of a string sent (`Did you mean 'paid'?` standing alone)."""
    options = options_in(message)
    if options or not isinstance(value, str):
        return options
    s = suggested_value(message)
    return [s] if s is not None and s != value else []


def suggested_value(message: str) -> str | None:
    m = re.search(r"""[Dd]id you mean ['"]([^'"]+)['"]""", message)
    return m.group(1) if m else None


def pick_option(value, options: list[str], message: str, reading: Reading):
    if isinstance(value, str) and value in reading.replacements and reading.replacements[value] in options:
        return reading.replacements[value]
    s = suggested_value(message)
    if s in options:
        return s
    if not isinstance(value, str):
        return None
    for o in options:
        if o.lower() == value.lower():
            return o
    starts = [o for o in options if value.lower().startswith(o.lower()) or o.lower().startswith(value.lower())]
    if len(starts) == 1:
        return starts[0]
    close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
    return close[0] if close else None


def email_from(value: str) -> str | None:
    m = re.search(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", value)
    if m:
        return m.group(0)
    m = re.match(r"\s*([\w.+-]+)\s+at\s+([\w-]+(?:\.[\w-]+)+)\s*$", value)
    if m:
        return f"{m.group(1)}@{m.group(2)}"
    return None


def uri_from(value: str) -> str | None:
    v = value.strip()
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", v):
        return None
    return "https://" + v.lstrip("/")


MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}


def date_parts(value: str):
    v = value.strip()
    m = re.match(r"^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})", v)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3)), v[m.end():]
    m = re.match(r"^(\d{1,2})[/.](\d{1,2})[/.](\d{4})", v)
    if m:  # day first (ISO 8601's order is unknowable here; most of the world)
        return int(m.group(3)), int(m.group(2)), int(m.group(1)), v[m.end():]
    m = re.match(r"^([A-Za-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})", v)
    if m and m.group(1).lower() in MONTHS:
        return int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2)), v[m.end():]
    return None


def date_from(value: str) -> str | None:
    parts = date_parts(value)
    if not parts:
        return None
    y, mo, d, _ = parts
    return f"{y:04d}-{mo:02d}-{d:02d}"


def datetime_from(value: str) -> str | None:
    parts = date_parts(value)
    if not parts:
        return None
    y, mo, d, rest = parts
    m = re.match(r"^[ T]?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(Z|[+-]\d{2}:?\d{2})?\s*$", rest)
    if not m:
        if rest.strip():
            return None
        hh, mm, ss, zone = 0, 0, 0, None
    else:
        hh, mm, ss, zone = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), m.group(4)
    return f"{y:04d}-{mo:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}{zone or 'Z'}"


def format_fixer(low: str):
    """The writer of the format a (lower-cased) message names: email, uri or
    url, a date-time, or a date (a plain "date" named before any date-time,
    as in "a valid date or datetime")."""
    if "email" in low:
        return email_from
    if "uri" in low or "url" in low:
        return uri_from
    plain = re.search(r"\bdate\b(?![- ]?time| and time)", low)
    timed = re.search(r"date-time|datetime|date and time", low)
    if plain and (not timed or plain.start() < timed.start()):
        return date_from
    if timed:
        return datetime_from
    return None


def bound(message: str, lower: bool):
    ops = (r"(?:>=|≥|at least|greater than or equal to|minimum(?: of)?|min(?:imum)? is)" if lower
           else r"(?:<=|≤|at most|less than or equal to|maximum(?: of)?|max(?:imum)? is)")
    m = re.search(ops + r"\s*(-?" + NUMBER + r")", message, re.I)
    return float(m.group(1)) if m else None


def as_number(x: float):
    return int(x) if float(x).is_integer() else x


def example_in(message: str):
    m = re.search(r"\(e\.g\.\s*([^\s)]+)\)", message)
    return m.group(1) if m else None


def repair_field(args: dict, path: list, message: str, reading: Reading) -> bool:
    """Repairs one field problem in `args`; whether it changed anything."""
    low = message.lower()
    value = get_at(args, path)
    key = path[-1] if path else None
    # Unknown key.
    if re.search(r"unrecognized|unknown (?:key|field|keyword)|unexpected (?:key|keyword)|extra (?:inputs|fields)", low):
        if value is MISSING or key is None:
            return False
        new = reading.renames.get(key)
        if new is None:
            m = re.search(r'[Dd]id you mean "([^"]+)"', message)
            new = m.group(1) if m else None
        parent = get_at(args, path[:-1])
        if not isinstance(parent, dict):
            return False
        v = parent.pop(key)
        if new:
            parent[new] = v
        return True
    # Missing field.
    if value is MISSING:
        options = options_in(message)
        if options:
            set_at(args, path, options[0])
            return True
        ex = example_in(message)
        if ex is not None:
            set_at(args, path, ex)
            return True
        lo = bound(message, True)
        if lo is not None:
            set_at(args, path, as_number(lo))
            return True
        return False
    # A list of options, or one value suggested.
    options = options_or_suggestion(value, message)
    if options:
        picked = pick_option(value, options, message, reading)
        if picked is None or picked == value:
            return False
        set_at(args, path, picked)
        return True
    # Formats (before types: "date-time" mentions no type).
    fix = format_fixer(low) if isinstance(value, str) else None
    if fix is not None:
        new = fix(value)
        if new and new != value:
            set_at(args, path, new)
            return True
        return False
    # Wrong type.
    if re.search(r"integer|number", low) and isinstance(value, str) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value):
        n = float(value)
        set_at(args, path, int(n) if ("integer" in low or n.is_integer()) else n)
        return True
    if re.search(r"expected (a )?string|should be a valid string", low) and isinstance(value, (int, float)) and not isinstance(value, bool):
        set_at(args, path, str(value))
        return True
    # Ranges and lengths.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = bound(message, True), bound(message, False)
        if lo is not None and value < lo:
            set_at(args, path, as_number(lo))
            return True
        if hi is not None and value > hi:
            set_at(args, path, as_number(hi))
            return True
        return False
    if isinstance(value, str):
        lo, hi = bound(message, True), bound(message, False)
        if lo is not None and len(value) < lo:
            filler = value or str(key)
            new = filler
            while len(new) < lo:
                new += " " + filler
            set_at(args, path, new)
            return True
        if hi is not None and len(value) > hi:
            set_at(args, path, value[: int(hi)])
            return True
        # Pattern: the literal prefix of the pattern.
        m = re.search(r"pattern\s*['\"/]?\^([A-Za-z_\-]+)", message)
        if m and not value.startswith(m.group(1)):
            set_at(args, path, m.group(1) + value)
            return True
    return False


def switch(call: dict, name: str, tools: dict, corrected: bool) -> dict | None:
    """The call of action or tool `name`, from `call` (rule 4). A corrected
    action name (`corrected`: the text's "did you mean") keeps the other
    arguments; another action keeps only an identifier; a listing none."""
    tool, action = call["tool"], None
    if "." in name:
        tool, action = name.split(".", 1)
    elif name in tools:
        tool = name
    else:
        action = name
    if tool not in tools:
        return None
    old = call["arguments"]
    if corrected and tool == call["tool"] and action is not None:
        return {"tool": tool, "arguments": {**old, "action": action}}
    args: dict = {}
    if action is not None:
        args["action"] = action
    if not (action or tool).startswith("list"):
        for k, v in old.items():
            if k == "id" or k.endswith("_id"):
                args["id"] = v
                break
    return {"tool": tool, "arguments": args}


def repair(call: dict, reading: Reading, tools: dict, failed: bool) -> tuple[str, dict | None, float]:
    """(what, next call or None, seconds to wait first)."""
    if not failed:
        if re.search(r"(?i)deprecated", reading.text) and reading.actions:
            nxt = switch(call, reading.actions[0], tools, False)
            if nxt:
                return "switch", nxt, 0.0
        return "accepted", None, 0.0
    if reading.stop:
        return "stop", None, 0.0
    if reading.retry_seconds is not None:
        return "wait", copy.deepcopy(call), reading.retry_seconds
    if reading.waitable and not reading.fields:
        return "wait", copy.deepcopy(call), 1.0
    if reading.fields:
        args = copy.deepcopy(call["arguments"])
        changed = False
        # Unknown keys last, so that a rename does not hide its missing twin.
        ordered = sorted(reading.fields, key=lambda f: bool(re.search(r"(?i)unrecognized|unknown|unexpected|extra", f[1])))
        for path, message in ordered:
            if path and path[0] == "action":
                continue
            changed |= repair_field(args, path, message, reading)
        action_fix = [f for f in reading.fields if f[0][:1] == ["action"] or (not f[0] and "action" in f[1])]
        if action_fix:
            _, message = action_fix[0]
            sent = call["arguments"].get("action", "")
            options = options_or_suggestion(sent, message)
            picked = pick_option(sent, options, message, reading) if options else None
            if picked:
                args["action"] = picked
                changed = True
        if changed:
            return "fields", {"tool": call["tool"], "arguments": args}, 0.0
    if reading.actions:
        nxt = switch(call, reading.actions[0], tools, reading.corrected)
        if nxt:
            return "switch", nxt, 0.0
    return "gave up", None, 0.0


# ---------------------------------------------------------------- judging


FIXED, NOT_FIXED = "fixed", "not fixed"


def is_type(value, name: str) -> bool:
    """Whether `value` (a parsed JSON value) is of the JSON Schema type `name`."""
    kind = json_type(value)
    if name == "integer":
        return kind == "number" and float(value).is_integer()
    return kind == name


def matches(actual, expected) -> bool:
    """Whether `actual` meets the expected value: a matcher's conditions, all
    of them; else equal (true is not 1), an object containing the expected
    keys (more are free), a list of as many elements, each meeting its own.
    `actual` is MISSING for a key that was not sent: only {"$absent": true}
    (alone or in an "$in") is met then."""
    if is_matcher(expected):
        return all(meets(op, arg, actual) for op, arg in expected.items())
    if actual is MISSING:
        return False
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(matches(actual.get(k, MISSING), v) for k, v in expected.items())
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(matches(a, e) for a, e in zip(actual, expected)))
    return json_type(actual) == json_type(expected) and actual == expected  # true is not 1


def meets(op: str, arg, actual) -> bool:
    if op == "$absent":
        return actual is MISSING
    if op == "$in":
        return any(matches(actual, option) for option in arg)
    if actual is MISSING:
        return False
    if op == "$type":
        return is_type(actual, arg)
    if op == "$matches":
        return isinstance(actual, str) and re.fullmatch(arg, actual) is not None
    if json_type(actual) != "number":
        return False
    return {"$gte": actual >= arg, "$gt": actual > arg, "$lte": actual <= arg, "$lt": actual < arg}[op]


def contains(actual, expected) -> bool:
    """`matches` under its former name."""
    return matches(actual, expected)


def judge(scenario, next_call: dict | None, second_failed: bool, stopped: bool, message: str = "") -> str:
    """"fixed" or "not fixed": what the next step after a scenario's bad call
    did. `scenario` is a Scenario or a scenario's JSON object; `next_call`
    ({tool, arguments}) the call sent after the failure, None when there was
    none; `second_failed` whether that call failed; `stopped` whether the
    agent stopped to tell or ask the user instead of calling; `message` what
    the stop said to the user.

    A stop fixes a scenario whose `expect` has `stop: true`, or `stop_ok`
    when `message` names one of `stop_mentions` (case-insensitive). A
    call fixes one whose `expect` is not a stop, when it did not fail and it
    is the expected call or one of `expect.accept`: the same tool (default:
    the bad call's) and arguments meeting the expected ones (`matches`)."""
    return judged(scenario, next_call, second_failed, stopped, message)[0]


def judged(scenario, next_call: dict | None, second_failed: bool, stopped: bool,
           message: str = "") -> tuple[str, str]:
    """judge()'s outcome and why, in a few words: "stop", "stop_ok", "expect"
    or "accept[i]" (what fixed it), or the reason it did not."""
    if isinstance(scenario, Scenario):
        call, expect = scenario.call, scenario.expect
    else:
        call, expect = scenario["call"], scenario["expect"]
    if stopped:
        if next_call is not None:
            raise ValueError("judge: a stop has no next call (next_call must be None when stopped)")
        if expect.get("stop") is True:
            return FIXED, "stop"
        if "stop_ok" in expect:
            words = expect.get("stop_mentions", [])
            if any(w.lower() in message.lower() for w in words):
                return FIXED, "stop_ok"
            return NOT_FIXED, f"a stop that names none of {', '.join(map(repr, words))}"
        return NOT_FIXED, "stopped where a call fixes it"
    if next_call is None:
        return NOT_FIXED, "no next call"
    if expect.get("stop") is True:
        return NOT_FIXED, "a call where only a stop fixes it"
    if second_failed:
        return NOT_FIXED, "the next call failed"
    rights = [("expect", expect)] + [(f"accept[{i}]", alt) for i, alt in enumerate(expect.get("accept", []))]
    for name, right in rights:
        if (next_call.get("tool") == right.get("tool", call["tool"])
                and matches(next_call.get("arguments", {}), right.get("arguments", {}))):
            return FIXED, name
    return NOT_FIXED, "not the expected call"


def text_of(outcome) -> tuple[bool, str]:
    """(failed, text) of a call's outcome: a result or a JSON-RPC error."""
    if isinstance(outcome, MCPError):
        return True, outcome.error.message
    texts = [c.text for c in outcome.content if getattr(c, "type", None) == "text"]
    return bool(outcome.is_error), "\n".join(texts)


async def call_tool(session: ClientSession, call: dict):
    try:
        return await session.call_tool(call["tool"], call["arguments"])
    except MCPError as e:
        return e


@dataclass
class Result:
    stack: str
    scenario: Scenario
    outcome: str  # fixed | accepted | not fixed | error (the harness or server failed)
    step: str = ""
    first: str = ""
    second: str = ""
    next_call: dict | None = None
    waited: float = 0.0
    judged: str = ""  # judged()'s why: what fixed it, or why not


SCENARIO_TIMEOUT = 90  # seconds for one scenario, its server's start included
START_TIMEOUT = 30  # seconds for a stack's server to start and answer the handshake


def describe(e: BaseException) -> str:
    """Why a run failed, in one line (the leaves of an exception group)."""
    if isinstance(e, (TimeoutError, asyncio.TimeoutError)):
        return "timed out"
    leaves = getattr(e, "exceptions", None)
    if leaves:
        return "; ".join(describe(x) for x in leaves)
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


@asynccontextmanager
async def serve(command: str, flavor: str, profile: dict, root: Path):
    """A session with a fresh server started with the profile's flags, and its tools."""
    argv = shlex.split(command) + profile_flags(flavor, profile, root)
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as errlog:
        if flavor == "ours":
            argv += ["--db", os.path.join(tmp, "billing.db")]
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
        async with stdio_client(params, errlog=errlog) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                yield session, tools


async def probe(label: str, command: str, flavor: str, root: Path) -> None:
    """Start the server once and list its tools; a UsageError saying why if it cannot."""

    async def start() -> None:
        async with serve(command, flavor, {}, root):
            pass

    try:
        await asyncio.wait_for(start(), timeout=START_TIMEOUT)
    except Exception as e:
        reason = f"timed out after {START_TIMEOUT} s" if isinstance(e, (TimeoutError, asyncio.TimeoutError)) else describe(e)
        raise UsageError(f"{label}: the server `{command}` did not start and answer the MCP handshake: {reason}") from None


async def run_setup(session: ClientSession, s: Scenario) -> list:
    """The scenario's setup steps (calls, sleeps); the calls left running in the background."""
    background = []
    for step in s.setup:
        if "sleep" in step:
            await asyncio.sleep(step["sleep"])
        elif step.get("background"):
            background.append(asyncio.create_task(call_tool(session, step["call"])))
            await asyncio.sleep(0.05)
        else:
            await call_tool(session, step["call"])
    return background


def server_of(stack: str, command: str, s: Scenario, foreign: str | None,
              carts: dict | None = None) -> tuple[str, str]:
    """(command, flavor) of the server a scenario runs on: the same foreign server
    for every stack where its profile says so (its plain-text errors), or the
    stack's cart twin (`carts`, by stack) for profile server: cart."""
    if s.profile.get("server") == "foreign":
        return foreign, "foreign"
    if s.profile.get("server") == "cart":
        if not carts or not carts.get(stack):
            raise UsageError(f"scenario {s.id} needs the cart twin of stack {stack} (--cart-stack {stack}=COMMAND)")
        return carts[stack], "cart"
    return command, stack


async def run_one(stack: str, command: str, s: Scenario, root: Path, foreign: str | None) -> Result:
    command, flavor = server_of(stack, command, s, foreign)
    async with serve(command, flavor, s.profile, root) as (session, tools):
        background = await run_setup(session, s)
        first = await call_tool(session, s.call)
        failed, text = text_of(first)
        reading = read(text)
        what, nxt, wait = repair(s.call, reading, tools, failed)
        result = Result(stack, s, NOT_FIXED, what, text)
        if what == "accepted":
            result.outcome = "accepted"
        elif what == "stop":
            result.outcome, result.judged = judged(s, None, False, stopped=True, message=text)
        elif nxt is not None and not s.expect.get("stop"):
            if wait:
                await asyncio.sleep(wait)
                result.waited = wait
            second = await call_tool(session, nxt)
            failed2, text2 = text_of(second)
            result.second, result.next_call = text2, nxt
            result.outcome, result.judged = judged(s, nxt, failed2, stopped=False)
        else:  # gave up, or a call where only a stop fixes it (not sent)
            result.next_call = nxt
            result.outcome, result.judged = judged(s, nxt, False, stopped=False)
        for task in background:
            await task
        return result


async def run_guarded(stack: str, command: str, s: Scenario, root: Path, foreign: str | None) -> Result:
    """run_one, with a crash or a time-out turned into an "error" result saying why."""
    try:
        return await asyncio.wait_for(run_one(stack, command, s, root, foreign), timeout=SCENARIO_TIMEOUT)
    except Exception as e:
        reason = f"timed out after {SCENARIO_TIMEOUT} s" if isinstance(e, (TimeoutError, asyncio.TimeoutError)) else describe(e)
        return Result(stack, s, "error", f"error: {reason}")


# ---------------------------------------------------------------- report


def tally(rs: list[Result]) -> tuple[int, int, int, int]:
    """(fixed, failed at first, accepted, errors): errors count in neither share."""
    failed = [r for r in rs if r.outcome in ("fixed", "not fixed")]
    fixed = sum(r.outcome == "fixed" for r in failed)
    accepted = sum(r.outcome == "accepted" for r in rs)
    errors = sum(r.outcome == "error" for r in rs)
    return fixed, len(failed), accepted, errors


def share_fixed(rs: list[Result]) -> float:
    fixed, failed, _, _ = tally(rs)
    return 100.0 * fixed / failed if failed else 0.0


def table(results: list[Result], stacks: list[str]) -> str:
    cats: list[str] = []
    for r in results:
        if r.scenario.category not in cats:
            cats.append(r.scenario.category)

    def cell(rs: list[Result]) -> str:
        fixed, failed, accepted, errors = tally(rs)
        extras = ([f"+{accepted} ok"] if accepted else []) + ([f"{errors} error{'s' if errors > 1 else ''}"] if errors else [])
        return (f"{fixed}/{failed}" if failed else "-") + (f" ({', '.join(extras)})" if extras else "")

    of = {st: [r for r in results if r.stack == st] for st in stacks}
    rows = [("category", stacks)]
    for c in cats:
        rows.append((c, [cell([r for r in of[st] if r.scenario.category == c]) for st in stacks]))
    rows.append(("all", [cell(of[st]) for st in stacks]))
    rows.append(("share fixed", [f"{share_fixed(of[st]):.1f} %" for st in stacks]))
    if any(r.outcome == "error" for r in results):
        rows.append(("errors", [str(tally(of[st])[3]) for st in stacks]))
    width = max(len(name) for name, _ in rows) + 2
    column = max([20] + [len(v) + 2 for _, values in rows for v in values])
    return "\n".join(name.ljust(width) + "".join(v.ljust(column) for v in values) for name, values in rows)


# ------------------------------------------------------------------- usage


def split_command(flag: str, command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as e:  # an unbalanced quote
        raise UsageError(f"{flag}: cannot split {command!r} into words: {e}") from None
    if not argv:
        raise UsageError(f"{flag}: the command is empty")
    return argv


def parse_stacks(specs: list[str]) -> list[tuple[str, str]]:
    stacks: list[tuple[str, str]] = []
    for spec in specs:
        name, sep, command = spec.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--stack wants NAME=COMMAND, got {spec!r}")
        if name in [n for n, _ in stacks]:
            raise UsageError(f"--stack {name}: given twice")
        split_command(f"--stack {name}", command)
        stacks.append((name, command))
    return stacks


def parse_requires(specs: list[str], names: list[str]) -> list[tuple[str, float]]:
    requires: list[tuple[str, float]] = []
    for spec in specs:
        name, _, percent = spec.partition("=")
        try:
            share = float(percent)
        except ValueError:
            share = -1.0
        if not 0.0 <= share <= 100.0:
            raise UsageError(f"--require wants NAME=PERCENT (0 to 100), got {spec!r}")
        if name not in names:
            raise UsageError(f"--require {spec}: no --stack is named {name!r}")
        requires.append((name, share))
    return requires


def select(scenarios: list[Scenario], only: list[str] | None, folder: str) -> list[Scenario]:
    if only:
        ids = {s.id for s in scenarios}
        unknown = [i for i in only if i not in ids]
        if unknown:
            raise UsageError(f"--only: no scenario in {folder} has the id {', '.join(map(repr, unknown))}")
        scenarios = [s for s in scenarios if s.id in only]
    if not scenarios:
        raise UsageError(f"no scenarios to run: the files in {folder} hold none")
    return scenarios


async def main_async(args) -> int:
    # Everything is checked before any server starts.
    stacks = parse_stacks(args.stack)
    requires = parse_requires(args.require, [n for n, _ in stacks])
    if args.foreign is not None:
        split_command("--foreign", args.foreign)
    root = Path(args.scenarios).resolve().parent
    scenarios = select(load_scenarios(Path(args.scenarios)), args.only, args.scenarios)
    foreign_ids = [s.id for s in scenarios if s.profile.get("server") == "foreign"]
    if foreign_ids and not args.foreign:
        raise UsageError(f"scenarios {', '.join(foreign_ids)} need --foreign COMMAND")

    if StdioServerParameters is None:
        raise UsageError("the MCP Python SDK (the `mcp` package) is needed to run servers: "
                         "use a Python that has it, e.g. the repository's .venv (tests/python/requirements.txt)")
    # Every server must start and answer the handshake once.
    for name, command in stacks:
        await probe(f"--stack {name}", command, name, root)
    if foreign_ids:
        await probe("--foreign", args.foreign, "foreign", root)

    results: list[Result] = []
    for name, command in stacks:
        started = time.monotonic()
        for i, s in enumerate(scenarios, 1):
            r = await run_guarded(name, command, s, root, args.foreign)
            results.append(r)
            progress = f"{name}: {i}/{len(scenarios)} scenarios ({time.monotonic() - started:.0f} s)"
            if sys.stderr.isatty():
                print("\r" + progress, end="", file=sys.stderr, flush=True)
            elif i % 20 == 0 or i == len(scenarios):
                print(progress, file=sys.stderr, flush=True)
            lead = "\n" if sys.stderr.isatty() else ""
            if r.outcome == "error":  # every stack's: the table leaves these out
                print(f"{lead}  [error] {name} {s.id}: {r.step.removeprefix('error: ')}", file=sys.stderr)
            elif args.verbose or (r.outcome == "not fixed" and name == "ours"):
                print(f"{lead}  [{r.outcome}: {r.judged}] {s.id} ({r.step}) next={json.dumps(r.next_call)}\n    first: {' '.join(r.first.split())[:600]}\n    second: {' '.join(r.second.split())[:300]}", file=sys.stderr)
        if sys.stderr.isatty():
            print(file=sys.stderr)
    print(table(results, [n for n, _ in stacks]))
    if args.json:
        with open(args.json, "w") as out:
            for r in results:
                out.write(json.dumps({
                    "stack": r.stack, "scenario": r.scenario.id, "category": r.scenario.category,
                    "outcome": r.outcome, "judged": r.judged, "step": r.step, "next_call": r.next_call,
                    "waited": r.waited,
                    "first": r.first, "second": r.second,
                }) + "\n")
    status = 0
    for name, percent in requires:
        share = share_fixed([r for r in results if r.stack == name])
        if share < percent:
            print(f"agent.py: {name} fixed {share:.1f} % in one retry, below {percent:g} %", file=sys.stderr)
            status = 1
    errors = {n: tally([r for r in results if r.stack == n])[3] for n, _ in stacks}
    if any(errors.values()):
        counts = ", ".join(f"{n} {e}" for n, e in errors.items() if e)
        print(f"agent.py: scenario runs ended in an error (crash or time-out of the server or the harness), "
              f"left out of the table: {counts}; the measurement is not valid", file=sys.stderr)
        status = 2
    return status


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 when every stack ran; 1 when a --require is not met; 2 on bad usage, "
               "a bad scenario file, a server that does not start, or a scenario run that crashed or timed out.",
    )
    parser.add_argument("--scenarios", required=True, help="the folder of scenario files (*.json)")
    parser.add_argument("--stack", action="append", required=True, metavar="NAME=COMMAND",
                        help="a stack and its stdio server command (repeatable)")
    parser.add_argument("--foreign", metavar="COMMAND",
                        help="the stdio command of the foreign server (scenarios with profile server: foreign)")
    parser.add_argument("--only", action="append", metavar="ID", help="run only this scenario id (repeatable)")
    parser.add_argument("--json", metavar="OUT", help="write one JSON line per (stack, scenario) here")
    parser.add_argument("--verbose", action="store_true", help="show every scenario's texts")
    parser.add_argument("--require", action="append", default=[], metavar="NAME=PERCENT",
                        help="exit 1 unless stack NAME fixes at least PERCENT %% of its failures (repeatable)")
    args = parser.parse_args()
    try:
        return asyncio.run(main_async(args))
    except (UsageError, OSError) as e:
        print(f"agent.py: {e}", file=sys.stderr)
        return 2
    except Exception:  # a bug of the agent: never exit 1, which means "below --require"
        import traceback

        traceback.print_exc()
        print("agent.py: internal error (above)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
