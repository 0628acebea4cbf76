//! Auth through the whole call path: AUTH_REQUIRED, UNAUTHORIZED and
//! FORBIDDEN from static tokens and JWTs, actions hidden from a caller
//! named anyway, and token files that refuse what a header cannot carry.

use mcp_fusion::guard::{JwtVerifier, StaticTokens};
use mcp_fusion::{Action, CallContext, FusionServer, Group, NoArgs, ToolError};
use serde_json::json;

use crate::guards::{code, http_parts, text};

fn auth_server() -> FusionServer {
    async fn read(ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
        Ok(format!(
            "read by {}",
            ctx.principal().map_or("nobody", |p| p.subject.as_str())
        ))
    }
    async fn open(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("open")
    }
    let tokens = StaticTokens::new()
        .token("reader-token", "alice", ["billing:read"])
        .token("admin-token", "root", ["billing:read", "billing:write"]);
    FusionServer::builder("t", "1")
        .auth(tokens)
        .group(
            Group::new("billing")
                .action(Action::new("read", read).requires_scopes(["billing:read"]))
                .action(Action::new("void", read).requires_scopes(["billing:write"]))
                .action(Action::new("open", open)),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_protected_action_named_as_a_tool_says_what_it_needs() {
    // An anonymous caller is not shown billing.read, but naming it as a
    // tool (as a model does) gets AUTH_REQUIRED, as through its group; an
    // action the caller is shown keeps the router's hint.
    let server = auth_server();
    let anonymous = server.call("billing.read", json!({})).await.unwrap();
    assert_eq!(
        text(&anonymous),
        "<tool_error code=\"AUTH_REQUIRED\" severity=\"error\">\n  <message>billing.read needs credentials, and the call carried none.</message>\n  <recovery>Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again.</recovery>\n</tool_error>"
    );
    let open = server.call("billing.open", json!({})).await.unwrap_err();
    assert_eq!(
        open.message,
        "Unknown tool \"billing.open\": the action billing.open is called through the tool \"billing\" with \"action\": \"open\" in its arguments. Valid tools: billing."
    );
}

#[tokio::test]
async fn a_group_hidden_whole_answers_a_wrong_action_with_what_it_needs() {
    // Every action of `vault` needs a scope: an anonymous caller is shown
    // none, so an unknown or missing action is not answered with a list of
    // actions it cannot see, but with what the group needs.
    async fn read(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("secret")
    }
    let server = FusionServer::builder("t", "1")
        .auth(StaticTokens::new().token("reader-token", "alice", ["vault:read"]))
        .group(
            Group::new("vault")
                .action(Action::new("read", read).requires_scopes(["vault:read"]))
                .action(Action::new("wipe", read).requires_scopes(["vault:write"])),
        )
        .build()
        .unwrap();
    let required = "<tool_error code=\"AUTH_REQUIRED\" severity=\"error\">\n  <message>vault needs credentials, and the call carried none.</message>\n  <recovery>Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again.</recovery>\n</tool_error>";
    for args in [json!({"action": "nope"}), json!({})] {
        let answer = server.call("vault", args).await.unwrap();
        assert_eq!(
            (text(&answer).as_str(), answer.is_error),
            (required, Some(true))
        );
    }
    // A caller who is shown the group keeps the router's answer.
    let reader = http_parts(&[("authorization", "Bearer reader-token")]);
    let unknown = server
        .call_with_http("vault", json!({"action": "nope"}), Some(reader))
        .await
        .unwrap();
    assert_eq!(code(&unknown), "UNKNOWN_ACTION");
}

#[tokio::test]
async fn auth_required_unauthorized_forbidden() {
    let server = auth_server();
    let call = |action: &str, token: Option<&str>| {
        let server = server.clone();
        let args = json!({"action": action});
        let parts = token.map(|t| http_parts(&[("authorization", &format!("Bearer {t}"))]));
        async move { server.call_with_http("billing", args, parts).await.unwrap() }
    };
    let none = call("read", None).await;
    assert_eq!(
        text(&none),
        "<tool_error code=\"AUTH_REQUIRED\" severity=\"error\">\n  <message>billing.read needs credentials, and the call carried none.</message>\n  <recovery>Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again.</recovery>\n</tool_error>"
    );
    let bad = call("read", Some("wrong-token")).await;
    assert_eq!(
        text(&bad),
        "<tool_error code=\"UNAUTHORIZED\" severity=\"error\">\n  <message>The bearer token is not valid.</message>\n  <recovery>Do not retry with the same token. Ask the user for a valid token, then call again.</recovery>\n</tool_error>"
    );
    assert!(!text(&bad).contains("wrong-token"));
    let forbidden = call("void", Some("reader-token")).await;
    assert_eq!(
        text(&forbidden),
        "<tool_error code=\"FORBIDDEN\" severity=\"error\">\n  <message>billing.void needs the scope \"billing:write\", which these credentials do not have.</message>\n  <recovery>Do not retry: the same credentials will be refused again. Tell the user the token lacks the scope \"billing:write\" and ask for one that has it.</recovery>\n  <details>\n    <detail key=\"missing_scopes\">billing:write</detail>\n  </details>\n</tool_error>"
    );
    assert!(!text(&forbidden).contains("reader-token"));
    assert_eq!(
        text(&call("read", Some("reader-token")).await),
        "read by alice"
    );
    assert_eq!(
        text(&call("void", Some("admin-token")).await),
        "read by root"
    );
    assert_eq!(text(&call("open", None).await), "open");
    assert_eq!(
        code(&call("open", Some("wrong-token")).await),
        "UNAUTHORIZED"
    );
}

#[tokio::test]
async fn jwt_tokens_give_subject_and_scopes_and_expire() {
    #[derive(serde::Serialize)]
    struct Claims<'a> {
        sub: &'a str,
        scope: &'a str,
        exp: u64,
    }
    let secret = b"a test secret of enough length!!";
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = jsonwebtoken::EncodingKey::from_secret(secret).unwrap();
    let sign = |exp| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::default(),
            &Claims {
                sub: "bob",
                scope: "billing:read billing:write",
                exp,
            },
            &key,
        )
        .unwrap()
    };
    async fn who(ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
        let p = ctx.principal().unwrap();
        Ok(format!("{} {:?}", p.subject, p.scopes))
    }
    let server = FusionServer::builder("t", "1")
        .auth(JwtVerifier::hs256(secret).unwrap())
        .tool(Action::new("who", who).requires_scopes(["billing:write"]))
        .build()
        .unwrap();
    let with = |token: String| Some(http_parts(&[("authorization", &format!("Bearer {token}"))]));
    let ok = server
        .call_with_http("who", json!({}), with(sign(now + 600)))
        .await
        .unwrap();
    assert_eq!(text(&ok), "bob {\"billing:read\", \"billing:write\"}");
    let expired = server
        .call_with_http("who", json!({}), with(sign(now - 600)))
        .await
        .unwrap();
    assert_eq!(code(&expired), "UNAUTHORIZED");
    assert!(text(&expired).contains("<message>The bearer token has expired.</message>"));
}

#[tokio::test]
async fn an_authorization_header_that_is_not_bearer_is_unauthorized() {
    let server = auth_server();
    let basic = Some(http_parts(&[("authorization", "Basic YWxpY2U6c2VjcmV0")]));
    let result = server
        .call_with_http("billing", json!({"action": "read"}), basic)
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "<tool_error code=\"UNAUTHORIZED\" severity=\"error\">\n  <message>The Authorization header does not hold a bearer token (`Bearer TOKEN`).</message>\n  <recovery>Send the token as `Authorization: Bearer TOKEN`, then call again.</recovery>\n</tool_error>"
    );
}

#[test]
fn token_files_refuse_tokens_a_header_cannot_carry() {
    let path = std::env::temp_dir().join(format!("guards-tokens-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"{"tokens": [{"token": " padded ", "subject": "ada", "scopes": []}]}"#,
    )
    .unwrap();
    let err = StaticTokens::from_file(&path).unwrap_err().to_string();
    let _ = std::fs::remove_file(&path);
    assert!(
        err.contains(
            "the token of entry 0 contains white space, which a bearer header cannot carry"
        ),
        "{err}"
    );
}
