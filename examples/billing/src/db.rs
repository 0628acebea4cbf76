//! The invoice store: one SQLite file, created and seeded on first open.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};

use crate::model::{Invoice, InvoiceRecord, LineItem, Status};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The folder for the database file could not be created.
    #[error("cannot create the folder for {path}: {source}")]
    Folder {
        /// The database file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The database file's folder does not exist (or is not a folder), and
    /// [`Db::open`] does not create folders: a mistyped path must not become a
    /// new directory tree. `first_missing` is the outermost folder of the
    /// path that is missing (the likely typo), equal to `folder` when only
    /// the last one is.
    #[error("{}", missing_folder_text(folder, first_missing))]
    MissingFolder {
        /// The folder the file would be in.
        folder: PathBuf,
        /// The outermost missing folder on the way to `folder`.
        first_missing: PathBuf,
    },
    /// A stored row does not hold valid data (a corrupt or foreign file).
    #[error("invalid stored data: {0}")]
    Corrupt(String),
}

/// The text of [`DbError::MissingFolder`].
fn missing_folder_text(folder: &Path, first_missing: &Path) -> String {
    if folder.exists() {
        return format!("{} is not a folder", folder.display());
    }
    if first_missing == folder {
        return format!("the folder {} does not exist", folder.display());
    }
    format!(
        "the folder {} does not exist ({} is already missing)",
        folder.display(),
        first_missing.display()
    )
}

/// The default database file: `$XDG_DATA_HOME/mcp-fusion/billing.db`, else
/// `$HOME/.local/share/mcp-fusion/billing.db`, else `billing.db` in the
/// system's temporary folder.
pub fn default_db_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share")));
    match base {
        Some(base) => base.join("mcp-fusion").join("billing.db"),
        None => std::env::temp_dir().join("mcp-fusion-billing.db"),
    }
}

/// A handle on the store, shared by every call (one connection behind a lock;
/// queries run on tokio's blocking pool).
#[derive(Clone, Debug)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS invoices (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    customer_email TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    items TEXT NOT NULL,
    due_date TEXT,
    void_reason TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    card_number TEXT,
    internal_note TEXT
);";

/// The columns added after the first version, for databases made before
/// them (each `ALTER TABLE invoices ADD COLUMN …` when missing).
const ADDED_COLUMNS: &[&str] = &["card_number", "internal_note"];

/// The card number seeded for invoice `seq`: a fake, canary-looking value
/// (`4111-CANARY-0002`) that tests look for in what leaves the server.
pub fn seeded_card(seq: i64) -> String {
    format!("4111-CANARY-{seq:04}")
}

/// The internal note seeded on every invoice: never shown to the model.
pub const SEEDED_NOTE: &str = "INTERNAL-ONLY: cost 40% of amount";

/// Adds the columns of [`ADDED_COLUMNS`] a database made before them lacks.
fn add_missing_columns(conn: &Connection) -> Result<(), DbError> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('invoices')")?;
    let present: Vec<String> = stmt
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for column in ADDED_COLUMNS {
        if !present.iter().any(|p| p == column) {
            conn.execute_batch(&format!("ALTER TABLE invoices ADD COLUMN {column} TEXT"))?;
        }
    }
    Ok(())
}

/// When the seeded invoices were created: one fixed time, so that what a
/// tool returns for them is the same text in every run (a measurement, or a
/// recorded answer, compares runs).
const SEEDED_AT: &str = "2026-11-02T09:00:00Z";

const SEED: &[(&str, u64, &str, &str)] = &[
    ("ada@example.com", 120_000, "EUR", "paid"),
    ("grace@example.com", 45_050, "USD", "open"),
    ("linus@example.com", 9_900, "USD", "draft"),
    ("margaret@example.com", 310_000, "GBP", "overdue"),
    ("alan@example.com", 2_500, "EUR", "void"),
    ("barbara@example.com", 78_000, "USD", "open"),
    ("edsger@example.com", 15_000, "EUR", "paid"),
    ("donald@example.com", 64_000, "USD", "open"),
    ("frances@example.com", 5_000, "GBP", "draft"),
    ("ken@example.com", 99_999, "USD", "overdue"),
    ("radia@example.com", 18_250, "EUR", "open"),
    ("tim@example.com", 30_000, "USD", "paid"),
];

impl Db {
    /// Opens the database at `path`, creating the file (not its folder) if
    /// needed; an empty database is seeded with twelve invoices, `inv_1` to
    /// `inv_12`, created at one fixed time (`2026-11-02T09:00:00Z`).
    ///
    /// # Errors
    /// [`DbError::MissingFolder`] when the file's folder does not exist
    /// (see [`open_creating_folders`](Self::open_creating_folders));
    /// [`DbError::Sqlite`] when SQLite fails.
    pub fn open(path: &Path) -> Result<Self, DbError> {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !folder.is_dir()
        {
            let first_missing = folder
                .ancestors()
                .take_while(|p| !p.as_os_str().is_empty() && !p.exists())
                .last()
                .unwrap_or(folder);
            return Err(DbError::MissingFolder {
                folder: folder.to_owned(),
                first_missing: first_missing.to_owned(),
            });
        }
        Self::open_file(path)
    }

    /// [`open`](Self::open), but first creates the file's folder and its
    /// missing parents (for the default path, or when asked).
    ///
    /// # Errors
    /// [`DbError::Folder`] when the folder cannot be created;
    /// [`DbError::Sqlite`] when SQLite fails.
    pub fn open_creating_folders(path: &Path) -> Result<Self, DbError> {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|source| DbError::Folder {
                path: path.to_owned(),
                source,
            })?;
        }
        Self::open_file(path)
    }

    fn open_file(path: &Path) -> Result<Self, DbError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        add_missing_columns(&conn)?;
        let count: i64 = conn.query_row("SELECT COUNT(*) FROM invoices", [], |r| r.get(0))?;
        if count == 0 {
            for (seq, (email, amount, currency, status)) in (1..).zip(SEED) {
                let items = serde_json::to_string(&[LineItem {
                    description: String::from("Consulting"),
                    quantity: 1,
                    unit_price_cents: *amount,
                }])
                .map_err(|e| DbError::Corrupt(e.to_string()))?;
                conn.execute(
                    "INSERT INTO invoices (customer_email, amount_cents, currency, status, items, created_at, card_number, internal_note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        email,
                        *amount as i64,
                        currency,
                        status,
                        items,
                        SEEDED_AT,
                        seeded_card(seq),
                        SEEDED_NOTE
                    ],
                )?;
            }
        }
        Ok(Db {
            conn: Arc::new(Mutex::new(conn)),
            path: path.to_owned(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with the connection on tokio's blocking pool.
    pub async fn run<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, DbError> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&conn)
        })
        .await
        .map_err(|e| DbError::Corrupt(format!("database task failed: {e}")))?
    }
}

/// The numeric part of an invoice id (`inv_12` → 12); `None` when out of range.
pub fn seq_of(id: &str) -> Option<i64> {
    let digits = id.strip_prefix("inv_")?;
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}

fn row_to_invoice(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Invoice, DbError>> {
    let seq: i64 = row.get("seq")?;
    let status: String = row.get("status")?;
    let items: String = row.get("items")?;
    let amount: i64 = row.get("amount_cents")?;
    let invoice = (|| {
        Ok(Invoice {
            id: format!("inv_{seq}"),
            customer_email: row.get("customer_email").map_err(DbError::from)?,
            amount_cents: u64::try_from(amount).map_err(|e| DbError::Corrupt(e.to_string()))?,
            currency: row.get("currency").map_err(DbError::from)?,
            status: status.parse::<Status>().map_err(DbError::Corrupt)?,
            items: serde_json::from_str(&items).map_err(|e| DbError::Corrupt(e.to_string()))?,
            due_date: row.get("due_date").map_err(DbError::from)?,
            created_at: row.get("created_at").map_err(DbError::from)?,
        })
    })();
    Ok(invoice)
}

/// The stored record of `row`: its invoice, card number and internal note.
fn row_to_record(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<InvoiceRecord, DbError>> {
    let invoice = row_to_invoice(row)?;
    let card_number: Option<String> = row.get("card_number")?;
    let internal_note: Option<String> = row.get("internal_note")?;
    Ok(invoice.map(|invoice| InvoiceRecord {
        invoice,
        card_number,
        internal_note,
    }))
}

/// The stored record of invoice `seq`, if any (with what the model must not
/// read: a presenter shows it).
pub fn find_record(conn: &Connection, seq: i64) -> Result<Option<InvoiceRecord>, DbError> {
    conn.query_row(
        "SELECT * FROM invoices WHERE seq = ?1",
        [seq],
        row_to_record,
    )
    .optional()?
    .transpose()
}

/// Up to `limit` stored records after sequence number `after`, optionally
/// of one status.
pub fn list_records(
    conn: &Connection,
    status: Option<Status>,
    after: i64,
    limit: u32,
) -> Result<Vec<InvoiceRecord>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT * FROM invoices WHERE seq > ?1 AND (?2 IS NULL OR status = ?2) ORDER BY seq LIMIT ?3",
    )?;
    let rows = stmt.query_map(
        params![after, status.map(Status::as_str), i64::from(limit)],
        row_to_record,
    )?;
    let mut records = Vec::new();
    for row in rows {
        records.push(row??);
    }
    Ok(records)
}

/// The invoice with sequence number `seq`, if any.
pub fn find(conn: &Connection, seq: i64) -> Result<Option<Invoice>, DbError> {
    conn.query_row(
        "SELECT * FROM invoices WHERE seq = ?1",
        [seq],
        row_to_invoice,
    )
    .optional()?
    .transpose()
}

/// Up to `limit` invoices after sequence number `after`, optionally of one status.
pub fn list(
    conn: &Connection,
    status: Option<Status>,
    after: i64,
    limit: u32,
) -> Result<Vec<Invoice>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT * FROM invoices WHERE seq > ?1 AND (?2 IS NULL OR status = ?2) ORDER BY seq LIMIT ?3",
    )?;
    let rows = stmt.query_map(
        params![after, status.map(Status::as_str), i64::from(limit)],
        row_to_invoice,
    )?;
    let mut invoices = Vec::new();
    for row in rows {
        invoices.push(row??);
    }
    Ok(invoices)
}

/// Stores a new invoice and returns it.
pub fn insert(conn: &Connection, new: &crate::model::CreateInvoice) -> Result<Invoice, DbError> {
    let items = serde_json::to_string(&new.items).map_err(|e| DbError::Corrupt(e.to_string()))?;
    conn.execute(
        "INSERT INTO invoices (customer_email, amount_cents, currency, status, items, due_date) VALUES (?1, ?2, ?3, 'open', ?4, ?5)",
        params![
            new.customer_email,
            i64::try_from(new.amount_cents).map_err(|e| DbError::Corrupt(e.to_string()))?,
            new.currency.as_str(),
            items,
            new.due_date
        ],
    )?;
    let seq = conn.last_insert_rowid();
    find(conn, seq)?.ok_or_else(|| DbError::Corrupt(String::from("the new invoice vanished")))
}

/// Sets the status (and the void reason) of invoice `seq`.
pub fn set_status(
    conn: &Connection,
    seq: i64,
    status: Status,
    reason: Option<&str>,
) -> Result<(), DbError> {
    conn.execute(
        "UPDATE invoices SET status = ?1, void_reason = ?2 WHERE seq = ?3",
        params![status.as_str(), reason, seq],
    )?;
    Ok(())
}

/// How many invoices are stored.
pub fn count(conn: &Connection) -> Result<i64, DbError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM invoices", [], |r| r.get(0))?)
}
