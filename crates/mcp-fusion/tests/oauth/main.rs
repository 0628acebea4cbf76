//! The server as an OAuth 2.1 resource server over Streamable HTTP, against
//! a real authorization server (`oidc-provider`, started by
//! `fusion_test_support::authorization_server`; and, for tokens it would never issue
//! and key fetches held open, `signing_server.rs`): the 401 challenges and
//! why a token is refused, the claims read, a cached key verifying while
//! the keys are fetched again, the protected resource metadata, key rotation, introspected
//! opaque tokens, the insufficient-scope policies, the scopes a 401 asks
//! for, and a 503 when the authorization server cannot be reached. Every request is raw
//! HTTP (reqwest), so statuses and headers are asserted exactly.

#[cfg(all(feature = "oauth", feature = "http"))]
use fusion_test_support::authorization_server;
#[cfg(all(feature = "oauth", feature = "http"))]
mod resource_server;
#[cfg(all(feature = "oauth", feature = "http"))]
mod signing_server;

#[cfg(all(feature = "oauth", feature = "http"))]
mod challenges;
#[cfg(all(feature = "oauth", feature = "http"))]
mod claims;
#[cfg(all(feature = "oauth", feature = "http"))]
mod introspection;
#[cfg(all(feature = "oauth", feature = "http"))]
mod key_refetch;
#[cfg(all(feature = "oauth", feature = "http"))]
mod rotation;
#[cfg(all(feature = "oauth", feature = "http"))]
mod scope_selection;
#[cfg(all(feature = "oauth", feature = "http"))]
mod step_up;
#[cfg(all(feature = "oauth", feature = "http"))]
mod unreachable;
