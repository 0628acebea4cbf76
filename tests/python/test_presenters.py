"""Presenters (wire contract §9.1) as a real client reads them: `fusion
serve` (the billing example) driven by the official MCP Python SDK client,
over stdio and over Streamable HTTP. The card number seeded on every
invoice (`4111-CANARY-…`) and the internal note (`INTERNAL-ONLY: …`) never
reach the client; an unpaid invoice comes with the call that pays it; a
list longer than 10 is cut with a summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import servers
from servers import TRANSPORTS, texts

pytestmark = pytest.mark.anyio

SEED = [
    ("ada@example.com", 120000, "EUR", "paid"),
    ("grace@example.com", 45050, "USD", "open"),
    ("linus@example.com", 9900, "USD", "draft"),
    ("margaret@example.com", 310000, "GBP", "overdue"),
    ("alan@example.com", 2500, "EUR", "void"),
    ("barbara@example.com", 78000, "USD", "open"),
    ("edsger@example.com", 15000, "EUR", "paid"),
    ("donald@example.com", 64000, "USD", "open"),
    ("frances@example.com", 5000, "GBP", "draft"),
    ("ken@example.com", 99999, "USD", "overdue"),
    ("radia@example.com", 18250, "EUR", "open"),
    ("tim@example.com", 30000, "USD", "paid"),
]


def shown(n: int) -> dict:
    """Seeded invoice `inv_n` as the model reads it."""
    email, amount, currency, status = SEED[n - 1]
    return {
        "id": f"inv_{n}",
        "customer_email": email,
        "amount_cents": amount,
        "currency": currency,
        "status": status,
        "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": amount}],
        "due_date": None,
        "created_at": "2026-11-02T09:00:00Z",
        "card_number": "[redacted]",
    }


def never_leaks(result) -> None:
    everything = result.model_dump_json(by_alias=True)
    assert "CANARY" not in everything
    assert "INTERNAL-ONLY" not in everything
    assert "internal_note" not in everything


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "billing.db"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_unpaid_invoice_is_shown_redacted_with_the_call_that_pays_it(transport: str, db: Path) -> None:
    async with servers.open_session(transport, ["--db", str(db)]) as session:
        result = await session.call_tool("billing", {"action": "get_invoice", "id": "inv_2"})
    assert result.is_error is False
    assert result.structured_content == shown(2)
    assert texts(result) == [
        json.dumps(shown(2), separators=(",", ":")),
        "<domain_rules>\n"
        "- Amounts are in cents.\n"
        "</domain_rules>\n"
        "<next_actions>\n"
        '- Call billing with {"action":"pay_invoice","id":"inv_2"}: inv_2 is unpaid.\n'
        "</next_actions>",
    ]
    never_leaks(result)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_list_over_the_limit_is_cut_with_a_summary(transport: str, db: Path) -> None:
    async with servers.open_session(transport, ["--db", str(db)]) as session:
        result = await session.call_tool("billing", {"action": "list_invoices"})
    assert result.is_error is False
    # The cursor names the last invoice shown: the next page starts after it.
    page = {"invoices": [shown(n) for n in range(1, 11)], "next_cursor": "after_10"}
    assert result.structured_content == page
    assert texts(result) == [
        json.dumps(page, separators=(",", ":")),
        '<result_limit shown="10" total="12">Showing 10 of 12 results. '
        "To see the others, call billing.list_invoices again narrowed by status, limit.</result_limit>\n"
        "<domain_rules>\n"
        "- Amounts are in cents.\n"
        "- A paid or void invoice needs nothing more: nothing is owed on it.\n"
        "</domain_rules>",  # the items of a list suggest nothing (wire contract §9.1)
    ]
    never_leaks(result)


async def test_a_page_within_the_limit_keeps_its_cursor(db: Path) -> None:
    async with servers.open_session("stdio", ["--db", str(db)]) as session:
        result = await session.call_tool("billing", {"action": "list_invoices", "limit": 2})
    assert result.structured_content == {"invoices": [shown(1), shown(2)], "next_cursor": "after_2"}
    assert "<result_limit" not in texts(result)[1]
    never_leaks(result)
