//! `fusion call` authorized end to end by a real authorization server
//! (oidc-provider, `tests/oauth/server.mjs`) for `fusion serve
//! --oauth-issuer`: client credentials (the first token asks for what
//! reading needs; a client allowed both billing scopes steps up once to
//! write; a read-only client reads, and is refused the write scope by the
//! authorization server; a client granted less than it asks, through one
//! step-up to the 403; a client authenticated by private_key_jwt, with its
//! key, its algorithm read from the key, and with another; a wrong secret),
//! a dotted name whose group an anonymous tools/list hides, a `--bearer`
//! token without the scope of the call (the server's 403 and a hint), and
//! the authorization code grant with PKCE, dynamically registered and
//! pre-registered, and for an account granted less than it asks, through
//! one step-up that reuses the client registered; its browser is played by [`Browser`]: it opens the URL
//! fusion prints, logs in and consents in oidc-provider's development
//! interactions, and follows the redirect to fusion's loopback listener.

use std::collections::BTreeMap;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::authorization_server::AuthorizationServer;
use crate::run::{Run, command, fusion, fusion_with};
use crate::support::{HttpServer, TempDb};

/// The billing example as a resource server of `authorization`.
fn billing_server(db: &TempDb, authorization: &AuthorizationServer) -> HttpServer {
    HttpServer::start_with(&db.0, &["--oauth-issuer", &authorization.issuer])
}

/// A seeded invoice as `fusion call URL billing.get_invoice` (or
/// `billing.void_invoice`) prints it; every seeded invoice was created at
/// `2026-11-02T09:00:00Z`.
struct Seeded {
    id: &'static str,
    customer_email: &'static str,
    /// The amount and the unit price of its one item, in cents.
    amount_cents: u32,
    currency: &'static str,
    status: &'static str,
    /// Read through `billing.get_invoice`, whose presenter adds the card
    /// number, redacted.
    presented: bool,
}

/// What `fusion call` prints on stderr after the paid invoice `inv_1` of
/// `billing.get_invoice`: its presenter's guidance (wire contract §9.1).
const GUIDANCE: &str = "<domain_rules>\n- Amounts are in cents.\n\
    - A paid or void invoice needs nothing more: nothing is owed on it.\n</domain_rules>\n";

/// The same after the draft invoice `inv_3`: nothing is said of a settled
/// invoice.
const DRAFT_GUIDANCE: &str = "<domain_rules>\n- Amounts are in cents.\n</domain_rules>\n";

/// `inv_1`, as seeded.
const PAID_INV_1: Seeded = Seeded {
    id: "inv_1",
    customer_email: "ada@example.com",
    amount_cents: 120000,
    currency: "EUR",
    status: "paid",
    presented: true,
};

/// `inv_2` once `billing.void_invoice` voided it.
const VOIDED_INV_2: Seeded = Seeded {
    id: "inv_2",
    customer_email: "grace@example.com",
    amount_cents: 45050,
    currency: "USD",
    status: "void",
    presented: false,
};

/// `inv_3`, as seeded.
const DRAFT_INV_3: Seeded = Seeded {
    id: "inv_3",
    customer_email: "linus@example.com",
    amount_cents: 9900,
    currency: "USD",
    status: "draft",
    presented: true,
};

/// Asserts that `stdout` is exactly what `fusion call` prints for
/// `invoice`.
#[track_caller]
fn assert_printed(stdout: &str, invoice: &Seeded) {
    let Seeded {
        id,
        customer_email,
        amount_cents,
        currency,
        status,
        presented,
    } = invoice;
    let card = if *presented {
        ",\n  \"card_number\": \"[redacted]\""
    } else {
        ""
    };
    assert_eq!(
        stdout,
        format!(
            r#"{{
  "id": "{id}",
  "customer_email": "{customer_email}",
  "amount_cents": {amount_cents},
  "currency": "{currency}",
  "status": "{status}",
  "items": [
    {{
      "description": "Consulting",
      "quantity": 1,
      "unit_price_cents": {amount_cents}
    }}
  ],
  "due_date": null,
  "created_at": "2026-11-02T09:00:00Z"{card}
}}
"#
        )
    );
}

/// The `fusion call URL ACTION ID --color never` arguments (`ID` the
/// arguments, e.g. [`INV_1`]) as the client credentials `client` with its
/// `secret`.
fn as_client<'a>(
    url: &'a str,
    action: &'a str,
    id: &'a str,
    client: &'a str,
    secret: &'a str,
) -> Vec<&'a str> {
    vec![
        "call",
        url,
        action,
        id,
        "--oauth-client-id",
        client,
        "--oauth-client-secret",
        secret,
        "--color",
        "never",
    ]
}

/// The debug log of the OAuth client without timestamps: one line per
/// token request, then the error line, if any.
fn untimed(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .map(|line| match line.split_once(" DEBUG ") {
            Some((_, rest)) => rest,
            None => line,
        })
        .collect()
}

const INV_1: &str = r#"{"id": "inv_1"}"#;
const INV_2: &str = r#"{"id": "inv_2"}"#;
const CLIENT_LOG: (&str, &str) = ("RUST_LOG", "mcp_fusion::client=debug");

/// A new private key in PEM (PKCS#8), made by Node's crypto (the Node that
/// runs the authorization server): `generateKeyPairSync(type, options)`,
/// e.g. `'ec', { namedCurve: 'P-256' }`.
fn private_key(type_and_options: &str) -> String {
    let made = std::process::Command::new("node")
        .args([
            "-e",
            &format!(
                "process.stdout.write(require('node:crypto').generateKeyPairSync({type_and_options}).privateKey.export({{ type: 'pkcs8', format: 'pem' }}))"
            ),
        ])
        .output()
        .expect("node runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    String::from_utf8(made.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_authenticated_by_private_key_jwt_gets_a_token_of_the_server() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("cli-oauth-private-key-jwt");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/oauth/billing-keyed.pem"
    );
    let call = |key: &str, alg: &str| {
        let mut words = vec![
            "call",
            url,
            "billing.get_invoice",
            INV_1,
            "--oauth-client-id",
            "billing-keyed",
            "--oauth-private-key",
            key,
            "--color",
            "never",
        ];
        if !alg.is_empty() {
            words.extend(["--oauth-signing-alg", alg]);
        }
        fusion(&words)
    };

    // The client's own key: oidc-provider verifies the assertion against
    // the client's registered jwks and issues the token; without
    // --oauth-signing-alg, the algorithm is the one the key is for (ES256
    // for this P-256 key).
    for alg in ["ES256", ""] {
        let signed = call(key, alg);
        assert_eq!(signed.code, 0, "{alg}: {}", signed.stderr);
        assert_eq!(signed.stderr, GUIDANCE);
        assert_printed(&signed.stdout, &PAID_INV_1);
    }

    // Another P-256 key: the signature does not verify.
    let other = TempDb::new("cli-oauth-other-key");
    let other_key = other.0.with_extension("pem");
    std::fs::write(&other_key, private_key("'ec', { namedCurve: 'P-256' }")).unwrap();
    let refused = call(other_key.to_str().unwrap(), "ES256");
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        format!(
            "error: could not authorize with {url}: the token request failed: Client credentials error: Token exchange failed: invalid_client: client authentication failed\n  hint: the authorization server does not know this client or did not authenticate it: check --oauth-client-id (FUSION_OAUTH_CLIENT_ID) and that --oauth-private-key holds the key the authorization server has for this client\n"
        )
    );

    // An Ed25519 key, which no algorithm fusion signs with is for: RS256 is
    // tried, the key does not parse as RSA, and the hint is about the key.
    std::fs::write(&other_key, private_key("'ed25519'")).unwrap();
    let unsigned = call(other_key.to_str().unwrap(), "");
    assert_eq!(unsigned.code, 2, "{}", unsigned.stdout);
    assert_eq!(
        unsigned.stderr,
        format!(
            "error: could not authorize with {url}: the token request failed: JWT signing error: Failed to parse signing key: InvalidKeyFormat\n  hint: fusion could not sign the client assertion: check that --oauth-private-key holds the client's RSA, P-256 or P-384 private key (PEM) and that --oauth-signing-alg suits it (ES256 for P-256, ES384 for P-384, RS256, RS384 or RS512 for RSA; left out, the key's own)\n"
        )
    );
    std::fs::remove_file(&other_key).unwrap();

    // An algorithm the key is not for (a P-256 key cannot sign RS256): a
    // usage error naming the one it needs; nothing is sent.
    let mismatched = call(key, "RS256");
    assert_eq!(mismatched.code, 2, "{}", mismatched.stdout);
    assert_eq!(
        mismatched.stderr,
        format!(
            "error: --oauth-signing-alg RS256 does not suit --oauth-private-key `{key}`: it holds a P-256 key, which signs with ES256 (leave --oauth-signing-alg out to use it)\n\nFor more information, try '--help'.\n"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_are_exchanged_for_a_token_of_the_server() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("cli-oauth-credentials");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();
    let request = |scope: &str| {
        format!(
            "mcp_fusion::client::authorize: client credentials token request for {url} with scope \"{scope}\""
        )
    };

    // The server's first 401 (to initialize) asks for what reading needs
    // (MCP authorization, "Scope Selection Strategy"): a read-only client
    // gets its token and reads.
    let full = fusion(&as_client(
        url,
        "billing.get_invoice",
        INV_1,
        "billing-full",
        "billing-full-secret",
    ));
    assert_eq!(full.code, 0, "{}", full.stderr);
    assert_eq!(full.stderr, GUIDANCE);
    assert_printed(&full.stdout, &PAID_INV_1);
    let reader = fusion_with(
        &as_client(
            url,
            "billing.get_invoice",
            INV_1,
            "billing-reader",
            "billing-reader-secret",
        ),
        &[CLIENT_LOG],
        b"",
    );
    assert_eq!(reader.code, 0, "{}", reader.stderr);
    let mut logged = vec![request("billing:read")];
    logged.extend(GUIDANCE.lines().map(str::to_owned));
    assert_eq!(untimed(&reader.stderr), logged);
    assert_printed(&reader.stdout, &PAID_INV_1);

    // Writing: the token of billing:read gets 403 insufficient_scope, the
    // client asks once more for the union of what it holds and what the
    // challenge names, and the call succeeds with the new token.
    let write = fusion_with(
        &as_client(
            url,
            "billing.void_invoice",
            INV_2,
            "billing-full",
            "billing-full-secret",
        ),
        &[CLIENT_LOG],
        b"",
    );
    assert_eq!(write.code, 0, "{}", write.stderr);
    // A mutation's result begins with its stale-reads notice (wire contract
    // §9.3): written for the model, printed on stderr, stdout keeps the data.
    let notice = "<stale_reads cause=\"billing.void_invoice\" domains=\"invoices.*\">This call changed invoices.*: results read before it are stale. Repeat your earlier calls of billing.list_invoices, billing.get_invoice (with the same arguments) before relying on what they returned.</stale_reads>";
    assert_eq!(
        untimed(&write.stderr),
        [
            request("billing:read"),
            request("billing:read billing:write"),
            notice.to_owned(),
        ]
    );
    assert_printed(&write.stdout, &VOIDED_INV_2);

    // The read-only client steps up too, and the authorization server
    // refuses it the scope it may not have.
    let refused = fusion(&as_client(
        url,
        "billing.void_invoice",
        INV_2,
        "billing-reader",
        "billing-reader-secret",
    ));
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        format!(
            "error: could not authorize with {url}: step-up authorization for tools/call billing (needs billing:write) was refused by the authorization server: invalid_scope: requested scope is not allowed\n{STEP_UP_HINT}\n"
        )
    );

    // A secret the authorization server does not take: the hint is about
    // the client's credentials.
    let wrong = fusion(&as_client(
        url,
        "billing.get_invoice",
        INV_1,
        "billing-full",
        "not-the-secret",
    ));
    assert_eq!(wrong.code, 2, "{}", wrong.stdout);
    assert_eq!(
        wrong.stderr,
        format!(
            "error: could not authorize with {url}: the token request failed: Client credentials error: Token exchange failed: Server returned error response: invalid_client: client authentication failed\n  hint: the authorization server does not know this client or did not authenticate it: check --oauth-client-id (FUSION_OAUTH_CLIENT_ID) and --oauth-client-secret (FUSION_OAUTH_CLIENT_SECRET)\n"
        )
    );

    // A client the authorization server grants billing:read alone, whatever
    // it asks: reading works; writing gets 403 insufficient_scope, the
    // client asks once more for the union of what it holds and what the
    // challenge names, gets billing:read again, and the second 403 is an
    // authorization error naming what is missing.
    let narrowed = |action| {
        as_client(
            url,
            action,
            INV_1,
            "billing-narrowed",
            "billing-narrowed-secret",
        )
    };
    let read = fusion(&narrowed("billing.get_invoice"));
    assert_eq!(read.code, 0, "{}", read.stderr);
    assert_printed(&read.stdout, &PAID_INV_1);
    let write = fusion_with(&narrowed("billing.void_invoice"), &[CLIENT_LOG], b"");
    assert_eq!(write.code, 2, "{}", write.stdout);
    assert_eq!(write.stdout, "");
    let failure = "step-up authorization did not get the scopes needed: the authorization server granted billing:read; tools/call billing needs billing:write (the server says: billing.void_invoice needs the scope billing:write, which the token does not have)";
    assert_eq!(
        untimed(&write.stderr),
        [
            request("billing:read"),
            request("billing:read billing:write"),
            format!("mcp_fusion::client::authorizing: OAuth authorization failed error={failure}"),
            format!("error: could not authorize with {url}: {failure}"),
            String::from(STEP_UP_HINT),
        ]
    );
}

/// The hint under a step-up that did not get `billing:write`.
const STEP_UP_HINT: &str = "  hint: the authorization server granted less than fusion asked for: ask its administrator to allow this client (and user) billing:write";

/// A browser for oidc-provider's development interactions: follows
/// redirects itself (keeping the cookies the interactions need), logs in as
/// `login` on the login page and consents on the consent page.
struct Browser {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
    login: &'static str,
}

impl Browser {
    fn new(login: &'static str) -> Self {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a reqwest client"),
            cookies: BTreeMap::new(),
            login,
        }
    }

    fn keep_cookies(&mut self, response: &reqwest::Response) {
        for value in response.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Opens `url` and goes through the interactions until the
    /// authorization server redirects away from itself; returns that
    /// redirect (the client's redirect URI with the response), after
    /// opening it.
    async fn authorize(&mut self, url: &str, issuer: &str) -> String {
        let mut next = url.to_owned();
        let mut form: Option<Vec<(&str, &str)>> = None;
        // A bound on the steps: a loop in the interactions fails the test.
        for _ in 0..20 {
            let request = match form.take() {
                Some(fields) => self.http.post(&next).form(&fields),
                None => self.http.get(&next),
            };
            let response = request
                .header("cookie", self.cookie_header())
                .send()
                .await
                .unwrap_or_else(|e| panic!("{next}: {e}"));
            self.keep_cookies(&response);
            let status = response.status().as_u16();
            if let Some(location) = response.headers().get("location") {
                let target = reqwest::Url::parse(&next)
                    .unwrap()
                    .join(location.to_str().unwrap())
                    .unwrap()
                    .to_string();
                if !target.starts_with(issuer) {
                    let landing = self.http.get(&target).send().await.unwrap();
                    assert_eq!(landing.status(), 200, "the redirect URI {target}");
                    return target;
                }
                next = target;
                continue;
            }
            let page = response.text().await.unwrap();
            assert_eq!(status, 200, "{next}: {page}");
            form = Some(if page.contains("name=\"login\"") {
                vec![("prompt", "login"), ("login", self.login)]
            } else if page.contains("value=\"consent\"") {
                vec![("prompt", "consent")]
            } else {
                panic!("neither login nor consent at {next}: {page}");
            });
        }
        panic!("no redirect to the client after 20 steps from {url}");
    }
}

/// Runs `fusion ARGS`, waits for the authorization URL it prints on stderr,
/// authorizes as a browser would (logged in as `alice`), and returns how
/// fusion ended and the redirect its listener received. Its stderr must be
/// the one prompt, then the invoice presenter's guidance.
async fn call_through_browser(args: &[&str], issuer: &str) -> (Run, String) {
    let (run, mut urls, mut redirects) = call_through_browsers(args, issuer, "alice").await;
    assert_eq!(urls.len(), 1, "{}", run.stderr);
    assert_eq!(run.stderr, format!("{}{GUIDANCE}", prompt(&urls[0])));
    urls.clear();
    (run, redirects.remove(0))
}

/// What fusion prints on stderr when it gives out the authorization `url`.
fn prompt(url: &str) -> String {
    format!(
        "fusion: the server needs authorization: open this URL in a browser (waiting for its redirect):\n  {url}\n"
    )
}

/// Runs `fusion ARGS`; each time it prints an authorization URL on stderr,
/// authorizes as a browser logged in as `login` would. Returns how fusion
/// ended (with its whole stderr), the URLs and the redirects its listener
/// received, in order.
async fn call_through_browsers(
    args: &[&str],
    issuer: &str,
    login: &'static str,
) -> (Run, Vec<String>, Vec<String>) {
    let mut child = tokio::process::Command::from(command(args))
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fusion");
    let mut stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut stderr = String::new();
    let mut urls = Vec::new();
    let mut redirects = Vec::new();
    let mut prompted = false;
    while let Some(line) = lines.next_line().await.unwrap() {
        stderr.push_str(&line);
        stderr.push('\n');
        if line.contains("open this URL in a browser") {
            prompted = true;
        } else if prompted && let Some(found) = line.trim().strip_prefix(issuer) {
            prompted = false;
            let url = format!("{issuer}{found}");
            redirects.push(Browser::new(login).authorize(&url, issuer).await);
            urls.push(url);
        }
    }
    let mut out = String::new();
    stdout.read_to_string(&mut out).await.unwrap();
    let status = child.wait().await.unwrap();
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: out,
        stderr,
    };
    (run, urls, redirects)
}

/// The `client_id` of the authorization request `url`.
fn client_id(url: &str) -> String {
    let url = reqwest::Url::parse(url).unwrap();
    url.query_pairs()
        .find(|(key, _)| key == "client_id")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| panic!("no client_id in {url}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authorization_code_grant_completes_through_the_loopback_redirect() {
    let authorization = AuthorizationServer::start("key-1").await;
    let issuer = authorization.issuer.as_str();
    let db = TempDb::new("cli-oauth-code");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();

    // No client id: fusion registers itself (RFC 7591) as a native client.
    let (registered, redirect) = call_through_browser(
        &[
            "call",
            url,
            "billing.get_invoice",
            INV_1,
            "--color",
            "never",
        ],
        issuer,
    )
    .await;
    assert_eq!(registered.code, 0, "{}", registered.stderr);
    assert_printed(&registered.stdout, &PAID_INV_1);
    assert_redirect(&redirect, issuer);

    // A pre-registered public native client: its registered loopback
    // redirect matches fusion's on any port (RFC 8252 §7.3).
    let (native, redirect) = call_through_browser(
        &[
            "call",
            url,
            "billing.get_invoice",
            INV_1,
            "--oauth-client-id",
            "native-app",
            "--color",
            "never",
        ],
        issuer,
    )
    .await;
    assert_eq!(native.code, 0, "{}", native.stderr);
    assert_printed(&native.stdout, &PAID_INV_1);
    assert_redirect(&redirect, issuer);
}

/// Asserts that `redirect` went to fusion's loopback listener with a code,
/// a state and the issuer (RFC 9207 §2), and nothing else.
#[track_caller]
fn assert_redirect(redirect: &str, issuer: &str) {
    let url = reqwest::Url::parse(redirect).unwrap();
    assert_eq!(url.scheme(), "http");
    assert_eq!(url.host_str(), Some("127.0.0.1"));
    assert_eq!(url.path(), "/callback");
    let keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    assert_eq!(keys, ["code", "state", "iss"], "{redirect}");
    let iss = url.query_pairs().find(|(k, _)| k == "iss").unwrap().1;
    assert_eq!(iss, issuer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_up_reuses_the_client_registered_for_the_first_authorization() {
    let authorization = AuthorizationServer::start("key-1").await;
    let issuer = authorization.issuer.as_str();
    let db = TempDb::new("cli-oauth-code-step-up");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();

    // The account `reader` is granted billing:read alone: voiding an
    // invoice gets 403 insufficient_scope, fusion authorizes once more
    // (the user is sent to the authorization server again) with the client
    // it registered the first time: both authorization requests carry the
    // one client id oidc-provider assigned at /reg (a second registration
    // would have another). The second 403 is the error.
    let (run, urls, redirects) = call_through_browsers(
        &[
            "call",
            url,
            "billing.void_invoice",
            INV_1,
            "--color",
            "never",
        ],
        issuer,
        "reader",
    )
    .await;
    assert_eq!(urls.len(), 2, "{}", run.stderr);
    for redirect in &redirects {
        assert_redirect(redirect, issuer);
    }
    let registered = client_id(&urls[0]);
    assert_eq!(client_id(&urls[1]), registered);
    assert_ne!(registered, "native-app");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "{}{}error: could not authorize with {url}: step-up authorization did not get the scopes needed: the authorization server granted billing:read; tools/call billing needs billing:write (the server says: billing.void_invoice needs the scope billing:write, which the token does not have)\n{STEP_UP_HINT}\n",
            prompt(&urls[0]),
            prompt(&urls[1])
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_server_refuses_is_named_with_the_servers_reason() {
    // opaque-client gets opaque tokens, which a server without
    // --introspection-client cannot check: its second 401 is the error,
    // with its error_description, not a hint to start OAuth.
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("cli-oauth-refused");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();
    let refused = fusion(&as_client(
        url,
        "billing.get_invoice",
        INV_1,
        "opaque-client",
        "opaque-client-secret",
    ));
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        format!(
            "error: could not authorize with {url}: the server refused the token just obtained from its authorization server: invalid_token (The bearer token is not valid.)\n  hint: the server does not take the tokens its authorization server issued to fusion: its operator should check that the authorization server knows the server as a resource (the token's audience, RFC 8707) and that the server trusts that authorization server\n"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dotted_name_reaches_a_group_hidden_from_an_anonymous_tools_list() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("cli-oauth-anonymous-dotted");
    // Anonymous callers are served: their tools/list shows billing_health
    // only, the group `billing` being hidden until the call is authorized.
    let server = HttpServer::start_with(
        &db.0,
        &["--oauth-issuer", &authorization.issuer, "--allow-anonymous"],
    );
    let url = server.url.as_str();

    let run = fusion(&[
        "call",
        url,
        "billing.get_invoice",
        r#"{"id":"inv_3"}"#,
        "--oauth-client-id",
        "billing-full",
        "--oauth-client-secret",
        "billing-full-secret",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, DRAFT_GUIDANCE);
    assert_printed(&run.stdout, &DRAFT_INV_3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_without_the_scope_of_the_call_gets_the_servers_403_and_a_hint() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("cli-oauth-bearer-scope");
    let server = billing_server(&db, &authorization);
    let url = server.url.as_str();
    let token = authorization
        .token("billing-reader", "billing:read", Some(url))
        .await;

    let run = fusion(&[
        "call",
        url,
        "billing.void_invoice",
        r#"{"id": "inv_2", "reason": "Sent twice"}"#,
        "--bearer",
        &token,
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: the server answered HTTP 403: the token lacks a scope (Bearer error=\"insufficient_scope\", scope=\"billing:write\", resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", error_description=\"billing.void_invoice needs the scope billing:write, which the token does not have\")\n  hint: the token lacks scope billing:write: get a token with it, or drop --bearer (and FUSION_BEARER) to let fusion authorize\n",
            port = server.port
        )
    );
}
