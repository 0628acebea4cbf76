// The actionability server on the official TypeScript MCP SDK, written the
// way its README writes a server: McpServer.registerTool with a zod (v4)
// input schema, so the SDK validates the arguments (and answers with its own
// messages) before a handler runs; a handler that fails throws an Error,
// which the SDK turns into a tool result with isError: true.
//
// The same tools as `fusion serve --example actionability`:
//   billing          one tool, `action` chooses list_invoices, get_invoice,
//                    create_invoice, pay_invoice, void_invoice,
//                    get_invoice_legacy (deprecated) or generate_report; the
//                    other fields are optional in the schema and the handler
//                    checks the ones each action needs
//   billing_health   no arguments
//   reminders        `action: "schedule"` with invoice_id, at, channel,
//                    callback_url?, note?
// The invoices live in memory: twelve seeded ones, fresh for every process.
//
// Unknown keys: the input schemas are z.strictObject (and so is a line item),
// so a misspelt field is refused ("Unrecognized key") rather than silently
// dropped as a plain shape would do.
//
// Usage (stdio, newline-delimited JSON-RPC; exits when stdin closes):
//   node server.mjs [--report-ms N] [--max-active N] [--rate-limit N/PERIOD]
//                   [--timeout-ms N] [--cart]
//   --report-ms N        how long generate_report takes, in ms (default 200)
//   --max-active N       billing calls running at once; more are refused
//   --rate-limit N/P     billing calls per period P (s, min or h); more are refused
//   --timeout-ms N       time limit of a billing call
//   --cart               serve only the cart tool (below) instead: the twin of
//                        the cart example, without its state machine
//
// actionability/run.sh installs it (scripts/npm-install) in target/actionability/ts.

import process from 'node:process';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

// ---------------------------------------------------------------- options

const USAGE =
  'usage: node server.mjs [--report-ms N] [--max-active N] [--rate-limit N/s|N/min|N/h] [--timeout-ms N] [--cart]';

function fail(message) {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function positiveInt(name, text) {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text) || Number(text) < 1) fail(`${name} must be a whole number of at least 1`);
  return Number(text);
}

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      'report-ms': { type: 'string', default: '200' },
      'max-active': { type: 'string' },
      'rate-limit': { type: 'string' },
      'timeout-ms': { type: 'string' },
      cart: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail(error.message);
}

const reportMs = positiveInt('--report-ms', flags['report-ms']);
const maxActive = positiveInt('--max-active', flags['max-active']);
const timeoutMs = positiveInt('--timeout-ms', flags['timeout-ms']);
let rateLimit;
if (flags['rate-limit'] !== undefined) {
  const m = /^([0-9]+)\/(s|min|h)$/.exec(flags['rate-limit']);
  if (!m || Number(m[1]) < 1) fail('--rate-limit must be N/s, N/min or N/h, e.g. 2/s');
  rateLimit = { max: Number(m[1]), windowMs: { s: 1000, min: 60_000, h: 3_600_000 }[m[2]] };
}

// ---------------------------------------------------------------- data

const STATUSES = ['draft', 'open', 'paid', 'void', 'overdue'];
const CURRENCIES = ['USD', 'EUR', 'GBP'];
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

// When the seeded invoices were created: one fixed time, as in the other
// stacks, so that the text a model reads differs between stacks only in what
// each stack says.
const SEEDED_AT = '2026-11-02T09:00:00Z';
const invoices = [];
for (const [email, amount, currency, status] of [
  ['ada@example.com', 120000, 'EUR', 'paid'],
  ['grace@example.com', 45050, 'USD', 'open'],
  ['linus@example.com', 9900, 'USD', 'draft'],
  ['margaret@example.com', 310000, 'GBP', 'overdue'],
  ['alan@example.com', 2500, 'EUR', 'void'],
  ['barbara@example.com', 78000, 'USD', 'open'],
  ['edsger@example.com', 15000, 'EUR', 'paid'],
  ['donald@example.com', 64000, 'USD', 'open'],
  ['frances@example.com', 5000, 'GBP', 'draft'],
  ['ken@example.com', 99999, 'USD', 'overdue'],
  ['radia@example.com', 18250, 'EUR', 'open'],
  ['tim@example.com', 30000, 'USD', 'paid'],
]) {
  invoices.push({
    id: `inv_${invoices.length + 1}`,
    customer_email: email,
    amount_cents: amount,
    currency,
    status,
    items: [{ description: 'Consulting', quantity: 1, unit_price_cents: amount }],
    due_date: null,
    created_at: SEEDED_AT,
  });
}

function findInvoice(id) {
  const invoice = invoices.find((i) => i.id === id);
  if (!invoice) throw new Error(`Invoice ${id} not found`);
  return invoice;
}

const seqOf = (invoice) => Number(invoice.id.slice('inv_'.length));

/** A tool result holding `value` as JSON text. */
const json = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

// ---------------------------------------------------------------- guards

let active = 0;
const recentCalls = [];

/** Runs a billing call under --rate-limit, --max-active and --timeout-ms. */
async function guarded(run) {
  if (rateLimit) {
    const t = Date.now();
    while (recentCalls.length && recentCalls[0] <= t - rateLimit.windowMs) recentCalls.shift();
    if (recentCalls.length >= rateLimit.max) throw new Error('Rate limit exceeded. Try again later.');
    recentCalls.push(t);
  }
  if (maxActive && active >= maxActive) throw new Error('Server busy, try again later');
  active++;
  let timer;
  try {
    if (!timeoutMs) return await run();
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('Operation timed out')), timeoutMs);
    });
    return await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
    active--;
  }
}

// ---------------------------------------------------------------- billing

const ACTIONS = [
  'list_invoices',
  'get_invoice',
  'create_invoice',
  'pay_invoice',
  'void_invoice',
  'get_invoice_legacy',
  'generate_report',
];

const REQUIRED = {
  list_invoices: [],
  get_invoice: ['id'],
  create_invoice: ['customer_email', 'amount_cents', 'currency', 'items'],
  pay_invoice: ['id'],
  void_invoice: ['id'],
  get_invoice_legacy: ['id'],
  generate_report: ['period'],
};

const invoiceId = z.string().regex(/^inv_[0-9]+$/);

const lineItem = z.strictObject({
  description: z.string().min(1).max(200).describe('What was sold.'),
  quantity: z.number().int().min(1).max(10000).describe('How many units.'),
  unit_price_cents: z.number().int().min(0).max(100_000_000_000).describe('The price of one unit, in cents.'),
});

const billingInput = z.strictObject({
  action: z.enum(ACTIONS).describe(`The action to run: one of ${ACTIONS.join(', ')}.`),
  status: z.enum(STATUSES).optional().describe('Only invoices in this state. Used by: list_invoices.'),
  limit: z.number().int().min(1).max(100).optional().describe('How many to return, 1 to 100 (default 20). Used by: list_invoices.'),
  cursor: z.string().optional().describe('`next_cursor` from the previous page. Used by: list_invoices.'),
  id: invoiceId.optional().describe('The invoice id, e.g. `inv_2`. Used by: get_invoice, pay_invoice, void_invoice, get_invoice_legacy.'),
  customer_email: z.email().optional().describe('Who pays. Used by: create_invoice.'),
  amount_cents: z.number().int().min(1).max(100_000_000_000).optional().describe('The total, in cents (1 to 100 000 000 000). Used by: create_invoice.'),
  currency: z.enum(CURRENCIES).optional().describe('The currency. Only invoices in this currency. Used by: create_invoice, generate_report.'),
  items: z.array(lineItem).min(1).max(100).optional().describe('At least one line. Used by: create_invoice.'),
  due_date: z.iso.date().optional().describe('When payment is due (`YYYY-MM-DD`). Used by: create_invoice.'),
  reason: z.string().max(500).optional().describe('Why it is voided (kept with the invoice). Used by: void_invoice.'),
  period: z.enum(['day', 'week', 'month']).optional().describe('The period to cover. Used by: generate_report.'),
});

const handlers = {
  async list_invoices({ status, limit = 20, cursor }) {
    let after = 0;
    if (cursor !== undefined) {
      const m = /^after_([0-9]+)$/.exec(cursor);
      if (!m) throw new Error(`Invalid cursor: ${cursor}`);
      after = Number(m[1]);
    }
    const matching = invoices.filter((i) => seqOf(i) > after && (!status || i.status === status));
    const page = matching.slice(0, limit);
    const result = { invoices: page };
    if (matching.length > limit) result.next_cursor = `after_${seqOf(page[page.length - 1])}`;
    return json(result);
  },

  async get_invoice({ id }) {
    return json(findInvoice(id));
  },

  async create_invoice({ customer_email, amount_cents, currency, items, due_date }) {
    const invoice = {
      id: `inv_${invoices.length + 1}`,
      customer_email,
      amount_cents,
      currency,
      status: 'open',
      items,
      due_date: due_date ?? null,
      created_at: now(),
    };
    invoices.push(invoice);
    return json(invoice);
  },

  async pay_invoice({ id }) {
    const invoice = findInvoice(id);
    if (invoice.status === 'paid') throw new Error(`Invoice ${id} is already paid`);
    if (invoice.status === 'void') throw new Error(`Invoice ${id} is void and cannot be paid`);
    invoice.status = 'paid';
    return json(invoice);
  },

  async void_invoice({ id, reason }) {
    const invoice = findInvoice(id);
    if (invoice.status === 'paid') throw new Error(`Invoice ${id} is paid and cannot be voided`);
    if (invoice.status !== 'void') {
      invoice.status = 'void';
      invoice.void_reason = reason ?? null;
    }
    const { void_reason, ...shown } = invoice;
    return json(shown);
  },

  async get_invoice_legacy({ id }) {
    const result = json(findInvoice(id));
    result.content.push({
      type: 'text',
      text: 'Warning: get_invoice_legacy is deprecated; use the get_invoice action instead.',
    });
    return result;
  },

  async generate_report({ period, currency }) {
    const totals = new Map();
    for (const i of invoices) {
      if (currency && i.currency !== currency) continue;
      const t = totals.get(i.currency) ?? {
        currency: i.currency,
        invoices: 0,
        billed_cents: 0,
        paid_cents: 0,
        outstanding_cents: 0,
      };
      t.invoices += 1;
      t.billed_cents += i.amount_cents;
      if (i.status === 'paid') t.paid_cents += i.amount_cents;
      if (i.status === 'open' || i.status === 'overdue') t.outstanding_cents += i.amount_cents;
      totals.set(i.currency, t);
    }
    await sleep(reportMs); // stands in for a slow report
    return json({ period, totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)) });
  },
};

const server = new McpServer({ name: 'actionability-ts', version: '1.0.0' });

if (flags.cart) registerCart(server);
else registerBilling(server);
await server.connect(new StdioServerTransport());

function registerBilling(server) {
  server.registerTool(
    'billing',
    {
      description: `Invoices: list, read, create, pay and void them.

Set "action" to one of:
- list_invoices: List invoices, oldest first, optionally of one status; pages with \`cursor\`.
- get_invoice: Read one invoice by id. (requires id)
- create_invoice: Create an open invoice. (requires customer_email, amount_cents, currency, items)
- pay_invoice: Mark an invoice paid. (requires id)
- void_invoice: Void (cancel) an invoice that is not paid. (requires id)
- get_invoice_legacy: DEPRECATED, use get_invoice. Read one invoice by id (old name). (requires id)
- generate_report: Totals per currency: billed, paid and outstanding. Takes a while. (requires period)`,
      inputSchema: billingInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    async (args) => {
      const missing = REQUIRED[args.action].filter((field) => args[field] === undefined);
      if (missing.length) throw new Error(`Missing required field(s) for ${args.action}: ${missing.join(', ')}`);
      return guarded(() => handlers[args.action](args));
    },
  );

  // ---------------------------------------------------------------- billing_health

  server.registerTool(
    'billing_health',
    {
      description: 'Check that the invoice store answers.',
      annotations: { readOnlyHint: true },
    },
    async () => json({ status: 'ok', invoices: invoices.length }),
  );

  // ---------------------------------------------------------------- reminders

  server.registerTool(
    'reminders',
    {
      description: `Reminders sent to an invoice's customer.

Set "action" to one of:
- schedule: Schedule a payment reminder for an unpaid invoice.`,
      inputSchema: z.strictObject({
        action: z.enum(['schedule']).describe('The action to run: schedule.'),
        invoice_id: invoiceId.describe('The unpaid invoice to remind the customer of (`inv_<n>`).'),
        at: z.iso.datetime({ offset: true }).describe('When to send it: an ISO 8601 date-time, e.g. 2026-12-24T09:00:00Z.'),
        channel: z.enum(['email', 'sms']).describe('How to send it.'),
        callback_url: z.url().optional().describe('An https URL called when the reminder is sent.'),
        note: z.string().min(3).max(200).optional().describe('A line added to the reminder (3 to 200 characters).'),
      }),
    },
    async ({ invoice_id, at, channel }) => {
      const invoice = findInvoice(invoice_id);
      if (invoice.status === 'paid' || invoice.status === 'void') {
        throw new Error(`Invoice ${invoice_id} is ${invoice.status}: nothing is owed`);
      }
      return json({ invoice_id, at, channel, status: 'scheduled' });
    },
  );
}

// ---------------------------------------------------------------- cart (--cart)

// The cart example's tool (examples/cart) as a plain server writes it: every
// action listed and callable in any order; an action that cannot run now
// fails with an Error saying why. The contents are per process.
function registerCart(server) {
  const items = [];
  let order = null; // { id, paid }
  const cart = () => ({ content: [{ type: 'text', text: JSON.stringify({ items }) }] });
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  server.registerTool(
    'cart',
    {
      description: `A shopping cart: add items, check out, pay.

Set "action" to one of:
- add_item: Add an item to the cart. (requires item)
- view: Show the cart.
- checkout: Check the cart out as an order.
- pay: Pay an order. (requires order)`,
      inputSchema: z.strictObject({
        action: z.enum(['add_item', 'view', 'checkout', 'pay']).describe('The action to run.'),
        item: z.string().optional().describe("The item's name, e.g. `tea`."),
        order: z.string().optional().describe('The order to pay, as `cart.checkout` returned it.'),
      }),
    },
    async ({ action, item, order: orderId }) => {
      if (action === 'add_item') {
        if (!item || !item.trim()) throw new Error('Missing required field for add_item: item');
        if (order) throw new Error('The cart is checked out: no item can be added');
        items.push(item);
        return cart();
      }
      if (action === 'view') return cart();
      if (action === 'checkout') {
        if (!items.length) throw new Error('The cart is empty: nothing to check out');
        if (order) throw new Error(`The cart is already checked out as order ${order.id}`);
        order = { id: 'ord_1', paid: false };
        const count = items.length === 1 ? '1 item' : `${items.length} items`;
        return text(`Order ord_1 holds ${count}. Pay it with cart.pay, order "ord_1".`);
      }
      if (!orderId) throw new Error('Missing required field for pay: order');
      if (!order || order.id !== orderId) throw new Error(`No order ${orderId}: check the cart out first`);
      if (order.paid) throw new Error(`Order ${orderId} is already paid`);
      order.paid = true;
      return text(`Order ${orderId} is paid.`);
    },
  );
}
