//! The expansion: the function as written, then a module of the same name
//! whose `action()` (`prompt()`, `resource()`, `resource_template()`) is the
//! builder chain a user would write by hand.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Item, ItemFn, LitStr};

use crate::attrs::Attributes;
use crate::errors::Errors;
use crate::function;
use crate::target::Target;

/// `#[action(args)] item` (or the attribute of `target`), expanded. On
/// errors: the item as written and the errors, so that the function's own
/// uses do not add more.
pub(crate) fn expand(target: Target, args: TokenStream, item: TokenStream) -> TokenStream {
    match make(target, args, item.clone()) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let mut tokens = item;
            tokens.extend(errors.to_compile_error());
            tokens
        }
    }
}

/// The expansion, or every error found in the attribute and the function.
fn make(target: Target, args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let attribute = target.attribute();
    let function: ItemFn = match syn::parse2(item.clone())? {
        Item::Fn(function) => function,
        other => {
            return Err(syn::Error::new(
                other.span(),
                format!("{attribute} goes on an `async fn`"),
            ));
        }
    };
    let mut errors = Errors::default();
    let attributes = Attributes::parse(target, args).unwrap_or_else(|e| {
        errors.push(e);
        Attributes::default()
    });
    if let Err(e) = function::check(target, &function.sig) {
        errors.push(e);
    }
    let description = match attributes.description {
        Some(text) => Some(text),
        None => function::doc_comment(target, &function.attrs)
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
    // A presenter is named as the function's module names it.
    let items = attributes.names_items.then(|| {
        quote!(
            use super::*;
        )
    });
    let vis = &function.vis;
    let builder_vis = function::builder_visibility(vis);
    let cfgs = function::cfg_attributes(&function.attrs);
    let builder = Ident::new(target.name(), Span::call_site());
    let noun = target.noun();
    let module_doc = format!(
        " The {noun} of the function `{ident}`: `{ident}::{builder}()`, made by `{attribute}`."
    );
    let builder_doc = format!(
        " The {noun} `{}`, run by the function `{ident}`, with its description and the settings of its `{attribute}`.",
        name.value()
    );
    let ty = Ident::new(target.type_name(), Span::call_site());
    // `uri` is given exactly when the target takes it (it is required then).
    let uri = attributes.uri.map(|uri| quote!(#uri,));
    let new = quote_spanned!(ident.span()=> ::mcp_fusion::#ty::new(#uri #name, super::#ident));
    Ok(quote! {
        #item
        #(#cfgs)*
        #[doc = #module_doc]
        #vis mod #ident {
            #[doc = #builder_doc]
            #builder_vis fn #builder() -> ::mcp_fusion::#ty {
                #items
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
        expand(Target::Action, args, item).to_string()
    }

    /// The message of every error of the expansion of `#[action]`, in order.
    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        errors_of(Target::Action, args, item)
    }

    /// The message of every error of the expansion of `target`, in order.
    fn errors_of(target: Target, args: TokenStream, item: TokenStream) -> Vec<String> {
        match make(target, args, item) {
            Ok(tokens) => panic!("expected errors, got {tokens}"),
            Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_presenter_is_named_as_the_functions_module_names_it() {
        let item = quote! {
            /// List invoices.
            async fn list_invoices(args: ListInvoices) -> Result<Vec<Row>, ToolError> {
                todo!()
            }
        };
        let args = quote!(narrowed_by("status", "limit"), returns_many = INVOICE);
        let expected = quote! {
            #item
            #[doc = " The action of the function `list_invoices`: `list_invoices::action()`, made by `#[action]`."]
            mod list_invoices {
                #[doc = " The action `list_invoices`, run by the function `list_invoices`, with its description and the settings of its `#[action]`."]
                pub(super) fn action() -> ::mcp_fusion::Action {
                    use super::*;
                    ::mcp_fusion::Action::new("list_invoices", super::list_invoices)
                        .description("List invoices.")
                        .narrowed_by(["status", "limit"])
                        .returns_many(&INVOICE)
                }
            }
        };
        assert_eq!(expanded(args, item), expected.to_string());
        assert_eq!(
            errors(
                quote!(returns = "INVOICE"),
                quote!(
                    async fn f() {}
                )
            ),
            ["`returns` takes a presenter (a path or an expression): write `returns = PRESENTER`"]
        );
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
            deprecated_field("older", "newer"), destructive, requires_auth, allow_unknown_fields,
            egress_limit = 65536,
            serialize_by = "id"
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
                        .egress_limit(65536)
                        .serialize_by("id")
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
            function::doc_comment(Target::Action, &function.attrs).unwrap()
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
            function::builder_visibility(&vis).to_string()
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
                "unknown attribute `readonly`; the attributes of #[action] are: name = \"...\", description = \"...\", read_only, idempotent, destructive, deprecated = \"replacement.action\", deprecated_field(\"old\", \"new\"), timeout = \"2s\", rate_limit = \"2/min\", concurrency(max_active = 4, max_queue = 16), requires_scopes(\"a\", \"b\"), requires_auth, allow_unknown_fields, narrowed_by(\"status\", \"limit\"), returns = PRESENTER, returns_many = PRESENTER, egress_limit = 65536, serialize_by = \"id\", not_serialized",
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
                quote!(egress_limit = "64KiB"),
                "`egress_limit` takes a whole number of bytes: write `egress_limit = 65536`",
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
            make(
                Target::Action,
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

    #[test]
    fn a_prompt_is_the_prompt_builder_chain() {
        let item = quote! {
            /// Asks for a code review.
            pub async fn code_review(args: Review) -> Result<String, ToolError> {
                todo!()
            }
        };
        let expected = quote! {
            #item
            #[doc = " The prompt of the function `code_review`: `code_review::prompt()`, made by `#[prompt]`."]
            pub mod code_review {
                #[doc = " The prompt `code_review`, run by the function `code_review`, with its description and the settings of its `#[prompt]`."]
                pub fn prompt() -> ::mcp_fusion::Prompt {
                    ::mcp_fusion::Prompt::new("code_review", super::code_review)
                        .description("Asks for a code review.")
                        .title("Code review")
                }
            }
        };
        assert_eq!(
            expand(Target::Prompt, quote!(title = "Code review"), item.clone()).to_string(),
            expected.to_string()
        );
        let named = expand(
            Target::Prompt,
            quote!(name = "review", description = "Said here."),
            item,
        )
        .to_string();
        assert!(
            named.contains(
                "pub fn prompt () -> :: mcp_fusion :: Prompt { :: mcp_fusion :: Prompt :: new (\"review\" , super :: code_review) . description (\"Said here.\") } }"
            ),
            "{named}"
        );
    }

    #[test]
    fn a_resource_is_the_resource_builder_chain() {
        let item = quote! {
            /// The project's read-me.
            async fn readme() -> Result<&'static str, ToolError> {
                todo!()
            }
        };
        let expected = quote! {
            #item
            #[doc = " The resource of the function `readme`: `readme::resource()`, made by `#[resource]`."]
            mod readme {
                #[doc = " The resource `docs`, run by the function `readme`, with its description and the settings of its `#[resource]`."]
                pub(super) fn resource() -> ::mcp_fusion::Resource {
                    ::mcp_fusion::Resource::new("docs://readme", "docs", super::readme)
                        .description("The project's read-me.")
                        .mime_type("text/markdown")
                        .title("Read me")
                }
            }
        };
        let args = quote!(
            mime_type = "text/markdown",
            uri = "docs://readme",
            name = "docs",
            title = "Read me"
        );
        assert_eq!(
            expand(Target::Resource, args, item.clone()).to_string(),
            expected.to_string()
        );
        let plain = expand(Target::Resource, quote!(uri = "docs://readme"), item).to_string();
        assert!(
            plain.contains(
                "{ :: mcp_fusion :: Resource :: new (\"docs://readme\" , \"readme\" , super :: readme) . description (\"The project's read-me.\") } }"
            ),
            "{plain}"
        );
    }

    #[test]
    fn a_resource_template_is_the_template_builder_chain() {
        let item = quote! {
            #[cfg(feature = "billing")]
            pub(crate) async fn invoice(vars: InvoiceUri) -> Result<String, ToolError> {
                todo!()
            }
        };
        let expected = quote! {
            #item
            #[cfg(feature = "billing")]
            #[doc = " The resource template of the function `invoice`: `invoice::resource_template()`, made by `#[resource_template]`."]
            pub(crate) mod invoice {
                #[doc = " The resource template `invoice`, run by the function `invoice`, with its description and the settings of its `#[resource_template]`."]
                pub(crate) fn resource_template() -> ::mcp_fusion::ResourceTemplate {
                    ::mcp_fusion::ResourceTemplate::new("billing://invoices/{id}", "invoice", super::invoice)
                        .description("One invoice.")
                        .mime_type("application/json")
                }
            }
        };
        let args = quote!(
            uri = "billing://invoices/{id}",
            description = "One invoice.",
            mime_type = "application/json"
        );
        assert_eq!(
            expand(Target::ResourceTemplate, args, item).to_string(),
            expected.to_string()
        );
    }

    #[test]
    fn prompt_and_resource_errors_are_reported_together() {
        let item = quote!(
            async fn f() -> R {
                todo!()
            }
        );
        assert_eq!(
            errors_of(
                Target::Prompt,
                quote!(read_only, uri = "x", title),
                item.clone()
            ),
            [
                "unknown attribute `read_only`; the attributes of #[prompt] are: name = \"...\", title = \"...\", description = \"...\", timeout = \"2s\", rate_limit = \"2/min\", concurrency(max_active = 4, max_queue = 16), requires_scopes(\"a\", \"b\"), requires_auth",
                "unknown attribute `uri`; the attributes of #[prompt] are: name = \"...\", title = \"...\", description = \"...\", timeout = \"2s\", rate_limit = \"2/min\", concurrency(max_active = 4, max_queue = 16), requires_scopes(\"a\", \"b\"), requires_auth",
                "`title` takes a string: write `title = \"...\"`",
            ]
        );
        assert_eq!(
            errors_of(
                Target::Resource,
                quote!(mime_type = 1, name = "a", name = "b", read_only),
                item.clone()
            ),
            [
                "`mime_type` takes a string: write `mime_type = \"text/plain\"`",
                "`name` is given twice",
                "unknown attribute `read_only`; the attributes of #[resource] are: uri = \"...\", name = \"...\", title = \"...\", description = \"...\", mime_type = \"text/plain\", timeout = \"2s\", rate_limit = \"2/min\", concurrency(max_active = 4, max_queue = 16), requires_scopes(\"a\", \"b\"), requires_auth",
                "#[resource] needs the resource's URI: write `uri = \"...\"`",
            ]
        );
        assert_eq!(
            errors_of(Target::ResourceTemplate, quote!(uri("x")), item.clone()),
            ["`uri` takes a string: write `uri = \"...\"`"]
        );
        assert_eq!(
            errors_of(Target::ResourceTemplate, quote!(), item),
            ["#[resource_template] needs the resource template's URI: write `uri = \"...\"`"]
        );
        assert_eq!(
            errors_of(
                Target::ResourceTemplate,
                quote!(),
                quote!(
                    #[doc = include_str!("a.md")]
                    fn f<T>(&self) {}
                )
            ),
            [
                "#[resource_template] needs the resource template's URI: write `uri = \"...\"`",
                "#[resource_template] goes on an `async fn`: write `async fn f`",
                "#[resource_template] goes on a free function, not a method: a handler cannot take `self`",
                "#[resource_template] cannot make a resource template of a generic function: remove the generic parameters",
                "#[resource_template] reads the description from doc comments written as text, and this one is computed: give it with `description = \"...\"`",
            ]
        );
        assert_eq!(
            errors_of(
                Target::Prompt,
                quote!(),
                quote!(
                    struct S;
                )
            ),
            ["#[prompt] goes on an `async fn`"]
        );
    }

    #[test]
    fn on_errors_a_resource_function_stays_as_written() {
        let item = quote!(
            async fn f() {}
        );
        let out = expand(Target::Resource, quote!(), item.clone()).to_string();
        assert!(out.starts_with(&item.to_string()), "{out}");
        assert!(out.contains("compile_error"), "{out}");
    }
}
