"""`fusion serve --example conformance` (the conformance suite's fixtures)
driven by the official MCP Python SDK client, over stdio and Streamable HTTP:
prompts, resources, completion, logging, progress, sampling, elicitation and
a failing tool.

Each test starts its own server and asserts the exact values the client gets.
The helpers that start servers are in `servers.py`, shared with
`test_billing.py`.
"""

from __future__ import annotations

import base64
import warnings
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from servers import TRANSPORTS, open_session, texts

pytestmark = pytest.mark.anyio

CONFORMANCE = ["--example", "conformance"]
META_KEY = "mcp-fusion/error"
# The <recovery> line of every <validation_error> (wire contract §4); the
# instruction of what to fix comes first, on the line before the envelope.
VALIDATION_RECOVERY = "Do not explain the error."

# The transports with the 2025-11-25 `initialize` handshake only. The tests
# that use them exercise what the 2026-07-28 protocol does not have: requests
# from the server to the client (`sampling/createMessage`,
# `elicitation/create`: 2026-07-28 has no server-to-client requests),
# `logging/setLevel` (removed in 2026-07-28, where log delivery is opted into
# per request; SEP-2577 deprecates logging) and `resources/subscribe` /
# `resources/unsubscribe` (replaced by `subscriptions/listen`).
HANDSHAKE_TRANSPORTS = [t for t in TRANSPORTS if not t.endswith("-2026")]

UNKNOWN_URI = "test://static-txt"
UNKNOWN_URI_MESSAGE = (
    'There is no resource named "test://static-txt". Did you mean "test://static-text"? '
    "Valid: test://static-text, test://static-binary, test://watched-resource, test://template/{id}/data."
)
UNKNOWN_URI_DATA = {
    "uri": "test://static-txt",
    "closest": "test://static-text",
    "valid": [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/{id}/data",
    ],
}


def resource_not_found_code(transport: str) -> int:
    """-32002 (MCP 2025-11-25 "Resources"); 2026-07-28 answers -32602
    instead (SEP-2164; rmcp converts the code for such clients)."""
    return -32602 if transport.endswith("-2026") else -32002


def envelope_meta(result) -> dict | None:
    return (result.meta or {}).get(META_KEY)


def dumped(model) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def wait_for(items: list, count: int) -> None:
    """Waits until `items` holds `count` entries: the SDK runs notification
    callbacks in tasks of their own, which may finish just after the reply
    of the request. Bounded so that a missing notification fails the test
    instead of hanging it (not a timing assertion)."""
    with anyio.fail_after(30):
        while len(items) < count:
            await anyio.sleep(0.01)


async def settle(session: ClientSession) -> None:
    """A round trip after a call, so that any notification the server sent
    during the call (before its reply) has reached its callback."""
    await session.list_prompts()


# ---------------------------------------------------------------------------
# Prompts


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompts_list_shows_the_four_fixtures(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        listed = await session.list_prompts()
    assert [dumped(prompt) for prompt in listed.prompts] == [
        {"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
        {
            "name": "test_prompt_with_arguments",
            "description": "A prompt with required arguments",
            "arguments": [
                {"name": "arg1", "description": "First test argument", "required": True},
                {"name": "arg2", "description": "Second test argument", "required": True},
            ],
        },
        {
            "name": "test_prompt_with_embedded_resource",
            "description": "A prompt that includes an embedded resource",
            "arguments": [
                {"name": "resourceUri", "description": "URI of the resource to embed", "required": True},
            ],
        },
        {"name": "test_prompt_with_image", "description": "A prompt that includes image content"},
        {
            "name": "test_input_required_result_prompt",
            "description": "MRTR: a prompt that asks the user for its context",
        },
    ]
    assert listed.next_cursor is None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_get_prompt_fills_in_the_arguments(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        result = await session.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
    assert result.description == "A prompt with required arguments"
    assert [dumped(message) for message in result.messages] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "Prompt with arguments: arg1='hello', arg2='world'"},
        }
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_get_prompt_without_a_required_argument_is_a_validation_error(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        with pytest.raises(MCPError) as raised:
            await session.get_prompt("test_prompt_with_arguments", {"arg1": "hello"})
        # The session is still usable afterwards.
        ok = await session.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    field = "Missing required field. You sent: (missing). Expected a string."
    assert raised.value.code == -32602
    assert raised.value.message == (
        'Fix the fields below and call test_prompt_with_arguments again.\n<validation_error action="test_prompt_with_arguments">\n'
        f'  <field name="arg2">{field}</field>\n'
        f"  <recovery>{VALIDATION_RECOVERY}</recovery>\n"
        "</validation_error>"
    )
    assert raised.value.data == {
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": "The arguments for test_prompt_with_arguments are not valid (1 problem).",
        "recovery": f"Fix the fields below and call test_prompt_with_arguments again. {VALIDATION_RECOVERY}",
        "action": "test_prompt_with_arguments",
        "fields": [{"path": "arg2", "message": field}],
    }
    assert ok.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_prompt_names_the_closest_one(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        with pytest.raises(MCPError) as raised:
            await session.get_prompt("test_prompt_with_argument", {"arg1": "hello", "arg2": "world"})
    valid = [
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    ]
    assert raised.value.code == -32602
    assert raised.value.message == (
        'There is no prompt named "test_prompt_with_argument". Did you mean "test_prompt_with_arguments"? '
        f"Valid: {', '.join(valid)}."
    )
    assert raised.value.data == {
        "prompt": "test_prompt_with_argument",
        "closest": "test_prompt_with_arguments",
        "valid": valid,
    }


# ---------------------------------------------------------------------------
# Resources


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_resources_and_templates_are_listed(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        resources = await session.list_resources()
        templates = await session.list_resource_templates()
    assert [dumped(resource) for resource in resources.resources] == [
        {
            "name": "Static Text Resource",
            "uri": "test://static-text",
            "description": "A static text resource for testing",
            "mimeType": "text/plain",
        },
        {
            "name": "Static Binary Resource",
            "uri": "test://static-binary",
            "description": "A static binary resource (image) for testing",
            "mimeType": "image/png",
        },
        {
            "name": "Watched Resource",
            "uri": "test://watched-resource",
            "description": "A resource that can be subscribed to",
            "mimeType": "text/plain",
        },
    ]
    assert [dumped(template) for template in templates.resource_templates] == [
        {
            "name": "Resource Template",
            "uriTemplate": "test://template/{id}/data",
            "description": "A resource template with parameter substitution",
            "mimeType": "application/json",
        }
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_static_text_and_binary_resources_are_read(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        text = await session.read_resource("test://static-text")
        binary = await session.read_resource("test://static-binary")
    [text_contents] = text.contents
    assert dumped(text_contents) == {
        "uri": "test://static-text",
        "mimeType": "text/plain",
        "text": "This is the content of the static text resource.",
    }
    [blob_contents] = binary.contents
    assert isinstance(blob_contents, types.BlobResourceContents)
    assert blob_contents.uri == "test://static-binary"
    assert blob_contents.mime_type == "image/png"
    png = base64.b64decode(blob_contents.blob, validate=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) == 70  # the fixture's 1x1 PNG


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_template_read_substitutes_the_variable(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        result = await session.read_resource("test://template/123/data")
    [contents] = result.contents
    assert dumped(contents) == {
        "uri": "test://template/123/data",
        "mimeType": "application/json",
        # The exact text: the keys in the order the handler's json! lists them.
        "text": '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_uri_is_resource_not_found(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        with pytest.raises(MCPError) as raised:
            await session.read_resource(UNKNOWN_URI)
    assert raised.value.code == resource_not_found_code(transport)
    assert raised.value.message == UNKNOWN_URI_MESSAGE
    assert raised.value.data == UNKNOWN_URI_DATA


@pytest.mark.parametrize("transport", HANDSHAKE_TRANSPORTS)
async def test_subscribe_and_unsubscribe(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        with warnings.catch_warnings():
            # The SDK marks both deprecated: 2026-07-28 removes them.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            subscribed = await session.subscribe_resource("test://watched-resource")
            unsubscribed = await session.unsubscribe_resource("test://watched-resource")
            with pytest.raises(MCPError) as raised:
                await session.subscribe_resource(UNKNOWN_URI)
    assert dumped(subscribed) == {}
    assert dumped(unsubscribed) == {}
    assert raised.value.code == -32002
    assert raised.value.message == UNKNOWN_URI_MESSAGE
    assert raised.value.data == UNKNOWN_URI_DATA


# ---------------------------------------------------------------------------
# Completion


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_completion_of_a_prompt_argument_and_a_template_variable(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        prompt = await session.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "pa"},
        )
        template = await session.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"),
            {"name": "id", "value": "4"},
        )
    assert dumped(prompt.completion) == {"values": ["paris", "park", "party"], "total": 3, "hasMore": False}
    assert dumped(template.completion) == {"values": ["456"], "total": 1, "hasMore": False}


# ---------------------------------------------------------------------------
# Logging and progress


@pytest.mark.parametrize("transport", HANDSHAKE_TRANSPORTS)
async def test_logging_sends_three_messages_until_the_level_is_raised(transport: str) -> None:
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    async with open_session(transport, CONFORMANCE, logging_callback=on_log) as session:
        first = await session.call_tool("test_tool_with_logging", {})
        await wait_for(received, 3)
        await settle(session)
        logged = [dumped(params) for params in received]
        received.clear()
        with warnings.catch_warnings():
            # The SDK marks logging deprecated: SEP-2577, for 2026-07-28.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.set_logging_level("warning")
        second = await session.call_tool("test_tool_with_logging", {})
        await settle(session)
    assert logged == [
        {"level": "info", "logger": "test_tool_with_logging", "data": "Tool execution started"},
        {"level": "info", "logger": "test_tool_with_logging", "data": "Tool processing data"},
        {"level": "info", "logger": "test_tool_with_logging", "data": "Tool execution completed"},
    ]
    assert received == []
    for result in (first, second):
        assert result.is_error is False
        assert texts(result) == ["Tool with logging executed successfully"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_progress_is_reported_to_the_callback(transport: str) -> None:
    reported: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total, message))

    async with open_session(transport, CONFORMANCE) as session:
        result = await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        await wait_for(reported, 3)
        await settle(session)
    assert reported == [(0, 100, None), (50, 100, None), (100, 100, None)]
    assert result.is_error is False
    assert texts(result) == ["Tool with progress executed successfully"]


# ---------------------------------------------------------------------------
# Sampling and elicitation


@pytest.mark.parametrize("transport", HANDSHAKE_TRANSPORTS)
async def test_sampling_asks_the_client_model(transport: str) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def on_sampling(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="hi there"),
            model="test-model",
            stop_reason="endTurn",
        )

    async with open_session(transport, CONFORMANCE, sampling_callback=on_sampling) as session:
        result = await session.call_tool("test_sampling", {"prompt": "Say hi"})
    assert result.is_error is False
    assert texts(result) == ["LLM response: hi there"]
    [params] = asked
    assert [dumped(message) for message in params.messages] == [
        {"role": "user", "content": {"type": "text", "text": "Say hi"}}
    ]
    assert params.max_tokens == 100


@pytest.mark.parametrize("transport", HANDSHAKE_TRANSPORTS)
async def test_sampling_without_the_capability_is_an_envelope(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        result = await session.call_tool("test_sampling", {"prompt": "Say hi"})
    message = (
        "This tool needs to send the client a sampling/createMessage request, "
        "and the client did not declare the sampling capability."
    )
    recovery = (
        "Tell the user this tool needs an MCP client that supports sampling; "
        "calling it again from this client fails the same way."
    )
    assert result.is_error is True
    assert texts(result) == [
        '<tool_error code="CLIENT_CAPABILITY_MISSING" severity="error">\n'
        f"  <message>{message}</message>\n"
        f"  <recovery>{recovery}</recovery>\n"
        "  <details>\n"
        '    <detail key="capability">sampling</detail>\n'
        "  </details>\n"
        "</tool_error>"
    ]
    assert envelope_meta(result) == {
        "code": "CLIENT_CAPABILITY_MISSING",
        "severity": "error",
        "message": message,
        "recovery": recovery,
        "details": {"capability": "sampling"},
    }


@pytest.mark.parametrize("transport", HANDSHAKE_TRANSPORTS)
async def test_elicitation_returns_what_the_user_entered(transport: str) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def on_elicitation(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})

    async with open_session(transport, CONFORMANCE, elicitation_callback=on_elicitation) as session:
        result = await session.call_tool("test_elicitation", {"message": "Please provide your information"})
    assert result.is_error is False
    assert texts(result) == [
        'User response: action=accept, content={"username":"ada","email":"ada@example.com"}'
    ]
    [params] = asked
    assert params.mode == "form"
    assert params.message == "Please provide your information"
    assert params.requested_schema == {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }


# ---------------------------------------------------------------------------
# A failing tool


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_error_handling_tool_fails_with_an_envelope(transport: str) -> None:
    async with open_session(transport, CONFORMANCE) as session:
        result = await session.call_tool("test_error_handling", {})
    assert result.is_error is True
    assert texts(result) == [
        '<tool_error code="INTENTIONAL_ERROR" severity="error">\n'
        "  <message>This tool intentionally returns an error for testing</message>\n"
        "  <recovery>Do not call test_error_handling again: it fails on every call, by design.</recovery>\n"
        "</tool_error>"
    ]
    assert result.structured_content is None
    assert envelope_meta(result) == {
        "code": "INTENTIONAL_ERROR",
        "severity": "error",
        "message": "This tool intentionally returns an error for testing",
        "recovery": "Do not call test_error_handling again: it fails on every call, by design.",
    }
