//! The `requestState` of MCP 2026-07-28's input-required results (SEP-2322,
//! `basic/patterns/mrtr`): the answers of earlier rounds, signed with rmcp's
//! [`RequestStateCodec`] (HMAC-SHA256) and bound to the request they belong
//! to, so that the client can carry them but neither change them nor use
//! them in another request. The spec calls an echoed `requestState`
//! attacker-controlled input; a refused one is a JSON-RPC `-32602`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{InputRequiredResult, RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::handler::{InputRounds, Stop};
use crate::server::SigningKeys;

/// How long a `requestState` may be echoed after it was issued, unless the
/// builder sets another ([`ServerBuilder::request_state_ttl`](crate::server::ServerBuilder::request_state_ttl)):
/// 10 minutes, time for a person to answer an elicitation.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// The longest `requestState` the server issues: 1 MiB (1 048 576
/// characters, base64url), a quarter of the default HTTP body limit, so that
/// a client can always send it back with the next round's answers. Answers
/// that would make it longer are refused with `-32602`.
pub(crate) const MAX_REQUEST_STATE_CHARS: usize = 1 << 20;

/// The server's signer of `requestState`s.
#[derive(Clone)]
pub(crate) struct RequestStates {
    codec: Arc<RequestStateCodec>,
    ttl: Duration,
}

impl std::fmt::Debug for RequestStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStates")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// What a `requestState` carries.
#[derive(Serialize, Deserialize)]
struct Payload {
    /// The answers the handler used in earlier rounds, by key.
    answers: Map<String, Value>,
}

/// The request a `requestState` is bound to: its method, what it names (a
/// tool, prompt or resource URI), its arguments and its caller.
pub(crate) struct Binding<'a> {
    pub method: &'a str,
    pub name: &'a str,
    pub arguments: Option<&'a Map<String, Value>>,
    /// The verified caller's subject, when there is one.
    pub subject: Option<&'a str>,
}

impl Binding<'_> {
    /// The associated data of the signature: the method, the name, a
    /// SHA-256 of the arguments with their keys sorted (a client may send
    /// them in another order), and the caller, one per line.
    fn associated_data(&self) -> Vec<u8> {
        let arguments = canonical(&Value::Object(self.arguments.cloned().unwrap_or_default()));
        let digest = Sha256::digest(arguments.to_string().as_bytes());
        let mut data = Vec::new();
        for part in [self.method, self.name, self.subject.unwrap_or("")] {
            data.extend_from_slice(part.as_bytes());
            data.push(b'\n');
        }
        data.extend_from_slice(&digest);
        data
    }
}

/// `value` with the keys of every object in sorted order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

impl RequestStates {
    /// A signer with the active key of `keys` and an opener with any of
    /// them (rmcp's keyring, its `rs2` format naming the key), valid `ttl`
    /// after issue. The builder has checked the ids and lengths, which
    /// rmcp checks again (ids of 1 to 255 bytes, keys of 32 bytes or more).
    pub(crate) fn new(keys: &SigningKeys, ttl: Duration) -> Self {
        let ring = keys.exposed().map(|(id, key)| (id, key.to_vec()));
        let codec = RequestStateCodec::new_with_keyring(keys.active_id(), ring)
            .expect("the builder checked the signing keys");
        RequestStates {
            codec: Arc::new(codec),
            ttl,
        }
    }

    /// The rounds of a request bound as `binding`: the answers of its
    /// `request_state` (opened and checked) and its `input_responses`.
    ///
    /// # Errors
    /// `-32602` naming why a `requestState` is refused: altered, issued for
    /// another request or caller, or expired.
    pub(crate) fn rounds(
        &self,
        binding: &Binding<'_>,
        request_state: Option<&str>,
        input_responses: Option<rmcp::model::InputResponses>,
    ) -> Result<InputRounds, rmcp::ErrorData> {
        let earlier = match request_state {
            None => Map::new(),
            Some(sealed) => {
                let opened: Payload = self
                    .codec
                    .open_json_with(sealed, &binding.associated_data())
                    .map_err(|error| self.refused(binding.method, &error))?;
                opened.answers
            }
        };
        Ok(InputRounds::new(
            earlier,
            input_responses.unwrap_or_default(),
        ))
    }

    /// The `-32602` of a refused `requestState`.
    fn refused(&self, method: &str, error: &RequestStateError) -> rmcp::ErrorData {
        let (reason, why) = match error {
            RequestStateError::Expired => (
                "expired",
                format!(
                    "it expired (a requestState may be sent back for {} seconds after it was issued)",
                    self.ttl.as_secs()
                ),
            ),
            _ => (
                "invalid",
                String::from(
                    "this server did not issue it for this request (it was altered, or issued for another tool, prompt or resource, other arguments or another caller)",
                ),
            ),
        };
        rmcp::ErrorData::invalid_params(
            format!(
                "The requestState of this {method} request was refused: {why}. Send the request again without requestState and inputResponses to start over."
            ),
            Some(json!({ "requestState": reason })),
        )
    }

    /// What a request whose handler `rounds` stopped is answered: the
    /// input-required result with every unanswered request and a new
    /// `requestState` holding the answers used so far, or the `-32602` of an
    /// answer that is not the requested result. `None` when the handler
    /// finished.
    pub(crate) fn answer(
        &self,
        binding: &Binding<'_>,
        rounds: &InputRounds,
    ) -> Option<Result<InputRequiredResult, rmcp::ErrorData>> {
        match rounds.stopped()? {
            Stop::Malformed(text) => Some(Err(rmcp::ErrorData::invalid_params(
                format!(
                    "{text}. Answer each input request with the result its method returns (elicitation/create: an ElicitResult, sampling/createMessage: a CreateMessageResult, roots/list: a ListRootsResult)."
                ),
                None,
            ))),
            Stop::InputRequired => {
                let payload = Payload {
                    answers: rounds.used(),
                };
                let associated = binding.associated_data();
                let options = SealOptions::new()
                    .associated_data(&associated)
                    .ttl(self.ttl);
                let sealed = match self.codec.seal_json_with(&payload, &options) {
                    Ok(sealed) => sealed,
                    Err(error) => {
                        return Some(Err(rmcp::ErrorData::internal_error(
                            format!("the requestState could not be written: {error}"),
                            None,
                        )));
                    }
                };
                if sealed.len() > MAX_REQUEST_STATE_CHARS {
                    return Some(Err(rmcp::ErrorData::invalid_params(
                        format!(
                            "The answers given so far to this {} request make a requestState of {} characters, over the {MAX_REQUEST_STATE_CHARS} this server issues (a client must be able to send it back). Answer with less, or send the request again without requestState and inputResponses to start over.",
                            binding.method,
                            sealed.len()
                        ),
                        Some(
                            json!({ "requestState": "too_long", "maxChars": MAX_REQUEST_STATE_CHARS }),
                        ),
                    )));
                }
                Some(Ok(InputRequiredResult::new(
                    Some(rounds.asked()),
                    Some(sealed),
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_in_another_order_bind_the_same() {
        let a: Map<String, Value> = serde_json::from_str(r#"{"a":1,"b":{"y":2,"x":3}}"#).unwrap();
        let b: Map<String, Value> = serde_json::from_str(r#"{"b":{"x":3,"y":2},"a":1}"#).unwrap();
        let bind = |arguments| Binding {
            method: "tools/call",
            name: "t",
            arguments: Some(arguments),
            subject: None,
        };
        assert_eq!(bind(&a).associated_data(), bind(&b).associated_data());
    }
}
