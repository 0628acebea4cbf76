"""The state gate (wire contract §10.1) read by the official MCP Python SDK
client, against the cart example over stdio (`examples/cart`, the binary
`$CART_BIN`, default `target/debug/cart`): `tools/list` shows only the
actions the session's cart state allows, a move sends
`notifications/tools/list_changed`, and a call out of order is refused with
the exact FORBIDDEN envelope naming the state and what is allowed now.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from servers import ROOT, texts

pytestmark = pytest.mark.anyio

CART_BIN = os.environ.get("CART_BIN", str(ROOT / "target" / "debug" / "cart"))

# A hang guard (a server that never tells fails the test instead of
# blocking the run), not a timing assertion.
HANG_GUARD_SECONDS = 30

PAY_REFUSED = """<tool_error code="FORBIDDEN" severity="error">
  <message>cart.pay is not allowed now: the cart is "empty", and cart.pay needs it to be "checked_out".</message>
  <recovery>Do not retry it yet. Call one of available_actions: they are allowed while the cart is "empty".</recovery>
  <available_actions>
    <action>cart.add_item</action>
    <action>cart.view</action>
  </available_actions>
  <details>
    <detail key="state_machine">cart</detail>
    <detail key="current_state">empty</detail>
    <detail key="blocked_tool">cart.pay</detail>
    <detail key="allowed_in">checked_out</detail>
  </details>
</tool_error>"""


async def actions(session: ClientSession) -> list[str]:
    (cart,) = (await session.list_tools()).tools
    assert cart.name == "cart"
    return cart.input_schema["properties"]["action"]["enum"]


async def test_the_cart_lists_what_its_state_allows_and_refuses_the_rest() -> None:
    changes: list[str] = []
    changed = anyio.Event()

    async def record(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and message.method == "notifications/tools/list_changed":
            changes.append(message.method)
            changed.set()

    params = StdioServerParameters(command=CART_BIN, args=[], env={"RUST_LOG": "warn"})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, message_handler=record) as session:
                await session.initialize()
                assert await actions(session) == ["add_item", "view"]

                early = await session.call_tool("cart", {"action": "pay", "order": "ord_1"})
                assert early.is_error is True
                assert texts(early) == [PAY_REFUSED]
                assert early.meta["mcp-fusion/error"]["details"]["current_state"] == "empty"
                assert changes == []  # a refused call moves nothing

                added = await session.call_tool("cart", {"action": "add_item", "item": "tea"})
                assert (added.is_error, texts(added), added.structured_content) == (
                    False, [json.dumps({"items": ["tea"]}, separators=(",", ":"))], {"items": ["tea"]})
                with anyio.fail_after(HANG_GUARD_SECONDS):
                    await changed.wait()
                assert await actions(session) == ["add_item", "view", "checkout"]

                order = await session.call_tool("cart", {"action": "checkout"})
                assert texts(order) == ['Order ord_1 holds 1 item. Pay it with cart.pay, order "ord_1".']
                assert await actions(session) == ["view", "pay"]
                paid = await session.call_tool("cart", {"action": "pay", "order": "ord_1"})
                assert (paid.is_error, texts(paid)) == (False, ["Order ord_1 is paid."])
                assert await actions(session) == ["view"]
                # add_item, checkout and pay each moved the cart once.
                assert changes == ["notifications/tools/list_changed"] * 3
