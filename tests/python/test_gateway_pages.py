"""A paginated `tools/list` of `fusion gateway` with 500 mounted tools,
driven by the official MCP Python SDK client: the upstream (the SDK's own
low-level server, `many_tools_server.py`) lists its 500 tools in pages of
50, which the gateway follows to the end; the gateway lists them in pages
of its default size (100), and the client, following `nextCursor`, gets
every tool exactly once, in the upstream's order. A cursor the gateway did
not give is refused with -32602 and the phrased message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

from servers import open_session

pytestmark = pytest.mark.anyio

UPSTREAM = Path(__file__).resolve().parent / "many_tools_server.py"
COUNT = 500


def gateway_config(tmp_path: Path) -> list[str]:
    config = tmp_path / "gateway.toml"
    command = ", ".join(f'"{part}"' for part in [sys.executable, str(UPSTREAM), str(COUNT)])
    config.write_text(f'[[upstream]]\nnamespace = "many"\ncommand = [{command}]\nconnect_timeout = "60s"\n')
    return ["--config", str(config)]


@pytest.mark.parametrize("transport", ["http-2026", "stdio"])
async def test_every_mounted_tool_arrives_exactly_once_across_pages(transport: str, tmp_path: Path) -> None:
    async with open_session(transport, gateway_config(tmp_path), command="gateway") as session:
        pages: list[list[str]] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            pages.append([tool.name for tool in result.tools])
            cursor = result.next_cursor
            if cursor is None:
                break
        assert [len(page) for page in pages] == [100, 100, 100, 100, 100]
        names = [name for page in pages for name in page]
        assert names == [f"many.tool_{n:03}" for n in range(COUNT)]
        assert len(set(names)) == COUNT

        # The last page's tool is callable through the gateway.
        called = await session.call_tool("many.tool_499", {})
        assert [block.text for block in called.content] == ["tool_499"]

        # A cursor the gateway did not give: -32602, phrased.
        with pytest.raises(MCPError) as refused:
            await session.list_tools(params=types.PaginatedRequestParams(cursor="100"))
        assert refused.value.error.code == -32602
        assert refused.value.error.message == (
            'Invalid cursor "100" for tools/list: it is not a nextCursor this server gave '
            "(a cursor is valid only as this server sent it). "
            "List from the start: call tools/list with no cursor, then pass each page's nextCursor as it is."
        )
