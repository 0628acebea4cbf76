"""Drives one actionability server over stdio with the official MCP Python SDK
client and prints what it answers: the tools it lists, one success of each
action, then the failures the measurement is about (isError and the text of
each, or the JSON-RPC error).

Usage:
    check.py ts|fastmcp|ours [--cmd "COMMAND ..."] [--server-stderr]

The default commands assume the layout actionability/run.sh installs (run from
the repository root):
    ts       node target/actionability/ts/server.mjs
             (server.mjs copied next to its node_modules, after `npm ci`)
    fastmcp  target/actionability/fastmcp/venv/bin/python actionability/servers/fastmcp/server.py
    ours     target/debug/fusion serve --example actionability --stdio --db <fresh temp file>
--cmd replaces the command (the guard flags are appended to it). Needs the
`mcp` package (e.g. .venv/bin/python actionability/servers/check.py ts).
"""

import argparse
import asyncio
import json
import os
import shlex
import sys
import tempfile

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

DEFAULT_CMD = {
    "ts": "node target/actionability/ts/server.mjs",
    "fastmcp": "target/actionability/fastmcp/venv/bin/python actionability/servers/fastmcp/server.py",
    "ours": "target/debug/fusion serve --example actionability --stdio",
}


def guard_flags(kind: str, report_ms=None, max_active=None, rate_limit=None, timeout_ms=None) -> list[str]:
    """The guard flags in each server's spelling (ours takes durations)."""
    flags = []
    if report_ms is not None:
        flags += ["--report-ms", f"{report_ms}ms" if kind == "ours" else str(report_ms)]
    if max_active is not None:
        flags += ["--max-active", str(max_active)]
    if rate_limit is not None:
        flags += ["--rate-limit", rate_limit]
    if timeout_ms is not None:
        flags += ["--timeout", f"{timeout_ms}ms"] if kind == "ours" else ["--timeout-ms", str(timeout_ms)]
    return flags


def one_line(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def show(label: str, outcome) -> None:
    if isinstance(outcome, MCPError):
        print(f"  {label:<34} JSON-RPC error {outcome.error.code}: {one_line(outcome.error.message)}")
        return
    texts = [c.text for c in outcome.content if getattr(c, "type", None) == "text"] or [""]
    print(f"  {label:<34} isError={bool(outcome.is_error)!s:<5} {one_line(texts[0])}")
    for text in texts[1:]:  # e.g. a deprecation note after the result
        print(f"  {'':<34} {'+ text':<14} {one_line(text)}")


async def call(session: ClientSession, tool: str, arguments: dict):
    try:
        return await session.call_tool(tool, arguments)
    except MCPError as e:
        return e


class Server:
    def __init__(self, kind: str, cmd: str, flags: list[str], errlog):
        self.errlog = errlog
        argv = shlex.split(cmd)
        if kind == "ours" and "--db" not in argv:
            fd, db = tempfile.mkstemp(prefix="act-check-", suffix=".db")
            os.close(fd)
            os.unlink(db)  # a fresh file, seeded on open
            argv += ["--db", db]
        argv += flags
        self.params = StdioServerParameters(command=argv[0], args=argv[1:])

    async def __aenter__(self) -> ClientSession:
        self._stdio = stdio_client(self.params, errlog=self.errlog)
        read, write = await self._stdio.__aenter__()
        self._session = ClientSession(read, write)
        session = await self._session.__aenter__()
        await session.initialize()
        return session

    async def __aexit__(self, *exc):
        await self._session.__aexit__(*exc)
        await self._stdio.__aexit__(*exc)


ITEM = {"description": "Consulting", "quantity": 1, "unit_price_cents": 5000}

SUCCESSES = [
    ("list_invoices", "billing", {"action": "list_invoices", "status": "open", "limit": 2}),
    ("list_invoices cursor", "billing", {"action": "list_invoices", "cursor": "after_10"}),
    ("get_invoice", "billing", {"action": "get_invoice", "id": "inv_2"}),
    ("create_invoice", "billing", {"action": "create_invoice", "customer_email": "new@example.com",
                                   "amount_cents": 5000, "currency": "EUR", "items": [ITEM],
                                   "due_date": "2026-12-31"}),
    ("pay_invoice", "billing", {"action": "pay_invoice", "id": "inv_2"}),
    ("void_invoice", "billing", {"action": "void_invoice", "id": "inv_3", "reason": "duplicate"}),
    ("void_invoice (already void)", "billing", {"action": "void_invoice", "id": "inv_5"}),
    ("get_invoice_legacy", "billing", {"action": "get_invoice_legacy", "id": "inv_4"}),
    ("generate_report", "billing", {"action": "generate_report", "period": "month"}),
    ("billing_health", "billing_health", {}),
    ("reminders.schedule", "reminders", {"action": "schedule", "invoice_id": "inv_4",
                                         "at": "2026-12-24T09:00:00Z", "channel": "email",
                                         "callback_url": "https://example.com/hook",
                                         "note": "Friendly reminder"}),
]

FAILURES = [
    ("status PAID", "billing", {"action": "list_invoices", "status": "PAID"}),
    ("email not-an-email", "billing", {"action": "create_invoice", "customer_email": "not-an-email",
                                       "amount_cents": 5000, "currency": "EUR", "items": [ITEM]}),
    ("get inv_9999", "billing", {"action": "get_invoice", "id": "inv_9999"}),
    ("pay inv_1 (paid)", "billing", {"action": "pay_invoice", "id": "inv_1"}),
    ("unknown action cancel_invoice", "billing", {"action": "cancel_invoice", "id": "inv_2"}),
    ("missing action", "billing", {"id": "inv_2"}),
    ("typo key stauts", "billing", {"action": "list_invoices", "stauts": "open"}),
    ("schedule at '2026-12-24 09:00'", "reminders", {"action": "schedule", "invoice_id": "inv_8",
                                                     "at": "2026-12-24 09:00", "channel": "email"}),
    # Beyond the list the brief asks for: cheap, and useful to compare.
    ("pay inv_5 (void)", "billing", {"action": "pay_invoice", "id": "inv_5"}),
    ("void inv_1 (paid)", "billing", {"action": "void_invoice", "id": "inv_1"}),
    ("get without id", "billing", {"action": "get_invoice"}),
    ("schedule inv_1 (paid)", "reminders", {"action": "schedule", "invoice_id": "inv_1",
                                             "at": "2026-12-24T09:00:00Z", "channel": "sms"}),
    ("bad cursor", "billing", {"action": "list_invoices", "cursor": "page2"}),
    ("unknown tool", "billing_cancel", {}),
]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["ts", "fastmcp", "ours"])
    parser.add_argument("--cmd", help="the server command (guard flags are appended)")
    parser.add_argument("--server-stderr", action="store_true", help="show the server's stderr (hidden by default)")
    opts = parser.parse_args()
    errlog = sys.stderr if opts.server_stderr else open(os.devnull, "w")
    cmd = opts.cmd or DEFAULT_CMD[opts.kind]
    kind = opts.kind

    async with Server(kind, cmd, [], errlog) as session:
        tools = (await session.list_tools()).tools
        print("tools:")
        for tool in tools:
            props = sorted(tool.input_schema.get("properties", {}))
            print(f"  {tool.name}: {', '.join(props) or '(no arguments)'}")
        print("successes:")
        for label, tool, arguments in SUCCESSES:
            show(label, await call(session, tool, arguments))
        print("failures:")
        for label, tool, arguments in FAILURES:
            show(label, await call(session, tool, arguments))

    report = {"action": "generate_report", "period": "day"}
    print("guards:")
    async with Server(kind, cmd, guard_flags(kind, report_ms=3000, max_active=1), errlog) as session:
        # The second call starts while the first one runs.
        first_task = asyncio.create_task(call(session, "billing", report))
        await asyncio.sleep(0.3)
        second = await call(session, "billing", report)
        show("max-active 1: second report", second)
        show("max-active 1: first report", await first_task)

    async with Server(kind, cmd, guard_flags(kind, rate_limit="2/s"), errlog) as session:
        listing = {"action": "list_invoices", "limit": 1}
        outcomes = [await call(session, "billing", listing) for _ in range(3)]
        for n, outcome in enumerate(outcomes, 1):
            show(f"rate-limit 2/s: call {n}", outcome)

    async with Server(kind, cmd, guard_flags(kind, report_ms=3000, timeout_ms=500), errlog) as session:
        show("timeout 500ms: report of 3s", await call(session, "billing", report))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
