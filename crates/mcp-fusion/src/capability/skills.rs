//! [`Skills`]: a directory of skills served as a capability (SEP-2640, the
//! `io.modelcontextprotocol/skills` extension) through rmcp's
//! [`SkillCatalog`], behind the guards every capability has.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::ReadResourceResult;

use super::BuildError;
use super::Place;
use super::assembly::VisibleFn;
use super::assembly::{Assembly, Callable, Parts};
use super::settings::settings_setters;
use crate::error::ToolError;
use crate::guard::Guards;
use crate::handler::{Output, ResourceData};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{BoxLayer, Call, CallService};

/// The name the skills' guards, metrics and build errors give.
pub(crate) const SKILLS_NAME: &str = "skills";

/// Where the skills' `SKILL.md` resources start in `resources/list`: after
/// every resource the server adds itself (whose places count up from 0).
const FIRST_SKILL_PLACE: Place = 1 << 62;

/// A directory of skills, served as rmcp's [`SkillCatalog`] serves it
/// (SEP-2640): each folder below the root that holds a `SKILL.md` is a
/// skill at `skill://<path from the root>/SKILL.md`, nested skills are
/// listed on their own, hidden entries (names starting with `.`) are neither
/// listed nor served, and a skill over
/// [`SKILL_FILE_LIMIT`](rmcp::handler::server::skill_catalog::SKILL_FILE_LIMIT)
/// files or [`SKILL_BYTE_LIMIT`](rmcp::handler::server::skill_catalog::SKILL_BYTE_LIMIT)
/// bytes (16 MiB) is skipped (with a `tracing` warning).
///
/// Given to [`ServerBuilder::skills`](crate::server::ServerBuilder::skills),
/// the server declares the extension (`capabilities.extensions
/// ["io.modelcontextprotocol/skills"] = {"directoryRead": true}`) with the
/// `resources` capability, and answers:
/// - `skills/list`: every skill (its `uri`, `frontmatter` and `resources`,
///   each file's `uri`, `digest` `sha256:…` and `size` in bytes), on one page;
/// - `skills/get`: one skill by the URI of its `SKILL.md`; `-32602`
///   `unknown skill URI` for one it does not serve;
/// - `resources/directory/read`: the direct children of a folder of a skill
///   (`mimeType` `inode/directory` for a folder); `-32602` `not a directory:
///   URI` otherwise;
/// - `resources/list`: each skill's `SKILL.md` after the server's own
///   resources, paged with them;
/// - `resources/read` of any file of a skill: its bytes as they were read
///   (text for textual types, else a base64 `blob`).
///
/// Every one of these requests takes the guarded path of every capability
/// (auth and scopes, rate limit, concurrency, time-out, then the layers):
/// a caller without a required scope gets the `FORBIDDEN` envelope as the
/// JSON-RPC error's message, as for a resource; `skills/list` and the
/// skills' entries in `resources/list` are shown only to callers the
/// capability is visible to. The layers see a [`Call`] whose arguments are
/// `{"method": "skills/get", "uri": "skill://…"}` (the method asked, the URI
/// it names; `null` for `skills/list`); the answer is the catalog's.
///
/// The files are read once, when the server is built (blocking I/O, like
/// reading any start-up file), and held in memory; changes on disk are
/// picked up by [`FusionServer::reload_skills`](crate::server::FusionServer::reload_skills),
/// which reads on a blocking thread (`spawn_blocking`) and tells connected
/// clients `notifications/resources/list_changed` when a skill changed.
///
/// Skills are served on both protocol revisions (2025-11-25 and
/// 2026-07-28): rmcp routes the SEP-2640 methods whatever the revision.
///
/// ```
/// use mcp_fusion::{ClientOptions, FusionServer, Skills, StaticTokens};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
/// let server = FusionServer::builder("docs", "1.0.0")
///     .skills(Skills::dir(dir).rate_limit(mcp_fusion::RateLimit::per_minute(600)))
///     .build()?; // BuildError::SkillsDirectory when the directory cannot be read
/// let client = server.connect_in_memory(ClientOptions::default()).await?;
/// let skills = client.list_skills().await?;
/// assert_eq!(skills[1].uri, "skill://invoice-reminders/refunds/SKILL.md");
/// let read = client.read_resource(&skills[1].uri).await?; // the SKILL.md
/// # let _ = read;
/// client.close().await;
///
/// // Behind a scope: a token without it is refused with FORBIDDEN.
/// let guarded = FusionServer::builder("docs", "1.0.0")
///     .auth(StaticTokens::new().token("t0ken", "alice", ["skills:read"]))
///     .skills(Skills::dir(dir).requires_scopes(["skills:read"]))
///     .build()?;
/// # let _ = guarded;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Skills {
    pub(crate) root: PathBuf,
    pub(crate) guards: Guards,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skills")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl Skills {
    /// The skills below the directory `root` (read when the server is
    /// built; [`BuildError::SkillsDirectory`] naming `root` when it cannot
    /// be read).
    pub fn dir(root: impl Into<PathBuf>) -> Self {
        Skills {
            root: root.into(),
            guards: Guards::default(),
            layers: Vec::new(),
            visible_when: Vec::new(),
        }
    }

    /// The directory the skills are read from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    settings_setters!(
        "skills requests (`skills/list`, `skills/get`, `resources/directory/read` and `resources/read` of a skill file, all together)",
        "the skills",
        ""
    );

    /// The skills assembled: the catalog read and the guarded path built.
    ///
    /// # Errors
    /// [`BuildError::SkillsDirectory`] when the directory cannot be read;
    /// [`BuildError::BadGuard`] as for an action.
    pub(crate) fn assemble(self, assembly: &Assembly) -> Result<AssembledSkills, BuildError> {
        let catalog =
            SkillCatalog::from_dir(&self.root).map_err(|error| BuildError::SkillsDirectory {
                path: self.root.display().to_string(),
                reason: error.to_string(),
            })?;
        let callable = assembly.callable(Parts {
            presentation: None,
            gate: None,
            name: SKILLS_NAME,
            handler: permit(),
            validator: None,
            output: None,
            guards: self.guards.clone(),
            layers: &[&self.layers],
            state_needs: &[],
            retry_safe: true,
            labels: ActionLabels::new(SKILLS_NAME, None),
            visible_when: self.visible_when.clone(),
        })?;
        let skills = AssembledSkills {
            skills: self,
            catalog: Arc::new(catalog),
            callable,
            places: Mutex::new(SkillPlaces::default()),
            listed: RwLock::new(Arc::new(Vec::new())),
        };
        skills.place();
        Ok(skills)
    }
}

/// The arguments the skills' layers see: the method asked and the URI it
/// names (`null` for none).
pub(crate) fn request_args(method: &str, uri: Option<&str>) -> serde_json::Value {
    serde_json::json!({ "method": method, "uri": uri })
}

/// The innermost service of the skills' path: once the guards and layers
/// let a request through, it is answered from the catalog.
fn permit() -> CallService {
    CallService::new(tower::service_fn(|_: Call| {
        std::future::ready(Ok::<Output, ToolError>(Output::Resource(
            ResourceData::Text(String::new()),
        )))
    }))
}

/// The places given to `SKILL.md` URIs, kept across reloads so that a
/// `resources/list` cursor finds its next page after a reload.
#[derive(Default)]
struct SkillPlaces {
    known: HashMap<String, Place>,
    next: Place,
}

/// Skills ready to be served.
pub(crate) struct AssembledSkills {
    /// As given to the builder.
    pub skills: Skills,
    /// The files, in memory; [`SkillCatalog::reload`] replaces them.
    pub catalog: Arc<SkillCatalog>,
    /// The guarded path of every skills request.
    pub callable: Callable,
    places: Mutex<SkillPlaces>,
    /// Each skill's `SKILL.md` resource with its place, ascending.
    listed: RwLock<Arc<Vec<(Place, rmcp::model::Resource)>>>,
}

impl AssembledSkills {
    /// The skills' `resources/list` entries, each with its place, in the
    /// order of their places.
    pub fn listed(&self) -> Arc<Vec<(Place, rmcp::model::Resource)>> {
        Arc::clone(&self.listed.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// What `resources/read` of `uri` answers, when `uri` is a file of a
    /// skill.
    pub fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        self.catalog.read_resource(uri)
    }

    /// Gives each listed `SKILL.md` of the catalog its place (the one it had,
    /// else a new one after all others) and records the listing.
    pub fn place(&self) {
        let mut places = self.places.lock().unwrap_or_else(PoisonError::into_inner);
        let mut listed: Vec<(Place, rmcp::model::Resource)> = self
            .catalog
            .resources()
            .into_iter()
            .map(|resource| {
                let SkillPlaces { known, next } = &mut *places;
                let place = *known.entry(resource.uri.clone()).or_insert_with(|| {
                    let place = FIRST_SKILL_PLACE + *next;
                    *next += 1;
                    place
                });
                (place, resource)
            })
            .collect();
        listed.sort_by_key(|(place, _)| *place);
        *self.listed.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(listed);
    }
}
