"""MCP Apps (SEP-1865) read by the official MCP Python SDK client: the
invoice-app example (`examples/invoice-app`, the binary
`$INVOICE_APP_BIN`, default `target/debug/invoice-app`: the billing example
plus the view `ui://billing/invoice` and the tool `billing_show_invoice`
linked to it) over stdio, with the 2025-11-25 handshake and with
2026-07-28's `server/discover`. Asserted exactly: the
`io.modelcontextprotocol/ui` extension in the capabilities, the tool's
`_meta.ui`, the view in `resources/list` and in `resources/read` (MIME type
`text/html;profile=mcp-app`, `_meta.ui` with the restrictive CSP), and the
result a host without Apps reads (text) beside the `structuredContent` a
view renders."""

from __future__ import annotations

import json
import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from servers import ROOT, start, texts

pytestmark = pytest.mark.anyio

INVOICE_APP_BIN = os.environ.get("INVOICE_APP_BIN", str(ROOT / "target" / "debug" / "invoice-app"))
VIEW_HTML = (ROOT / "examples" / "invoice-app" / "src" / "invoice.html").read_text()
UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
VIEW_META = {
    "ui": {
        "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
        "prefersBorder": True,
    }
}
INV_2 = {
    "id": "inv_2",
    "customer_email": "grace@example.com",
    "amount_cents": 45050,
    "currency": "USD",
    "status": "open",
    "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": 45050}],
    "due_date": None,
}


@asynccontextmanager
async def app_session(transport: str, db: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=INVOICE_APP_BIN, args=[str(db)], env={"RUST_LOG": "warn"})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await start(session, transport)
                yield session


@pytest.mark.parametrize("transport", ["stdio", "stdio-2026"])
async def test_the_invoice_view_is_declared_linked_listed_and_read(transport: str, tmp_path: Path) -> None:
    if not Path(INVOICE_APP_BIN).is_file():
        pytest.fail(f"{INVOICE_APP_BIN} does not exist: run `cargo build -p invoice-app-example`")
    async with app_session(transport, tmp_path / "billing.db") as session:
        capabilities = session.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert capabilities["extensions"] == {UI: {"mimeTypes": [MIME]}}

        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        show = tools["billing_show_invoice"]
        assert show.meta["ui"] == {"resourceUri": "ui://billing/invoice", "visibility": ["model", "app"]}
        assert sorted(show.meta) == ["mcp-fusion/actions", "ui"]
        assert "ui" not in (tools["billing"].meta or {})

        listed = [
            r.model_dump(by_alias=True, exclude_none=True, mode="json")
            for r in (await session.list_resources()).resources
            if r.uri.startswith("ui://")
        ]
        assert listed == [
            {
                "uri": "ui://billing/invoice",
                "name": "invoice_view",
                "title": "Invoice",
                "description": "One invoice, rendered: its customer, lines, total and status.",
                "mimeType": MIME,
                "_meta": VIEW_META,
            }
        ]

        read = await session.read_resource("ui://billing/invoice")
        assert [c.model_dump(by_alias=True, exclude_none=True, mode="json") for c in read.contents] == [
            {"uri": "ui://billing/invoice", "mimeType": MIME, "text": VIEW_HTML, "_meta": VIEW_META}
        ]

        called = await session.call_tool("billing_show_invoice", {"id": "inv_2"})
        assert called.is_error is False
        assert texts(called) == [json.dumps(INV_2, separators=(",", ":"))]
        assert called.structured_content == INV_2
