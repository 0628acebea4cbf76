//! The `_meta` keys of a tool in `tools/list` (`docs/contracts.md`): where an
//! mcp-fusion server lists each action with its own schema and settings, and
//! names a group's discriminator; and the discriminator a group reads unless
//! told otherwise. Written by the server, read by the contract and the client.

/// The tool `_meta` key listing every action with its own schema and settings.
pub const ACTIONS_META_KEY: &str = "mcp-fusion/actions";
/// The tool `_meta` key naming a group's discriminator field.
pub const DISCRIMINATOR_META_KEY: &str = "mcp-fusion/discriminator";
/// The field a grouped tool reads its action from, unless the group (on the
/// server) or `ClientOptions::discriminator` (on the client) names another
/// one: `action`.
pub const DEFAULT_DISCRIMINATOR: &str = "action";
/// The tool `_meta` key of a plain tool's freshness
/// (`Action::freshness`): `{"noStore": true}` or `{"maxAgeSeconds": n}`
/// (`docs/wire-contract.md` §9.3). A group's action has it as `freshness`
/// in the `results` of its entry of `_meta["mcp-fusion/actions"]`.
pub const FRESHNESS_META_KEY: &str = "mcp-fusion/freshness";
/// The `_meta` key of a `tools/list` result (its first page) listing, whole,
/// each tool of which the session's state gate hides some actions now
/// (`docs/contracts.md`): `[tool]`, each as `tools/list` would show it with
/// every action the caller may see in any state, so that a contract read
/// from the list (`fusion lock`) has the gated actions too. The model reads
/// `tools` only.
pub const GATED_META_KEY: &str = "mcp-fusion/gated";
