"""A handler that asks the client (elicitation, sampling, roots), met by the
official MCP Python SDK client on both protocol revisions: over 2025-11-25 as
requests from server to client, over 2026-07-28 as input-required results the
client answers and retries with (SEP-2322, "Multi Round-Trip Requests"). The
handlers are the conformance example's `test_input_required_result_*`
fixtures; the answers come from the client's callbacks either way."""

from __future__ import annotations

import warnings

import mcp_types
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from servers import TRANSPORTS, http_server, open_client, texts

pytestmark = pytest.mark.anyio

CONFORMANCE = ["--example", "conformance"]
STATELESS_TRANSPORTS = [t for t in TRANSPORTS if t.endswith("-2026")]


def answering(**by_message: dict):
    """An elicitation callback that accepts with `by_message[message]` and
    records the messages it was asked, in order."""
    asked: list[str] = []

    async def on_elicitation(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content=by_message[params.message])

    return on_elicitation, asked


@pytest.mark.parametrize("transport", STATELESS_TRANSPORTS)
async def test_an_elicitation_is_an_input_required_result_on_2026(transport: str) -> None:
    on_elicitation, asked = answering(**{"What is your name?": {"name": "Ada"}})
    async with open_client(transport, CONFORMANCE, elicitation_callback=on_elicitation) as client:
        first = await client.session.call_tool(
            "test_input_required_result_elicitation", {}, allow_input_required=True
        )
        assert isinstance(first, mcp_types.InputRequiredResult)
        assert list(first.input_requests) == ["user_name"]
        request = first.input_requests["user_name"].model_dump(by_alias=True, exclude_none=True)
        assert request == {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            },
        }
        # rmcp's keyed format naming the signing key: "rs2.<base64url id>.…"
        # (the id "default").
        assert first.request_state.startswith("rs2.ZGVmYXVsdA.")
        # The client's driver answers through the callback and retries.
        result = await client.call_tool("test_input_required_result_elicitation", {})
    assert result.is_error is False
    assert texts(result) == ["Hello, Ada!"]
    assert asked == ["What is your name?"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_two_round_handler_gets_both_answers(transport: str) -> None:
    on_elicitation, asked = answering(
        **{
            "Step 1: What is your name?": {"name": "Ada"},
            "Step 2: What is your favorite color?": {"color": "teal"},
        }
    )
    async with open_client(transport, CONFORMANCE, elicitation_callback=on_elicitation) as client:
        result = await client.call_tool("test_input_required_result_multi_round", {})
    assert result.is_error is False
    assert texts(result) == ["Ada's favorite color is teal."]
    # Asked once each, in order: over 2026-07-28 the first answer travels in
    # the signed requestState while the second round is asked.
    assert asked == ["Step 1: What is your name?", "Step 2: What is your favorite color?"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_elicitation_sampling_and_roots_in_one_round(transport: str) -> None:
    on_elicitation, asked = answering(**{"What is your name?": {"name": "Ada"}})
    sampled: list[str] = []

    async def on_sampling(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        sampled.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Good day!"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def on_roots(context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])

    with warnings.catch_warnings():
        # The SDK marks sampling and roots deprecated (SEP-2577).
        warnings.simplefilter("ignore", DeprecationWarning)
        async with open_client(
            transport,
            CONFORMANCE,
            elicitation_callback=on_elicitation,
            sampling_callback=on_sampling,
            list_roots_callback=on_roots,
        ) as client:
            result = await client.call_tool("test_input_required_result_multiple_inputs", {})
    assert result.is_error is False
    assert texts(result) == ["Name: Ada; Greeting: Good day!; Roots: 1"]
    assert asked == ["What is your name?"]
    assert sampled == ["Generate a greeting"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_prompt_asks_the_same_way(transport: str) -> None:
    on_elicitation, asked = answering(**{"What context should the prompt use?": {"context": "billing"}})
    async with open_client(transport, CONFORMANCE, elicitation_callback=on_elicitation) as client:
        result = await client.get_prompt("test_input_required_result_prompt")
    [message] = result.messages
    assert message.role == "user"
    assert message.content.text == "Prompt with context: billing"
    assert asked == ["What context should the prompt use?"]


async def test_replicas_with_one_key_share_request_states() -> None:
    """Two `fusion serve` processes given one FUSION_SIGNING_KEY: the
    requestState one issues is accepted by the other (a retry may reach any
    replica); a third, signing with a random key of its own, refuses it."""
    key = {"FUSION_SIGNING_KEY": "0123456789abcdef0123456789abcdef"}
    # Declares elicitation; the answers are sent by hand below.
    on_elicitation, _asked = answering()
    tool = "test_input_required_result_elicitation"
    with http_server(CONFORMANCE, env=key) as first_url, http_server(CONFORMANCE, env=key) as second_url:
        with http_server(CONFORMANCE) as stranger_url:
            async with Client(first_url, mode="2026-07-28", elicitation_callback=on_elicitation) as first:
                asked = await first.session.call_tool(tool, {}, allow_input_required=True)
            assert isinstance(asked, mcp_types.InputRequiredResult)
            answers = {"user_name": {"action": "accept", "content": {"name": "Bo"}}}
            async with Client(second_url, mode="2026-07-28", elicitation_callback=on_elicitation) as second:
                result = await second.session.call_tool(
                    tool, {}, input_responses=answers, request_state=asked.request_state
                )
            assert texts(result) == ["Hello, Bo!"]
            async with Client(stranger_url, mode="2026-07-28", elicitation_callback=on_elicitation) as stranger:
                with pytest.raises(MCPError) as refused:
                    await stranger.session.call_tool(
                        tool, {}, input_responses=answers, request_state=asked.request_state
                    )
    assert refused.value.error.code == -32602
    assert refused.value.error.message == (
        "The requestState of this tools/call request was refused: this server did not issue it "
        "for this request (it was altered, or issued for another tool, prompt or resource, other "
        "arguments or another caller). Send the request again without requestState and "
        "inputResponses to start over."
    )
