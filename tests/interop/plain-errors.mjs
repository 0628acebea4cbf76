// A foreign MCP server built on the official TypeScript SDK's low-level
// `Server`. Its tool failures are plain text with `isError: true`; it knows
// nothing of mcp-fusion's envelopes (except `fail_envelope`, which writes one
// by hand, without `_meta`, as another framework could).
//
// Usage:
//   node plain-errors.mjs           serve on stdio
//   node plain-errors.mjs --http    serve Streamable HTTP (stateless) on
//                                   127.0.0.1, on a free port; prints
//                                   `LISTENING http://127.0.0.1:PORT/mcp`
//                                   on stdout once ready

import http from 'node:http';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes the message back.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    },
  },
  {
    name: 'fail_plain',
    description: 'Always fails with a plain-text error.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'fail_multi',
    description: 'Fails with two text blocks around an image block.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'fail_empty',
    description: 'Fails with no content at all.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'fail_envelope',
    description: 'Fails with a hand-written <tool_error> envelope and no _meta.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'warn',
    description: 'Succeeds, with a warning envelope after the output.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'flaky',
    description: 'Sheds load on its first call (SERVER_BUSY, retry after 1 second), then succeeds.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'group',
    description: 'A grouped tool: returns the arguments it received, as JSON.',
    inputSchema: {
      type: 'object',
      properties: { action: { type: 'string', enum: ['list', 'show'] } },
      required: ['action'],
    },
  },
  {
    name: 'group.special',
    description: 'A tool whose own name has a dot.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'crash',
    description: 'Throws inside the handler (the SDK turns it into a JSON-RPC error).',
    inputSchema: { type: 'object', properties: {} },
  },
];

const ENVELOPE = [
  '<tool_error code="RATE_LIMITED" severity="error">',
  '  <message>Too many exports &amp; imports this minute</message>',
  '  <recovery>Wait, then call export again</recovery>',
  '  <available_actions>',
  '    <action>reports.export</action>',
  '    <action>reports.status</action>',
  '  </available_actions>',
  '  <details>',
  '    <detail key="limit">10</detail>',
  '  </details>',
  '  <retry_after>7 seconds</retry_after>',
  '</tool_error>',
].join('\n');

const BUSY = [
  '<tool_error code="SERVER_BUSY" severity="error">',
  '  <message>All 2 slots are busy and the queue is full</message>',
  '  <retry_after>1 second</retry_after>',
  '</tool_error>',
].join('\n');

let flakyCalls = 0;

const WARNING = [
  '<tool_error code="DEPRECATED" severity="warning">',
  '  <message>warn is deprecated</message>',
  '  <recovery>Call echo instead</recovery>',
  '</tool_error>',
].join('\n');

function text(t) {
  return { type: 'text', text: t };
}

async function call(name, args) {
  switch (name) {
    case 'echo':
      if (typeof args?.message !== 'string') {
        return { isError: true, content: [text('message must be a string')] };
      }
      return { content: [text(`Echo: ${args.message}`)] };
    case 'fail_plain':
      return {
        isError: true,
        content: [text('Database connection refused: db.internal:5432')],
      };
    case 'fail_multi':
      return {
        isError: true,
        content: [
          text('first line of the failure'),
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          text('second line of the failure'),
        ],
      };
    case 'fail_empty':
      return { isError: true, content: [] };
    case 'fail_envelope':
      return { isError: true, content: [text(ENVELOPE)] };
    case 'warn':
      return { content: [text('{"done":true}'), text(WARNING)] };
    case 'flaky':
      flakyCalls += 1;
      if (flakyCalls === 1) {
        return { isError: true, content: [text(BUSY)] };
      }
      return { content: [text(`served on call ${flakyCalls}`)] };
    case 'group':
      return { content: [text(JSON.stringify(args))] };
    case 'group.special':
      return { content: [text('special tool')] };
    case 'crash':
      throw new Error('handler exploded');
    default:
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
}

function makeServer() {
  const server = new Server(
    { name: 'plain-errors', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    call(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

if (process.argv.includes('--http')) {
  const httpServer = http.createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    // Stateless: one server and transport per request.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  httpServer.listen(0, '127.0.0.1', () => {
    const { port } = httpServer.address();
    process.stdout.write(`LISTENING http://127.0.0.1:${port}/mcp\n`);
  });
  // Stop with the test that started us.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
} else {
  await makeServer().connect(new StdioServerTransport());
}
