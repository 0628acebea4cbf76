// A foreign MCP server built on the official TypeScript SDK's high-level
// `McpServer` (zod schemas). Its tool failures set `isError: true` AND carry
// `structuredContent`, as some servers do; the human-readable text is in
// `content`. Unknown tools and invalid arguments are reported the way this
// SDK version reports them (as `isError` results, not JSON-RPC errors).
//
// Usage: node structured-errors.mjs   (stdio)

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'structured-errors', version: '1.0.0' });

server.registerTool(
  'get_user',
  {
    description: 'Looks a user up by id. Only "u1" exists.',
    inputSchema: { id: z.string().min(2) },
    outputSchema: { id: z.string(), name: z.string() },
  },
  async ({ id }) => {
    if (id === 'u1') {
      const user = { id: 'u1', name: 'Ada' };
      return { content: [{ type: 'text', text: JSON.stringify(user) }], structuredContent: user };
    }
    return {
      isError: true,
      content: [{ type: 'text', text: `User ${id} does not exist` }],
      structuredContent: { error: { kind: 'not_found', id, hint: 'try u1' } },
    };
  },
);

server.registerTool(
  'quota',
  {
    description: 'Fails with structured content only: no content blocks.',
    inputSchema: {},
  },
  async () => ({
    isError: true,
    content: [],
    structuredContent: { error: 'quota exceeded', limit: 100 },
  }),
);

await server.connect(new StdioServerTransport());
