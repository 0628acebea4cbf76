// The bench tool on the official TypeScript MCP SDK, as its README and
// examples write a server: McpServer.registerTool with a zod (v4) input
// schema, so the SDK validates the arguments before the handler runs.
//
//   get_invoice {id: string matching ^inv_[0-9]+$, email: an email address,
//                amount: integer >= 1}, all required
//   success: one text block {"id":"<id>","status":"open"}, isError false
//   invalid arguments: the SDK's own tool result, isError true
//
// Usage:
//   node server.mjs               stdio (newline-delimited JSON-RPC)
//   node server.mjs --http PORT   Streamable HTTP at http://127.0.0.1:PORT/mcp,
//                                 one session (and one McpServer) per client,
//                                 as the SDK's simpleStreamableHttp example
//
// benches/load/compare.sh installs it (scripts/npm-install) in target/load-bench/ts and
// drives it with the `load` binary.

import { randomUUID } from 'node:crypto';
import process from 'node:process';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

/** One server with the one tool. */
function buildServer() {
  const server = new McpServer({ name: 'ts-sdk-bench', version: '1.0.0' });
  server.registerTool(
    'get_invoice',
    {
      description: 'Read one invoice by id.',
      inputSchema: {
        id: z.string().regex(/^inv_[0-9]+$/).describe('The invoice id, e.g. inv_1.'),
        email: z.email().describe('Who the invoice is sent to, e.g. user@example.com.'),
        amount: z.number().int().min(1).describe('The amount, in cents (at least 1).'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ id }) => ({
      // The pattern leaves only `inv_` and digits: nothing to escape in JSON.
      content: [{ type: 'text', text: `{"id":"${id}","status":"open"}` }],
    }),
  );
  return server;
}

async function serveStdio() {
  const server = buildServer();
  await server.connect(new StdioServerTransport());
}

function serveHttp(port) {
  const app = createMcpExpressApp();
  /** Transports by session id. */
  const transports = new Map();

  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    try {
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId) {
          res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
          return;
        }
        if (!isInitializeRequest(req.body)) {
          res.status(400).json({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null,
          });
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            transports.set(sid, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
        };
        await buildServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      console.error('error handling an MCP request:', error);
      if (!res.headersSent) {
        res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
      }
    }
  });

  const sessionRequest = async (req, res) => {
    const transport = transports.get(req.headers['mcp-session-id']);
    if (!transport) {
      res.status(404).send('Session not found');
      return;
    }
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', sessionRequest);
  app.delete('/mcp', sessionRequest);

  const listener = app.listen(port, '127.0.0.1', (error) => {
    if (error) {
      console.error(`cannot listen on 127.0.0.1:${port}: ${error.message}`);
      process.exit(1);
    }
    console.error(`ts-sdk bench server: http://127.0.0.1:${port}/mcp`);
  });
  const stop = () => listener.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const args = process.argv.slice(2);
if (args.length === 0) {
  await serveStdio();
} else if (args.length === 2 && args[0] === '--http' && /^[0-9]+$/.test(args[1]) && Number(args[1]) < 65536) {
  serveHttp(Number(args[1]));
} else {
  console.error('usage: node server.mjs [--http PORT]');
  process.exit(2);
}
