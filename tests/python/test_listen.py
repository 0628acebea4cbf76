"""`subscriptions/listen` (MCP 2026-07-28, SEP-2575) read by the official MCP
Python SDK client in its 2026-07-28 mode (`server/discover`, no session),
against `fusion serve --example conformance`: a stream opened for tool list
changes hears `notifications/tools/list_changed`, tagged with its
subscription id, once a tool is added; a stream that asked for prompt
changes only is not told of tool changes.

The tool list is changed by the example's `test_trigger_tool_change` (it adds
`test_dynamic_tool`, or removes it when present), the prompt list by
`test_trigger_prompt_change` (`test_dynamic_prompt`).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY, PromptsListChanged, ToolsListChanged

from servers import open_session, texts

pytestmark = pytest.mark.anyio

CONFORMANCE = ["--example", "conformance"]
STATELESS_TRANSPORTS = ["http-2026", "stdio-2026"]

# A hang guard (a server that never tells fails the test instead of
# blocking the run), not a timing assertion.
HANG_GUARD_SECONDS = 30


@pytest.mark.parametrize("transport", STATELESS_TRANSPORTS)
async def test_a_listen_stream_hears_a_tool_added_tagged_with_its_subscription_id(
    transport: str,
) -> None:
    tagged: list[tuple[str, Any]] = []

    async def record(message: Any) -> None:
        # The SDK also hands every notification to the message handler, as
        # received: the tag is read here.
        if isinstance(message, types.ServerNotification):
            params = message.params
            meta = (params.meta if params is not None else None) or {}
            tagged.append((message.method, meta.get(SUBSCRIPTION_ID_META_KEY)))

    async with open_session(transport, CONFORMANCE, message_handler=record) as session:
        before = [tool.name for tool in (await session.list_tools()).tools]
        assert "test_dynamic_tool" not in before
        async with listen(session, tools_list_changed=True) as subscription:
            assert subscription.honored == types.SubscriptionFilter(tools_list_changed=True)
            result = await session.call_tool("test_trigger_tool_change", {})
            assert texts(result) == ["Mutation triggered: added test_dynamic_tool"]
            with anyio.fail_after(HANG_GUARD_SECONDS):
                event = await subscription.__anext__()
            assert event == ToolsListChanged()
            # The SDK hands the notification to the listen route and to the
            # message handler separately, in no set order: wait for the
            # handler's copy (bounded).
            told = ("notifications/tools/list_changed", subscription.subscription_id)
            with anyio.fail_after(HANG_GUARD_SECONDS):
                while told not in tagged:
                    await anyio.sleep(0.01)
        after = [tool.name for tool in (await session.list_tools()).tools]
        assert after == [*before, "test_dynamic_tool"]


@pytest.mark.parametrize("transport", STATELESS_TRANSPORTS)
async def test_a_stream_for_prompt_changes_is_not_told_of_tool_changes(transport: str) -> None:
    # What the server sent, as received (the SDK's listen route would drop
    # an unrequested kind itself, so the route alone cannot tell).
    received: list[str] = []
    prompts_told = anyio.Event()

    async def record(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            received.append(message.method)
            if message.method == "notifications/prompts/list_changed":
                prompts_told.set()

    async with open_session(transport, CONFORMANCE, message_handler=record) as session:
        async with listen(session, prompts_list_changed=True) as subscription:
            # The tool change first: had it been sent, it would come first.
            tools = await session.call_tool("test_trigger_tool_change", {})
            assert texts(tools) == ["Mutation triggered: added test_dynamic_tool"]
            prompts = await session.call_tool("test_trigger_prompt_change", {})
            assert texts(prompts) == ["Mutation triggered: added test_dynamic_prompt"]
            with anyio.fail_after(HANG_GUARD_SECONDS):
                event = await subscription.__anext__()
                await prompts_told.wait()
            assert event == PromptsListChanged()
            assert "notifications/tools/list_changed" not in received
