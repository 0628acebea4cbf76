//! [`BuildError`]: what is wrong with a server definition, found when it is built.

use std::fmt;

/// A server definition that cannot be served. Returned by
/// [`ServerBuilder::build`](crate::server::ServerBuilder::build), so that a
/// mistake is a start-up error with a clear message, not a runtime surprise.
///
/// Its `Debug` is its `Display` sentence, so that a `main` returning
/// `Result<(), Box<dyn Error>>` prints `Error: two tools are named "notes"`,
/// not the variant's fields. New variants may be added in a minor release
/// (a new kind of definition mistake caught at build time).
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The server has no tool, prompt, resource or resource template.
    #[error(
        "the server has nothing to serve: add a tool, a group, a prompt or a resource before building"
    )]
    NoTools,
    /// A tool, group or action name is empty or uses characters outside
    /// letters, digits, `_`, `-` (and `.` for plain tools), or is longer than
    /// 128 characters.
    #[error("invalid {what} name \"{name}\": use 1 to 128 letters, digits, '_' or '-'")]
    InvalidName {
        /// `tool`, `group` or `action`.
        what: &'static str,
        /// The name as given.
        name: String,
    },
    /// A mounted server ([`Mount`](crate::server::Mount)) whose namespace
    /// is not usable, or whose transforms do not fit its tools (a rename to
    /// a name another tool has, a hidden argument the tool does not have, a
    /// transform of a tool it does not have).
    #[error("mount \"{namespace}\": {reason}")]
    BadMount {
        /// The mount's namespace.
        namespace: String,
        /// What is wrong, naming the transform's tool.
        reason: String,
    },
    /// Two tools or groups share a name.
    #[error("two tools are named \"{0}\"")]
    DuplicateTool(String),
    /// Two actions of one group share a key.
    #[error("group \"{group}\" has two actions named \"{action}\"")]
    DuplicateAction {
        /// The group.
        group: String,
        /// The repeated action key.
        action: String,
    },
    /// A group has no action.
    #[error("group \"{0}\" has no actions")]
    EmptyGroup(String),
    /// A group's discriminator is empty or also the name of an input field.
    #[error("group \"{group}\": discriminator \"{field}\" {reason}")]
    BadDiscriminator {
        /// The group.
        group: String,
        /// The discriminator field.
        field: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// An action's input schema is not an object schema, or does not compile.
    #[error("{action}: the input schema is not usable: {reason}")]
    BadSchema {
        /// The dotted action name.
        action: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A domain an action [reads](crate::Action::reads) or a pattern it
    /// [invalidates](crate::Action::invalidates) is not a dotted name
    /// (`docs/wire-contract.md` §9.3), or has `*` anywhere but as its last
    /// segment.
    #[error("{action}: state sync: {reason}")]
    BadStateSync {
        /// The dotted action name.
        action: String,
        /// What is wrong, naming the domain or pattern.
        reason: String,
    },
    /// A handler takes a [`State<T>`](crate::State) the server was not given
    /// with [`ServerBuilder::state`](crate::server::ServerBuilder::state).
    #[error(
        "{action}: the handler takes State<{state}>, but the server has no such state: add it with ServerBuilder::state"
    )]
    MissingState {
        /// The dotted action name.
        action: String,
        /// The state's type name.
        state: String,
    },
    /// Two prompts share a name, two resources a URI, or two resource
    /// templates their text.
    #[error("two {what}s are named \"{name}\"")]
    Duplicate {
        /// `prompt`, `resource` or `resource template`.
        what: &'static str,
        /// The repeated name, URI or template.
        name: String,
    },
    /// A resource template that is not an RFC 6570 template this server can
    /// match (`{name}` and `{+name}` expressions only).
    #[error("unusable resource template {0}")]
    BadUriTemplate(String),
    /// An HTTP transport setting cannot be used (an allowed host or origin
    /// that cannot be read).
    #[error("{0}")]
    BadHttpOption(String),
    /// A guard setting cannot be used (a zero limit, a zero period, scopes
    /// without a token verifier).
    #[error("{action}: {reason}")]
    BadGuard {
        /// The dotted action name.
        action: String,
        /// What is wrong.
        reason: String,
    },
    /// A state machine cannot be used
    /// ([`ServerBuilder::state_machine`](crate::server::ServerBuilder::state_machine)):
    /// it has no initial state, allows an action in a state no transition
    /// reaches or leaves, has two transitions of one action from one state,
    /// gates an action another machine gates, or names an action the server
    /// does not have.
    #[error("state machine \"{machine}\": {reason}")]
    BadStateMachine {
        /// The machine's name.
        machine: String,
        /// What is wrong.
        reason: String,
    },
    /// A key given to
    /// [`ServerBuilder::signing_key`](crate::server::ServerBuilder::signing_key)
    /// or [`ServerBuilder::signing_keys`](crate::server::ServerBuilder::signing_keys)
    /// is shorter than
    /// [`MIN_SIGNING_KEY_BYTES`](crate::server::MIN_SIGNING_KEY_BYTES) (32;
    /// HMAC-SHA256 wants a key as long as its output, RFC 2104 §3).
    #[error(
        "the signing key has {length} bytes; give at least 32 (e.g. `openssl rand -base64 48`), the same on every replica"
    )]
    SigningKeyTooShort {
        /// The length of the key given, in bytes.
        length: usize,
    },
    /// The directory of [`Skills`](crate::Skills) cannot be read
    /// (it does not exist, is not a directory, or is not readable).
    #[error("the skills directory {path} cannot be read: {reason}")]
    SkillsDirectory {
        /// The directory as given.
        path: String,
        /// Why it cannot be read (the I/O error).
        reason: String,
    },
    /// A key id of
    /// [`ServerBuilder::signing_keys`](crate::server::ServerBuilder::signing_keys)
    /// cannot be used: it is empty, longer than 64 characters, holds a
    /// character other than ASCII letters, digits, `.`, `_` and `-`, or is
    /// given twice.
    #[error("signing key id \"{id}\": {reason}")]
    BadSigningKeys {
        /// The id (cut to 64 characters).
        id: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A `_meta` key a server's code may not set
    /// ([`Action::meta`](crate::Action::meta), `Group::meta`,
    /// `Resource::meta`, `ResourceTemplate::meta`, `Prompt::meta`): one under
    /// `io.modelcontextprotocol/` other than a known extension's identifier
    /// (MCP basic/index "`_meta`"), a trace context key (`traceparent`,
    /// `tracestate`, `baggage`; SEP-414), one under `mcp-fusion/` (the
    /// library's own), or an empty key.
    #[error("{owner}: the _meta key \"{key}\" cannot be set: {reason}")]
    ReservedMetaKey {
        /// The tool, group, action, prompt or resource URI that sets it.
        owner: String,
        /// The key as given.
        key: String,
        /// Why it is reserved.
        reason: &'static str,
    },
    /// An MCP App (SEP-1865) that cannot be served or linked: a URI that is
    /// not `ui://…`, a tool linked to an app the server does not serve, a
    /// group's action linked on its own (link the group), or two apps at
    /// one URI.
    #[error("MCP App {uri}: {reason}")]
    BadApp {
        /// The `ui://` URI as given.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// A capability extension
    /// ([`ServerBuilder::extension`](crate::server::ServerBuilder::extension))
    /// that cannot be declared: an identifier that is not `prefix/name`, or
    /// one the library declares itself when it is used
    /// (`io.modelcontextprotocol/tasks`, `io.modelcontextprotocol/ui`).
    #[error("extension \"{id}\": {reason}")]
    BadExtension {
        /// The extension identifier as given.
        id: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Debug for BuildError {
    /// The `Display` sentence (a `BuildError` has no source).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
