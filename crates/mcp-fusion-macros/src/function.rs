//! What the macros read from the function itself: that it can be a handler,
//! its doc comment (the description), and who may build what it is made.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, Lit, Meta, Signature, Visibility};

use crate::attrs::literal;
use crate::errors::Errors;
use crate::target::Target;

/// Checks that `sig` is a handler the builder can take by path: an
/// `async fn`, not a method, not generic. Its parameters and return type are
/// left to `Action::new` (or the builder of `target`).
pub(crate) fn check(target: Target, sig: &Signature) -> syn::Result<()> {
    let attribute = target.attribute();
    let mut errors = Errors::default();
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new_spanned(
            sig.fn_token,
            format!(
                "{attribute} goes on an `async fn`: write `async fn {}`",
                sig.ident
            ),
        ));
    }
    if let Some(receiver) = sig.receiver() {
        errors.push(syn::Error::new_spanned(
            receiver,
            format!(
                "{attribute} goes on a free function, not a method: a handler cannot take `self`"
            ),
        ));
    }
    let generic = format!(
        "{attribute} cannot make {} of a generic function: remove the generic parameters",
        target.a_noun()
    );
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(&sig.generics, &generic));
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(where_clause, &generic));
    }
    errors.finish()
}

/// The description written as the doc comment: the `#[doc]` lines joined
/// with `\n`, one leading space removed from each line, blanks trimmed at
/// both ends; `None` when there is no text.
///
/// # Errors
/// A doc attribute whose value is not a string literal
/// (`#[doc = include_str!(..)]`): its text is not known to the macro.
pub(crate) fn doc_comment(target: Target, attrs: &[Attribute]) -> syn::Result<Option<String>> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        match &attr.meta {
            Meta::NameValue(pair) => match literal(&pair.value) {
                Some(Lit::Str(text)) => lines.push(text.value()),
                _ => {
                    return Err(syn::Error::new_spanned(
                        &pair.value,
                        format!(
                            "{} reads the description from doc comments written as text, and this one is computed: give it with `description = \"...\"`",
                            target.attribute()
                        ),
                    ));
                }
            },
            // `#[doc(hidden)]`, `#[doc(alias = "..")]`: no text.
            Meta::Path(_) | Meta::List(_) => {}
        }
    }
    let joined = lines.join("\n");
    let text = joined
        .lines()
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    Ok((!text.is_empty()).then(|| text.to_owned()))
}

/// The visibility of `action()` (`prompt()`, …) inside the module that sits
/// next to a function of visibility `vis`: the same set of modules, written from one
/// module further down (private → `pub(super)`, `pub(super)` →
/// `pub(in super::super)`, `pub` and `pub(crate)` unchanged).
pub(crate) fn builder_visibility(vis: &Visibility) -> TokenStream {
    match vis {
        Visibility::Inherited => quote!(pub(super)),
        Visibility::Public(_) => vis.to_token_stream(),
        Visibility::Restricted(restricted) => {
            let path = &restricted.path;
            let mut segments = path.segments.iter();
            match segments.next() {
                Some(first) if path.leading_colon.is_none() && first.ident == "self" => {
                    let rest: Vec<_> = segments.collect();
                    if rest.is_empty() {
                        quote!(pub(super))
                    } else {
                        quote!(pub(in super #(:: #rest)*))
                    }
                }
                Some(first) if path.leading_colon.is_none() && first.ident == "super" => {
                    quote!(pub(in super :: #path))
                }
                // `pub(crate)`, `pub(in crate::..)`: the same from anywhere.
                _ => vis.to_token_stream(),
            }
        }
    }
}

/// The `#[cfg(..)]` attributes of the function, which its module must share.
pub(crate) fn cfg_attributes(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("cfg"))
}
