//! The checks a plain rmcp server writes by hand. rmcp's `Parameters<T>`
//! only deserializes the arguments with serde: types, enum values, required
//! fields and (with `deny_unknown_fields`) unknown keys. The bounds,
//! lengths, patterns and formats the schema lists (`#[schemars(range, length,
//! regex, email, url)]`) are not checked by anything, so the plain server
//! checks them here, the way a handler does, and answers the first failure as
//! `invalid_params` (`plain.rs`), in plain words.
//!
//! The server with mcp-fusion's adapter needs none of this: its
//! `Parameters<T>` checks every keyword of the listed schema.

use crate::args::{BillingArgs, LineItem, ReminderArgs};

/// The most cents an amount or a unit price may be.
const MAX_CENTS: u64 = 100_000_000_000;

/// `Err(message)` unless `min <= value <= max`.
fn within(name: &str, value: u64, min: u64, max: u64) -> Result<(), String> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be between {min} and {max}, got {value}"
        ))
    }
}

/// `Err(message)` unless `text` has `min` to `max` characters.
fn length(name: &str, text: &str, min: usize, max: usize) -> Result<(), String> {
    let count = text.chars().count();
    if (min..=max).contains(&count) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be {min} to {max} characters long, got {count}"
        ))
    }
}

/// `inv_` followed by one or more digits (`^inv_[0-9]+$`).
fn invoice_id(name: &str, id: &str) -> Result<(), String> {
    let valid = id
        .strip_prefix("inv_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if valid {
        Ok(())
    } else {
        Err(format!("{name} must look like inv_123, got {id:?}"))
    }
}

/// `local@domain`: the local part of letters, digits, dots and the
/// symbols an address may hold unquoted; the domain of dot-separated labels
/// of letters, digits and hyphens, two labels at least.
fn email(name: &str, address: &str) -> Result<(), String> {
    let local_char = |c: char| c.is_ascii_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c);
    let label = |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let valid = address.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && local.chars().all(local_char)
            && domain.contains('.')
            && domain.split('.').all(label)
    });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "{name} must be a valid email address, got {address:?}"
        ))
    }
}

/// One line of an invoice, `items[i]`.
fn line_item(i: usize, item: &LineItem) -> Result<(), String> {
    length(
        &format!("items[{i}].description"),
        &item.description,
        1,
        200,
    )?;
    within(
        &format!("items[{i}].quantity"),
        item.quantity.into(),
        1,
        10_000,
    )?;
    within(
        &format!("items[{i}].unit_price_cents"),
        item.unit_price_cents,
        0,
        MAX_CENTS,
    )
}

/// The checks of `billing`'s fields beyond their types; the first failure.
pub fn billing(args: &BillingArgs) -> Result<(), String> {
    if let Some(limit) = args.limit {
        within("limit", limit.into(), 1, 100)?;
    }
    if let Some(id) = &args.id {
        invoice_id("id", id)?;
    }
    if let Some(address) = &args.customer_email {
        email("customer_email", address)?;
    }
    if let Some(amount) = args.amount_cents {
        within("amount_cents", amount, 1, MAX_CENTS)?;
    }
    if let Some(items) = &args.items {
        if items.is_empty() || items.len() > 100 {
            return Err(format!(
                "items must have 1 to 100 lines, got {}",
                items.len()
            ));
        }
        for (i, item) in items.iter().enumerate() {
            line_item(i, item)?;
        }
    }
    if let Some(reason) = &args.reason {
        length("reason", reason, 0, 500)?;
    }
    Ok(())
}

/// The checks of `reminders`' fields beyond their types; the first failure.
pub fn reminders(args: &ReminderArgs) -> Result<(), String> {
    invoice_id("invoice_id", &args.invoice_id)?;
    if let Some(callback) = &args.callback_url
        && let Err(error) = url::Url::parse(callback)
    {
        return Err(format!(
            "callback_url must be a URL, got {callback:?} ({error})"
        ));
    }
    if let Some(note) = &args.note {
        length("note", note, 3, 200)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_schema_lists_is_checked() {
        assert_eq!(
            within("limit", 500, 1, 100),
            Err("limit must be between 1 and 100, got 500".to_owned())
        );
        assert!(invoice_id("id", "inv_12").is_ok());
        for id in ["inv_", "inv_1a", "12", "INV_1"] {
            assert!(invoice_id("id", id).is_err(), "{id}");
        }
        assert!(email("e", "ada@example.com").is_ok());
        for address in [
            "ada at example.com",
            "mailto:ada@example.com",
            "ada@",
            "@x.io",
            "a@b@c.io",
            "a@x.",
        ] {
            assert!(email("e", address).is_err(), "{address}");
        }
        assert!(length("note", "hi", 3, 200).is_err());
        assert!(length("note", "héé", 3, 200).is_ok());
    }
}
