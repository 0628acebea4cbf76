//! An authorization server whose tokens and key fetches the test controls:
//! RFC 8414 metadata and a JWKS (one ES256 key, `key-1`) served by axum on
//! a loopback port, access tokens signed here with jsonwebtoken with
//! whatever claims a test gives (what `oidc-provider` would never issue:
//! `scope` and `scp` together, an `iss` spelled otherwise, a `kid` it does
//! not publish). Its JWKS endpoint can be held: a fetch then waits, its
//! connection open, until the test releases it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::Json;
use axum::extract::State;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};

/// The signing key: a P-256 key made for these tests only (PKCS #8).
const KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg5sLkgLU6/XsIdfpd
cuR8lHheQNHI0TNgwa31K18bUdWhRANCAATXZ92IClloqmikYe1s4x4UeE1as4+J
+tI5s9qyKyApBNAy+X8+BtUMyYoxjs1irDCOzLhbVNz9/GNEI5UzQuQf
-----END PRIVATE KEY-----
";

/// The key id the JWKS publishes.
pub const KID: &str = "key-1";

struct Shared {
    jwks: Value,
    /// JWKS requests received.
    fetches: AtomicUsize,
    /// Whether JWKS requests wait for `release`.
    holding: AtomicBool,
    /// A held JWKS request has arrived.
    arrived: Notify,
    release: watch::Sender<bool>,
    /// A held JWKS request was dropped by its client before release.
    abandoned: AtomicBool,
}

/// Marks a held fetch abandoned when dropped before it is answered.
struct Holding<'a>(&'a Shared, bool);

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.abandoned.store(true, Ordering::SeqCst);
        }
    }
}

async fn key_set(State(shared): State<Arc<Shared>>) -> Json<Value> {
    shared.fetches.fetch_add(1, Ordering::SeqCst);
    if shared.holding.load(Ordering::SeqCst) {
        let mut held = Holding(&shared, false);
        shared.arrived.notify_one();
        let mut release = shared.release.subscribe();
        let _ = release.wait_for(|released| *released).await;
        held.1 = true;
    }
    Json(shared.jwks.clone())
}

/// One running signing server, stopped when dropped.
pub struct SigningServer {
    /// `http://127.0.0.1:PORT`, the issuer its metadata names.
    pub issuer: String,
    key: EncodingKey,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SigningServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SigningServer {
    /// Starts one on a free loopback port.
    pub async fn start() -> Self {
        let key = EncodingKey::from_ec_pem(KEY_PEM.as_bytes()).expect("the test key reads");
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).expect("its public JWK");
        jwk.common.key_id = Some(KID.to_owned());
        let jwks = serde_json::to_value(JwkSet { keys: vec![jwk] }).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            jwks,
            fetches: AtomicUsize::new(0),
            holding: AtomicBool::new(false),
            arrived: Notify::new(),
            release: watch::Sender::new(false),
            abandoned: AtomicBool::new(false),
        });
        let metadata = json!({
            "issuer": issuer,
            "jwks_uri": format!("{issuer}/jwks"),
            "token_endpoint": format!("{issuer}/token"),
            "response_types_supported": ["code"],
        });
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || {
                    let metadata = metadata.clone();
                    async move { Json(metadata) }
                }),
            )
            .route("/jwks", axum::routing::get(key_set))
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        SigningServer {
            issuer,
            key,
            shared,
            task,
        }
    }

    /// The claims of a token for `resource` with `scope`, from this
    /// issuer, valid five minutes.
    pub fn claims(&self, resource: &str, scope: &str) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        json!({
            "iss": self.issuer,
            "sub": "alice",
            "aud": resource,
            "scope": scope,
            "iat": now,
            "exp": now + 300,
        })
    }

    /// A JWT access token (`typ: at+jwt`, ES256) with `claims`, its header
    /// naming the key `kid` (signed with the one key whatever it names).
    pub fn token(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some(String::from("at+jwt"));
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }

    /// How many times its JWKS was asked for.
    pub fn fetches(&self) -> usize {
        self.shared.fetches.load(Ordering::SeqCst)
    }

    /// From now on a JWKS request waits, its connection open, until
    /// [`release`](Self::release).
    pub fn hold_fetches(&self) {
        self.shared.holding.store(true, Ordering::SeqCst);
    }

    /// Returns once a held JWKS request has arrived.
    pub async fn held_fetch_arrived(&self) {
        self.shared.arrived.notified().await;
    }

    /// Answers the held JWKS requests.
    pub fn release(&self) {
        self.shared.release.send_replace(true);
    }

    /// Whether a held JWKS request was given up by the resource server
    /// before it was released.
    pub fn abandoned(&self) -> bool {
        self.shared.abandoned.load(Ordering::SeqCst)
    }
}
