//! "Did you mean …?": the closest candidate to what the model typed.

/// The candidate nearest to `input`, when one is near: equal ignoring case,
/// or within an edit distance (optimal string alignment, on lower-cased text)
/// of a third of the candidate's length, at least 1 and at most 3.
/// Ties go to the earlier candidate; an exact match is not a suggestion.
pub(crate) fn closest<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let typed = input.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for cand in candidates {
        if cand == input {
            return None;
        }
        let lower = cand.to_lowercase();
        let distance = strsim::osa_distance(&typed, &lower);
        let limit = (lower.chars().count() / 3).clamp(1, 3);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, cand));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUSES: [&str; 5] = ["active", "paid", "void", "draft", "overdue"];

    #[test]
    fn case_differences_are_near() {
        assert_eq!(closest("Active", STATUSES), Some("active"));
        assert_eq!(closest("PAID", STATUSES), Some("paid"));
    }

    #[test]
    fn typos_and_transpositions_are_near() {
        assert_eq!(closest("actve", STATUSES), Some("active"));
        assert_eq!(closest("ovredue", STATUSES), Some("overdue"));
        assert_eq!(closest("limt", ["project", "limit"]), Some("limit"));
    }

    #[test]
    fn far_or_exact_inputs_get_no_suggestion() {
        assert_eq!(closest("period", ["project", "limit", "time_range"]), None);
        assert_eq!(closest("cancelled", STATUSES), None);
        assert_eq!(closest("paid", STATUSES), None);
        assert_eq!(closest("x", std::iter::empty()), None);
    }

    #[test]
    fn ties_go_to_the_first_candidate() {
        assert_eq!(closest("bat", ["cat", "hat"]), Some("cat"));
    }
}
