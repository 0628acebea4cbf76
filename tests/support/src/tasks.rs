//! What tests of the Tasks extension share.

use serde_json::{Map, Value};

/// Takes `createdAt` and `lastUpdatedAt` out of a task's `object` (a task,
/// or the params of `notifications/tasks`), each checked to be an RFC 3339
/// UTC time, so that what is left can be compared whole.
///
/// # Panics
/// When either is missing or does not end in `Z`.
pub fn take_timestamps(object: &mut Map<String, Value>) {
    for stamp in ["createdAt", "lastUpdatedAt"] {
        let value = object.remove(stamp).expect("a timestamp");
        assert!(value.as_str().is_some_and(|s| s.ends_with('Z')), "{value}");
    }
}
