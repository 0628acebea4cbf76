//! The attribute's arguments (`read_only, timeout = "2s", uri = "…", …`):
//! read, checked, and turned into the builder calls on `Action`, `Prompt`,
//! `Resource` or `ResourceTemplate` they stand for.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, MetaNameValue, Token};

use crate::errors::Errors;
use crate::kind::Kind;
use crate::target::Target;
use crate::values;

/// What the attribute says, ready to be written into the builder chain.
#[derive(Default)]
pub(crate) struct Attributes {
    /// `uri = "..."`: the URI (or URI template) of a resource (template);
    /// given whenever the target takes it.
    pub(crate) uri: Option<LitStr>,
    /// `name = "..."`: the name instead of the function's.
    pub(crate) name: Option<LitStr>,
    /// `description = "..."`: the description instead of the doc comment.
    pub(crate) description: Option<LitStr>,
    /// One builder call (`.read_only()`, `.title(..)`, …) per other
    /// attribute, in the order they are written.
    pub(crate) setters: Vec<TokenStream>,
    /// Whether a setter names an item of the function's module
    /// (`returns = INVOICE`): the builder then imports them.
    pub(crate) names_items: bool,
}

impl Attributes {
    /// Reads the arguments of `#[action(...)]` (or of the attribute of
    /// `target`), reporting every problem: an argument `target` does not
    /// take, one given twice, a value of the wrong kind, a missing `uri`.
    pub(crate) fn parse(target: Target, args: TokenStream) -> syn::Result<Attributes> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
        let mut attributes = Attributes::default();
        let mut seen: Vec<Kind> = Vec::new();
        let mut errors = Errors::default();
        for meta in &metas {
            let Some(&kind) = target
                .kinds()
                .iter()
                .find(|kind| meta.path().is_ident(kind.name()))
            else {
                errors.push(unknown(target, meta.path()));
                continue;
            };
            if seen.contains(&kind) && !kind.repeatable() {
                errors.push(syn::Error::new_spanned(
                    meta.path(),
                    format!("`{}` is given twice", kind.name()),
                ));
                continue;
            }
            seen.push(kind);
            if let Err(e) = attributes.add(kind, meta) {
                errors.push(e);
            }
        }
        if target.kinds().contains(&Kind::Uri) && !seen.contains(&Kind::Uri) {
            errors.push(syn::Error::new(
                Span::call_site(),
                format!(
                    "{} needs the {}'s URI: write `{}`",
                    target.attribute(),
                    target.noun(),
                    Kind::Uri.form()
                ),
            ));
        }
        errors.finish()?;
        Ok(attributes)
    }

    /// Records `meta`, of kind `kind`.
    fn add(&mut self, kind: Kind, meta: &Meta) -> syn::Result<()> {
        let span = meta.path().span();
        let setter = match kind {
            Kind::Uri => {
                self.uri = Some(string(kind, meta)?);
                return Ok(());
            }
            Kind::Name => {
                self.name = Some(string(kind, meta)?);
                return Ok(());
            }
            Kind::Description => {
                self.description = Some(string(kind, meta)?);
                return Ok(());
            }
            Kind::Returns => {
                let presenter = expression(kind, meta)?;
                self.names_items = true;
                quote_spanned!(span=> .returns(&#presenter))
            }
            Kind::ReturnsMany => {
                let presenter = expression(kind, meta)?;
                self.names_items = true;
                quote_spanned!(span=> .returns_many(&#presenter))
            }
            _ => setter(kind, meta)?,
        };
        self.setters.push(setter);
        Ok(())
    }
}

/// The builder call `meta`, of kind `kind`, stands for (`.read_only()`,
/// `.timeout(..)`, …): every kind but those [`Attributes::add`] keeps or
/// marks itself.
fn setter(kind: Kind, meta: &Meta) -> syn::Result<TokenStream> {
    let span = meta.path().span();
    Ok(match kind {
        Kind::Title => {
            let title = string(kind, meta)?;
            quote_spanned!(span=> .title(#title))
        }
        Kind::MimeType => {
            let mime_type = string(kind, meta)?;
            quote_spanned!(span=> .mime_type(#mime_type))
        }
        Kind::ReadOnly => flag(kind, meta, quote_spanned!(span=> .read_only()))?,
        Kind::Idempotent => flag(kind, meta, quote_spanned!(span=> .idempotent()))?,
        Kind::Destructive => flag(kind, meta, quote_spanned!(span=> .destructive()))?,
        Kind::RequiresAuth => flag(kind, meta, quote_spanned!(span=> .requires_auth()))?,
        Kind::AllowUnknownFields => {
            flag(kind, meta, quote_spanned!(span=> .allow_unknown_fields()))?
        }
        Kind::NotSerialized => flag(kind, meta, quote_spanned!(span=> .not_serialized()))?,
        Kind::SerializeBy => {
            let argument = string(kind, meta)?;
            quote_spanned!(span=> .serialize_by(#argument))
        }
        Kind::Deprecated => {
            let replacement = string(kind, meta)?;
            quote_spanned!(span=> .deprecated(#replacement))
        }
        Kind::DeprecatedField => match strings(kind, meta)?.as_slice() {
            [field, replacement] => {
                quote_spanned!(span=> .deprecated_field(#field, #replacement))
            }
            _ => return Err(kind.misused(meta)),
        },
        Kind::Timeout => {
            let millis = Literal::u64_unsuffixed(values::timeout_millis(&string(kind, meta)?)?);
            quote_spanned!(span=> .timeout(::std::time::Duration::from_millis(#millis)))
        }
        Kind::RateLimit => {
            let (calls, period) = values::rate_limit(&string(kind, meta)?)?;
            let calls = Literal::u32_unsuffixed(calls);
            let secs = Literal::u64_unsuffixed(period.as_secs());
            quote_spanned!(span=>
                .rate_limit(::mcp_fusion::RateLimit::new(#calls, ::std::time::Duration::from_secs(#secs)))
            )
        }
        Kind::Concurrency => {
            let (max_active, max_queue) = concurrency(kind, meta)?;
            let max_active = Literal::usize_unsuffixed(max_active);
            let max_queue = Literal::usize_unsuffixed(max_queue);
            quote_spanned!(span=> .concurrency(#max_active, #max_queue))
        }
        Kind::EgressLimit => {
            let bytes = whole_number(kind, meta)?;
            quote_spanned!(span=> .egress_limit(#bytes))
        }
        Kind::RequiresScopes => {
            let scopes = strings(kind, meta)?;
            if scopes.is_empty() {
                return Err(kind.misused(meta));
            }
            quote_spanned!(span=> .requires_scopes([#(#scopes),*]))
        }
        Kind::NarrowedBy => {
            let arguments = strings(kind, meta)?;
            if arguments.is_empty() {
                return Err(kind.misused(meta));
            }
            quote_spanned!(span=> .narrowed_by([#(#arguments),*]))
        }
        // Kept or marked by `Attributes::add`, never reached here.
        _ => return Err(kind.misused(meta)),
    })
}

/// The error for an argument the attribute of `target` does not take,
/// naming every one it does.
fn unknown(target: Target, path: &syn::Path) -> syn::Error {
    let known: Vec<&str> = target.kinds().iter().map(|kind| kind.form()).collect();
    let name = path.to_token_stream().to_string().replace(' ', "");
    syn::Error::new_spanned(
        path,
        format!(
            "unknown attribute `{name}`; the attributes of {} are: {}",
            target.attribute(),
            known.join(", ")
        ),
    )
}

/// `setter` when `meta` is the bare word, else the error.
fn flag(kind: Kind, meta: &Meta, setter: TokenStream) -> syn::Result<TokenStream> {
    match meta {
        Meta::Path(_) => Ok(setter),
        _ => Err(kind.misused(meta)),
    }
}

/// The string of `kind = "..."`.
fn string(kind: Kind, meta: &Meta) -> syn::Result<LitStr> {
    match meta {
        Meta::NameValue(pair) => match literal(&pair.value) {
            Some(Lit::Str(lit)) => Ok(lit.clone()),
            _ => Err(kind.misused(meta)),
        },
        _ => Err(kind.misused(meta)),
    }
}

/// The expression of `kind = EXPR` (a presenter: not a literal).
fn expression(kind: Kind, meta: &Meta) -> syn::Result<Expr> {
    match meta {
        Meta::NameValue(pair) if literal(&pair.value).is_none() => Ok(pair.value.clone()),
        _ => Err(kind.misused(meta)),
    }
}

/// The literal `expr` is, if it is one (syn reads a `macro_rules!` fragment
/// holding a literal as the literal).
pub(crate) fn literal(expr: &Expr) -> Option<&Lit> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => Some(lit),
        _ => None,
    }
}

/// The number of `kind = 65536`: a whole number that fits a `usize`.
fn whole_number(kind: Kind, meta: &Meta) -> syn::Result<Literal> {
    let Meta::NameValue(pair) = meta else {
        return Err(kind.misused(meta));
    };
    let Some(Lit::Int(value)) = literal(&pair.value) else {
        return Err(kind.misused(meta));
    };
    let bytes: usize = value.base10_parse()?;
    Ok(Literal::usize_unsuffixed(bytes))
}

/// The strings of `kind("a", "b", …)`.
fn strings(kind: Kind, meta: &Meta) -> syn::Result<Vec<LitStr>> {
    let Meta::List(list) = meta else {
        return Err(kind.misused(meta));
    };
    list.parse_args_with(Punctuated::<LitStr, Token![,]>::parse_terminated)
        .map(|strings| strings.into_iter().collect())
        .map_err(|_| kind.misused(meta))
}

/// `max_active` and `max_queue` of `concurrency(max_active = 4, max_queue = 16)`.
fn concurrency(kind: Kind, meta: &Meta) -> syn::Result<(usize, usize)> {
    let Meta::List(list) = meta else {
        return Err(kind.misused(meta));
    };
    let pairs = list
        .parse_args_with(Punctuated::<MetaNameValue, Token![,]>::parse_terminated)
        .map_err(|_| kind.misused(meta))?;
    let mut max_active = None;
    let mut max_queue = None;
    for pair in &pairs {
        let slot = if pair.path.is_ident("max_active") {
            &mut max_active
        } else if pair.path.is_ident("max_queue") {
            &mut max_queue
        } else {
            return Err(kind.misused(meta));
        };
        let Some(Lit::Int(value)) = literal(&pair.value) else {
            return Err(kind.misused(meta));
        };
        if slot.replace(value).is_some() {
            return Err(kind.misused(meta));
        }
    }
    let (Some(max_active), Some(max_queue)) = (max_active, max_queue) else {
        return Err(kind.misused(meta));
    };
    let active: usize = max_active.base10_parse()?;
    if active == 0 {
        return Err(syn::Error::new(
            max_active.span(),
            "max_active must be at least 1",
        ));
    }
    Ok((active, max_queue.base10_parse()?))
}
