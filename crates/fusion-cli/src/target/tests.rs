//! Tests of the targets: how a server to reach is named and opened.

use super::*;

fn args(cmd: Option<&str>) -> ConnectArgs {
    ConnectArgs {
        cmd: cmd.map(str::to_owned),
        timeout: 60.0,
        discriminator: "action".into(),
        server_stderr: false,
        color: ColorChoice::Never,
        otel: None,
        protocol_version: ProtocolRevision::V2025_11_25,
        bearer: None,
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth_private_key: None,
        oauth_signing_alg: None,
        oauth_grant: None,
        oauth_client_metadata_url: None,
        oauth_redirect_timeout: 300.0,
        no_oauth: false,
    }
}

/// The connection flags of `words` (after a program name), as clap reads
/// them; the error's kind when clap refuses them.
fn parsed(words: &[&str]) -> Result<ConnectArgs, clap::error::ErrorKind> {
    #[derive(clap::Parser)]
    struct Flags {
        #[command(flatten)]
        connect: ConnectArgs,
    }
    use clap::Parser;
    Flags::try_parse_from(std::iter::once("fusion").chain(words.iter().copied()))
        .map(|flags| flags.connect)
        .map_err(|e| e.kind())
}

#[test]
fn protocol_version_chooses_the_revision() {
    let revision = |words: &[&str]| parsed(words).map(|a| a.client_options().protocol);
    assert_eq!(revision(&[]), Ok(ProtocolRevision::V2025_11_25));
    assert_eq!(
        revision(&["--protocol-version", "2026-07-28"]),
        Ok(ProtocolRevision::V2026_07_28)
    );
    assert_eq!(
        revision(&["--protocol-version", "auto"]),
        Ok(ProtocolRevision::Negotiate)
    );
    assert_eq!(
        revision(&["--protocol-version", "2025-06-18"]),
        Err(clap::error::ErrorKind::ValueValidation)
    );
}

#[test]
fn otel_chooses_what_is_done_with_the_spans() {
    let otel = |words: &[&str]| parsed(words).map(|a| a.otel);
    assert_eq!(otel(&["--otel", "export"]), Ok(Some(OtelFlag::Export)));
    assert_eq!(
        otel(&["--otel", "propagate"]),
        Ok(Some(OtelFlag::Propagate))
    );
    assert_eq!(
        otel(&["--otel", "stdout"]),
        Err(clap::error::ErrorKind::InvalidValue)
    );
}

#[test]
fn oauth_flags_choose_the_grant() {
    // No flag: the authorization code grant, dynamic registration.
    let oauth = parsed(&[]).unwrap().oauth_options().unwrap();
    assert_eq!(oauth.grant, OAuthGrant::AuthorizationCode);
    assert_eq!(oauth.client_id, None);
    assert_eq!(oauth.redirect_timeout, Duration::from_secs(300));
    // Id and secret: client credentials.
    let oauth = parsed(&["--oauth-client-id", "cli", "--oauth-client-secret", "s3"])
        .unwrap()
        .oauth_options()
        .unwrap();
    assert_eq!(oauth.grant, OAuthGrant::ClientCredentials);
    assert_eq!(oauth.client_id.as_deref(), Some("cli"));
    assert!(!format!("{oauth:?}").contains("s3"), "{oauth:?}");
    // Id alone: a pre-registered public client, authorization code.
    let oauth = parsed(&["--oauth-client-id", "cli", "--oauth-redirect-timeout", "20"])
        .unwrap()
        .oauth_options()
        .unwrap();
    assert_eq!(oauth.grant, OAuthGrant::AuthorizationCode);
    assert_eq!(oauth.client_id.as_deref(), Some("cli"));
    assert_eq!(oauth.redirect_timeout, Duration::from_secs(20));
    // Id and secret, the code grant asked for: a confidential client.
    let oauth = parsed(&[
        "--oauth-client-id",
        "cli",
        "--oauth-client-secret",
        "s3",
        "--oauth-grant",
        "authorization-code",
    ])
    .unwrap()
    .oauth_options()
    .unwrap();
    assert_eq!(oauth.grant, OAuthGrant::AuthorizationCode);
    assert!(oauth.client_secret.is_some());
    // --no-oauth and --bearer: no OAuth.
    assert!(parsed(&["--no-oauth"]).unwrap().oauth_options().is_none());
    let bearer = parsed(&["--bearer", "t"]).unwrap();
    assert!(bearer.oauth_options().is_none());
    assert!(bearer.client_options().oauth.is_none());
    assert!(bearer.client_options().bearer.is_some());
}

/// A file in the temporary directory holding `text`, named after the
/// test and the process (so parallel runs do not share it).
fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("fusion-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_private_key_file_chooses_client_credentials_with_private_key_jwt() {
    let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMG\n-----END PRIVATE KEY-----\n";
    let file = temp_file("key.pem", pem);
    let path = file.to_str().unwrap();
    let flags = parsed(&[
        "--oauth-client-id",
        "cli",
        "--oauth-private-key",
        path,
        "--oauth-signing-alg",
        "es256",
    ])
    .unwrap();
    assert_eq!(
        format!("{:?}", flags.oauth_private_key.as_ref().unwrap()),
        format!("PrivateKeyFile {{ path: {file:?}, .. }}")
    );
    let oauth = flags.oauth_options().unwrap();
    assert_eq!(oauth.grant, OAuthGrant::ClientCredentials);
    assert_eq!(oauth.client_id.as_deref(), Some("cli"));
    assert!(oauth.client_secret.is_none());
    let key = oauth.client_assertion_key.as_ref().unwrap();
    assert_eq!(key.algorithm(), ClientAssertionAlgorithm::Es256);
    assert!(!format!("{oauth:?}").contains("MIGHAgEAMBMG"), "{oauth:?}");
    // The algorithm's default, and the grant named explicitly.
    let oauth = parsed(&[
        "--oauth-grant",
        "client-credentials",
        "--oauth-client-id",
        "cli",
        "--oauth-private-key",
        path,
    ])
    .unwrap()
    .oauth_options()
    .unwrap();
    assert_eq!(
        oauth.client_assertion_key.unwrap().algorithm(),
        ClientAssertionAlgorithm::Rs256
    );
    std::fs::remove_file(file).unwrap();
}

#[test]
fn the_signing_algorithm_is_the_one_the_key_is_for() {
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/oauth/billing-keyed.pem"
    );
    let with = |alg: Option<&str>| {
        let mut words = vec!["--oauth-client-id", "cli", "--oauth-private-key", key];
        if let Some(alg) = alg {
            words.extend(["--oauth-signing-alg", alg]);
        }
        parsed(&words).unwrap()
    };
    // An EC P-256 key and no --oauth-signing-alg: ES256.
    let chosen = with(None);
    assert!(chosen.target(Some("http://127.0.0.1:8080/mcp")).is_ok());
    let oauth = chosen.oauth_options().unwrap();
    assert_eq!(
        oauth.client_assertion_key.unwrap().algorithm(),
        ClientAssertionAlgorithm::Es256
    );
    assert!(with(Some("ES256")).target(Some("http://x/mcp")).is_ok());
    // An algorithm the key cannot sign with: a usage error naming the one it needs.
    for alg in ["RS256", "ES384"] {
        assert_eq!(
            with(Some(alg)).target(Some("http://x/mcp")).unwrap_err().0,
            format!(
                "--oauth-signing-alg {alg} does not suit --oauth-private-key `{key}`: it holds a P-256 key, which signs with ES256 (leave --oauth-signing-alg out to use it)"
            )
        );
    }
}

#[test]
fn a_private_key_flag_without_a_usable_key_is_a_usage_error() {
    use clap::error::ErrorKind;
    let not_pem = temp_file("not-a-key.txt", "just text\n");
    let missing = std::env::temp_dir().join(format!("fusion-{}-none.pem", std::process::id()));
    for path in [&not_pem, &missing] {
        assert_eq!(
            parsed(&[
                "--oauth-client-id",
                "cli",
                "--oauth-private-key",
                path.to_str().unwrap()
            ])
            .err(),
            Some(ErrorKind::ValueValidation)
        );
    }
    assert_eq!(
        private_key_file(not_pem.to_str().unwrap()).unwrap_err(),
        format!(
            "`{}` holds no PEM private key (a -----BEGIN PRIVATE KEY----- block, or BEGIN RSA / EC PRIVATE KEY)",
            not_pem.display()
        )
    );
    let pem = temp_file(
        "key2.pem",
        "-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----\n",
    );
    let pem = pem.to_str().unwrap();
    // No client id; a secret too; an unknown algorithm.
    assert_eq!(
        parsed(&["--oauth-private-key", pem]).err(),
        Some(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(
        parsed(&[
            "--oauth-client-id",
            "c",
            "--oauth-client-secret",
            "s",
            "--oauth-private-key",
            pem
        ])
        .err(),
        Some(ErrorKind::ArgumentConflict)
    );
    assert_eq!(
        parsed(&[
            "--oauth-client-id",
            "c",
            "--oauth-private-key",
            pem,
            "--oauth-signing-alg",
            "HS256"
        ])
        .err(),
        Some(ErrorKind::ValueValidation)
    );
    std::fs::remove_file(not_pem).unwrap();
    std::fs::remove_file(pem).unwrap();
}

#[test]
fn the_timeout_bounds_each_exchange_with_the_authorization_server() {
    let oauth = parsed(&["--timeout", "5"])
        .unwrap()
        .oauth_options()
        .unwrap();
    assert_eq!(oauth.request_timeout, Duration::from_secs(5));
}

#[test]
fn a_client_metadata_url_must_be_https_with_a_path() {
    assert_eq!(
        client_metadata_url("https://client.example.com/fusion.json").as_deref(),
        Ok("https://client.example.com/fusion.json")
    );
    for url in [
        "http://evil.example/client.json",
        "https://client.example.com/",
        "https://client.example.com",
        "client.json",
    ] {
        assert_eq!(
            client_metadata_url(url),
            Err(format!(
                "`{url}` is not an https:// URL with a path: a client ID metadata document URL must be https:// with a path, e.g. https://client.example.com/fusion.json"
            ))
        );
    }
    assert_eq!(
        parsed(&[
            "--oauth-client-metadata-url",
            "http://evil.example/client.json"
        ])
        .err(),
        Some(clap::error::ErrorKind::ValueValidation)
    );
}

#[test]
fn oauth_flags_that_do_not_fit_together_are_usage_errors() {
    use clap::error::ErrorKind;
    let refused = |words: &[&str]| parsed(words).err();
    assert_eq!(
        refused(&["--oauth-client-secret", "s3"]),
        Some(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(
        refused(&[
            "--oauth-grant",
            "client-credentials",
            "--oauth-client-id",
            "cli"
        ]),
        Some(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(
        refused(&["--bearer", "t", "--oauth-client-id", "cli"]),
        Some(ErrorKind::ArgumentConflict)
    );
    assert_eq!(
        refused(&["--no-oauth", "--oauth-client-id", "cli"]),
        Some(ErrorKind::ArgumentConflict)
    );
    assert_eq!(
        refused(&["--oauth-redirect-timeout", "0"]),
        Some(ErrorKind::ValueValidation)
    );
}

#[test]
fn targets() {
    assert_eq!(
        args(None)
            .target(Some("http://127.0.0.1:8080/mcp"))
            .unwrap(),
        Target::http("http://127.0.0.1:8080/mcp")
    );
    assert_eq!(
        args(Some("node 'my server.js' --flag"))
            .target(None)
            .unwrap(),
        Target::stdio("node", ["my server.js", "--flag"])
    );
    assert!(args(Some("a")).target(Some("http://x")).is_err());
    assert!(args(None).target(None).is_err());
    assert!(args(Some("  ")).target(None).is_err());
    assert!(args(Some("node 'open")).target(None).is_err());
    let err = args(None).target(Some("fusion serve --stdio")).unwrap_err();
    assert_eq!(
        err.0,
        "`fusion serve --stdio` is not an http:// or https:// URL; for a server spoken to over stdio use --cmd 'fusion serve --stdio'"
    );
}

#[test]
fn a_url_without_its_scheme_gets_the_http_suggestion() {
    let suggestion = |text: &str| args(None).target(Some(text)).unwrap_err().0;
    assert_eq!(
        suggestion("127.0.0.1:8080/mcp"),
        "`127.0.0.1:8080/mcp` has no scheme: did you mean `http://127.0.0.1:8080/mcp`? A URL starts with http:// or https://."
    );
    assert_eq!(
        suggestion("localhost:8080/mcp"),
        "`localhost:8080/mcp` has no scheme: did you mean `http://localhost:8080/mcp`? A URL starts with http:// or https://."
    );
    assert_eq!(
        suggestion("localhost:8080"),
        "`localhost:8080` has no scheme: did you mean `http://localhost:8080`? (the endpoint of `fusion serve` is http://localhost:8080/mcp) A URL starts with http:// or https://."
    );
    assert_eq!(
        suggestion("[::1]:9000/mcp"),
        "`[::1]:9000/mcp` has no scheme: did you mean `http://[::1]:9000/mcp`? A URL starts with http:// or https://."
    );
    for not_host_port in [
        "localhost/mcp",
        "./server.js",
        "node server.js",
        "host:port/mcp",
        "host:123456",
        ":8080/mcp",
        "a b:80",
        "ftp://host:21",
        "C:\\server.exe",
    ] {
        assert!(missing_scheme(not_host_port).is_none(), "{not_host_port}");
        assert!(
            suggestion(not_host_port).contains("use --cmd"),
            "{not_host_port}"
        );
    }
}

#[test]
fn seconds() {
    assert_eq!(positive_seconds("2.5"), Ok(2.5));
    for bad in ["0", "-1", "NaN", "inf", "x", "1e9"] {
        assert!(positive_seconds(bad).is_err(), "{bad}");
    }
}
