"""Tool search on `fusion gateway` (a `[search]` table in its configuration),
driven by the official MCP Python SDK client over stdio (2025-11-25) and
Streamable HTTP (2026-07-28): the gateway mounts the 500 tools of
`many_tools_server.py`, `tools/list` shows only `search_tools`, a search
answers the exact definition of the best tool and how many matched, an
empty search says what to try, and a tool that is not listed is callable
by its name; and `fusion serve --tool-search --auth-tokens` (the billing
example) over Streamable HTTP on both revisions, where a token finds only
the actions its scopes let it use.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import servers
from servers import open_session, texts

pytestmark = pytest.mark.anyio

UPSTREAM = Path(__file__).resolve().parent / "many_tools_server.py"
COUNT = 500


def gateway_config(tmp_path: Path) -> list[str]:
    config = tmp_path / "gateway.toml"
    command = ", ".join(f'"{part}"' for part in [sys.executable, str(UPSTREAM), str(COUNT)])
    config.write_text(
        f'[[upstream]]\nnamespace = "many"\ncommand = [{command}]\nconnect_timeout = "60s"\n\n'
        "[search]\ndefault_limit = 3\n"
    )
    return ["--config", str(config)]


@pytest.mark.parametrize("transport", ["http-2026", "stdio"])
async def test_the_gateway_lists_search_tools_and_finds_every_mounted_tool(transport: str, tmp_path: Path) -> None:
    async with open_session(transport, gateway_config(tmp_path), command="gateway") as session:
        listed = await session.list_tools()
        assert [tool.name for tool in listed.tools] == ["search_tools"]
        assert listed.next_cursor is None
        schema = listed.tools[0].input_schema
        assert schema["required"] == ["query"]
        assert list(schema["properties"]) == ["query", "limit"]

        found = await session.call_tool("search_tools", {"query": "tool_042", "limit": 1})
        assert found.is_error is False
        assert texts(found) == [
            '{"tools":[{"name":"many.tool_042","description":"Tool number 42.",'
            '"inputSchema":{"properties":{},"type":"object"}}]}',
            '<search_result shown="1" total="500">Showing the 1 best of 500 matching tools. '
            "Call one by its name with arguments that match its inputSchema: it is callable though "
            "tools/list does not show it. To see the others, call search_tools again with a higher "
            "limit (at most 20) or more precise words.</search_result>",
        ]

        # The configured default limit, ties in the list's order.
        default = await session.call_tool("search_tools", {"query": "number 7"})
        names = [tool["name"] for tool in json.loads(texts(default)[0])["tools"]]
        assert names == ["many.tool_007", "many.tool_000", "many.tool_001"]

        nothing = await session.call_tool("search_tools", {"query": "weather"})
        assert texts(nothing) == [
            '{"tools":[]}',
            '<search_result shown="0" total="0">No tool matched "weather" among the 500 tools you may use. '
            "Search again with other words: what the task acts on (invoice, customer, file), what it does "
            "(create, refund, send), or a parameter's name.</search_result>",
        ]

        # Not listed, callable by its name through the gateway.
        called = await session.call_tool("many.tool_499", {})
        assert texts(called) == ["tool_499"]


TOKENS = {
    "tokens": [
        {"token": "reader-token", "subject": "ann", "scopes": ["billing:read"]},
        {"token": "writer-token", "subject": "carol", "scopes": ["billing:write"]},
    ]
}


def found_actions(result) -> dict[str, list[str]]:
    """Each found tool's name, with the actions its `action` enum offers."""
    tools = json.loads(texts(result)[0])["tools"]
    return {
        tool["name"]: tool["inputSchema"].get("properties", {}).get("action", {}).get("enum", [])
        for tool in tools
    }


@pytest.mark.parametrize("transport", ["http", "http-2026"])
async def test_a_search_finds_only_the_actions_the_token_may_use(transport: str, tmp_path: Path) -> None:
    from test_auth import sdk_session

    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    args = ["--db", str(tmp_path / "billing.db"), "--auth-tokens", str(tokens), "--tool-search"]
    with servers.http_server(args) as url:
        async with sdk_session(url, transport, "reader-token") as session:
            listed = await session.list_tools()
            assert [tool.name for tool in listed.tools] == ["search_tools"]
            found = await session.call_tool("search_tools", {"query": "pay or void an invoice", "limit": 20})
            assert found_actions(found) == {
                "billing": ["list_invoices", "get_invoice", "get_invoice_legacy", "generate_report"],
                "billing_health": [],
            }
            # Not listed, callable.
            read = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_1"})
            assert read.is_error is False
        async with sdk_session(url, transport, "writer-token") as session:
            found = await session.call_tool("search_tools", {"query": "pay or void an invoice", "limit": 20})
            assert found_actions(found) == {
                "billing": ["create_invoice", "pay_invoice", "void_invoice"],
                "billing_health": [],
            }
