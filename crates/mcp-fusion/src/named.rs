//! What an MCP request names besides its method: a tool, a prompt or a
//! resource. A span's name and attributes read it (feature `otel`); the
//! client says it of every request it sends.

/// What a request names besides its method.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) enum Named<'a> {
    /// Nothing: a list, `ping`, `logging/setLevel`, …
    Nothing,
    /// A tool (`tools/call`): `gen_ai.tool.name`.
    Tool(&'a str),
    /// A prompt (`prompts/get`): `gen_ai.prompt.name`.
    Prompt(&'a str),
    /// A resource (`resources/read`, `resources/subscribe`, …): `mcp.resource.uri`.
    Resource(&'a str),
}
