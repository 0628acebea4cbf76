// What the pages of this folder share: speaking MCP over Streamable HTTP
// with fetch(), as a browser MCP client does, and writing what the page
// read into <pre id="results"> as JSON.

// The JSON-RPC message of a body: JSON, or the first SSE data event holding JSON.
function message(text) {
  try { return JSON.parse(text); } catch (_) {}
  for (const line of text.split("\n")) {
    if (line.startsWith("data:")) {
      try { return JSON.parse(line.slice(5)); } catch (_) {}
    }
  }
  return null;
}

// POSTs the JSON-RPC message `body` to `endpoint` with the extra `headers`;
// the response and its body's text.
async function post(endpoint, body, headers) {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Accept": "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { response, text: await response.text() };
}

// The initialize request of a 2025-11-25 client named browser-page.
const INITIALIZE = {
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "browser-page", version: "1.0.0" },
  },
};

// Runs `steps(results)`, then writes `results` (with `error` when a step
// threw) into #results.
function report(steps) {
  const results = {};
  steps(results)
    .catch((e) => { results.error = `${e.name}: ${e.message}`; })
    .finally(() => { document.getElementById("results").textContent = JSON.stringify(results); });
}
