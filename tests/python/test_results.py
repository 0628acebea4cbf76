"""Results written for the model (`docs/wire-contract.md` §9.3) as the
official MCP Python SDK client receives them from `fusion serve` (the
billing example), over stdio and Streamable HTTP: the stale-reads notice
first in `pay_invoice`'s result, and the freshness of the read actions in
the tool's `_meta` and description.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import servers
from servers import TRANSPORTS, texts

pytestmark = pytest.mark.anyio

STALE_READS = (
    '<stale_reads cause="billing.pay_invoice" domains="invoices.*">'
    "This call changed invoices.*: results read before it are stale. "
    "Repeat your earlier calls of billing.list_invoices, billing.get_invoice (with the same arguments) before relying on what they returned."
    "</stale_reads>"
)
FRESH = "Results stay fresh for 30 seconds; read again after that."


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "billing.db"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_pay_invoice_names_the_stale_reads_first(transport: str, db: Path) -> None:
    async with servers.open_session(transport, ["--db", str(db)]) as session:
        paid = await session.call_tool("billing", {"action": "pay_invoice", "id": "inv_2"})
        again = await session.call_tool("billing", {"action": "pay_invoice", "id": "inv_2"})
        read = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
    assert paid.is_error is False
    first, data = texts(paid)
    assert first == STALE_READS
    assert json.loads(data)["status"] == "paid"
    assert paid.structured_content == json.loads(data)
    # A refused mutation changed nothing: its envelope alone.
    assert again.is_error is True
    assert len(texts(again)) == 1
    assert texts(again)[0].startswith('<tool_error code="CONFLICT"')
    # A read carries no notice: the data, then its presenter's guidance
    # (wire contract §9.1).
    assert len(texts(read)) == 2
    assert json.loads(texts(read)[0])["status"] == "paid"
    assert texts(read)[1] == (
        "<domain_rules>\n- Amounts are in cents.\n"
        "- A paid or void invoice needs nothing more: nothing is owed on it.\n</domain_rules>"
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_reads_freshness_is_in_meta_and_description(transport: str, db: Path) -> None:
    async with servers.open_session(transport, ["--db", str(db)]) as session:
        tools = await session.list_tools()
    billing = next(tool for tool in tools.tools if tool.name == "billing")
    actions = {entry["name"]: entry for entry in billing.meta["mcp-fusion/actions"]}
    assert actions["get_invoice"]["description"] == f"Read one invoice by id. {FRESH}"
    assert actions["get_invoice"]["results"] == {
        "freshness": {"maxAgeSeconds": 30},
        "reads": ["invoices"],
    }
    assert actions["list_invoices"]["results"] == {
        "freshness": {"maxAgeSeconds": 30},
        "reads": ["invoices"],
    }
    assert actions["pay_invoice"]["results"] == {"invalidates": ["invoices.*"]}
    assert f"- get_invoice: Read one invoice by id. {FRESH} (requires id)" in billing.description
