"""An MCP server over stdio with COUNT tools `tool_000`, `tool_001`, … (the
official Python SDK's low-level server), which lists them in pages of 50
with its own cursors: the upstream of the gateway pagination test.

Usage: python many_tools_server.py [COUNT]   (default 500)
A call of a tool answers its name.
"""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 500
PAGE = 50


async def list_tools(_ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = min(start + PAGE, COUNT)
    tools = [
        types.Tool(
            name=f"tool_{n:03}",
            description=f"Tool number {n}.",
            input_schema={"type": "object", "properties": {}},
        )
        for n in range(start, end)
    ]
    return types.ListToolsResult(tools=tools, next_cursor=str(end) if end < COUNT else None)


async def call_tool(_ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


server = Server("many-tools", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
