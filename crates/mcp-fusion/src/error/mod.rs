//! The data of a tool failure: [`ToolError`] with its [`ErrorCode`] and
//! [`Severity`], and [`ValidationFailure`] for arguments that miss the schema
//! (with the optional [`ContractAwareness`] of self-healing).
//! Nothing here knows the wire syntax; [`crate::envelope`] renders these.

mod code;
mod contract_awareness;
mod retry_after;
mod severity;
mod tool_error;
mod validation_failure;

pub use code::ErrorCode;
pub use contract_awareness::{
    AwarenessDelta, ChangeSeverity, ContractAwareness, UnknownChangeSeverity,
};
pub use retry_after::{
    IntoRetryAfter, MAX_RETRY_AFTER_SECS, retry_after_from_secs, retry_after_from_text,
};
pub(crate) use retry_after::{envelope_secs, seconds_text};
pub use severity::{Severity, UnknownSeverity};
pub(crate) use tool_error::merge_details;
pub use tool_error::{BoxError, ToolError};
pub use validation_failure::{FieldError, MORE_PATH, VALIDATION_RECOVERY, ValidationFailure};
pub(crate) use validation_failure::{more_line, more_line_at_least};
