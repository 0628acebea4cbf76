"""`fusion serve` (the billing example) driven by the official MCP Python SDK
client, over stdio and over Streamable HTTP.

Each test starts its own server on a fresh SQLite file, asserts the exact
text the model reads, `isError` and `_meta["mcp-fusion/error"]`, and stops
the server at the end. The binary is `$FUSION_BIN` (default
`target/debug/fusion`, relative to the repository root).
"""

from __future__ import annotations

import json
import re
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

import servers
from servers import TRANSPORTS, texts

META_KEY = "mcp-fusion/error"
# The <recovery> line of every <validation_error> (wire contract §4); the
# instruction of what to fix comes first, on the line before the envelope.
VALIDATION_RECOVERY = "Do not explain the error."

pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------------------
# Servers and sessions (`servers.py`), on a billing database


@contextmanager
def http_server(db: Path) -> Iterator[str]:
    """Runs `fusion serve --port N --db DB` until the block ends; yields the
    endpoint URL once the server accepts connections."""
    with servers.http_server(["--db", str(db)]) as url:
        yield url


def open_session(transport: str, db: Path) -> AbstractAsyncContextManager[ClientSession]:
    """A ready client session with a fresh `fusion serve` on `db`."""
    return servers.open_session(transport, ["--db", str(db)])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "billing.db"


# ---------------------------------------------------------------------------
# Helpers


def envelope_meta(result) -> dict | None:
    return (result.meta or {}).get(META_KEY)


def stamped(value):
    """`value` with every `created_at` checked to be a UTC timestamp and replaced by `<created>`."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "created_at":
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", item), item
                out[key] = "<created>"
            else:
                out[key] = stamped(item)
        return out
    if isinstance(value, list):
        return [stamped(item) for item in value]
    return value


def seeded_invoice(n: int, email: str, amount: int, currency: str, status: str) -> dict:
    return {
        "id": f"inv_{n}",
        "customer_email": email,
        "amount_cents": amount,
        "currency": currency,
        "status": status,
        "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": amount}],
        "due_date": None,
        "created_at": "<created>",
    }


NOT_FOUND_TEXT = (
    '<tool_error code="NOT_FOUND" severity="error">\n'
    "  <message>No invoice with that ID</message>\n"
    "  <recovery>List invoices first, then retry with a real ID</recovery>\n"
    "  <available_actions>\n"
    "    <action>billing.list_invoices</action>\n"
    "  </available_actions>\n"
    "  <details>\n"
    '    <detail key="requestedId">inv_9999</detail>\n'
    "  </details>\n"
    "</tool_error>"
)

# ---------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_get_invoice_not_found_is_the_seed_envelope(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_9999"})
    assert texts(result) == [NOT_FOUND_TEXT]
    assert result.is_error is True
    assert result.structured_content is None
    assert envelope_meta(result) == {
        "code": "NOT_FOUND",
        "severity": "error",
        "message": "No invoice with that ID",
        "recovery": "List invoices first, then retry with a real ID",
        "available_actions": ["billing.list_invoices"],
        "details": {"requestedId": "inv_9999"},
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_validation_failure_reports_every_field(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool(
            "billing",
            {
                "action": "create_invoice",
                "customer_email": "not-an-email",
                "amount_cents": 0,
                "currency": "YEN",
                "items": [],
            },
        )
        # Nothing was stored.
        health = await session.call_tool("billing_health", {})
    fields = [
        (
            "customer_email",
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
        ),
        ("amount_cents", "Too small. You sent: 0. Expected an integer >= 1 and <= 100000000000."),
        ("currency", "Invalid value. You sent: 'YEN'. Expected one of: 'USD', 'EUR', 'GBP'."),
        ("items", "Too few items. You sent: array(0). Expected at least 1 item."),
    ]
    lines = "".join(
        f'  <field name="{path}">{message.replace("&", "&amp;").replace("<", "&lt;")}</field>\n'
        for path, message in fields
    )
    assert texts(result) == [
        'Fix the fields below and call billing again.\n<validation_error action="billing.create_invoice">\n'
        f"{lines}"
        f"  <recovery>{VALIDATION_RECOVERY}</recovery>\n"
        "</validation_error>"
    ]
    assert result.is_error is True
    assert result.structured_content is None
    assert envelope_meta(result) == {
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": "The arguments for billing.create_invoice are not valid (4 problems).",
        "recovery": f"Fix the fields below and call billing again. {VALIDATION_RECOVERY}",
        "action": "billing.create_invoice",
        "fields": [{"path": path, "message": message} for path, message in fields],
    }
    assert texts(health) == ['{"status":"ok","invoices":12}']


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_nested_item_field_is_named_by_its_dotted_path(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool(
            "billing",
            {
                "action": "create_invoice",
                "customer_email": "a@example.com",
                "amount_cents": 5,
                "currency": "EUR",
                "items": [{"description": "ok", "quantity": 0, "unit_price_cents": 5}],
            },
        )
    assert texts(result) == [
        'Fix the fields below and call billing again.\n<validation_error action="billing.create_invoice">\n'
        '  <field name="items.0.quantity">Too small. You sent: 0. Expected an integer >= 1 and &lt;= 10000.</field>\n'
        f"  <recovery>{VALIDATION_RECOVERY}</recovery>\n"
        "</validation_error>"
    ]
    assert result.is_error is True
    assert envelope_meta(result)["fields"] == [
        {
            "path": "items.0.quantity",
            "message": "Too small. You sent: 0. Expected an integer >= 1 and <= 10000.",
        }
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_get_invoice_success_carries_structured_content(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
    assert result.is_error is False
    assert envelope_meta(result) is None
    # The data, then the presenter's guidance (test_presenters.py).
    text, _guidance = texts(result)
    value = json.loads(text)
    assert json.dumps(value, separators=(",", ":")) == text
    assert result.structured_content == value
    assert stamped(value) == {
        **seeded_invoice(2, "grace@example.com", 45050, "USD", "open"),
        "card_number": "[redacted]",
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_deprecated_action_succeeds_with_a_warning(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool("billing", {"action": "get_invoice_legacy", "id": "inv_4"})
    assert result.is_error is False
    output, _guidance, warning = texts(result)
    assert stamped(json.loads(output)) == {
        **seeded_invoice(4, "margaret@example.com", 310000, "GBP", "overdue"),
        "card_number": "[redacted]",
    }
    assert warning == (
        '<tool_error code="DEPRECATED" severity="warning">\n'
        "  <message>billing.get_invoice_legacy is deprecated and will be removed; use billing.get_invoice instead.</message>\n"
        "  <recovery>The call succeeded: its result is above. Next time call billing.get_invoice.</recovery>\n"
        "  <available_actions>\n"
        "    <action>billing.get_invoice</action>\n"
        "  </available_actions>\n"
        "</tool_error>"
    )
    assert envelope_meta(result) == {
        "code": "DEPRECATED",
        "severity": "warning",
        "message": "billing.get_invoice_legacy is deprecated and will be removed; use billing.get_invoice instead.",
        "recovery": "The call succeeded: its result is above. Next time call billing.get_invoice.",
        "available_actions": ["billing.get_invoice"],
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_voiding_a_paid_invoice_is_critical(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        result = await session.call_tool("billing", {"action": "void_invoice", "id": "inv_1"})
        ok = await session.call_tool("billing", {"action": "void_invoice", "id": "inv_2", "reason": "Duplicate"})
    assert texts(result) == [
        '<tool_error code="CONFLICT" severity="critical">\n'
        "  <message>Invoice inv_1 is paid: voiding it would need a refund, which this server cannot do.</message>\n"
        "  <recovery>Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.</recovery>\n"
        "  <details>\n"
        '    <detail key="currentStatus">paid</detail>\n'
        "  </details>\n"
        "</tool_error>"
    ]
    assert result.is_error is True
    assert envelope_meta(result) == {
        "code": "CONFLICT",
        "severity": "critical",
        "message": "Invoice inv_1 is paid: voiding it would need a refund, which this server cannot do.",
        "recovery": "Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.",
        "details": {"currentStatus": "paid"},
    }
    assert ok.is_error is False
    assert json.loads(texts(ok)[1])["status"] == "void"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_pay_twice_is_a_conflict_with_the_current_status(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        first = await session.call_tool("billing", {"action": "pay_invoice", "id": "inv_6"})
        second = await session.call_tool("billing", {"action": "pay_invoice", "id": "inv_6"})
    assert first.is_error is False
    assert json.loads(texts(first)[1])["status"] == "paid"
    assert second.is_error is True
    assert envelope_meta(second) == {
        "code": "CONFLICT",
        "severity": "error",
        "message": "Invoice inv_6 is already paid.",
        "recovery": "Do not pay it again. Call billing.get_invoice to show the user its current state.",
        "available_actions": ["billing.get_invoice"],
        "details": {"currentStatus": "paid"},
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_payments_of_one_invoice_are_serialized(transport: str, db: Path) -> None:
    """`pay_invoice` is serialized by the invoice id (wire contract §10):
    `tools/list` says so in the action's guards, and of eight payments of one
    invoice sent at once exactly one pays it; the others run after it and
    read it paid. A destructive action (`void_invoice`) is serialized per
    action."""
    import asyncio

    async with open_session(transport, db) as session:
        listed = await session.list_tools()
        payments = await asyncio.gather(
            *(
                session.call_tool("billing", {"action": "pay_invoice", "id": "inv_6"})
                for _ in range(8)
            )
        )
    billing = next(tool for tool in listed.tools if tool.name == "billing")
    guards = {a["name"]: a["guards"] for a in billing.meta["mcp-fusion/actions"]}
    assert guards["pay_invoice"] == {"serialize": {"key": "id", "maxQueue": 64, "maxWaitMs": 30000}}
    assert guards["void_invoice"] == {"serialize": {"key": None, "maxQueue": 64, "maxWaitMs": 30000}}
    assert guards["get_invoice"] == {}
    paid = [p for p in payments if p.is_error is False]
    refused = [envelope_meta(p)["message"] for p in payments if p.is_error]
    assert len(paid) == 1
    # After the stale-reads notice (wire contract §9.3), the invoice.
    assert json.loads(texts(paid[0])[1])["status"] == "paid"
    assert refused == ["Invoice inv_6 is already paid."] * 7


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_tool_is_an_mcp_error(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        with pytest.raises(MCPError) as raised:
            await session.call_tool("billing.get_invoice", {"id": "inv_1"})
        # The session is still usable afterwards.
        health = await session.call_tool("billing_health", {})
    assert raised.value.code == -32602
    assert raised.value.message == (
        'Unknown tool "billing.get_invoice": the action billing.get_invoice is called through the tool "billing" with "action": "get_invoice" in its arguments. Valid tools: billing, billing_health.'
    )
    assert raised.value.data == {
        "tool": "billing.get_invoice",
        "valid_tools": ["billing", "billing_health"],
        "closest": "billing",
    }
    assert health.is_error is False


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_list_shows_the_group_with_every_action(transport: str, db: Path) -> None:
    async with open_session(transport, db) as session:
        listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == ["billing", "billing_health"]
    billing = tools["billing"]
    action = billing.input_schema["properties"]["action"]
    assert action["type"] == "string"
    expected = [
        "list_invoices",
        "get_invoice",
        "create_invoice",
        "pay_invoice",
        "void_invoice",
        "get_invoice_legacy",
        "generate_report",
    ]
    assert action["enum"] == expected
    for name in expected:
        assert f"\n- {name}: " in billing.description
    assert billing.input_schema["required"] == ["action"]
    assert billing.annotations.destructive_hint is True
    assert tools["billing_health"].annotations.read_only_hint is True


def test_http_edges_session_end_and_foreign_host(db: Path) -> None:
    """The HTTP edge as plain HTTP clients see it: a session's DELETE is 204
    No Content (the Python SDK treats rmcp's 202 as a failed termination), and
    a Host header that is not a loopback name is refused with 403."""
    import http.client
    from urllib.parse import urlparse

    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    initialize = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "pytest", "version": "1"},
            },
        }
    )

    def request(url: str, method: str, body: str | None, extra: dict) -> tuple[int, dict, bytes]:
        parts = urlparse(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            connection.request(method, parts.path, body=body, headers={**headers, **extra})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    with http_server(db) as url:
        status, response_headers, _ = request(url, "POST", initialize, {})
        assert status == 200
        session = {k.lower(): v for k, v in response_headers.items()}["mcp-session-id"]
        status, _, body = request(
            url,
            "DELETE",
            None,
            {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
        )
        assert (status, body) == (204, b"")
        status, _, _ = request(url, "POST", initialize, {"Host": "evil.example"})
        assert status == 403
