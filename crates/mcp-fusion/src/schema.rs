//! Input and output schemas derived from Rust types with `schemars` (draft
//! 2020-12): one place for the generator settings, used by actions (input)
//! and by typed outputs (`Json<T>`).

use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};
use serde_json::Value;

/// Adds `additionalProperties: false` to every object schema that lists
/// `properties` and says nothing of additional ones.
#[derive(Debug, Clone)]
struct DenyUnknownFields;

impl Transform for DenyUnknownFields {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut()
            && object.contains_key("properties")
            && !object.contains_key("additionalProperties")
            && !object.contains_key("unevaluatedProperties")
        {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        transform_subschemas(self, schema);
    }
}

fn settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
}

/// The input schema of `T`; with `allow_unknown_fields` false, objects get
/// `additionalProperties: false`.
pub(crate) fn input_schema_for<T: JsonSchema>(allow_unknown_fields: bool) -> Value {
    let mut settings = settings();
    if !allow_unknown_fields {
        settings.transforms.push(Box::new(DenyUnknownFields));
    }
    without_meta_schema(settings.into_generator().into_root_schema_for::<T>())
}

/// The output schema of `T` (for serialization).
pub(crate) fn output_schema_for<T: JsonSchema>() -> Value {
    without_meta_schema(
        settings()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>(),
    )
}

/// The schema as JSON, without its `$schema` line (MCP's default dialect is
/// 2020-12 already).
fn without_meta_schema(schema: Schema) -> Value {
    let mut schema = schema.to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    schema
}
