//! Closest-match suggestions ("did you mean …?") by edit distance.

/// The candidate closest to `input`, if one is near enough to be a likely typo.
///
/// Near means: equal ignoring ASCII case, or within a Damerau–Levenshtein
/// distance (on lowercase text) of at most a third of the longer name's length
/// (at least 1, at most 3 edits). Ties go to the first candidate.
pub fn closest<'a, I>(input: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let input_lower = input.to_lowercase();
    candidates
        .into_iter()
        .filter_map(|candidate| {
            let distance = strsim::damerau_levenshtein(&input_lower, &candidate.to_lowercase());
            let longest = input.chars().count().max(candidate.chars().count());
            let allowed = (longest / 3).clamp(1, 3);
            (distance <= allowed).then_some((distance, candidate))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

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
    }
}
