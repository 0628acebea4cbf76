//! [`UiCsp`] and [`UiPermissions`]: what an app's view asks its host to
//! allow (SEP-1865 `McpUiResourceCsp` and `permissions`).

use serde_json::{Map, Value, json};

/// The origins an app's view may reach beyond itself (SEP-1865
/// `McpUiResourceCsp`); the host builds the view's Content Security Policy
/// from them. Each list empty by default: no outside origin at all, the
/// spec's restrictive default (`connect-src 'none'`, no outside images,
/// scripts, styles or fonts, `frame-src 'none'`, `base-uri 'self'`).
/// Origins are as CSP writes them: `https://api.example.com`,
/// `https://*.example.com`, `wss://realtime.example.com`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiCsp {
    /// Origins for `fetch`, XHR and WebSocket (`connectDomains`, CSP
    /// `connect-src`). Default: none.
    pub connect_domains: Vec<String>,
    /// Origins for images, scripts, stylesheets, fonts and media
    /// (`resourceDomains`). Default: none.
    pub resource_domains: Vec<String>,
    /// Origins of nested iframes (`frameDomains`, CSP `frame-src`).
    /// Default: none.
    pub frame_domains: Vec<String>,
    /// Allowed base URIs of the document (`baseUriDomains`, CSP
    /// `base-uri`). Default: the view's own origin only.
    pub base_uri_domains: Vec<String>,
}

impl UiCsp {
    /// No outside origin (the default).
    pub fn new() -> Self {
        UiCsp::default()
    }

    /// Adds an origin for `fetch`, XHR and WebSocket (`connectDomains`).
    pub fn connect_domain(mut self, origin: impl Into<String>) -> Self {
        self.connect_domains.push(origin.into());
        self
    }

    /// Adds an origin for images, scripts, styles, fonts and media
    /// (`resourceDomains`).
    pub fn resource_domain(mut self, origin: impl Into<String>) -> Self {
        self.resource_domains.push(origin.into());
        self
    }

    /// Adds an origin for nested iframes (`frameDomains`).
    pub fn frame_domain(mut self, origin: impl Into<String>) -> Self {
        self.frame_domains.push(origin.into());
        self
    }

    /// Adds an allowed base URI (`baseUriDomains`).
    pub fn base_uri_domain(mut self, origin: impl Into<String>) -> Self {
        self.base_uri_domains.push(origin.into());
        self
    }

    /// The first entry that is not one origin, and why: checked when the
    /// view is built into a server (`BuildError::BadApp`).
    pub(crate) fn problem(&self) -> Option<String> {
        [
            &self.connect_domains,
            &self.resource_domains,
            &self.frame_domains,
            &self.base_uri_domains,
        ]
        .into_iter()
        .flatten()
        .find_map(|source| bad_source(source).map(|why| format!("CSP entry \"{source}\" {why}")))
    }

    /// The `csp` object of `_meta.ui`: every list, empty ones included, so
    /// that a host reads "none" as declared, not as left out.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "connectDomains": self.connect_domains,
            "resourceDomains": self.resource_domains,
            "frameDomains": self.frame_domains,
            "baseUriDomains": self.base_uri_domains,
        })
    }
}

/// The browser features an app's view asks for (SEP-1865 `permissions`;
/// the host MAY grant them through the iframe's `allow` attribute, and the
/// view should not count on them). None by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UiPermissions {
    /// Camera access (Permission Policy `camera`).
    pub camera: bool,
    /// Microphone access (`microphone`).
    pub microphone: bool,
    /// Geolocation (`geolocation`).
    pub geolocation: bool,
    /// Writing to the clipboard (`clipboard-write`; `clipboardWrite`).
    pub clipboard_write: bool,
}

impl UiPermissions {
    /// No permission (the default).
    pub fn new() -> Self {
        UiPermissions::default()
    }

    /// Asks for camera access.
    pub fn camera(mut self) -> Self {
        self.camera = true;
        self
    }

    /// Asks for microphone access.
    pub fn microphone(mut self) -> Self {
        self.microphone = true;
        self
    }

    /// Asks for geolocation.
    pub fn geolocation(mut self) -> Self {
        self.geolocation = true;
        self
    }

    /// Asks to write to the clipboard.
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = true;
        self
    }

    /// The `permissions` object of `_meta.ui` (`{"camera": {}, …}`), or
    /// `None` when nothing is asked.
    pub(crate) fn to_json(self) -> Option<Value> {
        let mut asked = Map::new();
        for (on, key) in [
            (self.camera, "camera"),
            (self.microphone, "microphone"),
            (self.geolocation, "geolocation"),
            (self.clipboard_write, "clipboardWrite"),
        ] {
            if on {
                asked.insert(key.into(), json!({}));
            }
        }
        (!asked.is_empty()).then_some(Value::Object(asked))
    }
}

/// Why `source` is not one origin a view's CSP may name, if it is not: an
/// empty entry, one holding whitespace, `;`, `,` or quotes (another
/// directive or a keyword such as `'unsafe-inline'`), `*` alone (every
/// origin) or a bare scheme (`https:`, `data:`: every origin of it).
fn bad_source(source: &str) -> Option<&'static str> {
    if source.is_empty() {
        Some("is empty")
    } else if source
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, ';' | ',' | '\'' | '"'))
    {
        Some(
            "holds whitespace, ';', ',' or a quote: give one origin per entry, no keyword or directive",
        )
    } else if source == "*" || source.ends_with(':') {
        Some("allows every origin (of a scheme): name the origins, e.g. https://api.example.com")
    } else {
        None
    }
}
