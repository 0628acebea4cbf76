"""The actionability server on FastMCP, written the way its documentation
writes tools: plain functions with type hints (``Annotated``, ``Field``,
``Literal``, ``EmailStr``, ``AnyUrl``, ``datetime``), so pydantic validates the
arguments (and answers with its own messages) before a tool runs; a tool that
fails raises ``ToolError``, which FastMCP turns into a tool result with
isError true.

The same tools as ``fusion serve --example actionability``:

    billing          one tool; ``action`` chooses list_invoices, get_invoice,
                     create_invoice, pay_invoice, void_invoice,
                     get_invoice_legacy (deprecated) or generate_report; the
                     other fields are optional and the tool checks the ones
                     each action needs
    billing_health   no arguments
    reminders        ``action="schedule"`` with invoice_id, at, channel,
                     callback_url?, note?

The invoices live in memory: twelve seeded ones, fresh for every process.
Unknown argument names are refused by FastMCP itself; a line item is a model
with ``extra="forbid"``, so a misspelt key inside one is refused too.

Usage (stdio, newline-delimited JSON-RPC; exits when stdin closes):

    python server.py [--report-ms N] [--max-active N] [--rate-limit N/PERIOD]
                     [--timeout-ms N] [--cart]

    --report-ms N      how long generate_report takes, in ms (default 200)
    --max-active N     billing calls running at once; more are refused
    --rate-limit N/P   billing calls per period P (s, min or h); more are refused
    --timeout-ms N     time limit of a billing call
    --cart             serve only the cart tool instead: the twin of the cart
                       example (examples/cart), without its state machine

actionability/run.sh installs it (requirements.txt) in a scratch venv under
target/actionability/.
"""

import argparse
import asyncio
import json
import re
import time
from collections import deque
from datetime import date, datetime, timezone
from typing import Annotated, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp.types import TextContent
from pydantic import AnyUrl, BaseModel, ConfigDict, EmailStr, Field

Status = Literal["draft", "open", "paid", "void", "overdue"]
Currency = Literal["USD", "EUR", "GBP"]
Action = Literal[
    "list_invoices",
    "get_invoice",
    "create_invoice",
    "pay_invoice",
    "void_invoice",
    "get_invoice_legacy",
    "generate_report",
]
InvoiceId = Annotated[str, Field(pattern=r"^inv_[0-9]+$")]


class LineItem(BaseModel):
    """One line of an invoice."""

    model_config = ConfigDict(extra="forbid")

    description: Annotated[str, Field(min_length=1, max_length=200, description="What was sold.")]
    quantity: Annotated[int, Field(ge=1, le=10_000, description="How many units.")]
    unit_price_cents: Annotated[
        int, Field(ge=0, le=100_000_000_000, description="The price of one unit, in cents.")
    ]


# ------------------------------------------------------------------- options

def rate_limit(text: str) -> tuple[int, float]:
    m = re.fullmatch(r"([0-9]+)/(s|min|h)", text)
    if not m or int(m.group(1)) < 1:
        raise argparse.ArgumentTypeError("write N/s, N/min or N/h, e.g. 2/s")
    return int(m.group(1)), {"s": 1.0, "min": 60.0, "h": 3600.0}[m.group(2)]


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("must be a whole number of at least 1")
    return int(text)


parser = argparse.ArgumentParser(description="The actionability tools on FastMCP (stdio).")
parser.add_argument("--report-ms", type=positive_int, default=200,
                    help="how long generate_report takes, in ms (default 200)")
parser.add_argument("--max-active", type=positive_int,
                    help="billing calls running at once; more are refused")
parser.add_argument("--rate-limit", type=rate_limit, metavar="N/PERIOD",
                    help="billing calls per period (s, min or h); more are refused")
parser.add_argument("--timeout-ms", type=positive_int, help="time limit of a billing call")
parser.add_argument("--cart", action="store_true", help="serve only the cart tool (the cart example's twin)")
args = parser.parse_args()

# ------------------------------------------------------------------- data


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# When the seeded invoices were created: one fixed time, as in the other
# stacks, so that the text a model reads differs between stacks only in what
# each stack says.
SEEDED_AT = "2026-11-02T09:00:00Z"

invoices: list[dict] = []
for email, amount, currency, status in [
    ("ada@example.com", 120_000, "EUR", "paid"),
    ("grace@example.com", 45_050, "USD", "open"),
    ("linus@example.com", 9_900, "USD", "draft"),
    ("margaret@example.com", 310_000, "GBP", "overdue"),
    ("alan@example.com", 2_500, "EUR", "void"),
    ("barbara@example.com", 78_000, "USD", "open"),
    ("edsger@example.com", 15_000, "EUR", "paid"),
    ("donald@example.com", 64_000, "USD", "open"),
    ("frances@example.com", 5_000, "GBP", "draft"),
    ("ken@example.com", 99_999, "USD", "overdue"),
    ("radia@example.com", 18_250, "EUR", "open"),
    ("tim@example.com", 30_000, "USD", "paid"),
]:
    invoices.append({
        "id": f"inv_{len(invoices) + 1}",
        "customer_email": email,
        "amount_cents": amount,
        "currency": currency,
        "status": status,
        "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": amount}],
        "due_date": None,
        "created_at": SEEDED_AT,
    })
void_reasons: dict[str, str | None] = {}


def find_invoice(invoice_id: str) -> dict:
    for invoice in invoices:
        if invoice["id"] == invoice_id:
            return invoice
    raise ToolError(f"Invoice {invoice_id} not found")


def seq_of(invoice: dict) -> int:
    return int(invoice["id"].removeprefix("inv_"))


# ------------------------------------------------------------------- guards

active = 0
recent_calls: deque[float] = deque()


def check_rate_limit() -> None:
    if args.rate_limit is None:
        return
    limit, window = args.rate_limit
    t = time.monotonic()
    while recent_calls and recent_calls[0] <= t - window:
        recent_calls.popleft()
    if len(recent_calls) >= limit:
        raise ToolError("Rate limit exceeded. Try again later.")
    recent_calls.append(t)


# ------------------------------------------------------------------- billing

mcp = FastMCP("actionability-fastmcp")

REQUIRED: dict[str, list[str]] = {
    "list_invoices": [],
    "get_invoice": ["id"],
    "create_invoice": ["customer_email", "amount_cents", "currency", "items"],
    "pay_invoice": ["id"],
    "void_invoice": ["id"],
    "get_invoice_legacy": ["id"],
    "generate_report": ["period"],
}


async def run_action(action: str, a: dict) -> dict | ToolResult:
    if action == "list_invoices":
        after = 0
        if a["cursor"] is not None:
            m = re.fullmatch(r"after_([0-9]+)", a["cursor"])
            if not m:
                raise ToolError(f"Invalid cursor: {a['cursor']}")
            after = int(m.group(1))
        limit = a["limit"] or 20
        matching = [i for i in invoices
                    if seq_of(i) > after and (a["status"] is None or i["status"] == a["status"])]
        page = {"invoices": matching[:limit]}
        if len(matching) > limit:
            page["next_cursor"] = f"after_{seq_of(matching[limit - 1])}"
        return page

    if action == "get_invoice":
        return find_invoice(a["id"])

    if action == "get_invoice_legacy":
        invoice = find_invoice(a["id"])
        return ToolResult(
            content=[
                TextContent(type="text", text=json.dumps(invoice)),
                TextContent(type="text", text="Warning: get_invoice_legacy is deprecated; "
                                               "use the get_invoice action instead."),
            ],
            structured_content=invoice,
        )

    if action == "create_invoice":
        invoice = {
            "id": f"inv_{len(invoices) + 1}",
            "customer_email": a["customer_email"],
            "amount_cents": a["amount_cents"],
            "currency": a["currency"],
            "status": "open",
            "items": [item.model_dump() for item in a["items"]],
            "due_date": a["due_date"].isoformat() if a["due_date"] else None,
            "created_at": now(),
        }
        invoices.append(invoice)
        return invoice

    if action == "pay_invoice":
        invoice = find_invoice(a["id"])
        if invoice["status"] == "paid":
            raise ToolError(f"Invoice {a['id']} is already paid")
        if invoice["status"] == "void":
            raise ToolError(f"Invoice {a['id']} is void and cannot be paid")
        invoice["status"] = "paid"
        return invoice

    if action == "void_invoice":
        invoice = find_invoice(a["id"])
        if invoice["status"] == "paid":
            raise ToolError(f"Invoice {a['id']} is paid and cannot be voided")
        if invoice["status"] != "void":
            invoice["status"] = "void"
            void_reasons[invoice["id"]] = a["reason"]
        return invoice

    # generate_report
    totals: dict[str, dict] = {}
    for i in invoices:
        if a["currency"] is not None and i["currency"] != a["currency"]:
            continue
        t = totals.setdefault(i["currency"], {
            "currency": i["currency"], "invoices": 0, "billed_cents": 0,
            "paid_cents": 0, "outstanding_cents": 0,
        })
        t["invoices"] += 1
        t["billed_cents"] += i["amount_cents"]
        if i["status"] == "paid":
            t["paid_cents"] += i["amount_cents"]
        elif i["status"] in ("open", "overdue"):
            t["outstanding_cents"] += i["amount_cents"]
    await asyncio.sleep(args.report_ms / 1000)  # stands in for a slow report
    return {"period": a["period"], "totals": [totals[c] for c in sorted(totals)]}


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False})
async def billing(
    action: Annotated[Action, Field(description="The action to run.")],
    status: Annotated[Status | None, Field(description="Only invoices in this state. Used by: list_invoices.")] = None,
    limit: Annotated[int | None, Field(ge=1, le=100, description="How many to return, 1 to 100 (default 20). Used by: list_invoices.")] = None,
    cursor: Annotated[str | None, Field(description="`next_cursor` from the previous page. Used by: list_invoices.")] = None,
    id: Annotated[InvoiceId | None, Field(description="The invoice id, e.g. `inv_2`. Used by: get_invoice, pay_invoice, void_invoice, get_invoice_legacy.")] = None,
    customer_email: Annotated[EmailStr | None, Field(description="Who pays. Used by: create_invoice.")] = None,
    amount_cents: Annotated[int | None, Field(ge=1, le=100_000_000_000, description="The total, in cents (1 to 100 000 000 000). Used by: create_invoice.")] = None,
    currency: Annotated[Currency | None, Field(description="The currency. Only invoices in this currency. Used by: create_invoice, generate_report.")] = None,
    items: Annotated[list[LineItem] | None, Field(min_length=1, max_length=100, description="At least one line. Used by: create_invoice.")] = None,
    due_date: Annotated[date | None, Field(description="When payment is due (YYYY-MM-DD). Used by: create_invoice.")] = None,
    reason: Annotated[str | None, Field(max_length=500, description="Why it is voided (kept with the invoice). Used by: void_invoice.")] = None,
    period: Annotated[Literal["day", "week", "month"] | None, Field(description="The period to cover. Used by: generate_report.")] = None,
) -> dict | ToolResult:
    """Invoices: list, read, create, pay and void them.

    Set "action" to one of:
    - list_invoices: List invoices, oldest first, optionally of one status; pages with `cursor`.
    - get_invoice: Read one invoice by id. (requires id)
    - create_invoice: Create an open invoice. (requires customer_email, amount_cents, currency, items)
    - pay_invoice: Mark an invoice paid. (requires id)
    - void_invoice: Void (cancel) an invoice that is not paid. (requires id)
    - get_invoice_legacy: DEPRECATED, use get_invoice. Read one invoice by id (old name). (requires id)
    - generate_report: Totals per currency: billed, paid and outstanding. Takes a while. (requires period)
    """
    fields = {
        "status": status, "limit": limit, "cursor": cursor, "id": id,
        "customer_email": customer_email, "amount_cents": amount_cents,
        "currency": currency, "items": items, "due_date": due_date,
        "reason": reason, "period": period,
    }
    missing = [name for name in REQUIRED[action] if fields[name] is None]
    if missing:
        raise ToolError(f"Missing required field(s) for {action}: {', '.join(missing)}")

    global active
    check_rate_limit()
    if args.max_active is not None and active >= args.max_active:
        raise ToolError("Server busy, try again later")
    active += 1
    try:
        if args.timeout_ms is None:
            return await run_action(action, fields)
        return await asyncio.wait_for(run_action(action, fields), args.timeout_ms / 1000)
    except asyncio.TimeoutError:
        raise ToolError("Operation timed out") from None
    finally:
        active -= 1


@mcp.tool(annotations={"readOnlyHint": True})
def billing_health() -> dict:
    """Check that the invoice store answers."""
    return {"status": "ok", "invoices": len(invoices)}


# ------------------------------------------------------------------- reminders

@mcp.tool
def reminders(
    action: Annotated[Literal["schedule"], Field(description="The action to run: schedule.")],
    invoice_id: Annotated[InvoiceId, Field(description="The unpaid invoice to remind the customer of (`inv_<n>`).")],
    at: Annotated[datetime, Field(description="When to send it: an ISO 8601 date-time, e.g. 2026-12-24T09:00:00Z.")],
    channel: Annotated[Literal["email", "sms"], Field(description="How to send it.")],
    callback_url: Annotated[AnyUrl | None, Field(description="An https URL called when the reminder is sent.")] = None,
    note: Annotated[str | None, Field(min_length=3, max_length=200, description="A line added to the reminder (3 to 200 characters).")] = None,
) -> dict:
    """Reminders sent to an invoice's customer.

    Set "action" to one of:
    - schedule: Schedule a payment reminder for an unpaid invoice.
    """
    invoice = find_invoice(invoice_id)
    if invoice["status"] in ("paid", "void"):
        raise ToolError(f"Invoice {invoice_id} is {invoice['status']}: nothing is owed")
    return {"invoice_id": invoice_id, "at": at.isoformat(), "channel": channel, "status": "scheduled"}


# ------------------------------------------------------------------- cart (--cart)

# The cart example's tool (examples/cart) as a plain server writes it: every
# action listed and callable in any order; an action that cannot run now
# raises ToolError saying why. The contents are per process.
cart_mcp = FastMCP("actionability-fastmcp")
cart_items: list[str] = []
cart_order: dict | None = None


@cart_mcp.tool
def cart(
    action: Annotated[Literal["add_item", "view", "checkout", "pay"], Field(description="The action to run.")],
    item: Annotated[str | None, Field(description="The item's name, e.g. `tea`.")] = None,
    order: Annotated[str | None, Field(description="The order to pay, as `cart.checkout` returned it.")] = None,
) -> dict | str:
    """A shopping cart: add items, check out, pay.

    Set "action" to one of:
    - add_item: Add an item to the cart. (requires item)
    - view: Show the cart.
    - checkout: Check the cart out as an order.
    - pay: Pay an order. (requires order)
    """
    global cart_order
    if action == "add_item":
        if not item or not item.strip():
            raise ToolError("Missing required field for add_item: item")
        if cart_order is not None:
            raise ToolError("The cart is checked out: no item can be added")
        cart_items.append(item)
        return {"items": cart_items}
    if action == "view":
        return {"items": cart_items}
    if action == "checkout":
        if not cart_items:
            raise ToolError("The cart is empty: nothing to check out")
        if cart_order is not None:
            raise ToolError(f"The cart is already checked out as order {cart_order['id']}")
        cart_order = {"id": "ord_1", "paid": False}
        count = "1 item" if len(cart_items) == 1 else f"{len(cart_items)} items"
        return f'Order ord_1 holds {count}. Pay it with cart.pay, order "ord_1".'
    if not order:
        raise ToolError("Missing required field for pay: order")
    if cart_order is None or cart_order["id"] != order:
        raise ToolError(f"No order {order}: check the cart out first")
    if cart_order["paid"]:
        raise ToolError(f"Order {order} is already paid")
    cart_order["paid"] = True
    return f"Order {order} is paid."


if __name__ == "__main__":
    (cart_mcp if args.cart else mcp).run(show_banner=False)
