"""`fusion serve --auth-tokens FILE` (the billing example with bearer tokens)
end to end: raw HTTP requests, and the official MCP Python SDK client over
Streamable HTTP (and stdio, which carries no credentials).

What is checked, with exact status codes, headers and texts: without a
token, or with a wrong one, every request to `/mcp` is refused with `401`
and its `WWW-Authenticate` challenge before any JSON-RPC is read (and the
SDK client cannot connect); a token with every scope is served every tool,
prompt, resource and template; under `--allow-anonymous` a client without a
token is shown only what needs no credentials and told `AUTH_REQUIRED` by
the rest; a token without `billing:read` is told `FORBIDDEN`, naming it, by
the prompt and the template it is shown; a session serves only the
principal that opened it; and the principal reaches the prompt's handler
(the reminder is signed by the token's subject).

Each test starts its own server on a fresh SQLite file and token file. The
binary is `$FUSION_BIN` (default `target/debug/fusion`, relative to the
repository root).
"""

from __future__ import annotations

import http.client
import json
import re
import warnings
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator
from urllib.parse import urlparse

import httpx2
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

import servers
from servers import texts

pytestmark = pytest.mark.anyio

META_KEY = "mcp-fusion/error"
HTTP_TRANSPORTS = ["http", "http-2026"]

TOKENS = {
    "tokens": [
        {"token": "alice-token", "subject": "alice", "scopes": ["billing:read", "billing:write"]},
        {"token": "bob-token", "subject": "bob", "scopes": ["billing:read", "billing:write"]},
        # Can change invoices but not read them.
        {"token": "writer-token", "subject": "carol", "scopes": ["billing:write"]},
    ]
}

# The refusals at the edge.
NO_TOKEN_CHALLENGE = 'Bearer realm="mcp"'
NO_TOKEN_BODY = "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)"
INVALID_CHALLENGE = (
    'Bearer realm="mcp", error="invalid_token", error_description="The bearer token is not valid."'
)
INVALID_BODY = "Unauthorized: The bearer token is not valid."

# What the billing example lists beside its tools.
PROMPT = {
    "name": "payment_reminder",
    "title": "Payment reminder",
    "description": "Draft a payment reminder for an open or overdue invoice.",
    "arguments": [
        {"name": "id", "description": "The id of an open or overdue invoice, e.g. `inv_2`.", "required": True},
        {"name": "tone", "description": "`friendly` (the default) or `firm`.", "required": False},
    ],
}
README_RESOURCE = {
    "name": "readme",
    "title": "Billing: read me first",
    "uri": "billing://readme",
    "description": "What this server offers, and which scope each part needs.",
    "mimeType": "text/markdown",
}
INVOICE_TEMPLATE = {
    "name": "invoice",
    "uriTemplate": "billing://invoices/{id}",
    "description": "One invoice as JSON, e.g. billing://invoices/inv_2.",
    "mimeType": "application/json",
}
README = (
    "# Billing\n"
    "\n"
    "Invoices in SQLite. Failures come back as <tool_error> or <validation_error> envelopes: follow their recovery.\n"
    "\n"
    "- Tool `billing`: list, read, create, pay and void invoices, and report totals (the field `action` names which).\n"
    "- Tool `billing_health`: whether the invoice store answers.\n"
    "- Resource template `billing://invoices/{id}`: one invoice as JSON, e.g. billing://invoices/inv_2.\n"
    "- Prompt `payment_reminder`: a reminder letter for an open or overdue invoice.\n"
    "\n"
    "With bearer tokens, reading invoices (the template and the prompt too) needs the scope billing:read, "
    "changing them billing:write; this read-me and billing_health need none.\n"
)


def reminder_text(signer: str) -> str:
    """The reminder of the seeded `inv_2`, in the default tone."""
    return (
        "Write a friendly payment reminder to grace@example.com for invoice inv_2.\n"
        "Amount due: 450.50 USD (open).\n"
        "Lines:\n"
        "- Consulting: 1 x 450.50 USD\n"
        "Keep it short and warm: the customer may simply have missed it.\n"
        f"Sign it as {signer}."
    )


# ---------------------------------------------------------------------------
# Servers, clients and raw requests


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "billing.db"


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps(TOKENS))
    return path


def auth_args(db: Path, tokens: Path, *more: str) -> list[str]:
    return ["--db", str(db), "--auth-tokens", str(tokens), *more]


@asynccontextmanager
async def sdk_client(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """An SDK client session on `url` not started yet, sending `token` as
    its bearer token (none when `None`)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


@asynccontextmanager
async def sdk_session(url: str, transport: str, token: str | None) -> AsyncIterator[ClientSession]:
    """[`sdk_client`], started with the handshake or `server/discover` by
    `transport`."""
    async with sdk_client(url, token) as session:
        await servers.start(session, transport)
        yield session


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def message(self) -> dict:
        """The JSON-RPC message of the body: plain JSON, or the first
        `data:` line of an SSE stream holding one."""
        text = self.body.decode()
        if self.headers.get("content-type", "").startswith("application/json"):
            return json.loads(text)
        for line in text.splitlines():
            if line.startswith("data: {"):
                return json.loads(line[len("data: ") :])
        raise AssertionError(f"no JSON-RPC message in {text!r}")


def request(
    url: str,
    method: str,
    body: dict | None = None,
    *,
    token: str | None = None,
    session: str | None = None,
    headers: list[tuple[str, str]] = (),
    read_body: bool = True,
) -> Reply:
    """One HTTP request to `url`: a JSON-RPC `body` for a POST, `token` as
    its bearer token, `session` as its `Mcp-Session-Id`; `headers` are added
    as given (the same name may come twice). Without `read_body`, only the
    status and headers are read (a stream that stays open)."""
    parts = urlparse(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest(method, parts.path)
        sent = [("Accept", "application/json, text/event-stream")]
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent += [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
        if token is not None:
            sent.append(("Authorization", f"Bearer {token}"))
        if session is not None:
            sent += [("Mcp-Session-Id", session), ("Mcp-Protocol-Version", "2025-11-25")]
        for name, value in [*sent, *headers]:
            connection.putheader(name, value)
        connection.endheaders(data)
        response = connection.getresponse()
        received = {name.lower(): value for name, value in response.getheaders()}
        return Reply(response.status, received, response.read() if read_body else b"")
    finally:
        connection.close()


def rpc(method: str, params: dict | None = None, id: int = 1) -> dict:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


INITIALIZE = rpc(
    "initialize",
    {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}},
)


def open_raw_session(url: str, token: str | None) -> str:
    """A 2025-11-25 session opened with `token` (anonymous when `None`):
    its `Mcp-Session-Id`."""
    reply = request(url, "POST", INITIALIZE, token=token)
    assert reply.status == 200, reply
    session = reply.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert request(url, "POST", initialized, token=token, session=session).status == 202
    return session


def tool_names(reply: Reply) -> list[str]:
    assert reply.status == 200, reply
    return [tool["name"] for tool in reply.message()["result"]["tools"]]


def dumped(model) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def envelope_meta(result) -> dict | None:
    return (result.meta or {}).get(META_KEY)


def stamped(text: str) -> dict:
    """The invoice JSON in `text`, its `created_at` checked and replaced by `<created>`."""
    value = json.loads(text)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value["created_at"]), value
    return {**value, "created_at": "<created>"}


INVOICE_2 = {
    "id": "inv_2",
    "customer_email": "grace@example.com",
    "amount_cents": 45050,
    "currency": "USD",
    "status": "open",
    "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": 45050}],
    "due_date": None,
    "created_at": "<created>",
}


def auth_required(name: str, over_stdio: bool = False) -> tuple[str, dict]:
    """The `AUTH_REQUIRED` envelope text and its JSON twin for `name`."""
    message = f"{name} needs credentials, and the call carried none."
    recovery = (
        "This server is reached over stdio, which carries no credentials: tell the user this needs an "
        "authenticated connection (Streamable HTTP with a bearer token), and do not call it again here."
        if over_stdio
        else "Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again."
    )
    text = (
        '<tool_error code="AUTH_REQUIRED" severity="error">\n'
        f"  <message>{message}</message>\n"
        f"  <recovery>{recovery}</recovery>\n"
        "</tool_error>"
    )
    return text, {"code": "AUTH_REQUIRED", "severity": "error", "message": message, "recovery": recovery}


def forbidden(name: str) -> tuple[str, dict]:
    """The `FORBIDDEN` envelope text and its JSON twin for `name` without `billing:read`."""
    message = f'{name} needs the scope "billing:read", which these credentials do not have.'
    recovery = (
        "Do not retry: the same credentials will be refused again. "
        'Tell the user the token lacks the scope "billing:read" and ask for one that has it.'
    )
    text = (
        '<tool_error code="FORBIDDEN" severity="error">\n'
        f"  <message>{message}</message>\n"
        f"  <recovery>{recovery}</recovery>\n"
        "  <details>\n"
        '    <detail key="missing_scopes">billing:read</detail>\n'
        "  </details>\n"
        "</tool_error>"
    )
    return text, {
        "code": "FORBIDDEN",
        "severity": "error",
        "message": message,
        "recovery": recovery,
        "details": {"missing_scopes": "billing:read"},
    }


def assert_rpc_error(raised: pytest.ExceptionInfo[MCPError], envelope: tuple[str, dict]) -> None:
    """A refusal of a prompt, resource or completion: JSON-RPC error -32603
    whose message is the envelope text and whose data is its JSON twin."""
    text, meta = envelope
    assert (raised.value.code, raised.value.message, raised.value.data) == (-32603, text, meta)


def assert_tool_error(result, envelope: tuple[str, dict]) -> None:
    """A refused tool call: a result whose one text block is the envelope."""
    text, meta = envelope
    assert texts(result) == [text]
    assert result.is_error is True
    assert envelope_meta(result) == meta


PROMPT_REF = types.PromptReference(type="ref/prompt", name="payment_reminder")
TEMPLATE_REF = types.ResourceTemplateReference(type="ref/resource", uri="billing://invoices/{id}")


# ---------------------------------------------------------------------------
# No token, a wrong token, a malformed header


def every_request(session: str) -> list[tuple[str, str, dict | None, str | None]]:
    """(what, HTTP method, body, session) of every kind of request a client
    sends, each JSON-RPC one with the session `session` and without one."""
    calls = [
        rpc("tools/list"),
        rpc("tools/call", {"name": "billing_health", "arguments": {}}),
        rpc("prompts/list"),
        rpc("prompts/get", {"name": "payment_reminder", "arguments": {"id": "inv_2"}}),
        rpc("resources/list"),
        rpc("resources/templates/list"),
        rpc("resources/read", {"uri": "billing://readme"}),
        rpc("resources/read", {"uri": "billing://invoices/inv_2"}),
    ]
    requests = [("initialize", "POST", INITIALIZE, None)]
    for body in calls:
        for on in (session, None):
            requests.append((f"{body['method']} (session {on})", "POST", body, on))
    requests += [("the GET stream", "GET", None, session), ("ending the session", "DELETE", None, session)]
    return requests


@pytest.mark.parametrize("anonymous", [False, True], ids=["tokens", "allow-anonymous"])
def test_no_token_or_a_wrong_token_is_refused_before_any_json_rpc(
    db: Path, tokens: Path, anonymous: bool
) -> None:
    """Every request to `/mcp` without a valid token is `401` with the
    Bearer challenge, `Cache-Control: no-store` and no session; under
    `--allow-anonymous` only a wrong token is."""
    extra = ["--allow-anonymous"] if anonymous else []
    with servers.http_server(auth_args(db, tokens, *extra)) as url:
        session = open_raw_session(url, "alice-token")
        refusals = [("a wrong token", "wrong-token", INVALID_CHALLENGE, INVALID_BODY)]
        if not anonymous:
            refusals.append(("no token", None, NO_TOKEN_CHALLENGE, NO_TOKEN_BODY))
        for why, token, challenge, body in refusals:
            for what, method, message, on in every_request(session):
                reply = request(url, method, message, token=token, session=on)
                assert (reply.status, reply.body.decode()) == (401, body), (why, what)
                assert reply.headers["www-authenticate"] == challenge, (why, what)
                assert reply.headers["cache-control"] == "no-store", (why, what)
                assert reply.headers["content-type"] == "text/plain; charset=utf-8", (why, what)
                assert "mcp-session-id" not in reply.headers, (why, what)
        # The refused DELETEs did not end alice's session.
        assert tool_names(request(url, "POST", rpc("tools/list"), token="alice-token", session=session)) == [
            "billing",
            "billing_health",
        ]


def test_malformed_credentials_are_a_bad_request(db: Path, tokens: Path) -> None:
    """Two Authorization headers, or `Bearer` without a token: `400` with
    `invalid_request`; another scheme than Bearer: `401` with the bare
    challenge (also under `--allow-anonymous`)."""
    for extra in ([], ["--allow-anonymous"]):
        with servers.http_server(auth_args(db, tokens, *extra)) as url:
            twice = [("Authorization", "Bearer alice-token"), ("Authorization", "Bearer alice-token")]
            cases = [
                (twice, 400, "invalid_request", "The request carries more than one Authorization header."),
                ([("Authorization", "Bearer")], 400, "invalid_request", "The Authorization header says Bearer but holds no token."),
            ]
            for headers, status, code, description in cases:
                reply = request(url, "POST", INITIALIZE, headers=headers)
                assert (reply.status, reply.body.decode()) == (status, f"Bad Request: {description}")
                assert reply.headers["www-authenticate"] == (
                    f'Bearer realm="mcp", error="{code}", error_description="{description}"'
                )
                assert reply.headers["cache-control"] == "no-store"
                assert "mcp-session-id" not in reply.headers
            reply = request(url, "POST", INITIALIZE, headers=[("Authorization", "Basic YWxpY2U6c2VjcmV0")])
            assert (reply.status, reply.body.decode()) == (401, NO_TOKEN_BODY)
            assert reply.headers["www-authenticate"] == NO_TOKEN_CHALLENGE
            assert reply.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("transport", HTTP_TRANSPORTS)
@pytest.mark.parametrize("token", [None, "wrong-token"], ids=["no-token", "wrong-token"])
async def test_the_sdk_client_cannot_connect_without_a_valid_token(
    db: Path, tokens: Path, transport: str, token: str | None
) -> None:
    """The SDK turns the 401 of its first request (`initialize`, or
    `server/discover`) into a JSON-RPC error -32603 it raises: no session."""
    with servers.http_server(auth_args(db, tokens)) as url:
        async with sdk_client(url, token) as session:
            with pytest.raises(MCPError) as raised:
                await servers.start(session, transport)
    assert (raised.value.code, raised.value.message) == (-32603, "Server returned an error response")


# ---------------------------------------------------------------------------
# A token with every scope, none, or without billing:read


@pytest.mark.parametrize("transport", HTTP_TRANSPORTS)
async def test_a_token_with_every_scope_is_served_everything(db: Path, tokens: Path, transport: str) -> None:
    with servers.http_server(auth_args(db, tokens)) as url:
        async with sdk_session(url, transport, "alice-token") as session:
            tools = await session.list_tools()
            prompts = await session.list_prompts()
            resources = await session.list_resources()
            templates = await session.list_resource_templates()
            readme = await session.read_resource("billing://readme")
            invoice = await session.read_resource("billing://invoices/inv_2")
            by_tool = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
            reminder = await session.get_prompt("payment_reminder", {"id": "inv_2"})
            unpaid = await session.complete(PROMPT_REF, {"name": "id", "value": "inv_1"})
            every = await session.complete(TEMPLATE_REF, {"name": "id", "value": "inv_1"})
    assert [tool.name for tool in tools.tools] == ["billing", "billing_health"]
    assert [dumped(prompt) for prompt in prompts.prompts] == [PROMPT]
    assert [dumped(resource) for resource in resources.resources] == [README_RESOURCE]
    assert [dumped(template) for template in templates.resource_templates] == [INVOICE_TEMPLATE]
    assert [dumped(contents) for contents in readme.contents] == [
        {"uri": "billing://readme", "mimeType": "text/markdown", "text": README}
    ]
    [contents] = invoice.contents
    assert (contents.uri, contents.mime_type) == ("billing://invoices/inv_2", "application/json")
    assert stamped(contents.text) == INVOICE_2
    # The template reads what billing.get_invoice returns, to the byte, but
    # the card number its presenter adds, redacted (and its guidance block).
    assert by_tool.is_error is False
    data, _guidance = texts(by_tool)
    assert data == contents.text[:-1] + ',"card_number":"[redacted]"}'

    assert reminder.description == PROMPT["description"]
    assert [dumped(message) for message in reminder.messages] == [
        {"role": "user", "content": {"type": "text", "text": reminder_text("alice, for the billing team")}}
    ]
    # The prompt completes open and overdue invoices only, the template every one.
    assert dumped(unpaid.completion) == {"values": ["inv_10", "inv_11"], "total": 2, "hasMore": False}
    assert dumped(every.completion) == {
        "values": ["inv_1", "inv_10", "inv_11", "inv_12"],
        "total": 4,
        "hasMore": False,
    }


@pytest.mark.parametrize("transport", HTTP_TRANSPORTS)
async def test_an_anonymous_client_sees_and_uses_only_what_is_open(
    db: Path, tokens: Path, transport: str
) -> None:
    with servers.http_server(auth_args(db, tokens, "--allow-anonymous")) as url:
        async with sdk_session(url, transport, None) as session:
            tools = await session.list_tools()
            prompts = await session.list_prompts()
            resources = await session.list_resources()
            templates = await session.list_resource_templates()
            readme = await session.read_resource("billing://readme")
            health = await session.call_tool("billing_health", {})
            with pytest.raises(MCPError) as template_read:
                await session.read_resource("billing://invoices/inv_2")
            with pytest.raises(MCPError) as prompt_get:
                await session.get_prompt("payment_reminder", {"id": "inv_2"})
            with pytest.raises(MCPError) as completion:
                await session.complete(PROMPT_REF, {"name": "id", "value": "inv_1"})
            tool_call = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
            dotted_call = await session.call_tool("billing.get_invoice", {"id": "inv_2"})
            # Names that are not there: the valid ones named are the open ones.
            with pytest.raises(MCPError) as no_resource:
                await session.read_resource("billing://invoices")
            with pytest.raises(MCPError) as no_prompt:
                await session.get_prompt("payment_reminders", {})
            with pytest.raises(MCPError) as no_tool:
                await session.call_tool("invoices", {"id": "inv_2"})
    assert [tool.name for tool in tools.tools] == ["billing_health"]
    assert prompts.prompts == []
    assert [dumped(resource) for resource in resources.resources] == [README_RESOURCE]
    assert templates.resource_templates == []
    assert readme.contents[0].text == README
    assert texts(health) == ['{"status":"ok","invoices":12}']
    assert_rpc_error(template_read, auth_required("billing://invoices/inv_2"))
    assert_rpc_error(prompt_get, auth_required("payment_reminder"))
    assert_rpc_error(completion, auth_required("payment_reminder"))
    assert_tool_error(tool_call, auth_required("billing.get_invoice"))
    assert_tool_error(dotted_call, auth_required("billing.get_invoice"))
    not_found = -32602 if transport.endswith("-2026") else -32002
    assert (no_resource.value.code, no_resource.value.message, no_resource.value.data) == (
        not_found,
        'There is no resource named "billing://invoices". Valid: billing://readme.',
        {"uri": "billing://invoices", "closest": None, "valid": ["billing://readme"]},
    )
    assert (no_prompt.value.code, no_prompt.value.message, no_prompt.value.data) == (
        -32602,
        'There is no prompt named "payment_reminders". This server has none.',
        {"prompt": "payment_reminders", "closest": None, "valid": []},
    )
    assert (no_tool.value.code, no_tool.value.message, no_tool.value.data) == (
        -32602,
        'Unknown tool "invoices". Valid tools: billing_health.',
        {"tool": "invoices", "valid_tools": ["billing_health"]},
    )


@pytest.mark.parametrize("transport", HTTP_TRANSPORTS)
async def test_a_token_without_the_scope_is_forbidden_naming_it(db: Path, tokens: Path, transport: str) -> None:
    """carol's token has billing:write only: she is shown the prompt and the
    template (using them says which scope is missing, for the model to tell
    the user), and refused by them and by the reading actions."""
    with servers.http_server(auth_args(db, tokens)) as url:
        async with sdk_session(url, transport, "writer-token") as session:
            prompts = await session.list_prompts()
            templates = await session.list_resource_templates()
            with pytest.raises(MCPError) as prompt_get:
                await session.get_prompt("payment_reminder", {"id": "inv_2"})
            with pytest.raises(MCPError) as template_read:
                await session.read_resource("billing://invoices/inv_2")
            with pytest.raises(MCPError) as prompt_completion:
                await session.complete(PROMPT_REF, {"name": "id", "value": "inv_1"})
            with pytest.raises(MCPError) as template_completion:
                await session.complete(TEMPLATE_REF, {"name": "id", "value": "inv_1"})
            reading = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
            writing = await session.call_tool("billing", {"action": "pay_invoice", "id": "inv_2"})
            readme = await session.read_resource("billing://readme")
    assert [dumped(prompt) for prompt in prompts.prompts] == [PROMPT]
    assert [dumped(template) for template in templates.resource_templates] == [INVOICE_TEMPLATE]
    assert_rpc_error(prompt_get, forbidden("payment_reminder"))
    assert_rpc_error(template_read, forbidden("billing://invoices/inv_2"))
    assert_rpc_error(prompt_completion, forbidden("payment_reminder"))
    assert_rpc_error(template_completion, forbidden("billing://invoices/{id}"))
    assert_tool_error(reading, forbidden("billing.get_invoice"))
    assert writing.is_error is False
    assert json.loads(texts(writing)[1])["status"] == "paid"
    assert readme.contents[0].text == README


async def test_subscribing_to_a_protected_resource_needs_its_scope(db: Path, tokens: Path) -> None:
    """`resources/subscribe` (2025-11-25) to an invoice is refused as its
    read is: AUTH_REQUIRED without a token, FORBIDDEN without billing:read;
    the read-me is open to every caller."""
    uri = "billing://invoices/inv_2"
    with servers.http_server(auth_args(db, tokens, "--allow-anonymous")) as url:
        with warnings.catch_warnings():
            # The SDK marks subscriptions deprecated: 2026-07-28 removes them.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            async with sdk_session(url, "http", None) as session:
                with pytest.raises(MCPError) as anonymous:
                    await session.subscribe_resource(uri)
                open_to_all = await session.subscribe_resource("billing://readme")
            async with sdk_session(url, "http", "writer-token") as session:
                with pytest.raises(MCPError) as writer:
                    await session.subscribe_resource(uri)
            async with sdk_session(url, "http", "alice-token") as session:
                alice = await session.subscribe_resource(uri)
    assert_rpc_error(anonymous, auth_required(uri))
    assert_rpc_error(writer, forbidden(uri))
    assert dumped(open_to_all) == {}
    assert dumped(alice) == {}


# ---------------------------------------------------------------------------
# Sessions and principals


def test_a_session_serves_only_the_principal_that_opened_it(db: Path, tokens: Path) -> None:
    """alice's session with bob's token, or with none, is `404` (as if it
    did not exist), and an anonymous session with a token too; with alice's
    token it serves her, signed as her, until she ends it."""
    with servers.http_server(auth_args(db, tokens, "--allow-anonymous")) as url:
        alices = open_raw_session(url, "alice-token")
        anonymous = open_raw_session(url, None)
        reminder = rpc("prompts/get", {"name": "payment_reminder", "arguments": {"id": "inv_2"}})
        for session, token in [(alices, "bob-token"), (alices, None), (anonymous, "alice-token")]:
            for method, body in [("POST", rpc("tools/list")), ("POST", reminder), ("GET", None), ("DELETE", None)]:
                reply = request(url, method, body, token=token, session=session)
                assert (reply.status, reply.body.decode()) == (404, "Not Found: Session not found"), (
                    token,
                    method,
                    body,
                )
                assert reply.headers["content-type"] == "text/plain; charset=utf-8"

        # Both sessions are still there, each for its own principal.
        assert tool_names(request(url, "POST", rpc("tools/list"), token="alice-token", session=alices)) == [
            "billing",
            "billing_health",
        ]
        assert tool_names(request(url, "POST", rpc("tools/list"), session=anonymous)) == ["billing_health"]
        signed = request(url, "POST", reminder, token="alice-token", session=alices)
        assert signed.status == 200
        assert signed.message()["result"]["messages"] == [
            {"role": "user", "content": {"type": "text", "text": reminder_text("alice, for the billing team")}}
        ]
        stream = request(url, "GET", None, token="alice-token", session=alices, read_body=False)
        assert (stream.status, stream.headers["content-type"]) == (200, "text/event-stream")

        # bob's own session signs as bob.
        bobs = open_raw_session(url, "bob-token")
        signed = request(url, "POST", reminder, token="bob-token", session=bobs)
        assert signed.message()["result"]["messages"][0]["content"]["text"] == reminder_text(
            "bob, for the billing team"
        )

        ended = request(url, "DELETE", None, token="alice-token", session=alices)
        assert (ended.status, ended.body) == (204, b"")
        gone = request(url, "POST", rpc("tools/list"), token="alice-token", session=alices)
        assert gone.status == 404


async def test_over_stdio_protected_capabilities_need_an_authenticated_connection(db: Path, tokens: Path) -> None:
    """stdio carries no credentials: the client is shown what is open, and
    the rest tells the model to say so to the user."""
    async with servers.open_session("stdio", auth_args(db, tokens)) as session:
        tools = await session.list_tools()
        prompts = await session.list_prompts()
        resources = await session.list_resources()
        templates = await session.list_resource_templates()
        with pytest.raises(MCPError) as prompt_get:
            await session.get_prompt("payment_reminder", {"id": "inv_2"})
        with pytest.raises(MCPError) as template_read:
            await session.read_resource("billing://invoices/inv_2")
    assert [tool.name for tool in tools.tools] == ["billing_health"]
    assert prompts.prompts == []
    assert [dumped(resource) for resource in resources.resources] == [README_RESOURCE]
    assert templates.resource_templates == []
    assert_rpc_error(prompt_get, auth_required("payment_reminder", over_stdio=True))
    assert_rpc_error(template_read, auth_required("billing://invoices/inv_2", over_stdio=True))


@pytest.mark.parametrize("transport", servers.TRANSPORTS)
async def test_without_tokens_everything_is_open_and_the_team_signs(db: Path, transport: str) -> None:
    """Without `--auth-tokens` nothing needs credentials, and a reminder,
    having no principal to name, is signed by the billing team."""
    async with servers.open_session(transport, ["--db", str(db)]) as session:
        prompts = await session.list_prompts()
        resources = await session.list_resources()
        templates = await session.list_resource_templates()
        reminder = await session.get_prompt("payment_reminder", {"id": "inv_2"})
        invoice = await session.read_resource("billing://invoices/inv_2")
    assert [dumped(prompt) for prompt in prompts.prompts] == [PROMPT]
    assert [dumped(resource) for resource in resources.resources] == [README_RESOURCE]
    assert [dumped(template) for template in templates.resource_templates] == [INVOICE_TEMPLATE]
    assert reminder.messages[0].content.text == reminder_text("the billing team")
    assert stamped(invoice.contents[0].text) == INVOICE_2
