//! The SEP-2640 skills requests (`skills/list`, `skills/get`,
//! `resources/directory/read`), answered from the server's
//! [`Skills`](crate::Skills) once its guarded path lets them
//! through; a read of a skill's file is a `resources/read`
//! ([`super::surface::read_resource`]).

use std::sync::Arc;

use rmcp::model::{GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult};
use rmcp::service::{RequestContext, RoleServer};

use super::connection::Connection;
use super::surface::answer;
use crate::capability::skills::request_args;
use crate::capability::{AssembledSkills, Catalog};
use crate::handler::{Capability, ResourceData};
use crate::server::dispatch::guarded;

/// Runs the skills' guarded path for `method` of `uri`: `Ok` when it lets
/// the request through, else its JSON-RPC error (the envelope as message).
async fn pass(
    connection: &Connection,
    skills: &AssembledSkills,
    method: &str,
    uri: Option<&str>,
    context: &RequestContext<RoleServer>,
) -> Result<(), rmcp::ErrorData> {
    let name = uri.unwrap_or(method);
    let ctx = connection.surface_context(Capability::Skill, name, context, None);
    let args = request_args(method, uri);
    let _: ResourceData = answer(guarded(&skills.callable, &ctx, args).await, true)?;
    Ok(())
}

/// `skills/list`: every skill on one page, to a caller the skills are
/// visible to (else none), once the guarded path lets it through.
pub(crate) async fn list_skills(
    connection: &Connection,
    context: &RequestContext<RoleServer>,
) -> Result<ListSkillsResult, rmcp::ErrorData> {
    let catalog = connection.server.catalog();
    let viewer = connection.viewer(Capability::Skill, context);
    let Some(skills) = catalog.skills_shown_to(&viewer) else {
        return Ok(ListSkillsResult::with_all_items(Vec::new()));
    };
    pass(connection, skills, "skills/list", None, context).await?;
    Ok(skills.catalog.list_skills())
}

/// `skills/get`, once the guarded path lets the request through: the
/// skill, or `-32602` `unknown skill URI` for a URI no skill has (as
/// rmcp's catalog answers).
pub(crate) async fn get_skill(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<GetSkillResult, rmcp::ErrorData> {
    let catalog = connection.server.catalog();
    let skills = served(&catalog, "skills/get")?;
    // The guards first: a caller they refuse learns nothing of which URIs
    // exist, and every request counts against its limits.
    pass(connection, skills, "skills/get", Some(uri), context).await?;
    skills.catalog.get_skill(uri)
}

/// `resources/directory/read`, once the guarded path lets the request
/// through: the folder's direct children, or `-32602` `not a directory:
/// URI` for a URI that is not a folder of a skill.
pub(crate) async fn read_directory(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceDirectoryResult, rmcp::ErrorData> {
    let catalog = connection.server.catalog();
    let skills = served(&catalog, "resources/directory/read")?;
    pass(
        connection,
        skills,
        "resources/directory/read",
        Some(uri),
        context,
    )
    .await?;
    skills.catalog.read_resource_directory(uri)
}

/// The skills of `catalog`; `-32601` for `method` when it has none (rmcp
/// answers so before asking a server that does not declare the extension).
fn served<'c>(
    catalog: &'c Catalog,
    method: &str,
) -> Result<&'c Arc<AssembledSkills>, rmcp::ErrorData> {
    catalog.skills.as_ref().ok_or_else(|| {
        rmcp::ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            method.to_owned(),
            None,
        )
    })
}
