//! The delay before calling again (wire contract §2): [`IntoRetryAfter`], what
//! [`ToolError::retry_after`](crate::ToolError::retry_after) accepts, and the
//! one rule for reading a delay someone else wrote ([`retry_after_from_secs`],
//! [`retry_after_from_text`]), used by the envelope parser, the client's
//! `_meta` reader and for upstream `Retry-After` values.

use std::time::Duration;

/// The largest `retry_after`, in seconds (one day, §2). A longer delay is
/// clamped to it, when written and when read.
pub const MAX_RETRY_AFTER_SECS: u64 = 86_400;

/// A delay read from a number of seconds, as the contract writes it (§2):
/// whole seconds, rounded up, at least 1, at most [`MAX_RETRY_AFTER_SECS`].
///
/// `None` ("no delay", the element is absent) for zero, a negative number,
/// NaN and the infinities. A finite number over the maximum is clamped to it.
///
/// ```
/// use mcp_fusion::error::retry_after_from_secs;
///
/// assert_eq!(retry_after_from_secs(30.0), Some(30));
/// assert_eq!(retry_after_from_secs(1.2), Some(2));
/// assert_eq!(retry_after_from_secs(0.001), Some(1));
/// assert_eq!(retry_after_from_secs(1e300), Some(86_400));
/// assert_eq!(retry_after_from_secs(0.0), None);
/// assert_eq!(retry_after_from_secs(-1.0), None);
/// assert_eq!(retry_after_from_secs(f64::NAN), None);
/// ```
pub fn retry_after_from_secs(secs: f64) -> Option<u64> {
    if !secs.is_finite() || secs <= 0.0 {
        return None;
    }
    // `as` saturates; the value is already within 1..=86 400 here.
    Some(secs.ceil().min(MAX_RETRY_AFTER_SECS as f64) as u64)
}

/// A delay read from text someone else wrote: the `<retry_after>` of a
/// foreign envelope, a `retry_after_seconds` string in `_meta`, or the
/// delay-seconds form of an HTTP `Retry-After` header.
///
/// The text, surrounding whitespace aside, is a plain non-negative decimal
/// number — ASCII digits, optionally followed by `.` and more digits (`30`,
/// `1.5`, `007`) — optionally followed by the unit `second` or `seconds`
/// (any ASCII case, whitespace before it allowed). The number then follows
/// [`retry_after_from_secs`]: rounded up, clamped to 1..=86 400, zero is no
/// delay (`None`); a number too long for `f64` is clamped like any other large
/// one.
///
/// Anything else gives `None` *whole*, never a number read from its leading
/// characters: a sign (`-1`, `+5`), `NaN`, `inf`, an exponent (`1e3`),
/// trailing characters (`30abc`, `30 minutes`), words (`thirty`), an HTTP-date.
///
/// ```
/// use mcp_fusion::error::retry_after_from_text;
///
/// assert_eq!(retry_after_from_text("30 seconds"), Some(30));
/// assert_eq!(retry_after_from_text(" 1 second\n"), Some(1));
/// assert_eq!(retry_after_from_text("30"), Some(30));
/// assert_eq!(retry_after_from_text("1.5 seconds"), Some(2));
/// assert_eq!(retry_after_from_text("99999999999"), Some(86_400));
/// assert_eq!(retry_after_from_text("0"), None);
/// assert_eq!(retry_after_from_text("30abc"), None);
/// assert_eq!(retry_after_from_text("-1"), None);
/// assert_eq!(retry_after_from_text("NaN"), None);
/// ```
pub fn retry_after_from_text(text: &str) -> Option<u64> {
    let text = text.trim();
    let number = strip_unit(text, "seconds")
        .or_else(|| strip_unit(text, "second"))
        .unwrap_or(text)
        .trim_end();
    let (whole, fraction) = match number.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (number, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return None;
    }
    // Only digits and one dot: `parse` cannot fail, and gives infinity only
    // for a number too long for `f64`, which is clamped like any large one.
    let secs: f64 = number.parse().ok()?;
    if secs.is_infinite() {
        return Some(MAX_RETRY_AFTER_SECS);
    }
    retry_after_from_secs(secs)
}

/// `delay` as the envelope writes it: whole seconds rounded up, at least 1,
/// at most [`MAX_RETRY_AFTER_SECS`]; `None` for no delay (§2).
pub(crate) fn envelope_secs(delay: Option<Duration>) -> Option<u64> {
    let delay = delay.filter(|d| !d.is_zero())?;
    let secs = delay
        .as_secs()
        .saturating_add(u64::from(delay.subsec_nanos() > 0));
    Some(secs.clamp(1, MAX_RETRY_AFTER_SECS))
}

/// A whole number of seconds as the envelope and the client write it:
/// `1 second`, `30 seconds` (also `0 seconds`).
pub(crate) fn seconds_text(secs: u64) -> String {
    let unit = if secs == 1 { "second" } else { "seconds" };
    format!("{secs} {unit}")
}

/// `text` without its trailing `unit` (ASCII case ignored), or `None` when it
/// does not end with it.
fn strip_unit<'a>(text: &'a str, unit: &str) -> Option<&'a str> {
    let split = text.len().checked_sub(unit.len())?;
    let (number, end) = (text.get(..split)?, text.get(split..)?);
    end.eq_ignore_ascii_case(unit).then_some(number)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_up_and_clamp() {
        let secs = |ms: u64| envelope_secs(Some(Duration::from_millis(ms)));
        assert_eq!(secs(0), None);
        assert_eq!(secs(400), Some(1));
        assert_eq!(secs(1_000), Some(1));
        assert_eq!(secs(1_500), Some(2));
        assert_eq!(secs(30_000), Some(30));
        assert_eq!(envelope_secs(Some(Duration::MAX)), Some(86_400));
        assert_eq!(envelope_secs(None), None);
        assert_eq!(seconds_text(1), "1 second");
        assert_eq!(seconds_text(30), "30 seconds");
    }

    #[test]
    fn numbers_round_up_and_clamp() {
        let cases = [
            (30.0, Some(30)),
            (1.0, Some(1)),
            (1.5, Some(2)),
            (2.01, Some(3)),
            (0.000_1, Some(1)),
            (86_400.0, Some(86_400)),
            (86_400.5, Some(86_400)),
            (1e308, Some(86_400)),
            (f64::MAX, Some(86_400)),
            (0.0, None),
            (-0.0, None),
            (-0.5, None),
            (-5.0, None),
            (f64::NAN, None),
            (f64::INFINITY, None),
            (f64::NEG_INFINITY, None),
        ];
        for (secs, expected) in cases {
            assert_eq!(retry_after_from_secs(secs), expected, "{secs}");
        }
    }

    #[test]
    fn text_is_a_plain_number_with_an_optional_unit() {
        let cases = [
            ("30", Some(30)),
            ("30 seconds", Some(30)),
            ("1 second", Some(1)),
            ("\n  86400 seconds \n", Some(86_400)),
            ("5seconds", Some(5)),
            ("5 SECONDS", Some(5)),
            ("1.5 seconds", Some(2)),
            ("0.2", Some(1)),
            ("007", Some(7)),
            ("86401", Some(86_400)),
            ("99999999999999999999 seconds", Some(86_400)),
            (&"9".repeat(400), Some(86_400)),
            ("0", None),
            ("0 seconds", None),
            ("0.0", None),
        ];
        for (text, expected) in cases {
            assert_eq!(retry_after_from_text(text), expected, "{text:?}");
        }
    }

    #[test]
    fn anything_else_is_dropped_whole() {
        for text in [
            "",
            " ",
            "seconds",
            "-1",
            "-1 seconds",
            "+5",
            "-0",
            "NaN",
            "nan",
            "inf",
            "Infinity",
            "-inf",
            "30abc",
            "1e3",
            "1e3x",
            "1E3",
            "thirty",
            "30 minutes",
            "30 s",
            "30 secs",
            "1.",
            ".5",
            "1.2.3",
            "1,5",
            "3 0",
            "0x10",
            "\u{663}",
            "30 seconds later",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "½",
        ] {
            assert_eq!(retry_after_from_text(text), None, "{text:?}");
        }
    }
}
