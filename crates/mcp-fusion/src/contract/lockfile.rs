//! [`Lockfile`]: `fusion.lock`, the known-good contracts of a server, stored
//! in full so that a diff needs nothing else (`docs/contracts.md`,
//! "The lockfile").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::action::ActionContract;
use super::canonical::normalize;
use super::error::ContractError;
use super::server::ServerContract;
use super::tool::ToolContract;

/// The lockfile format this version writes and reads.
pub const LOCKFILE_VERSION: u64 = 1;

/// The conventional file name, in the project's root.
pub const DEFAULT_LOCKFILE: &str = "fusion.lock";

/// Who the contracts were read from (`serverInfo` at initialization).
/// Informative only: not part of any digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The server's name.
    pub name: String,
    /// The server's version.
    pub version: String,
}

/// A lockfile: the full contract of a server at a known-good point.
///
/// Its text ([`render`](Self::render)) is JSON with keys sorted at every
/// level, two-space indentation and a final newline, so that the same
/// contract always gives the same bytes:
///
/// ```text
/// {
///   "digest": "sha256:…",
///   "lockfileVersion": 1,
///   "server": { "name": "…", "version": "…" },
///   "tools": { "<tool>": { "actions": { "<action>": { …, "digest": "sha256:…" } },
///                          "description": "…", "digest": "sha256:…", "discriminator": "action" } }
/// }
/// ```
///
/// No timestamp is written, so regenerating an unchanged contract leaves the
/// file byte for byte the same.
#[derive(Debug, Clone, PartialEq)]
pub struct Lockfile {
    /// Who the contract was read from, when known.
    pub server: Option<ServerInfo>,
    /// The contract.
    pub contract: ServerContract,
}

/// Why a lockfile could not be read or written. Each variant names the
/// problem; the messages say what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockfileError {
    /// The file could not be read (missing, unreadable).
    #[error("cannot read the lockfile {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write the lockfile {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("the lockfile is not valid JSON (line {line}, column {column}): {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What the JSON reader said.
        message: String,
    },
    /// The JSON has no `lockfileVersion`.
    #[error("the lockfile has no \"lockfileVersion\" member; is it a fusion.lock file?")]
    MissingVersion,
    /// The `lockfileVersion` is not one this version reads.
    #[error(
        "the lockfile has \"lockfileVersion\": {found}, but this version of mcp-fusion reads only version {supported}; regenerate it with `fusion lock`"
    )]
    UnsupportedVersion {
        /// The version found, as JSON.
        found: String,
        /// The version this code reads ([`LOCKFILE_VERSION`]).
        supported: u64,
    },
    /// A member is missing or has the wrong type.
    #[error("the lockfile is malformed at {at}: {problem}")]
    Malformed {
        /// Where, as a dotted path (`tools.billing.actions.get_invoice.inputSchema`).
        at: String,
        /// What is wrong.
        problem: String,
    },
    /// A stored digest does not match the contents it stands for: the file
    /// was edited by hand or damaged.
    #[error(
        "the lockfile's digest at {at} is {stored}, but the contents hash to {computed}: the file was edited by hand or damaged; regenerate it with `fusion lock`"
    )]
    DigestMismatch {
        /// Where (`digest`, `tools.billing.digest`, …).
        at: String,
        /// The digest written in the file.
        stored: String,
        /// The digest of what the file holds.
        computed: String,
    },
}

impl Lockfile {
    /// A lockfile of `contract`, read from `server` when known.
    pub fn new(contract: ServerContract, server: Option<ServerInfo>) -> Self {
        Lockfile { server, contract }
    }

    /// The JSON form, keys sorted at every level (see the type's docs).
    pub fn to_json(&self) -> Value {
        let tools: Map<String, Value> = self
            .contract
            .tools
            .iter()
            .map(|(name, tool)| (name.clone(), tool.to_json()))
            .collect();
        let mut object = Map::new();
        object.insert("digest".into(), json!(self.contract.digest()));
        object.insert("lockfileVersion".into(), json!(LOCKFILE_VERSION));
        if let Some(server) = &self.server {
            object.insert(
                "server".into(),
                json!({"name": server.name, "version": server.version}),
            );
        }
        object.insert("tools".into(), Value::Object(tools));
        normalize(&Value::Object(object))
    }

    /// The file's text: [`to_json`](Self::to_json) with two-space
    /// indentation and a final newline.
    pub fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes [`render`](Self::render) to `path` (through a temporary file
    /// next to it, renamed into place, so a reader never sees half a file).
    ///
    /// # Errors
    /// [`LockfileError::Write`] when the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), LockfileError> {
        let write_error = |source| LockfileError::Write {
            path: path.to_owned(),
            source,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        std::fs::write(&temporary, self.render()).map_err(write_error)?;
        std::fs::rename(&temporary, path).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            write_error(e)
        })
    }

    /// Reads and [`parse`](Self::parse)s the file at `path`.
    ///
    /// # Errors
    /// [`LockfileError::Read`] when it cannot be read, else as
    /// [`parse`](Self::parse).
    pub fn read(path: &Path) -> Result<Self, LockfileError> {
        let text = std::fs::read_to_string(path).map_err(|source| LockfileError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Reads a lockfile's text. Every stored digest is checked against the
    /// contents it stands for. Unknown members are ignored.
    ///
    /// # Errors
    /// [`LockfileError::Json`] for text that is not JSON,
    /// [`LockfileError::MissingVersion`] /
    /// [`LockfileError::UnsupportedVersion`] for a missing or other
    /// `lockfileVersion` than [`LOCKFILE_VERSION`],
    /// [`LockfileError::Malformed`] for a missing or mistyped member, and
    /// [`LockfileError::DigestMismatch`] for a digest that does not match.
    pub fn parse(text: &str) -> Result<Self, LockfileError> {
        let value: Value = serde_json::from_str(text).map_err(|e| LockfileError::Json {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        let root = value.as_object().ok_or_else(|| LockfileError::Malformed {
            at: "(root)".into(),
            problem: "expected a JSON object".into(),
        })?;
        match root.get("lockfileVersion") {
            None => return Err(LockfileError::MissingVersion),
            Some(v) if v.as_u64() == Some(LOCKFILE_VERSION) => {}
            Some(other) => {
                return Err(LockfileError::UnsupportedVersion {
                    found: other.to_string(),
                    supported: LOCKFILE_VERSION,
                });
            }
        }
        let server = match root.get("server") {
            None | Some(Value::Null) => None,
            Some(server) => Some(ServerInfo {
                name: string_member(server, "name", "server")?,
                version: string_member(server, "version", "server")?,
            }),
        };
        let tools = object_member(&value, "tools", "(root)")?;
        let mut contract = ServerContract::default();
        for (tool_name, tool) in tools {
            let at = format!("tools.{tool_name}");
            let tool_contract = read_tool(tool_name, tool, &at)?;
            check_digest(tool, &at, &tool_contract.digest())?;
            contract.tools.insert(tool_name.clone(), tool_contract);
        }
        check_digest(&value, "(root)", &contract.digest())?;
        Ok(Lockfile { server, contract })
    }
}

fn read_tool(name: &str, tool: &Value, at: &str) -> Result<ToolContract, LockfileError> {
    let actions_value = object_member(tool, "actions", at)?;
    let mut actions = BTreeMap::new();
    for (action_name, action) in actions_value {
        let action_at = format!("{at}.actions.{action_name}");
        let contract =
            ActionContract::from_json(action_name, action, &action_at).map_err(|e| match e {
                ContractError::Malformed { at, problem } => {
                    LockfileError::Malformed { at, problem }
                }
                other => LockfileError::Malformed {
                    at: action_at.clone(),
                    problem: other.to_string(),
                },
            })?;
        check_digest(action, &action_at, &contract.digest())?;
        actions.insert(action_name.clone(), contract);
    }
    Ok(ToolContract {
        name: name.to_owned(),
        description: super::action::non_blank(optional_string(tool, "description", at)?.as_deref()),
        discriminator: optional_string(tool, "discriminator", at)?,
        actions,
    })
}

fn check_digest(value: &Value, at: &str, computed: &str) -> Result<(), LockfileError> {
    let digest_at = if at == "(root)" {
        String::from("digest")
    } else {
        format!("{at}.digest")
    };
    let stored = match value.get("digest") {
        Some(Value::String(s)) => s,
        Some(_) => {
            return Err(LockfileError::Malformed {
                at: digest_at,
                problem: "must be a string".into(),
            });
        }
        None => {
            return Err(LockfileError::Malformed {
                at: digest_at,
                problem: "is missing".into(),
            });
        }
    };
    if stored != computed {
        return Err(LockfileError::DigestMismatch {
            at: digest_at,
            stored: stored.clone(),
            computed: computed.to_owned(),
        });
    }
    Ok(())
}

fn object_member<'a>(
    value: &'a Value,
    key: &str,
    at: &str,
) -> Result<&'a Map<String, Value>, LockfileError> {
    let member_at = if at == "(root)" {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    };
    match value.get(key) {
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(LockfileError::Malformed {
            at: member_at,
            problem: "must be a JSON object".into(),
        }),
        None => Err(LockfileError::Malformed {
            at: member_at,
            problem: "is missing".into(),
        }),
    }
}

fn string_member(value: &Value, key: &str, at: &str) -> Result<String, LockfileError> {
    optional_string(value, key, at)?.ok_or_else(|| LockfileError::Malformed {
        at: format!("{at}.{key}"),
        problem: "is missing".into(),
    })
}

fn optional_string(value: &Value, key: &str, at: &str) -> Result<Option<String>, LockfileError> {
    if !value.is_object() {
        return Err(LockfileError::Malformed {
            at: at.to_owned(),
            problem: "must be a JSON object".into(),
        });
    }
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(LockfileError::Malformed {
            at: format!("{at}.{key}"),
            problem: "must be a string".into(),
        }),
    }
}

/// serde_json's message without its ` at line L column C` suffix (the
/// variant carries them).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
