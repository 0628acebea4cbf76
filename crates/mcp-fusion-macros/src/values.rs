//! The values written as text in the attribute and read at compile time: a
//! timeout (`"2s"`) and a rate limit (`"2/min"`). A bad one is a compile
//! error pointing at the string.

use std::time::Duration;

use syn::LitStr;

/// The milliseconds of a timeout written in humantime syntax (`500ms`,
/// `2s`, `1m 30s`, as `fusion serve --timeout` reads it): more than zero and
/// a whole number of milliseconds (the contract lists `timeoutMs`).
pub(crate) fn timeout_millis(lit: &LitStr) -> syn::Result<u64> {
    let text = lit.value();
    let fail = |reason: String| {
        syn::Error::new(lit.span(), format!("invalid timeout \"{text}\": {reason}"))
    };
    let duration = humantime::parse_duration(&text)
        .map_err(|e| fail(format!("{e} (write e.g. 500ms, 2s, 1m)")))?;
    if duration.is_zero() {
        return Err(fail(String::from("it must be longer than zero")));
    }
    if duration.subsec_nanos() % 1_000_000 != 0 {
        return Err(fail(String::from(
            "it must be a whole number of milliseconds",
        )));
    }
    u64::try_from(duration.as_millis())
        .map_err(|_| fail(format!("it must be at most {} ms", u64::MAX)))
}

/// The calls and the period in seconds of a rate limit written `N/PERIOD`,
/// with the rules of `RateLimit`'s `FromStr` in the library: N a whole
/// number of at least 1, PERIOD one of `s`, `sec`, `second`, `min`,
/// `minute`, `h`, `hour`, blanks around either allowed.
pub(crate) fn rate_limit(lit: &LitStr) -> syn::Result<(u32, Duration)> {
    let text = lit.value();
    let fail = |reason: &str| {
        syn::Error::new(
            lit.span(),
            format!(
                "invalid rate limit \"{text}\": {reason} (write N/PERIOD with PERIOD one of s, min, h, e.g. 2/min)"
            ),
        )
    };
    let (calls, period) = text.trim().split_once('/').ok_or_else(|| fail("no '/'"))?;
    let calls: u32 = calls
        .trim()
        .parse()
        .map_err(|_| fail("N is not a whole number"))?;
    if calls == 0 {
        return Err(fail("N must be at least 1"));
    }
    let period = match period.trim() {
        "s" | "sec" | "second" => Duration::from_secs(1),
        "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return Err(fail("unknown PERIOD")),
    };
    Ok((calls, period))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> LitStr {
        LitStr::new(text, proc_macro2::Span::call_site())
    }

    fn timeout(text: &str) -> Result<u64, String> {
        timeout_millis(&lit(text)).map_err(|e| e.to_string())
    }

    fn limit(text: &str) -> Result<(u32, u64), String> {
        rate_limit(&lit(text))
            .map(|(calls, period)| (calls, period.as_secs()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn timeouts_in_humantime_syntax() {
        assert_eq!(timeout("2s"), Ok(2_000));
        assert_eq!(timeout("500ms"), Ok(500));
        assert_eq!(timeout("1m 30s"), Ok(90_000));
        assert_eq!(timeout("1.5s"), Ok(1_500));
        assert_eq!(timeout("1h"), Ok(3_600_000));
    }

    #[test]
    fn bad_timeouts_say_why() {
        assert_eq!(
            timeout("2 parsecs"),
            Err(String::from(
                "invalid timeout \"2 parsecs\": unknown time unit \"parsecs\", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations) (write e.g. 500ms, 2s, 1m)"
            ))
        );
        assert_eq!(
            timeout("2"),
            Err(String::from(
                "invalid timeout \"2\": time unit needed, for example 2sec or 2ms (write e.g. 500ms, 2s, 1m)"
            ))
        );
        assert_eq!(
            timeout("0s"),
            Err(String::from(
                "invalid timeout \"0s\": it must be longer than zero"
            ))
        );
        assert_eq!(
            timeout("1500us"),
            Err(String::from(
                "invalid timeout \"1500us\": it must be a whole number of milliseconds"
            ))
        );
        assert_eq!(
            timeout("584942418 years"),
            Err(String::from(
                "invalid timeout \"584942418 years\": it must be at most 18446744073709551615 ms"
            ))
        );
    }

    #[test]
    fn rate_limits_of_every_period_spelling() {
        assert_eq!(limit("3/s"), Ok((3, 1)));
        assert_eq!(limit("3/sec"), Ok((3, 1)));
        assert_eq!(limit("3/second"), Ok((3, 1)));
        assert_eq!(limit("2/min"), Ok((2, 60)));
        assert_eq!(limit("2/minute"), Ok((2, 60)));
        assert_eq!(limit("100/h"), Ok((100, 3600)));
        assert_eq!(limit(" 100 / hour "), Ok((100, 3600)));
    }

    #[test]
    fn bad_rate_limits_say_why() {
        let expected = |input: &str, reason: &str| {
            Err(format!(
                "invalid rate limit \"{input}\": {reason} (write N/PERIOD with PERIOD one of s, min, h, e.g. 2/min)"
            ))
        };
        assert_eq!(limit("2 per min"), expected("2 per min", "no '/'"));
        assert_eq!(
            limit("two/min"),
            expected("two/min", "N is not a whole number")
        );
        assert_eq!(
            limit("-1/min"),
            expected("-1/min", "N is not a whole number")
        );
        assert_eq!(limit("0/min"), expected("0/min", "N must be at least 1"));
        assert_eq!(limit("2/day"), expected("2/day", "unknown PERIOD"));
    }
}
