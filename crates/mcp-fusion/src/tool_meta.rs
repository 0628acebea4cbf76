//! The `_meta` keys of a tool in `tools/list` (`docs/contracts.md`): where an
//! mcp-fusion server lists each action with its own schema and settings, and
//! names a group's discriminator. Written by the server, read by the
//! contract and the client.

/// The tool `_meta` key listing every action with its own schema and settings.
pub const ACTIONS_META_KEY: &str = "mcp-fusion/actions";
/// The tool `_meta` key naming a group's discriminator field.
pub const DISCRIMINATOR_META_KEY: &str = "mcp-fusion/discriminator";
