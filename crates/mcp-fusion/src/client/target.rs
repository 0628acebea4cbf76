//! [`Target`]: where the server is (a Streamable HTTP URL, or a program
//! spoken to over stdio).

use std::fmt;

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// A Streamable HTTP endpoint, e.g. `http://127.0.0.1:8765/mcp`.
    Http {
        /// The endpoint URL (`http://` or `https://`).
        url: String,
    },
    /// A server spoken to over stdio: the client starts `program` with `args`
    /// (no shell) and stops it when the client closes.
    Stdio {
        /// The program, found on `PATH` when it has no slash.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl Target {
    /// A Streamable HTTP target.
    pub fn http(url: impl Into<String>) -> Self {
        Target::Http { url: url.into() }
    }

    /// A stdio target: `program` started with `args`.
    pub fn stdio<I, S>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Target::Stdio {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }
}

impl fmt::Display for Target {
    /// The URL (its password masked: `http://user:***@host/`), or the
    /// command line with its words separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Http { url } => f.write_str(&crate::redact::url(url)),
            Target::Stdio { program, args } => {
                f.write_str(program)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
        }
    }
}
