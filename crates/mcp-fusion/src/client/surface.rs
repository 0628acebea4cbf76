//! [`FusionClient`]'s requests for the server features besides tools:
//! resources and resource templates (MCP 2025-11-25 server/resources),
//! prompts (server/prompts) and argument completion
//! (server/utilities/completion).
//!
//! Each list is read whole, page after page (at most
//! [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES)); on 2026-07-28 a
//! `prompts/get` or `resources/read` answered with an input-required result
//! is answered by the client's handlers and sent again, as a tool call is.

use std::collections::HashMap;

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, CompletionInfo, GetPromptRequestParams,
    GetPromptResult, Prompt, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Reference, Resource, ResourceTemplate,
};
use serde_json::Value;

use super::error::FusionClientError;
use super::fusion_client::FusionClient;
use super::pages::every_page;
use super::response_cache::{Lookup, read_key};
use crate::json::{json_type, type_noun};
use crate::named::Named;

impl FusionClient {
    /// Every resource the server lists (MCP 2025-11-25 server/resources,
    /// "Listing Resources"): every page of `resources/list`, following
    /// `nextCursor` (at most [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES)
    /// pages; each page within
    /// [`ClientOptions::call_timeout`](super::ClientOptions::call_timeout)).
    /// Each [`Resource`] has its `uri`, `name` and, when the server gave
    /// them, `title`, `description`, `mimeType` and `size` (bytes).
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] when the server refuses
    /// `resources/list` (`-32601` from a server without the `resources`
    /// capability); [`FusionClientError::Protocol`] when the list goes on
    /// past [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES) pages or repeats a
    /// `nextCursor`; transport and time-out errors as for
    /// [`call`](Self::call).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, FusionClientError> {
        every_page("resources/list", |cursor| async move {
            let page = self
                .page("resources/list", cursor, |p| self.service.list_resources(p))
                .await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// Every resource template the server lists (MCP 2025-11-25
    /// server/resources, "Resource Templates"): every page of
    /// `resources/templates/list`. Each [`ResourceTemplate`] has its
    /// `uriTemplate` (RFC 6570), `name` and, when given, `title`,
    /// `description` and `mimeType`.
    ///
    /// # Errors
    ///
    /// As for [`list_resources`](Self::list_resources).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<ResourceTemplate>, FusionClientError> {
        every_page("resources/templates/list", |cursor| async move {
            let page = self
                .page("resources/templates/list", cursor, |p| {
                    self.service.list_resource_templates(p)
                })
                .await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// Reads the resource at `uri` (MCP 2025-11-25 server/resources,
    /// "Reading Resources"), a listed resource's URI or one a template
    /// expands to. The result's `contents` hold, per resource, either
    /// `text` or `blob` (Base64), with its `uri` and `mimeType`.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] when the server refuses the read: for
    /// a URI it does not serve, `-32002` on 2025-11-25 ("Resource not
    /// found") and `-32602` on 2026-07-28 (server/resources "Error
    /// Handling"), an mcp-fusion server naming the URI in `data.uri` and the
    /// valid ones in `data.valid`; `-32602` for a URI a template matches
    /// with invalid variables; on 2026-07-28,
    /// [`FusionClientError::Protocol`] when input-required rounds never
    /// end; transport and time-out errors as for [`call`](Self::call).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, FusionClientError> {
        if self.cached.is_shared() {
            return self.read_resource_shared(uri).await;
        }
        let params = ReadResourceRequestParams::new(uri);
        self.sent(
            "resources/read",
            |p| Named::Resource(&p.uri),
            params,
            |p| self.service.read_resource(p),
        )
        .await
    }

    /// [`read_resource`](Self::read_resource) with a shared response cache:
    /// from the cache while fresh; else one request, whose complete result
    /// is kept for its `ttlMs`. An input-required answer is not kept: the
    /// read is made again with rmcp's rounds (the first request is then
    /// sent twice), and its result, got with `inputResponses`, never kept.
    ///
    /// # Errors
    /// As for [`read_resource`](Self::read_resource).
    async fn read_resource_shared(
        &self,
        uri: &str,
    ) -> Result<ReadResourceResult, FusionClientError> {
        let key = read_key(uri);
        let revision = self.revision();
        let seen = match self.cached.lookup(&revision, &key).await {
            Lookup::Fresh(fresh) => return Ok(fresh),
            Lookup::Miss(seen) => seen,
        };
        let params = ReadResourceRequestParams::new(uri);
        let once = self
            .sent(
                "resources/read",
                |p| Named::Resource(&p.uri),
                params.clone(),
                |p| self.service.peer().read_resource_once(p),
            )
            .await?;
        match once {
            ReadResourceResponse::Complete(result) => {
                self.cached.keep(&revision, &key, &result, seen).await;
                Ok(result)
            }
            _ => {
                self.sent(
                    "resources/read",
                    |p| Named::Resource(&p.uri),
                    params,
                    |p| self.service.read_resource(p),
                )
                .await
            }
        }
    }

    /// Every prompt the server lists (MCP 2025-11-25 server/prompts,
    /// "Listing Prompts"): every page of `prompts/list`. Each [`Prompt`]
    /// has its `name`, and when given `title`, `description` and
    /// `arguments` (each a `name`, `description` and `required`).
    ///
    /// # Errors
    ///
    /// As for [`list_resources`](Self::list_resources) (`-32601` from a
    /// server without the `prompts` capability).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, FusionClientError> {
        every_page("prompts/list", |cursor| async move {
            let page = self
                .page("prompts/list", cursor, |p| self.service.list_prompts(p))
                .await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    /// Gets prompt `name` with `arguments` (MCP 2025-11-25 server/prompts,
    /// "Getting a Prompt"): a JSON object of argument name to value (the
    /// spec's values are strings), or `null` for none. The result holds the
    /// prompt's `messages` (each a `role`, `user` or `assistant`, and one
    /// content block) and its `description` when given.
    ///
    /// # Errors
    ///
    /// - [`FusionClientError::InvalidArguments`]: `arguments` is not an
    ///   object or `null`;
    /// - [`FusionClientError::JsonRpc`]: the server refused the request,
    ///   `-32602` for an unknown prompt or missing/invalid arguments (the
    ///   spec's "Error Handling");
    /// - transport, protocol and time-out errors as for [`call`](Self::call).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, FusionClientError> {
        let arguments = match arguments {
            Value::Null => None,
            Value::Object(map) => Some(map),
            other => {
                return Err(FusionClientError::InvalidArguments(format!(
                    "prompt arguments must be a JSON object, got {}",
                    type_noun(json_type(&other))
                )));
            }
        };
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = arguments;
        self.sent(
            "prompts/get",
            |p| Named::Prompt(&p.name),
            params,
            |p| self.service.get_prompt(p),
        )
        .await
    }

    /// Asks the server to complete `argument`'s partial `value` (MCP
    /// 2025-11-25 server/utilities/completion): `reference` is a prompt
    /// ([`Reference::for_prompt`], `ref/prompt`) or a resource template
    /// ([`Reference::for_resource`] with the URI template, `ref/resource`);
    /// `context` the arguments already resolved (`context.arguments`; none
    /// sent when empty). The answer's `values` (at most 100), with `total`
    /// and `hasMore` when the server gave them.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] when the server refuses: `-32601`
    /// without the `completions` capability, `-32602` for an unknown prompt
    /// or template or argument (the spec's "Error Handling"); transport,
    /// protocol and time-out errors as for [`call`](Self::call).
    pub async fn complete(
        &self,
        reference: Reference,
        argument: &str,
        value: &str,
        context: HashMap<String, String>,
    ) -> Result<CompletionInfo, FusionClientError> {
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        params.context = (!context.is_empty()).then(|| CompletionContext::with_arguments(context));
        let result = self
            .sent(
                "completion/complete",
                |_| Named::Nothing,
                params,
                |p| self.service.complete(p),
            )
            .await?;
        Ok(result.completion)
    }
}
