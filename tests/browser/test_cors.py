"""A real browser calls `fusion serve` across origins (CORS): headless
Chromium opens `page.html`, served on `http://localhost:<port>`, whose
`fetch()` calls speak MCP to `fusion serve --allowed-origin
http://localhost:<port> --auth-tokens …` on `http://127.0.0.1:<other port>`,
as a browser MCP client (MCP Inspector's direct mode) does: `initialize`
with a bearer token, reading the `Mcp-Session-Id` the server exposes,
`notifications/initialized`, two `tools/call`s, and a request without the
token whose `401` challenge (`WWW-Authenticate`) the page reads. Every
request with a token or a JSON body is preflighted by the browser. The same
page on an origin the server does not allow gets nothing: its first
`fetch()` fails.

Run by scripts/test, which installs Chromium (Debian's `chromium`) with
apt-get when it is missing; without it this test fails. The binary is
`$FUSION_BIN` (default `target/debug/fusion`, relative to the repository
root), and the browser `$CHROMIUM` when set. `test_oauth.py` is a page
of an OAuth resource server.
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from urllib.parse import urlencode, urlparse

import servers
from pages import open_page, page_server

TOKEN = "browser-token"
TOKENS = {"tokens": [{"token": TOKEN, "subject": "ada", "scopes": ["billing:read", "billing:write"]}]}

NOT_FOUND = """<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <recovery>List invoices first, then retry with a real ID</recovery>
  <available_actions>
    <action>billing.list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_9999</detail>
  </details>
</tool_error>"""


def delete_session(endpoint: str, session: str) -> int:
    target = urlparse(endpoint)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    connection.request(
        "DELETE",
        target.path,
        headers={
            "Authorization": f"Bearer {TOKEN}",
            "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-11-25",
        },
    )
    status = connection.getresponse().status
    connection.close()
    return status


def test_a_page_of_an_allowed_origin_speaks_mcp_with_fetch(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    with page_server() as page_port:
        origin = f"http://localhost:{page_port}"
        serve_args = [
            "--db", str(tmp_path / "billing.db"),
            "--auth-tokens", str(tokens),
            "--allowed-origin", origin,
        ]
        with servers.http_server(serve_args) as endpoint:
            query = urlencode({"mcp": endpoint, "token": TOKEN})
            results = open_page(f"{origin}/page.html?{query}", tmp_path / "profile")
            session = results["initialize"].pop("sessionId")
            assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", session), session
            assert results == {
                "initialize": {
                    "status": 200,
                    "protocolVersion": "2025-11-25",
                    "serverName": "mcp-fusion-billing",
                },
                "initialized": {"status": 202},
                "invoice": {
                    "status": 200,
                    "id": "inv_1",
                    "customerEmail": "ada@example.com",
                    "amountCents": 120000,
                },
                "notFound": {"status": 200, "isError": True, "text": NOT_FOUND},
                "withoutToken": {
                    "status": 401,
                    "wwwAuthenticate": 'Bearer realm="mcp"',
                    "body": "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)",
                },
            }
            # The id the page read is the session it opened: ending it works once.
            assert delete_session(endpoint, session) == 204
            assert delete_session(endpoint, session) == 404

            # The same page on an origin the server does not allow.
            other = f"http://127.0.0.1:{page_port}"
            refused = open_page(f"{other}/page.html?{query}", tmp_path / "profile-other")
            assert refused == {"error": "TypeError: Failed to fetch"}
