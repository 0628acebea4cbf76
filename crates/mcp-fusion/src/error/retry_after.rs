//! [`IntoRetryAfter`]: what [`ToolError::retry_after`](crate::ToolError::retry_after) accepts.

use std::time::Duration;

/// A delay the model should wait before calling again: a [`Duration`], or a number
/// of seconds as an integer or a float.
///
/// Zero, negative and non-finite numbers mean "no delay" (`None`): the
/// `<retry_after>` element is then omitted (wire contract §2). The envelope
/// rounds up to whole seconds and clamps to 86 400 seconds when it renders.
pub trait IntoRetryAfter {
    /// The delay, or `None` when there is none to announce.
    fn into_retry_after(self) -> Option<Duration>;
}

impl IntoRetryAfter for Duration {
    fn into_retry_after(self) -> Option<Duration> {
        (!self.is_zero()).then_some(self)
    }
}

impl IntoRetryAfter for Option<Duration> {
    fn into_retry_after(self) -> Option<Duration> {
        self.and_then(IntoRetryAfter::into_retry_after)
    }
}

impl IntoRetryAfter for f64 {
    fn into_retry_after(self) -> Option<Duration> {
        if self.is_finite() && self > 0.0 {
            Some(Duration::try_from_secs_f64(self).unwrap_or(Duration::MAX))
        } else {
            None
        }
    }
}

impl IntoRetryAfter for f32 {
    fn into_retry_after(self) -> Option<Duration> {
        f64::from(self).into_retry_after()
    }
}

macro_rules! unsigned_seconds {
    ($($t:ty),*) => {$(
        impl IntoRetryAfter for $t {
            fn into_retry_after(self) -> Option<Duration> {
                Duration::from_secs(u64::from(self)).into_retry_after()
            }
        }
    )*};
}
unsigned_seconds!(u8, u16, u32, u64);

macro_rules! signed_seconds {
    ($($t:ty),*) => {$(
        impl IntoRetryAfter for $t {
            fn into_retry_after(self) -> Option<Duration> {
                u64::try_from(self).ok().and_then(IntoRetryAfter::into_retry_after)
            }
        }
    )*};
}
signed_seconds!(i8, i16, i32, i64, usize, isize);
