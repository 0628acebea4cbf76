//! The claims of a verified token (a JWT's payload, or an introspection
//! response, RFC 7662 §2.2), turned into a [`Principal`].

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;

use super::resource;
use crate::guard::AuthFailure;
use crate::handler::Principal;

/// The claims mcp-fusion reads; both shapes carry the same names.
#[derive(Debug, Deserialize)]
pub(crate) struct Claims {
    #[serde(default)]
    pub sub: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub aud: Option<Value>,
    #[serde(default)]
    pub iss: Option<String>,
    #[serde(default)]
    pub exp: Option<u64>,
    /// Space-separated scopes (RFC 8693 §4.2, RFC 9068 §2.2.3, RFC 7662).
    #[serde(default)]
    pub scope: Option<String>,
    /// Scopes as an array (or a string), as some authorization servers send
    /// (Microsoft Entra ID); read only when `scope` is absent.
    #[serde(default)]
    pub scp: Option<Value>,
}

impl Claims {
    /// Whether the audience (`aud`: a string or an array) names `resource`.
    pub(crate) fn audience_names(&self, resource: &str) -> bool {
        match &self.aud {
            Some(Value::String(one)) => resource::names(one, resource),
            Some(Value::Array(many)) => many
                .iter()
                .filter_map(Value::as_str)
                .any(|one| resource::names(one, resource)),
            _ => false,
        }
    }

    /// The principal: its subject is `sub`, else `client_id` (a
    /// `client_credentials` token of a server without `sub`); its scopes
    /// those of `scope` (space-separated) when present, else those of `scp`
    /// (an array, or a space-separated string).
    ///
    /// # Errors
    /// [`AuthFailure::Invalid`] when the token names neither.
    pub(crate) fn principal(self) -> Result<Principal, AuthFailure> {
        let subject = self
            .sub
            .or(self.client_id)
            .filter(|s| !s.is_empty())
            .ok_or(AuthFailure::Invalid)?;
        // `scope` when the token has it (RFC 9068 §2.2.3, RFC 7662 §2.2),
        // else `scp` (Microsoft Entra ID's form): never both merged.
        let scopes: BTreeSet<String> = match (self.scope, self.scp) {
            (Some(text), _) | (None, Some(Value::String(text))) => {
                text.split_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Value::Array(items))) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => BTreeSet::new(),
        };
        Ok(Principal { subject, scopes })
    }
}
