//! [`Words`]: the tokenizer of tool search — identifiers split into their
//! words (heck: `get_invoice`, `customerId`, `crm.v2.find` → `get invoice`,
//! `customer id`, `crm v2 find`), then the `bm25` crate's English
//! tokenizer (Unicode word boundaries, lower case, stop words, Snowball
//! stemming), for the indexed text and the query alike.

use bm25::{DefaultTokenizer, Language, Tokenizer};
use heck::ToSnakeCase;

/// The tokenizer of the index and the query.
pub(crate) struct Words {
    english: DefaultTokenizer,
}

impl Words {
    pub(crate) fn new() -> Self {
        Words {
            english: DefaultTokenizer::new(Language::English),
        }
    }
}

impl Tokenizer for Words {
    fn tokenize(&self, text: &str) -> Vec<String> {
        // snake_case joins the words of every identifier and phrase with
        // `_`, which Unicode word boundaries would keep inside one word.
        let spaced = text.to_snake_case().replace('_', " ");
        self.english.tokenize(&spaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_become_their_stemmed_words() {
        let words = Words::new();
        assert_eq!(
            words.tokenize("billing.get_invoice customerId listInvoices"),
            ["bill", "get", "invoic", "custom", "id", "list", "invoic"]
        );
        assert_eq!(
            words.tokenize("Refund the PAYMENTS!"),
            ["refund", "payment"]
        );
        assert!(words.tokenize("  ").is_empty());
    }
}
