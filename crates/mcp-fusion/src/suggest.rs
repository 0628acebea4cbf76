//! Closest-match suggestions ("did you mean …?") for the router (actions,
//! tools) and the validator (enum values, field names): by edit distance
//! first, then by shape (a word, a prefix or an abbreviation of a single
//! candidate), then by meaning (a word of a single candidate's description).

/// The candidate nearest to `input`: [`nearest_by_spelling`], else the one
/// candidate [`by_shape`] finds.
pub(crate) fn closest<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str> + Clone,
) -> Option<&'c str> {
    nearest_by_spelling(input, candidates.clone()).or_else(|| by_shape(input, candidates))
}

/// The candidate nearest to `input`, when one is near: equal ignoring case,
/// or within an edit distance (optimal string alignment, on lower-cased text)
/// of a third of the candidate's length, at least 1 and at most 3. An exact
/// match is the nearest of all. Ties go to the earlier candidate.
///
/// The distance is only computed for candidates whose length is within 3
/// characters of the input's (no other can be near), so a huge input costs
/// no more than a short one: no edit-distance table is ever larger than the
/// longest candidate squared.
fn nearest_by_spelling<'c>(
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
    candidates: impl IntoIterator<Item = &'c str> + Clone,
) -> Option<&'c str> {
    closest(input, candidates).filter(|near| *near != input)
}

/// Inputs longer than this (in bytes) get no suggestion by shape or meaning.
const MAX_SHAPED: usize = 64;

/// The words of a name or a text, lower-cased: split at `_`, `-`, `.`,
/// spaces and punctuation.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words that negate what follows them (`not_paid`, "nothing is owed").
const NEGATIONS: [&str; 7] = ["not", "no", "non", "nothing", "never", "without", "none"];

/// Whether `input` says "not …": it is then no other way of writing a
/// candidate, and no word of a description (`not paid` is not `paid`).
fn negated(input: &str) -> bool {
    words(input).iter().any(|w| NEGATIONS.contains(&w.as_str()))
}

/// The words of `description` that it affirms: the two words after a
/// negation are left out (`nothing is owed` affirms neither `is` nor `owed`).
fn affirmed(description: &str) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip = 0;
    for word in words(description) {
        if NEGATIONS.contains(&word.as_str()) {
            skip = 2;
        } else if skip > 0 {
            skip -= 1;
        } else {
            kept.push(word);
        }
    }
    kept
}

/// Whether the characters of `short` appear in `long` in order, starting
/// with the same one (`qty` in `quantity`).
fn abbreviates(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().next() == long.chars().next() && short.chars().all(|c| rest.any(|l| l == c))
}

/// Whether `input` and `candidate` (lower-cased) look like the same name
/// written another way: one's words are all among the other's
/// (`list` / `list_invoices`, `invoice_id` / `id`), one starts with the
/// other (`weekly` / `week`, both at least 3 characters), or `input`
/// abbreviates `candidate` (`qty` / `quantity`).
fn same_shape(input: &str, candidate: &str) -> bool {
    let (a, b) = (words(input), words(candidate));
    let within = |x: &[String], y: &[String]| !x.is_empty() && x.iter().all(|w| y.contains(w));
    let (i, c) = (input.to_lowercase(), candidate.to_lowercase());
    let (shorter, longer) = if i.len() <= c.len() {
        (&i, &c)
    } else {
        (&c, &i)
    };
    within(&a, &b)
        || within(&b, &a)
        || (shorter.len() >= 3 && longer.starts_with(shorter.as_str()))
        || (i.len() >= 2 && c.len() >= i.len() + 2 && abbreviates(&i, &c))
}

/// The one candidate with [`same_shape`] as `input`; `None` when none or
/// several have it.
pub(crate) fn by_shape<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    if input.len() > MAX_SHAPED || input.is_empty() || negated(input) {
        return None;
    }
    single(candidates.into_iter().filter(|c| same_shape(input, c)))
}

/// The one candidate that is `name` under a namespace (`finance.billing`
/// for `billing`: a gateway's mounted tool called by its upstream's own
/// name); `None` when none or several are.
pub(crate) fn under_namespace<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    single(candidates.into_iter().filter(|candidate| {
        candidate
            .split_once('.')
            .is_some_and(|(namespace, own)| !namespace.is_empty() && own == name)
    }))
}

/// The only item of `items`, if there is exactly one.
fn single<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// The candidate whose description holds a word of `input` that no other
/// candidate's name or description holds (`cancelled` → `void`, described
/// "Cancelled; nothing is owed."). Words are compared on their first five
/// letters (`cancel`, `cancelled`); words shorter than 3 letters are ignored,
/// and so are the words a description negates ([`affirmed`]): `owed` does
/// not name `void`. An input that negates (`not paid`) gets no suggestion.
/// `candidates` are `(name, description)` pairs; `None` when no word, or
/// several candidates, match.
pub(crate) fn by_description<'c>(input: &str, candidates: &[(&'c str, &str)]) -> Option<&'c str> {
    if input.len() > MAX_SHAPED || negated(input) {
        return None;
    }
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    let described: Vec<Vec<String>> = candidates
        .iter()
        .map(|(name, description)| {
            let mut ws: Vec<String> = words(name).iter().map(|w| stem(w)).collect();
            ws.extend(affirmed(description).iter().map(|w| stem(w)));
            ws
        })
        .collect();
    let mut found: Option<usize> = None;
    for word in words(input).iter().filter(|w| w.chars().count() >= 3) {
        let word = stem(word);
        let holders: Vec<usize> = (0..candidates.len())
            .filter(|&i| described[i].contains(&word))
            .collect();
        if let [only] = holders[..] {
            if found.is_some_and(|f| f != only) {
                return None;
            }
            found = Some(only);
        }
    }
    found.map(|i| candidates[i].0)
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
    fn words_prefixes_and_abbreviations_of_one_candidate() {
        let actions = [
            "list_invoices",
            "get_invoice",
            "pay_invoice",
            "generate_report",
        ];
        assert_eq!(closest("list", actions), Some("list_invoices"));
        assert_eq!(closest("report", actions), Some("generate_report"));
        assert_eq!(closest("pay", actions), Some("pay_invoice"));
        // Shared by several: no suggestion.
        assert_eq!(closest("invoice", actions), None);
        assert_eq!(closest("weekly", ["day", "week", "month"]), Some("week"));
        let fields = ["description", "quantity", "unit_price_cents"];
        assert_eq!(closest("qty", fields), Some("quantity"));
        assert_eq!(closest("unit_price", fields), Some("unit_price_cents"));
        assert_eq!(closest("invoice_id", ["id"]), Some("id"));
        assert_eq!(closest(&"x".repeat(100), ["xxx"]), None);
    }

    #[test]
    fn descriptions_name_synonyms() {
        use super::by_description;
        let statuses = [
            ("draft", "Being prepared; not sent yet."),
            ("paid", "Paid in full."),
            ("void", "Cancelled; nothing is owed."),
        ];
        assert_eq!(by_description("cancelled", &statuses), Some("void"));
        assert_eq!(by_description("settled", &statuses), None);
        // A negated word names nothing, in the input or in a description.
        assert_eq!(by_description("owed", &statuses), None);
        assert_eq!(by_description("not_cancelled", &statuses), None);
        let actions = [
            ("get_invoice", "Read one invoice by id."),
            ("void_invoice", "Void (cancel) an invoice that is not paid."),
        ];
        assert_eq!(
            by_description("cancel_invoice", &actions),
            Some("void_invoice")
        );
        assert_eq!(by_description("invoice", &actions), None);
    }

    #[test]
    fn a_negated_input_is_no_other_way_of_writing_a_candidate() {
        assert_eq!(closest("not_void", STATUSES), None);
        assert_eq!(closest("not paid", STATUSES), None);
        assert_eq!(closest("no-draft", STATUSES), None);
        assert_eq!(closest("paid_in_full", STATUSES), Some("paid"));
    }

    #[test]
    fn a_name_under_one_namespace_is_found() {
        use super::under_namespace;
        let tools = [
            "finance.billing",
            "finance.billing_health",
            "everything.echo",
        ];
        assert_eq!(under_namespace("billing", tools), Some("finance.billing"));
        assert_eq!(under_namespace("echo", tools), Some("everything.echo"));
        assert_eq!(under_namespace("finance", tools), None);
        assert_eq!(under_namespace("echo", ["a.echo", "b.echo"]), None);
    }

    #[test]
    fn ties_go_to_the_first_candidate() {
        assert_eq!(closest("bat", ["cat", "hat"]), Some("cat"));
    }
}
