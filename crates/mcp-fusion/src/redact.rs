//! Credentials kept out of logs and messages: [`url`], one rule for every URL
//! the crate prints (Redis stores, HTTP targets).

/// `url` with the password of its user information masked
/// (`redis://:secret@host/0` → `redis://:***@host/0`,
/// `http://ada:pw@host/mcp` → `http://ada:***@host/mcp`); a user name
/// without a password is kept, and nothing else changes (an `@` in the path
/// or query is not user information: `http://host/?u=a@b` stays as it is).
/// Text that is not a URL is returned unchanged.
pub(crate) fn url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.password().is_none() {
        return url.to_owned();
    }
    if parsed.set_password(Some("***")).is_err() {
        return url.to_owned();
    }
    parsed.to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_password_is_masked() {
        assert_eq!(
            super::url("redis://:secret@127.0.0.1:6379/0"),
            "redis://:***@127.0.0.1:6379/0"
        );
        assert_eq!(
            super::url("http://ada:pw@host:8080/mcp"),
            "http://ada:***@host:8080/mcp"
        );
        assert_eq!(super::url("http://ada@host/mcp"), "http://ada@host/mcp");
        assert_eq!(super::url("http://host/mcp?u=a@b"), "http://host/mcp?u=a@b");
        assert_eq!(super::url("http://host/a@b:c"), "http://host/a@b:c");
        assert_eq!(super::url("not a url"), "not a url");
    }
}
