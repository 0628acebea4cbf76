//! [`Catalog`]: the prompts, resources and resource templates a server
//! serves beside its tools, each assembled (its guarded path built) and
//! checked when it is added.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::assembly::{Assembly, Callable};
use super::place::Places;
use super::prompt::{AssembledPrompt, Prompt};
use super::resource::{AssembledResource, AssembledTemplate, Resource, ResourceTemplate};
use super::skills::{AssembledSkills, Skills};
use crate::capability::BuildError;
use crate::error::ValidationFailure;
use crate::handler::CallContext;

/// What a server lists besides tools. Replaced whole when it changes (the
/// server holds it behind an `Arc`), so a request reads one consistent set.
#[derive(Clone, Default)]
pub(crate) struct Catalog {
    pub prompts: Vec<Arc<AssembledPrompt>>,
    pub resources: Vec<Arc<AssembledResource>>,
    pub templates: Vec<Arc<AssembledTemplate>>,
    /// The skills (`ServerBuilder::skills`), if any.
    pub skills: Option<Arc<AssembledSkills>>,
    /// The places of all three lists (each list's in ascending order).
    given: Places,
}

/// A `resources/read` URI resolved: a fixed resource, a file of a skill
/// (with what a read of it answers), or a template with the variables the
/// URI gives it.
pub(crate) enum Resolved {
    Fixed(Arc<AssembledResource>),
    Skill(Arc<AssembledSkills>, Box<rmcp::model::ReadResourceResult>),
    Template(Arc<AssembledTemplate>, Map<String, Value>),
}

impl Resolved {
    /// The guarded path that reads it.
    pub fn callable(&self) -> &Callable {
        match self {
            Resolved::Fixed(resource) => &resource.callable,
            Resolved::Skill(skills, _) => &skills.callable,
            Resolved::Template(template, _) => &template.callable,
        }
    }

    /// Whether the variables `uri` gives its template are ones the
    /// template's arguments type takes (always, for a fixed resource): a
    /// `resources/subscribe` or a listen stream checks them as a read does.
    ///
    /// # Errors
    /// The `<validation_error>` failure a read of `uri` gets.
    pub fn check_variables(&self, uri: &str) -> Result<(), ValidationFailure> {
        match self {
            Resolved::Template(template, variables) => match &template.template.validator {
                Ok(validator) => validator.check_call(uri, &mut Value::Object(variables.clone())),
                Err(_) => Ok(()),
            },
            Resolved::Fixed(_) | Resolved::Skill(..) => Ok(()),
        }
    }

    /// The `_meta` of its contents when read: an app's view's `ui`.
    pub fn contents_meta(&self) -> Option<&Map<String, Value>> {
        match self {
            Resolved::Fixed(resource) => resource.resource.app.as_ref(),
            Resolved::Template(..) | Resolved::Skill(..) => None,
        }
    }

    /// The caching hint it declares for its reads, if any.
    pub fn cache_hint(&self) -> Option<super::CacheHint> {
        match self {
            Resolved::Fixed(resource) => resource.resource.cache_hint,
            Resolved::Template(template, _) => template.template.cache_hint,
            // A skill's file is answered as rmcp's catalog writes it.
            Resolved::Skill(..) => None,
        }
    }

    /// Its media type, if it has one.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Resolved::Fixed(resource) => resource.resource.described.mime_type.as_deref(),
            Resolved::Skill(_, read) => read.contents.first().and_then(|c| match c {
                rmcp::model::ResourceContents::TextResourceContents { mime_type, .. }
                | rmcp::model::ResourceContents::BlobResourceContents { mime_type, .. } => {
                    mime_type.as_deref()
                }
                _ => None,
            }),
            Resolved::Template(template, _) => template.template.described.mime_type.as_deref(),
        }
    }
}

impl Catalog {
    /// Adds `prompt`.
    ///
    /// # Errors
    /// [`BuildError::Duplicate`] when a prompt has its name, or any error of
    /// [`Prompt::assemble`].
    pub fn add_prompt(&mut self, prompt: Prompt, assembly: &Assembly) -> Result<(), BuildError> {
        if self.prompt(&prompt.name).is_some() {
            return Err(BuildError::Duplicate {
                what: "prompt",
                name: prompt.name,
            });
        }
        let place = self.given.next();
        self.prompts
            .push(Arc::new(prompt.assemble(assembly, place)?));
        Ok(())
    }

    /// Adds `resource`.
    ///
    /// # Errors
    /// [`BuildError::Duplicate`] when a resource has its URI, or any error
    /// of [`Resource::assemble`].
    pub fn add_resource(
        &mut self,
        resource: Resource,
        assembly: &Assembly,
    ) -> Result<(), BuildError> {
        if self
            .resources
            .iter()
            .any(|r| r.resource.uri == resource.uri)
        {
            return Err(BuildError::Duplicate {
                what: "resource",
                name: resource.uri,
            });
        }
        let place = self.given.next();
        self.resources
            .push(Arc::new(resource.assemble(assembly, place)?));
        Ok(())
    }

    /// Adds `template`.
    ///
    /// # Errors
    /// [`BuildError::Duplicate`] when a template has the same text, or any
    /// error of [`ResourceTemplate::assemble`].
    pub fn add_template(
        &mut self,
        template: ResourceTemplate,
        assembly: &Assembly,
    ) -> Result<(), BuildError> {
        if self.template(&template.uri_template).is_some() {
            return Err(BuildError::Duplicate {
                what: "resource template",
                name: template.uri_template,
            });
        }
        let place = self.given.next();
        self.templates
            .push(Arc::new(template.assemble(assembly, place)?));
        Ok(())
    }

    /// Sets the skills.
    ///
    /// # Errors
    /// Any error of [`Skills::assemble`].
    pub fn set_skills(&mut self, skills: Skills, assembly: &Assembly) -> Result<(), BuildError> {
        self.skills = Some(Arc::new(skills.assemble(assembly)?));
        Ok(())
    }

    /// The skills, when the caller of `viewer` may see them.
    pub fn skills_shown_to(&self, viewer: &CallContext) -> Option<&Arc<AssembledSkills>> {
        self.skills
            .as_ref()
            .filter(|skills| skills.callable.visibility.shows_to(viewer))
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&Arc<AssembledPrompt>> {
        self.prompts.iter().find(|p| p.prompt.name == name)
    }

    /// The template whose text is `uri_template`.
    pub fn template(&self, uri_template: &str) -> Option<&Arc<AssembledTemplate>> {
        self.templates
            .iter()
            .find(|t| t.template.uri_template == uri_template)
    }

    /// What `uri` names: a fixed resource first, else a file of a skill,
    /// else the first template (in the order added) that matches it;
    /// `Some(Err(reason))` when a template matches but a variable does not
    /// decode.
    pub fn resolve(&self, uri: &str) -> Option<Result<Resolved, String>> {
        if let Some(resource) = self.resources.iter().find(|r| r.resource.uri == uri) {
            return Some(Ok(Resolved::Fixed(Arc::clone(resource))));
        }
        if let Some(skills) = &self.skills
            && let Some(read) = skills.read(uri)
        {
            return Some(Ok(Resolved::Skill(Arc::clone(skills), Box::new(read))));
        }
        self.templates.iter().find_map(|template| {
            template
                .template
                .variables(uri)
                .map(|vars| vars.map(|vars| Resolved::Template(Arc::clone(template), vars)))
        })
    }

    /// The first template that matches the concrete `uri`.
    pub fn template_matching(&self, uri: &str) -> Option<&Arc<AssembledTemplate>> {
        self.templates
            .iter()
            .find(|t| t.template.variables(uri).is_some())
    }

    /// Whether it serves an app's view ([`UiResource`](crate::capability::UiResource)):
    /// the server then declares the MCP Apps extension.
    pub fn serves_apps(&self) -> bool {
        self.resources.iter().any(|r| r.resource.app.is_some())
    }

    /// Whether any prompt or template completes an argument.
    pub fn completes(&self) -> bool {
        self.prompts.iter().any(|p| !p.completers.is_empty())
            || self.templates.iter().any(|t| !t.completers.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ToolError;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Invoice {
        invoice_id: String,
    }

    async fn invoice(args: Invoice) -> Result<String, ToolError> {
        Ok(args.invoice_id)
    }

    fn added(uri_template: &str) -> Result<(), BuildError> {
        let assembly = Assembly {
            server_layers: Vec::new(),
            guards: Default::default(),
            states: Default::default(),
            schema_profile: Default::default(),
            egress_limit: usize::MAX,
            gates: Default::default(),
        };
        Catalog::default().add_template(
            ResourceTemplate::new(uri_template, "invoice", invoice),
            &assembly,
        )
    }

    #[test]
    fn template_variables_must_be_the_arguments_fields() {
        assert_eq!(
            added("billing://invoices/{id}").unwrap_err().to_string(),
            "unusable resource template billing://invoices/{id}: {id} is not a field of the handler's arguments type (its fields: invoice_id)"
        );
        assert_eq!(
            added("billing://invoices").unwrap_err().to_string(),
            "unusable resource template billing://invoices: the handler's arguments type requires \"invoice_id\", and no {invoice_id} in the template gives it"
        );
        assert!(added("billing://invoices/{invoice_id}").is_ok());
    }
}
