//! [`Catalog`]: the prompts, resources and resource templates a server
//! serves beside its tools, checked when they are added.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::prompt::Prompt;
use super::resource::{Resource, ResourceTemplate};
use crate::capability::BuildError;
use crate::handler::{StateNeed, States};

/// What a server lists besides tools. Replaced whole when it changes (the
/// server holds it behind an `Arc`), so a request reads one consistent set.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    pub prompts: Vec<Arc<Prompt>>,
    pub resources: Vec<Arc<Resource>>,
    pub templates: Vec<Arc<ResourceTemplate>>,
}

/// A `resources/read` URI resolved: a fixed resource, or a template with the
/// variables the URI gives it.
pub(crate) enum Resolved {
    Fixed(Arc<Resource>),
    Template(Arc<ResourceTemplate>, Map<String, Value>),
}

fn check_states(name: &str, needs: &[StateNeed], states: &States) -> Result<(), BuildError> {
    match needs.iter().find(|(id, _)| !states.contains(*id)) {
        Some((_, state)) => Err(BuildError::MissingState {
            action: name.to_owned(),
            state: (*state).to_owned(),
        }),
        None => Ok(()),
    }
}

/// Why a template's variables and its arguments type cannot meet: a
/// variable that is not a field (refused as an unknown field on every
/// read), or a required field that no variable fills (missing on every
/// read). `None` when they fit.
fn variables_mismatch(template: &ResourceTemplate, schema: &Value) -> Option<String> {
    let variables: Vec<&str> = template
        .matcher
        .as_ref()
        .ok()?
        .capture_names()
        .flatten()
        .collect();
    let fields: Vec<&str> = schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let open = schema["additionalProperties"] != Value::Bool(false);
    let uri = &template.uri_template;
    if let Some(variable) = variables.iter().find(|v| !open && !fields.contains(v)) {
        return Some(format!(
            "{uri}: {{{variable}}} is not a field of the handler's arguments type (its fields: {})",
            fields.join(", ")
        ));
    }
    let required = schema["required"].as_array()?;
    required
        .iter()
        .filter_map(Value::as_str)
        .find(|field| !variables.contains(field))
        .map(|field| {
            format!(
                "{uri}: the handler's arguments type requires \"{field}\", and no {{{field}}} in the template gives it"
            )
        })
}

impl Catalog {
    /// Adds `prompt`.
    ///
    /// # Errors
    /// [`BuildError::InvalidName`] for an empty name,
    /// [`BuildError::Duplicate`] when a prompt has its name,
    /// [`BuildError::BadSchema`] when its arguments type does not compile,
    /// [`BuildError::MissingState`] for a state the server was not given.
    pub fn add_prompt(&mut self, prompt: Prompt, states: &States) -> Result<(), BuildError> {
        if prompt.name.is_empty() {
            return Err(BuildError::InvalidName {
                what: "prompt",
                name: prompt.name,
            });
        }
        if self.prompt(&prompt.name).is_some() {
            return Err(BuildError::Duplicate {
                what: "prompt",
                name: prompt.name,
            });
        }
        if let Err(reason) = &prompt.validator {
            return Err(BuildError::BadSchema {
                action: prompt.name.clone(),
                reason: reason.clone(),
            });
        }
        check_states(&prompt.name, &prompt.state_needs, states)?;
        self.prompts.push(Arc::new(prompt));
        Ok(())
    }

    /// Adds `resource`.
    ///
    /// # Errors
    /// [`BuildError::InvalidName`] for an empty URI,
    /// [`BuildError::Duplicate`] when a resource has its URI,
    /// [`BuildError::MissingState`] for a state the server was not given.
    pub fn add_resource(&mut self, resource: Resource, states: &States) -> Result<(), BuildError> {
        if resource.uri.is_empty() {
            return Err(BuildError::InvalidName {
                what: "resource URI",
                name: resource.uri,
            });
        }
        if self.resources.iter().any(|r| r.uri == resource.uri) {
            return Err(BuildError::Duplicate {
                what: "resource",
                name: resource.uri,
            });
        }
        check_states(&resource.uri, &resource.state_needs, states)?;
        self.resources.push(Arc::new(resource));
        Ok(())
    }

    /// Adds `template`.
    ///
    /// # Errors
    /// [`BuildError::BadUriTemplate`] for a template that cannot be matched,
    /// [`BuildError::Duplicate`] when a template has the same text,
    /// [`BuildError::BadSchema`] when its arguments type does not compile,
    /// [`BuildError::MissingState`] for a state the server was not given.
    pub fn add_template(
        &mut self,
        template: ResourceTemplate,
        states: &States,
    ) -> Result<(), BuildError> {
        if let Err(reason) = &template.matcher {
            return Err(BuildError::BadUriTemplate(reason.clone()));
        }
        if self
            .templates
            .iter()
            .any(|t| t.uri_template == template.uri_template)
        {
            return Err(BuildError::Duplicate {
                what: "resource template",
                name: template.uri_template,
            });
        }
        let validator = match &template.validator {
            Ok(validator) => validator,
            Err(reason) => {
                return Err(BuildError::BadSchema {
                    action: template.uri_template.clone(),
                    reason: reason.clone(),
                });
            }
        };
        if let Some(reason) = variables_mismatch(&template, validator.schema()) {
            return Err(BuildError::BadUriTemplate(reason));
        }
        check_states(&template.uri_template, &template.state_needs, states)?;
        self.templates.push(Arc::new(template));
        Ok(())
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&Arc<Prompt>> {
        self.prompts.iter().find(|p| p.name == name)
    }

    /// The template whose text is `uri_template`.
    pub fn template(&self, uri_template: &str) -> Option<&Arc<ResourceTemplate>> {
        self.templates
            .iter()
            .find(|t| t.uri_template == uri_template)
    }

    /// What `uri` names: a fixed resource first, else the first template
    /// (in the order added) that matches it; `Some(Err(reason))` when a
    /// template matches but a variable does not decode.
    pub fn resolve(&self, uri: &str) -> Option<Result<Resolved, String>> {
        if let Some(resource) = self.resources.iter().find(|r| r.uri == uri) {
            return Some(Ok(Resolved::Fixed(Arc::clone(resource))));
        }
        self.templates.iter().find_map(|template| {
            template
                .variables(uri)
                .map(|vars| vars.map(|vars| Resolved::Template(Arc::clone(template), vars)))
        })
    }

    /// The first template that matches the concrete `uri`.
    pub fn template_matching(&self, uri: &str) -> Option<&Arc<ResourceTemplate>> {
        self.templates.iter().find(|t| t.variables(uri).is_some())
    }

    /// Whether any prompt or template completes an argument.
    pub fn completes(&self) -> bool {
        self.prompts.iter().any(|p| p.completions.any())
            || self.templates.iter().any(|t| t.completions.any())
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
        Catalog::default().add_template(
            ResourceTemplate::new(uri_template, "invoice", invoice),
            &States::default(),
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
