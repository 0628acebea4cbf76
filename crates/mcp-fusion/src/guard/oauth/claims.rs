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
    /// Scopes as an array (or a string), as some authorization servers send.
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
    /// `scope` and `scp`.
    ///
    /// # Errors
    /// [`AuthFailure::Invalid`] when the token names neither.
    pub(crate) fn principal(self) -> Result<Principal, AuthFailure> {
        let subject = self
            .sub
            .or(self.client_id)
            .filter(|s| !s.is_empty())
            .ok_or(AuthFailure::Invalid)?;
        let mut scopes: BTreeSet<String> = self
            .scope
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        match self.scp {
            Some(Value::String(text)) => scopes.extend(text.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            _ => {}
        }
        Ok(Principal { subject, scopes })
    }
}
