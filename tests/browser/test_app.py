"""The invoice view of `examples/invoice-app` (an MCP App, SEP-1865)
rendered by headless Chromium: the view's HTML and a `tools/call` result are
read from the server with the official MCP Python SDK client
(`resources/read ui://billing/invoice`, `tools/call billing_show_invoice`);
`app_host.html`, a minimal host, renders the view in a sandboxed iframe,
served with the Content Security Policy a host builds from the view's
`_meta.ui.csp` (the spec's restrictive policy: no outside origin), answers
its `ui/initialize` and posts `ui/notifications/tool-input` and
`ui/notifications/tool-result`; the test reads the DOM the view rendered.

Run by scripts/test, which installs Chromium (Debian's `chromium`) when it
is missing; the binary is `$INVOICE_APP_BIN` (default
`target/debug/invoice-app`), the browser `$CHROMIUM` when set.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from pages import open_page
from servers import ROOT

pytestmark = pytest.mark.anyio

HERE = Path(__file__).resolve().parent
INVOICE_APP_BIN = os.environ.get("INVOICE_APP_BIN", str(ROOT / "target" / "debug" / "invoice-app"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def host_csp(csp: dict[str, list[str]]) -> str:
    """The policy a host builds from `_meta.ui.csp` (SEP-1865, "Content
    Security Policy Enforcement")."""
    resources = " ".join(csp.get("resourceDomains", []))
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline' {resources}".strip(),
            f"style-src 'self' 'unsafe-inline' {resources}".strip(),
            f"connect-src 'self' {' '.join(csp.get('connectDomains', []))}".strip(),
            f"img-src 'self' data: {resources}".strip(),
            f"font-src 'self' {resources}".strip(),
            f"media-src 'self' data: {resources}".strip(),
            f"frame-src {' '.join(csp.get('frameDomains', [])) or chr(39) + 'none' + chr(39)}",
            "object-src 'none'",
            f"base-uri {' '.join(csp.get('baseUriDomains', [])) or chr(39) + 'self' + chr(39)}",
        ]
    )


class HostHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the host's folder; `view.html` with the view's CSP header."""

    policy = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        if self.path.startswith("/view.html"):
            self.send_header("Content-Security-Policy", self.policy)
        super().end_headers()


@contextmanager
def host_server(folder: Path, policy: str) -> Iterator[int]:
    handler = functools.partial(type("Handler", (HostHandler,), {"policy": policy}), directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def view_and_result(db: Path) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The view's HTML and `_meta.ui`, and the result of showing inv_2, as
    the server sends them."""
    params = StdioServerParameters(command=INVOICE_APP_BIN, args=[str(db)], env={"RUST_LOG": "warn"})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                (view,) = (await session.read_resource("ui://billing/invoice")).contents
                called = await session.call_tool("billing_show_invoice", {"id": "inv_2"})
    return view.text, view.meta["ui"], called.model_dump(by_alias=True, exclude_none=True, mode="json")


async def test_a_host_renders_the_invoice_view_from_the_tool_result(tmp_path: Path) -> None:
    if not Path(INVOICE_APP_BIN).is_file():
        pytest.fail(f"{INVOICE_APP_BIN} does not exist: run `cargo build -p invoice-app-example`")
    page, ui, result = await view_and_result(tmp_path / "billing.db")
    site = tmp_path / "site"
    site.mkdir()
    (site / "view.html").write_text(page)
    (site / "tool-result.json").write_text(json.dumps(result))
    shutil.copy(HERE / "app_host.html", site / "host.html")
    policy = host_csp(ui["csp"])
    assert policy == (
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; "
        "frame-src 'none'; object-src 'none'; base-uri 'self'"
    )
    with host_server(site, policy) as port:
        seen = open_page(f"http://127.0.0.1:{port}/host.html", tmp_path / "profile")
    assert seen == {
        "state": "rendered",
        "id": "inv_2",
        "status": "open",
        "customer": "grace@example.com",
        "lines": [["Consulting", "1", "$450.50", "$450.50"]],
        "total": "$450.50",
        "invoiceShown": True,
        "received": ["ui/initialize", "ui/notifications/initialized"],
        "sizeReports": True,
    }
