//! The signing keys of `fusion serve` and `fusion gateway`
//! (`mcp_fusion::server::SigningKeys`): the key that signs, its id, and the
//! keys still accepted while a fleet rotates.

use clap::Args;
use mcp_fusion::server::{DEFAULT_SIGNING_KEY_ID, MIN_SIGNING_KEY_BYTES, SigningKeys};

// The flags of the server's signing keys. (Not a doc comment: the
// subcommands are deferred, and clap would show it as their about.)
#[derive(Debug, Args)]
pub(crate) struct SigningFlags {
    /// The server's signing key (HMAC-SHA256) for the lists' cursors and the
    /// requestState of MCP 2026-07-28 input-required results: at least 32
    /// bytes of secret text, e.g. from `openssl rand -base64 48`; give every
    /// replica behind one endpoint the same one, so that a cursor or a
    /// client's retry may reach any of them; best given in
    /// FUSION_SIGNING_KEY rather than on the command line [default: 32
    /// random bytes of this process, whose cursors and states another
    /// process or a restart refuses].
    #[arg(
        long,
        value_name = "KEY",
        env = "FUSION_SIGNING_KEY",
        hide_env_values = true
    )]
    pub(crate) signing_key: Option<String>,
    /// The id of --signing-key, written in clear in what it signs, so that
    /// replicas rotating their key know which key signed: 1 to 64 ASCII
    /// letters, digits, '.', '_' or '-'.
    #[arg(
        long,
        value_name = "ID",
        env = "FUSION_SIGNING_KEY_ID",
        default_value = DEFAULT_SIGNING_KEY_ID,
        requires = "signing_key"
    )]
    pub(crate) signing_key_id: String,
    /// A key still accepted while the fleet rotates, as ID=KEY (repeatable;
    /// in the environment, comma-separated): what it signed is opened,
    /// nothing new is signed with it. Rotate in four steps: add the new key
    /// here on every replica; then make it --signing-key (with its
    /// --signing-key-id) and put the old one here; after a requestState's
    /// life (10 minutes), drop the old one.
    #[arg(
        long = "accepted-signing-key",
        value_name = "ID=KEY",
        env = "FUSION_ACCEPTED_SIGNING_KEYS",
        value_delimiter = ',',
        hide_env_values = true,
        requires = "signing_key"
    )]
    pub(crate) accepted_signing_keys: Vec<String>,
}

impl SigningFlags {
    /// The keys the flags give, if any. A key shorter than 32 bytes or an
    /// accepted key without `ID=` is refused naming its flag and, for an
    /// accepted key, its place in the list (never its id or key: a key
    /// given without `ID=` could be read as an id); the builder checks the
    /// ids.
    pub(crate) fn keys(&self) -> Result<Option<SigningKeys>, String> {
        let Some(key) = &self.signing_key else {
            return Ok(None);
        };
        checked_length(key, "--signing-key (FUSION_SIGNING_KEY)")?;
        let mut keys = SigningKeys::new(self.signing_key_id.as_str(), key.as_bytes());
        for (index, accepted) in self.accepted_signing_keys.iter().enumerate() {
            let Some((id, key)) = accepted.split_once('=') else {
                return Err(format!(
                    "--accepted-signing-key (FUSION_ACCEPTED_SIGNING_KEYS) number {} is not ID=KEY; give each as its id, '=', then the key",
                    index + 1
                ));
            };
            // Named by its place, never by its id: a key given without
            // `ID=` (base64 ends in `=`) would otherwise be printed.
            checked_length(
                key,
                &format!(
                    "--accepted-signing-key (FUSION_ACCEPTED_SIGNING_KEYS) number {}",
                    index + 1
                ),
            )?;
            keys = keys.accept(id, key.as_bytes());
        }
        Ok(Some(keys))
    }
}

/// `key`, if it has at least 32 bytes; else a message naming `flag`.
fn checked_length(key: &str, flag: &str) -> Result<(), String> {
    if key.len() < MIN_SIGNING_KEY_BYTES {
        return Err(format!(
            "{flag} has {} bytes; give at least {MIN_SIGNING_KEY_BYTES}, e.g. from `openssl rand -base64 48`, the same on every replica",
            key.len()
        ));
    }
    Ok(())
}
