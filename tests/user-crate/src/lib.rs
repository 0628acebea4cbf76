//! A crate that uses mcp-fusion only through its public API, as a user's
//! crate does: application state, typed outputs, its own error type and the
//! `#[action]` attribute. [`with_macro`] and [`with_builder`] declare the same
//! server in the two styles; the tests check that they make one contract.

#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_fusion::{Action, FusionServer, Group, Json, State, ToolError, action};

/// The application's state: notes by id.
#[derive(Clone, Default)]
pub struct Notes(pub Arc<Mutex<BTreeMap<u32, String>>>);

/// The arguments of `notes.add`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Add {
    /// The text of the note, 1 to 200 characters.
    #[schemars(length(min = 1, max = 200))]
    pub text: String,
}

/// The arguments of `notes.get`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Get {
    /// The note's id.
    pub id: u32,
}

/// A note, as the tools return it.
#[derive(Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Note {
    /// Its id.
    pub id: u32,
    /// Its text.
    pub text: String,
}

/// What can go wrong with notes.
#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    /// No note has that id.
    #[error("no note {0}")]
    Missing(u32),
    /// The store's lock was poisoned by a panic.
    #[error("the note store is broken")]
    Broken,
}

impl From<NotesError> for ToolError {
    fn from(error: NotesError) -> Self {
        match error {
            NotesError::Missing(id) => ToolError::not_found(format!("There is no note {id}."))
                .suggest("List the notes first, then use one of their ids.")
                .actions(["notes.list"])
                .detail("requestedId", id),
            broken @ NotesError::Broken => ToolError::internal(broken),
        }
    }
}

fn lock(notes: &Notes) -> Result<std::sync::MutexGuard<'_, BTreeMap<u32, String>>, NotesError> {
    notes.0.lock().map_err(|_| NotesError::Broken)
}

/// Add a note; returns it with its new id.
#[action]
pub async fn add(State(notes): State<Notes>, args: Add) -> Result<Json<Note>, NotesError> {
    let mut notes = lock(&notes)?;
    let id = notes.keys().next_back().map_or(1, |last| last + 1);
    notes.insert(id, args.text.clone());
    Ok(Json(Note {
        id,
        text: args.text,
    }))
}

/// Read one note by its id.
#[action(read_only, idempotent)]
pub async fn get(State(notes): State<Notes>, args: Get) -> Result<Json<Note>, NotesError> {
    let text = lock(&notes)?
        .get(&args.id)
        .cloned()
        .ok_or(NotesError::Missing(args.id))?;
    Ok(Json(Note { id: args.id, text }))
}

/// List every note, oldest first.
#[action(read_only, idempotent, timeout = "2s")]
pub async fn list(State(notes): State<Notes>) -> Result<Json<Vec<Note>>, NotesError> {
    Ok(Json(
        lock(&notes)?
            .iter()
            .map(|(id, text)| Note {
                id: *id,
                text: text.clone(),
            })
            .collect(),
    ))
}

/// The server declared with `#[action]`.
pub fn with_macro(notes: Notes) -> FusionServer {
    FusionServer::builder("notes", "1.0.0")
        .state(notes)
        .group(
            Group::new("notes")
                .description("Notes.")
                .action(add::action())
                .action(get::action())
                .action(list::action()),
        )
        .build()
        .expect("a valid server")
}

/// The same server declared with the builder alone.
pub fn with_builder(notes: Notes) -> FusionServer {
    FusionServer::builder("notes", "1.0.0")
        .state(notes)
        .group(
            Group::new("notes")
                .description("Notes.")
                .action(
                    Action::new("add", add).description("Add a note; returns it with its new id."),
                )
                .action(
                    Action::new("get", get)
                        .description("Read one note by its id.")
                        .read_only()
                        .idempotent(),
                )
                .action(
                    Action::new("list", list)
                        .description("List every note, oldest first.")
                        .read_only()
                        .idempotent()
                        .timeout(std::time::Duration::from_secs(2)),
                ),
        )
        .build()
        .expect("a valid server")
}
