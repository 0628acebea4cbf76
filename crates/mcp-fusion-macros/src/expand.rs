//! The expansion: the function as written, then a module of the same name
//! whose `action()` is the builder chain a user would write by hand.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Item, ItemFn, LitStr};

use crate::attrs::Attributes;
use crate::errors::Errors;
use crate::function;

/// `#[action(args)] item`, expanded. On errors: the item as written and the
/// errors, so that the function's own uses do not add more.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match action(args, item.clone()) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let mut tokens = item;
            tokens.extend(errors.to_compile_error());
            tokens
        }
    }
}

/// The expansion, or every error found in the attribute and the function.
fn action(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let function: ItemFn = match syn::parse2(item.clone())? {
        Item::Fn(function) => function,
        other => {
            return Err(syn::Error::new(
                other.span(),
                "#[action] goes on an `async fn`",
            ));
        }
    };
    let mut errors = Errors::default();
    let attributes = Attributes::parse(args).unwrap_or_else(|e| {
        errors.push(e);
        Attributes::default()
    });
    if let Err(e) = function::check(&function.sig) {
        errors.push(e);
    }
    let description = match attributes.description {
        Some(text) => Some(text),
        None => function::doc_comment(&function.attrs)
            .unwrap_or_else(|e| {
                errors.push(e);
                None
            })
            .map(|text| LitStr::new(&text, Span::call_site())),
    };
    errors.finish()?;

    let ident = &function.sig.ident;
    let name = attributes
        .name
        .unwrap_or_else(|| LitStr::new(&ident.unraw().to_string(), ident.span()));
    let description = description.map(|text| quote!(.description(#text)));
    let setters = &attributes.setters;
    let vis = &function.vis;
    let action_vis = function::action_visibility(vis);
    let cfgs = function::cfg_attributes(&function.attrs);
    let module_doc =
        format!(" The action of the function `{ident}`: `{ident}::action()`, made by `#[action]`.");
    let action_doc = format!(
        " The action `{}`, run by the function `{ident}`, with its description and the settings of its `#[action]`.",
        name.value()
    );
    let new = quote_spanned!(ident.span()=> ::mcp_fusion::Action::new(#name, super::#ident));
    Ok(quote! {
        #item
        #(#cfgs)*
        #[doc = #module_doc]
        #vis mod #ident {
            #[doc = #action_doc]
            #action_vis fn action() -> ::mcp_fusion::Action {
                #new
                    #description
                    #(#setters)*
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(args: TokenStream, item: TokenStream) -> String {
        expand(args, item).to_string()
    }

    /// The message of every error of the expansion, in order.
    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        match action(args, item) {
            Ok(tokens) => panic!("expected errors, got {tokens}"),
            Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_full_example_is_the_builder_chain() {
        let item = quote! {
            /// Fetch one invoice by its id.
            ///
            /// Returns the invoice as JSON.
            pub async fn get_invoice(ctx: CallContext, args: GetInvoice) -> Result<String, ToolError> {
                todo!()
            }
        };
        let args = quote! {
            read_only, idempotent, timeout = "2s", requires_scopes("billing:read"),
            rate_limit = "2/min", concurrency(max_active = 4, max_queue = 16),
            deprecated = "billing.fetch", deprecated_field("old", "new"),
            deprecated_field("older", "newer"), destructive, requires_auth, allow_unknown_fields
        };
        let expected = quote! {
            #item
            #[doc = " The action of the function `get_invoice`: `get_invoice::action()`, made by `#[action]`."]
            pub mod get_invoice {
                #[doc = " The action `get_invoice`, run by the function `get_invoice`, with its description and the settings of its `#[action]`."]
                pub fn action() -> ::mcp_fusion::Action {
                    ::mcp_fusion::Action::new("get_invoice", super::get_invoice)
                        .description("Fetch one invoice by its id.\n\nReturns the invoice as JSON.")
                        .read_only()
                        .idempotent()
                        .timeout(::std::time::Duration::from_millis(2000))
                        .requires_scopes(["billing:read"])
                        .rate_limit(::mcp_fusion::RateLimit::new(2, ::std::time::Duration::from_secs(60)))
                        .concurrency(4, 16)
                        .deprecated("billing.fetch")
                        .deprecated_field("old", "new")
                        .deprecated_field("older", "newer")
                        .destructive()
                        .requires_auth()
                        .allow_unknown_fields()
                }
            }
        };
        assert_eq!(expanded(args, item), expected.to_string());
    }

    #[test]
    fn name_and_description_override_and_no_doc_means_no_description() {
        let item = quote!(
            async fn r#match(ctx: C, args: A) -> R {
                todo!()
            }
        );
        let plain = expanded(quote!(), item.clone());
        assert!(
            plain.contains(
                "pub (super) fn action () -> :: mcp_fusion :: Action { :: mcp_fusion :: Action :: new (\"match\" , super :: r#match) } }"
            ),
            "{plain}"
        );
        let named = expanded(quote!(name = "other", description = "Said here."), item);
        assert!(
            named.contains(
                ":: mcp_fusion :: Action :: new (\"other\" , super :: r#match) . description (\"Said here.\") }"
            ),
            "{named}"
        );
    }

    #[test]
    fn the_description_is_the_trimmed_doc_comment() {
        let docs = |attrs: TokenStream| {
            let function: ItemFn = syn::parse2(quote!(#attrs async fn f() {})).unwrap();
            function::doc_comment(&function.attrs).unwrap()
        };
        assert_eq!(
            docs(quote! {
                ///
                /// First line.
                ///   Indented by two more.
                ///
                ///Second paragraph, no space.
                ///
                #[doc(alias = "g")]
            }),
            Some(String::from(
                "First line.\n  Indented by two more.\n\nSecond paragraph, no space."
            ))
        );
        assert_eq!(
            docs(quote!(#[doc = " One.\n Two."])),
            Some(String::from("One.\nTwo."))
        );
        assert_eq!(docs(quote!(#[doc = "  "] #[doc(hidden)])), None);
        assert_eq!(docs(quote!()), None);
    }

    #[test]
    fn the_action_is_visible_where_the_function_is() {
        let vis = |vis: TokenStream| {
            let vis: syn::Visibility = syn::parse2(vis).unwrap();
            function::action_visibility(&vis).to_string()
        };
        assert_eq!(vis(quote!()), "pub (super)");
        assert_eq!(vis(quote!(pub)), "pub");
        assert_eq!(vis(quote!(pub(crate))), "pub (crate)");
        assert_eq!(
            vis(quote!(pub(in crate::billing))),
            "pub (in crate :: billing)"
        );
        assert_eq!(vis(quote!(pub(self))), "pub (super)");
        assert_eq!(vis(quote!(pub(in self::a::b))), "pub (in super :: a :: b)");
        assert_eq!(vis(quote!(pub(super))), "pub (in super :: super)");
        assert_eq!(
            vis(quote!(pub(in super::a))),
            "pub (in super :: super :: a)"
        );
    }

    #[test]
    fn the_module_shares_the_functions_cfg() {
        let item = quote! {
            #[cfg(feature = "billing")]
            pub(crate) async fn f(ctx: C, args: A) -> R { todo!() }
        };
        let out = expanded(quote!(), item);
        assert!(
            out.contains("# [cfg (feature = \"billing\")] # [doc = \" The action of the function `f`: `f::action()`, made by `#[action]`.\"] pub (crate) mod f { # [doc = \" The action `f`, run by the function `f`, with its description and the settings of its `#[action]`.\"] pub (crate) fn action ()"),
            "{out}"
        );
    }

    #[test]
    fn attribute_errors_are_reported_together() {
        let item = quote!(
            async fn f(ctx: C, args: A) -> R {
                todo!()
            }
        );
        assert_eq!(
            errors(quote!(read_only, readonly, read_only), item.clone()),
            [
                "unknown attribute `readonly`; the attributes of #[action] are: name = \"...\", description = \"...\", read_only, idempotent, destructive, deprecated = \"replacement.action\", deprecated_field(\"old\", \"new\"), timeout = \"2s\", rate_limit = \"2/min\", concurrency(max_active = 4, max_queue = 16), requires_scopes(\"a\", \"b\"), requires_auth, allow_unknown_fields",
                "`read_only` is given twice",
            ]
        );
        assert_eq!(
            errors(quote!(billing::read_only), item.clone())[0]
                .split(';')
                .next(),
            Some("unknown attribute `billing::read_only`")
        );
    }

    #[test]
    fn a_value_of_the_wrong_kind_says_how_to_write_it() {
        let item = quote!(
            async fn f(ctx: C, args: A) -> R {
                todo!()
            }
        );
        let cases = [
            (
                quote!(read_only = true),
                "`read_only` takes no value: write `read_only`",
            ),
            (
                quote!(requires_auth("x")),
                "`requires_auth` takes no value: write `requires_auth`",
            ),
            (
                quote!(timeout = 2),
                "`timeout` takes a string: write `timeout = \"2s\"`",
            ),
            (
                quote!(name),
                "`name` takes a string: write `name = \"...\"`",
            ),
            (
                quote!(deprecated("x")),
                "`deprecated` takes a string: write `deprecated = \"replacement.action\"`",
            ),
            (
                quote!(deprecated_field("old")),
                "`deprecated_field` takes two strings: write `deprecated_field(\"old\", \"new\")`",
            ),
            (
                quote!(requires_scopes()),
                "`requires_scopes` takes one or more strings: write `requires_scopes(\"a\", \"b\")`",
            ),
            (
                quote!(requires_scopes = "a"),
                "`requires_scopes` takes one or more strings: write `requires_scopes(\"a\", \"b\")`",
            ),
            (
                quote!(concurrency(max_active = 4)),
                "`concurrency` takes two whole numbers: write `concurrency(max_active = 4, max_queue = 16)`",
            ),
            (
                quote!(concurrency(max_active = "4", max_queue = 16)),
                "`concurrency` takes two whole numbers: write `concurrency(max_active = 4, max_queue = 16)`",
            ),
            (
                quote!(concurrency(max_active = 4, max_queue = 16, max_active = 5)),
                "`concurrency` takes two whole numbers: write `concurrency(max_active = 4, max_queue = 16)`",
            ),
            (
                quote!(concurrency(max_active = 0, max_queue = 16)),
                "max_active must be at least 1",
            ),
            (
                quote!(timeout = "0s"),
                "invalid timeout \"0s\": it must be longer than zero",
            ),
        ];
        for (args, message) in cases {
            assert_eq!(errors(args.clone(), item.clone()), [message], "{args}");
        }
    }

    #[test]
    fn function_errors_are_reported_together() {
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    fn f<T>(&self, args: T)
                    where
                        T: Send,
                    {
                    }
                )
            ),
            [
                "#[action] goes on an `async fn`: write `async fn f`",
                "#[action] goes on a free function, not a method: a handler cannot take `self`",
                "#[action] cannot make an action of a generic function: remove the generic parameters",
                "#[action] cannot make an action of a generic function: remove the generic parameters",
            ]
        );
        assert_eq!(
            errors(
                quote!(bogus),
                quote!(
                    struct S;
                )
            ),
            ["#[action] goes on an `async fn`"]
        );
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    #[doc = include_str!("a.md")]
                    async fn f() {}
                )
            ),
            [
                "#[action] reads the description from doc comments written as text, and this one is computed: give it with `description = \"...\"`"
            ]
        );
        assert!(
            action(
                quote!(description = "Given."),
                quote!(
                    #[doc = include_str!("a.md")]
                    async fn f() {}
                )
            )
            .is_ok()
        );
    }

    #[test]
    fn on_errors_the_function_stays_as_written() {
        let item = quote!(
            fn f() {}
        );
        let out = expanded(quote!(), item.clone());
        assert!(out.starts_with(&item.to_string()), "{out}");
        assert!(out.contains("compile_error"), "{out}");
    }
}
