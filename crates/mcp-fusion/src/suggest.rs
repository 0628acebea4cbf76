//! Closest-match suggestions ("did you mean …?") by edit distance, for the
//! router (actions, tools) and the validator (enum values, field names).

/// The candidate nearest to `input`, when one is near: equal ignoring case,
/// or within an edit distance (optimal string alignment, on lower-cased text)
/// of a third of the candidate's length, at least 1 and at most 3. An exact
/// match is the nearest of all. Ties go to the earlier candidate.
///
/// The distance is only computed for candidates whose length is within 3
/// characters of the input's (no other can be near), so a huge input costs
/// no more than a short one: no edit-distance table is ever larger than the
/// longest candidate squared.
pub(crate) fn closest<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    const MAX_DISTANCE: usize = 3;
    let input_len = input.chars().count();
    let mut typed: Option<String> = None;
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate.chars().count().abs_diff(input_len) > MAX_DISTANCE {
            continue;
        }
        let typed = typed.get_or_insert_with(|| input.to_lowercase());
        let lower = candidate.to_lowercase();
        let distance = if candidate == input {
            0
        } else {
            strsim::osa_distance(typed, &lower)
        };
        let limit = (lower.chars().count() / 3).clamp(1, MAX_DISTANCE);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// [`closest`], except that an exact match (a valid value) is no suggestion.
pub(crate) fn closest_other<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    closest(input, candidates).filter(|near| *near != input)
}

#[cfg(test)]
mod tests {
    use super::{closest, closest_other};

    const STATUSES: [&str; 5] = ["active", "paid", "void", "draft", "overdue"];

    #[test]
    fn finds_typos_and_case_slips() {
        let actions = ["list_invoices", "get_invoice", "pay_invoice"];
        assert_eq!(closest("get_invoce", actions), Some("get_invoice"));
        assert_eq!(closest("GET_INVOICE", actions), Some("get_invoice"));
        assert_eq!(closest("export", ["pdf", "png", "svg"]), None);
        assert_eq!(
            closest("billing", ["billing", "billing_health"]),
            Some("billing")
        );
        assert_eq!(closest("Active", STATUSES), Some("active"));
        assert_eq!(closest("actve", STATUSES), Some("active"));
        assert_eq!(closest("ovredue", STATUSES), Some("overdue"));
        assert_eq!(closest("limt", ["project", "limit"]), Some("limit"));
    }

    #[test]
    fn far_inputs_get_no_suggestion_and_exact_ones_only_from_closest() {
        assert_eq!(closest("period", ["project", "limit", "time_range"]), None);
        assert_eq!(closest("cancelled", STATUSES), None);
        assert_eq!(closest("paid", STATUSES), Some("paid"));
        assert_eq!(closest_other("paid", STATUSES), None);
        assert_eq!(closest_other("PAID", STATUSES), Some("paid"));
        assert_eq!(closest("x", std::iter::empty()), None);
    }

    #[test]
    fn ties_go_to_the_first_candidate() {
        assert_eq!(closest("bat", ["cat", "hat"]), Some("cat"));
    }
}
