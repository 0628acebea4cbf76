// A bare JSON-RPC MCP server over stdio, with no SDK, for the gateway's
// tests of what an SDK would not send: its tools list holds unusable names
// (empty, with a blank, listed twice, `return_to_triage`), and `tools/call`
// answers with a JSON-RPC error: `fail` with -32000 and internal text,
// `refuse` with -32602, `refuse_long` with -32602 and 5 000 characters;
// any other tool answers "ok <name>".
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const schema = { type: "object" };
const names = ["fail", "refuse", "refuse_long", "echo", "", "a b", "echo", "return_to_triage"];

for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  const { id, method, params } = message;
  if (id === undefined) continue;
  if (method === "initialize") {
    send({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "raw-upstream", version: "1.0.0" },
      },
    });
  } else if (method === "tools/list") {
    send({ jsonrpc: "2.0", id, result: { tools: names.map((name) => ({ name, inputSchema: schema })) } });
  } else if (method === "tools/call" && params.name === "fail") {
    send({ jsonrpc: "2.0", id, error: { code: -32000, message: "internal db at postgres://admin:pw@10.0.0.5 failed" } });
  } else if (method === "tools/call" && params.name === "refuse") {
    send({ jsonrpc: "2.0", id, error: { code: -32602, message: "refuse takes no arguments" } });
  } else if (method === "tools/call" && params.name === "refuse_long") {
    send({ jsonrpc: "2.0", id, error: { code: -32602, message: "x".repeat(5000) } });
  } else if (method === "tools/call") {
    send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `ok ${params.name}` }] } });
  } else {
    send({ jsonrpc: "2.0", id, result: {} });
  }
}
