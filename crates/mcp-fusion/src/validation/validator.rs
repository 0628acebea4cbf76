//! [`SchemaValidator`]: one action's compiled schema, and the check that
//! turns its failures into field lines (wire contract §4).

use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ReferencingError, Retrieve, Uri};
use serde_json::Value;

use super::int_bounds::with_integer_bounds;
use super::line::{Ctx, Fix, Line};
use super::lookup;
use super::nulls::remove_optional_nulls;
use super::path::{Seg, dotted, value_at_mut};
use super::phrase::phrase;
use super::plan::Plan;
use super::schema_error::SchemaError;
use super::unknown_keys::pair_with_missing;
use crate::error::{FieldError, ValidationFailure};

/// A compiled JSON Schema (draft 2020-12) for one action's arguments.
///
/// Compiled once at start-up with [`SchemaValidator::new`], then shared:
/// cloning is cheap (the compiled form sits behind an [`Arc`]) and it is
/// `Send + Sync`. Formats are asserted (`email`, `uri`, `uuid`, `date-time`,
/// `date`, `time`, `ipv4`, `ipv6`, `hostname`, …); formats the validator does
/// not know (schemars' `uint64`, `int32`, `double`…) are ignored; `$ref`s
/// resolve only inside the schema.
#[derive(Clone)]
pub struct SchemaValidator {
    compiled: Arc<jsonschema::Validator>,
    /// The schema as given.
    schema: Arc<Value>,
    /// The schema as compiled (integer formats' ranges added): what the
    /// phrasing reads.
    checked: Arc<Value>,
    /// The phrasing of the schema's failures, resolved once here.
    plan: Arc<Plan>,
}

impl std::fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaValidator")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

/// Refuses every document outside the schema, whatever features the
/// validator was built with.
struct NoRemote;

impl Retrieve for NoRemote {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("remote reference {} refused", uri.as_str()).into())
    }
}

impl SchemaValidator {
    /// Compiles `schema` once, at start-up, as JSON Schema draft 2020-12
    /// (the draft of MCP tool schemas; a `$schema` naming another draft does
    /// not change it).
    ///
    /// Formats are asserted, unknown formats ignored, and no remote `$ref`
    /// is resolved. An integer schema whose `format` names a Rust integer
    /// type (schemars' `uint32`, `int64`, …) is checked against that type's
    /// range when the schema does not bound it itself.
    ///
    /// # Errors
    /// [`SchemaError::RemoteReference`] when the schema refers to a document
    /// outside itself; [`SchemaError::Invalid`] when it is not a valid schema
    /// or a local reference points to nothing.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let checked = with_integer_bounds(schema);
        let compiled = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .should_ignore_unknown_formats(true)
            .with_retriever(NoRemote)
            .build(&checked)
            .map_err(|e| match e.kind() {
                ValidationErrorKind::Referencing(ReferencingError::Unretrievable {
                    uri, ..
                }) => SchemaError::RemoteReference {
                    reference: uri.clone(),
                },
                _ if e.instance_path().as_str().is_empty() => SchemaError::Invalid {
                    reason: e.to_string(),
                },
                _ => SchemaError::Invalid {
                    reason: format!("{e} (at {})", e.instance_path().as_str()),
                },
            })?;
        let plan = Plan::new(&checked, schema);
        Ok(SchemaValidator {
            compiled: Arc::new(compiled),
            schema: Arc::new(schema.clone()),
            checked: Arc::new(checked),
            plan: Arc::new(plan),
        })
    }

    /// Checks `args`, the arguments object with the discriminator already removed.
    ///
    /// First, every `null` given for an optional property (declared in
    /// `properties`, not in `required`, at any depth) is removed from `args`
    /// in place: it means "not given". A `null` for a required property stays
    /// and is reported (`You sent: null.`).
    ///
    /// # Errors
    /// Every problem at once, as [`FieldError`] lines (`{problem}. You sent:
    /// {sent}. {expected}`, wire contract §4), ordered by schema property
    /// order (unknown keys after the known ones, array items by index), a
    /// field's own problems in the order the validator found them. Never empty.
    pub fn validate(&self, args: &mut Value) -> Result<(), Vec<FieldError>> {
        self.validate_with(args, &self.plan)
            .map_err(|lines| lines.into_iter().map(|line| line.field).collect())
    }

    /// [`SchemaValidator::validate`] for a call of `action` (its dotted
    /// name): the failure, whose next step names the value sent and the one
    /// to send for each field when every line names one (a `Did you mean`
    /// option, the number a string spells), as
    /// [`ValidationFailure::replacing`] words it.
    pub(crate) fn check_call(
        &self,
        action: &str,
        args: &mut Value,
    ) -> Result<(), ValidationFailure> {
        let lines = match self.validate_with(args, &self.plan) {
            Ok(()) => return Ok(()),
            Err(lines) => lines,
        };
        let next_step = self.replacement(action, args, &lines);
        let mut failure =
            ValidationFailure::new(action, lines.into_iter().map(|line| line.field).collect());
        failure.next_step = next_step;
        Err(failure)
    }

    /// The next step naming the fix of every line of `lines` (the failure
    /// of `args`), when each names one and `args` with every fix sent
    /// passes the schema: a line never tells the model to send a value
    /// that fails too (`'1500'` spells an integer a `maximum` of 100
    /// refuses).
    fn replacement(&self, action: &str, args: &Value, lines: &[Phrased]) -> Option<String> {
        let fixes: Vec<(&Phrased, &Fix)> = lines
            .iter()
            .map(|line| line.fix.as_ref().map(|fix| (line, fix)))
            .collect::<Option<_>>()?;
        let mut fixed = args.clone();
        for (line, fix) in &fixes {
            *value_at_mut(&mut fixed, &line.segs)? = fix.to.clone();
        }
        if !self.compiled.is_valid(&fixed) {
            return None;
        }
        let named: Vec<(&str, &Value, &Value)> = fixes
            .iter()
            .map(|(line, fix)| (line.field.path.as_str(), &fix.sent, &fix.to))
            .collect();
        ValidationFailure::replacing(action, &named)
    }

    /// [`SchemaValidator::validate`] phrasing with `plan` (an empty one
    /// phrases every line from the schema), each line with its fix.
    fn validate_with(&self, args: &mut Value, plan: &Plan) -> Result<(), Vec<Phrased>> {
        remove_optional_nulls(&self.checked, args);
        let args: &Value = args;
        let ctx = Ctx {
            root: &self.checked,
            given: &self.schema,
            instance: args,
            plan,
        };
        // An envelope shows about a hundred lines at most (16 KiB): phrase
        // only the first problems and count the next ones (up to
        // MAX_COUNTED). jsonschema's `iter_errors` collects every error
        // before it yields the first, one per problem with its paths: what
        // bounds it is the number of values a message may hold, counted by
        // the transports before any parse (`max_json_values`).
        let mut lines = Vec::new();
        let mut errors = self.compiled.iter_errors(args);
        for err in errors.by_ref() {
            phrase(&ctx, &err, &mut lines);
            if lines.len() >= MAX_LINES {
                break;
            }
        }
        if lines.is_empty() {
            return Ok(());
        }
        let mut left_out = lines.len() - lines.len().min(MAX_LINES);
        let mut capped = false;
        for _ in errors {
            left_out += 1;
            if left_out >= MAX_COUNTED {
                capped = true;
                break;
            }
        }
        lines.truncate(MAX_LINES);
        let mut fields = finish(&ctx, lines);
        if left_out > 0 {
            let more = if capped {
                crate::error::more_line_at_least(left_out)
            } else {
                crate::error::more_line(left_out)
            };
            fields.push(Phrased {
                field: more,
                segs: Vec::new(),
                fix: None,
            });
        }
        Err(fields)
    }

    /// Checks `value` without changing it, for a value the server itself
    /// produced (a success against its `outputSchema`).
    ///
    /// # Errors
    /// The first problems (at most five), as the validator words them with
    /// their JSON Pointer: `/count: "5" is not of type "integer"` — for the
    /// log, never for the model.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        if self.compiled.is_valid(value) {
            return Ok(());
        }
        let problems: Vec<String> = self
            .compiled
            .iter_errors(value)
            .take(5)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect();
        Err(problems.join("; "))
    }

    /// The schema as given to [`SchemaValidator::new`].
    pub fn schema(&self) -> &Value {
        &self.schema
    }
}

/// A field line as the model reads it, where it is, and the fix it names.
#[derive(Debug, PartialEq)]
struct Phrased {
    field: FieldError,
    segs: Vec<Seg>,
    fix: Option<Fix>,
}

/// The most field lines one validation reports; the rest are counted in a
/// final `(more)` line.
pub const MAX_LINES: usize = 100;

/// The most problems counted beyond [`MAX_LINES`]; past it the `(more)` line
/// says "or more".
pub const MAX_COUNTED: usize = 10_000;

/// Drops repeats and type lines that an `enum`/`const` line at the same path
/// already covers (it lists the exact values), then orders the lines.
fn finish(ctx: &Ctx, lines: Vec<Line>) -> Vec<Phrased> {
    let pinned_at = |segs: &[_]| {
        lines
            .iter()
            .any(|l| (l.keyword == "enum" || l.keyword == "const") && l.segs == segs)
    };
    let dropped: Vec<bool> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            (line.keyword == "type" && pinned_at(&line.segs))
                || lines[..i]
                    .iter()
                    .any(|k| k.segs == line.segs && k.message == line.message)
        })
        .collect();
    let mut kept: Vec<Line> = lines
        .into_iter()
        .zip(dropped)
        .filter_map(|(line, dropped)| (!dropped).then_some(line))
        .collect();
    pair_with_missing(&mut kept);
    let mut views = lookup::RankViews::default();
    let mut keyed: Vec<(Vec<usize>, Line)> =
        kept.into_iter()
            .map(|l| {
                let key = ctx.plan.rank_key(ctx.instance, &l.segs).unwrap_or_else(|| {
                    lookup::rank_key(ctx.root, ctx.instance, &l.segs, &mut views)
                });
                (key, l)
            })
            .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed
        .into_iter()
        .map(|(_, l)| Phrased {
            field: FieldError::new(dotted(&l.segs), l.message),
            segs: l.segs,
            fix: l.fix,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Arguments against schemas that nest, refer and branch: the lines the
    /// plan gives are the lines the schema walk gives, byte for byte.
    #[test]
    fn the_plan_phrases_as_the_schema_walk_does() {
        let schema = json!({
            "type": "object",
            "$defs": {
                "Line": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "pattern": "^sku_[0-9]+$"},
                        "qty": {"type": "integer", "format": "uint8", "minimum": 1},
                        "unit": {"$ref": "#/$defs/Unit"}
                    },
                    "required": ["sku", "qty"],
                    "additionalProperties": false
                },
                "Unit": {"type": "string", "enum": ["kg", "piece"]}
            },
            "properties": {
                "id": {"type": "string", "pattern": "^inv_[0-9]+$"},
                "email": {"type": "string", "format": "email"},
                "amount": {"type": "integer", "format": "uint64", "minimum": 1},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "multipleOf": 0.25},
                "code": {"type": "string", "minLength": 3, "maxLength": 3},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
                "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
                "note": {"type": ["string", "null"]},
                "mode": {"const": "fast"},
                "pricing": {"oneOf": [
                    {"type": "object", "properties": {"model": {"const": "flat"}, "amount": {"type": "integer", "minimum": 0}}, "required": ["model", "amount"]},
                    {"type": "object", "properties": {"model": {"const": "tiered"}, "tiers": {"type": "array", "minItems": 1}}, "required": ["model", "tiers"]}
                ]},
                "owner": {"anyOf": [{"$ref": "#/$defs/Line"}, {"type": "null"}]}
            },
            "required": ["id", "email", "amount"],
            "additionalProperties": false
        });
        let validator = SchemaValidator::new(&schema).expect("compiles");
        let cases = [
            json!({"id": "bad", "email": "nope", "amount": 0}),
            json!({"email": 3}),
            json!({}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "ratio": 0, "code": "ab", "tags": [], "note": 3, "mode": "slow"}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "ratio": 0.3, "code": "abcd", "tags": ["a", "b", "c"]}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "lines": [{"sku": "x", "qty": 0, "unit": "kgs"}, {"qty": 300, "colour": "red"}, {}]}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "pricing": {"model": "flat", "amount": -1}}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "pricing": {"model": "tiered"}}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "pricing": {"model": "other"}}),
            json!({"id": "inv_1", "email": "a@b.co", "amount": 1, "owner": {"qty": 0}}),
            json!({"id": "inv_1", "emial": "a@b.co", "amount": 1, "extra": true}),
            json!({"id": 1, "email": null, "amount": "1", "lines": "x"}),
        ];
        for args in cases {
            let planned = validator.validate_with(&mut args.clone(), &validator.plan);
            let walked = validator.validate_with(&mut args.clone(), &Plan::default());
            assert!(planned.is_err(), "{args}");
            assert_eq!(planned, walked, "{args}");
        }
    }

    #[test]
    fn the_bench_arguments_get_three_lines_in_schema_order() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^inv_[0-9]+$"},
                "email": {"type": "string", "format": "email"},
                "amount": {"type": "integer", "format": "uint64", "minimum": 1}
            },
            "required": ["id", "email", "amount"]
        });
        let validator = SchemaValidator::new(&schema).expect("compiles");
        let errors = validator
            .validate(&mut json!({"amount": 0, "email": "nope", "id": "bad"}))
            .unwrap_err();
        let lines: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (e.path.as_str(), e.message.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (
                    "id",
                    "Does not match the pattern. You sent: 'bad'. Expected a string matching the pattern '^inv_[0-9]+$'."
                ),
                (
                    "email",
                    "Invalid email format. You sent: 'nope'. Expected a valid email address."
                ),
                (
                    "amount",
                    "Too small. You sent: 0. Expected an integer >= 1."
                ),
            ]
        );
    }

    #[test]
    fn a_call_whose_every_line_names_a_value_gets_a_next_step_naming_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "status": {"enum": ["open", "paid"]},
                "flag": {"type": "boolean"},
                "note": {"type": "string"}
            }
        });
        let validator = SchemaValidator::new(&schema).unwrap();
        let step = |args: Value| {
            validator
                .check_call("billing.list", &mut args.clone())
                .unwrap_err()
                .next_step()
        };
        assert_eq!(
            step(json!({"limit": "5", "status": "Paid", "flag": "true"})),
            r#"Replace "limit": "5" with "limit": 5, "status": "Paid" with "status": "paid" and "flag": "true" with "flag": true, keep your other arguments, and call billing again."#
        );
        assert_eq!(
            step(json!({"limit": "five", "status": "Paid"})),
            "Fix the fields below and call billing again."
        );
        assert_eq!(
            step(json!({"note": 5})),
            "Fix the fields below and call billing again."
        );
        assert_eq!(
            validator.check_call("billing.list", &mut json!({"limit": 5})),
            Ok(())
        );
        // A fix the schema would refuse too is not named.
        let bounded = SchemaValidator::new(&json!({
            "type": "object",
            "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 100}}
        }))
        .unwrap();
        let step = |args: Value| {
            bounded
                .check_call("billing.list", &mut args.clone())
                .unwrap_err()
                .next_step()
        };
        assert_eq!(
            step(json!({"limit": "1500"})),
            "Fix the fields below and call billing again."
        );
        assert_eq!(
            step(json!({"limit": "15"})),
            r#"Replace "limit": "15" with "limit": 15, keep your other arguments, and call billing again."#
        );
    }
}
