"""A real browser is a client of `fusion serve` as an OAuth resource server
(MCP authorization, 2025-11-25): headless Chromium opens `oauth.html`,
served on `http://localhost:<port>`, an origin `fusion serve --example
billing --oauth-issuer ISSUER --allowed-origin http://localhost:<port>`
allows, with a real authorization server, oidc-provider
(`tests/oauth/server.mjs`), as ISSUER. Without a token, the page's
`initialize` gets the `401` whose `WWW-Authenticate` (exposed by CORS) names
the protected resource metadata; the page fetches that across origins, then
the authorization server's metadata it names (oidc-provider serves it to
any origin). The token comes from the page's own backend (`POST /token` of
the page's origin, holding the secret of the confidential client
`billing-reader`, client credentials with the discovered `resource` and
token endpoint), since oidc-provider refuses a confidential client's token
request from a browser origin. With it the page initializes, sends
`notifications/initialized`, calls `billing.get_invoice` (billing:read)
and reads the `403` `insufficient_scope` challenge of
`billing.void_invoice` (billing:write).

Run by scripts/test after it installs `tests/oauth/node_modules` and
Chromium; `node` runs the authorization server, `$FUSION_BIN` (default
`target/debug/fusion`) the MCP server, `$CHROMIUM` (default `chromium`)
the page.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import servers
from authorization_server import authorization_server
from pages import open_page, page_server


def test_a_page_of_an_allowed_origin_discovers_oauth_and_calls_a_tool_with_its_token(tmp_path: Path) -> None:
    with authorization_server() as issuer, page_server(client="billing-reader") as page_port:
        origin = f"http://localhost:{page_port}"
        serve_args = [
            "--example", "billing",
            "--db", str(tmp_path / "billing.db"),
            "--oauth-issuer", issuer,
            "--allowed-origin", origin,
        ]
        with servers.http_server(serve_args) as endpoint:
            query = urlencode({"mcp": endpoint})
            results = open_page(f"{origin}/oauth.html?{query}", tmp_path / "profile")
            metadata = endpoint.removesuffix("/mcp") + "/.well-known/oauth-protected-resource/mcp"

            session = results["initialize"].pop("sessionId")
            assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", session), session
            invoice = results["getInvoice"].pop("text")
            assert invoice == (
                '{"id":"inv_1","customer_email":"ada@example.com","amount_cents":120000,"currency":"EUR",'
                '"status":"paid","items":[{"description":"Consulting","quantity":1,"unit_price_cents":120000}],'
                '"due_date":null,"created_at":"2026-11-02T09:00:00Z","card_number":"[redacted]"}'
            )  # as its presenter shows it (wire contract §9.1)
            assert results == {
                "withoutToken": {
                    "status": 401,
                    "wwwAuthenticate": f'Bearer resource_metadata="{metadata}", scope="billing:read"',
                    "scheme": "Bearer",
                    "params": {"resource_metadata": metadata, "scope": "billing:read"},
                },
                "resourceMetadata": {
                    "status": 200,
                    "document": {
                        "resource": endpoint,
                        "authorization_servers": [issuer],
                        "scopes_supported": ["billing:read", "billing:write"],
                        "bearer_methods_supported": ["header"],
                    },
                },
                "authorizationServer": {
                    "status": 200,
                    "issuer": issuer,
                    "tokenEndpoint": f"{issuer}/token",
                    "grantTypesSupported": ["implicit", "authorization_code", "refresh_token", "client_credentials"],
                },
                "token": {"status": 200, "tokenType": "Bearer", "scope": "billing:read"},
                "initialize": {"status": 200, "protocolVersion": "2025-11-25", "serverName": "mcp-fusion-billing"},
                "initialized": {"status": 202},
                "getInvoice": {"status": 200, "isError": False},
                "voidInvoice": {
                    "status": 403,
                    "wwwAuthenticate": (
                        f'Bearer error="insufficient_scope", scope="billing:write", resource_metadata="{metadata}", '
                        'error_description="billing.void_invoice needs the scope billing:write, which the token does not have"'
                    ),
                    "params": {
                        "error": "insufficient_scope",
                        "scope": "billing:write",
                        "resource_metadata": metadata,
                        "error_description": "billing.void_invoice needs the scope billing:write, which the token does not have",
                    },
                },
            }
