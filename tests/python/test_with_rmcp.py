"""`examples/with-rmcp` (a plain rmcp `#[tool_router]` server that takes
mcp-fusion's `ToolError` and `router_contract::Parameters`) driven by the official
MCP Python SDK client over stdio: the exact text the model reads, `isError`
and `_meta["mcp-fusion/error"]`, and the same validation answer as
`fusion serve --example bench`, the same tool on mcp-fusion's own server.

The binary is `$WITH_RMCP_BIN` (default: `with-rmcp` beside `$FUSION_BIN`,
i.e. `target/debug/with-rmcp`; `cargo build -p with-rmcp` builds it).
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

import servers
from servers import FUSION_BIN, texts

WITH_RMCP_BIN = os.environ.get("WITH_RMCP_BIN", str(Path(FUSION_BIN).parent / "with-rmcp"))
META_KEY = "mcp-fusion/error"
# The <recovery> line of every <validation_error> (wire contract §4); the
# instruction of what to fix comes first, on the line before the envelope.
VALIDATION_RECOVERY = "Do not explain the error."
TRANSPORTS = ["stdio", "stdio-2026"]

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def with_rmcp_binary() -> None:
    if not Path(WITH_RMCP_BIN).is_file():
        pytest.fail(f"{WITH_RMCP_BIN} does not exist: run `cargo build -p with-rmcp` or set WITH_RMCP_BIN")


@asynccontextmanager
async def with_rmcp(transport: str) -> AsyncIterator[ClientSession]:
    """A ready client session with a fresh `with-rmcp` over stdio."""
    params = StdioServerParameters(command=WITH_RMCP_BIN, args=[], env={"RUST_LOG": "warn"})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await servers.start(session, transport)
                yield session


def envelope_meta(result) -> dict | None:
    return (result.meta or {}).get(META_KEY)


INVALID = {"id": "nope", "email": "not-an-email", "amount": 0}
FIELDS = [
    ("id", "Does not match the pattern. You sent: 'nope'. Expected a string matching the pattern '^inv_[0-9]+$'."),
    (
        "email",
        "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
    ),
    ("amount", "Too small. You sent: 0. Expected an integer >= 1."),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_invalid_arguments_are_the_phrased_validation_error(transport: str) -> None:
    async with with_rmcp(transport) as session:
        result = await session.call_tool("get_invoice", INVALID)
    lines = "".join(f'  <field name="{path}">{message}</field>\n' for path, message in FIELDS)
    assert texts(result) == [
        'Fix the fields below and call get_invoice again.\n<validation_error action="get_invoice">\n'
        f"{lines}"
        f"  <recovery>{VALIDATION_RECOVERY}</recovery>\n"
        "</validation_error>"
    ]
    assert result.is_error is True
    assert result.structured_content is None
    assert envelope_meta(result) == {
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": "The arguments for get_invoice are not valid (3 problems).",
        "recovery": f"Fix the fields below and call get_invoice again. {VALIDATION_RECOVERY}",
        "action": "get_invoice",
        "fields": [{"path": path, "message": message} for path, message in FIELDS],
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_validation_error_is_the_one_fusion_serve_answers(transport: str) -> None:
    async with with_rmcp(transport) as session:
        ours = await session.call_tool("get_invoice", {**INVALID, "amout": 5})
    async with servers.open_session(transport, ["--example", "bench"]) as session:
        theirs = await session.call_tool("get_invoice", {**INVALID, "amout": 5})
    assert texts(ours) == texts(theirs)
    assert 'Unrecognized field "amout"' in texts(ours)[0]
    assert ours.is_error is theirs.is_error is True
    assert envelope_meta(ours) == envelope_meta(theirs)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_missing_invoice_is_not_found_naming_the_list_tool(transport: str) -> None:
    async with with_rmcp(transport) as session:
        result = await session.call_tool("get_invoice", {"id": "inv_9", "email": "a@example.com", "amount": 5})
        listed = await session.call_tool("list_invoices", {})
    assert texts(result) == [
        '<tool_error code="NOT_FOUND" severity="error">\n'
        "  <message>No invoice with that ID</message>\n"
        "  <recovery>List invoices first, then retry with a real ID</recovery>\n"
        "  <available_actions>\n"
        "    <action>list_invoices</action>\n"
        "  </available_actions>\n"
        "  <details>\n"
        '    <detail key="requestedId">inv_9</detail>\n'
        "  </details>\n"
        "</tool_error>"
    ]
    assert result.is_error is True
    assert result.structured_content is None
    assert envelope_meta(result) == {
        "code": "NOT_FOUND",
        "severity": "error",
        "message": "No invoice with that ID",
        "recovery": "List invoices first, then retry with a real ID",
        "available_actions": ["list_invoices"],
        "details": {"requestedId": "inv_9"},
    }
    assert texts(listed) == ['["inv_1","inv_2"]']
    assert listed.is_error is False


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_known_invoice_is_a_plain_success(transport: str) -> None:
    async with with_rmcp(transport) as session:
        result = await session.call_tool("get_invoice", {"id": "inv_2", "email": "a@example.com", "amount": 5})
        tools = await session.list_tools()
    assert texts(result) == ['{"id":"inv_2","status":"paid","amount":4500}']
    assert result.is_error is False
    assert envelope_meta(result) is None
    schema = next(tool for tool in tools.tools if tool.name == "get_invoice").input_schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["id", "email", "amount"]


RATE_LIMITED = (
    "Call list_invoices again with the same arguments: this refusal is about timing, not about them.\n"
    '<tool_error code="RATE_LIMITED" severity="error">\n'
    "  <message>Too many calls to list_invoices: the limit is 5 per second.</message>\n"
    "  <recovery>Wait 1 second, then call list_invoices again.</recovery>\n"
    "  <details>\n"
    '    <detail key="limit">5 per second</detail>\n'
    "  </details>\n"
    "  <retry_after>1 second</retry_after>\n"
    "</tool_error>"
)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_list_invoices_runs_behind_mcp_fusions_rate_limit(transport: str) -> None:
    # Ten calls at once against 5 per second (GCRA: a burst of 5, then one
    # every 200 ms): the burst passes, the rest is refused before the tool
    # runs, unless 200 ms passed meanwhile and let one more through.
    async with with_rmcp(transport) as session:
        results = await gather([session.call_tool("list_invoices", {}) for _ in range(10)])
    passed = [r for r in results if not r.is_error]
    refused = [r for r in results if r.is_error]
    assert 5 <= len(passed) <= 6, [texts(r) for r in results]
    assert all(texts(r) == ['["inv_1","inv_2"]'] for r in passed)
    assert all(texts(r) == [RATE_LIMITED] for r in refused)
    meta = envelope_meta(refused[0])
    assert (meta["code"], meta["retry_after_seconds"], meta["details"]) == (
        "RATE_LIMITED",
        1,
        {"limit": "5 per second"},
    )


async def gather(calls: list) -> list:
    """The results of `calls` (awaitables), run at once, in their order."""
    results: list = [None] * len(calls)

    async def one(index: int, call) -> None:
        results[index] = await call

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(one, index, call)
    return results
