//! MCP authorization for the client over Streamable HTTP: a server's `401`
//! answered with discovery, then a token by the grant [`OAuthOptions`]
//! names (authorization code with PKCE through a loopback redirect, client
//! credentials with a secret or a signed assertion, enterprise-managed
//! authorization), and step-up when a `403` asks for more scopes.
//!
//! - `options`: what the user sets ([`OAuthOptions`], [`OAuthGrant`]) and
//!   how it fails ([`AuthorizationError`]);
//! - `authorizing`: the HTTP client of a `FusionClient` that authorizes
//!   when asked; `authorize`: obtaining one token, by rmcp's `auth` flows;
//! - `discovery`, `endpoints`, `registration`, `loopback`, `scopes`,
//!   `token_failure`, `deadline`: the steps of a flow and their failures in
//!   words;
//! - `assertion` ([`ClientAssertionKey`]) and `enterprise`
//!   ([`EnterpriseIdentity`]): the credentials of the other grants.

mod assertion;
mod authorize;
pub(crate) mod authorizing;
mod deadline;
mod discovery;
mod endpoints;
mod enterprise;
#[cfg(test)]
mod flow_tests;
mod loopback;
mod options;
mod registration;
pub(crate) mod scopes;
mod token_failure;

pub use assertion::{
    ClientAssertionAlgorithm, ClientAssertionKey, UnknownAlgorithm, UnsupportedKey,
};
pub use enterprise::EnterpriseIdentity;
pub use options::{AuthorizationError, AuthorizationUrlHook, OAuthGrant, OAuthOptions};
