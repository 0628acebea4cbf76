//! Reading a client's JSON-RPC message before rmcp parses it, and repairing
//! what rmcp cannot take: the same over stdio and Streamable HTTP.
//!
//! - [`message_text`]: one walk over the message text (too many JSON values,
//!   a key repeated in one object, the method, the `tools/call` name);
//! - [`jsonrpc`]: the JSON-RPC 2.0 §5 errors of the messages rmcp cannot
//!   read, and the `-32602` of a standard method whose params it cannot take;
//! - [`removed_methods`]: the methods MCP 2026-07-28 removed (`-32601`).
//!
//! Below the server and the transports: it knows rmcp's message types and
//! JSON, nothing of a server.

pub(crate) mod jsonrpc;
pub(crate) mod message_text;
#[cfg(test)]
mod properties;
pub(crate) mod removed_methods;
