//! [`FusionClient`]'s requests of the skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`): `skills/list`, `skills/get` and
//! `resources/directory/read`, through rmcp's client (which sends nothing,
//! and answers `-32601`, when the server did not declare the extension or
//! `directoryRead`). A skill's files are read with
//! [`read_resource`](FusionClient::read_resource).

use rmcp::model::{GetSkillRequestParams, ReadResourceDirectoryRequestParams, Resource, Skill};

use super::error::FusionClientError;
use super::fusion_client::FusionClient;
use super::pages::every_page;
use crate::named::Named;

impl FusionClient {
    /// Every skill the server serves: every page of `skills/list`,
    /// following `nextCursor` (at most [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES)
    /// pages). Each [`Skill`] has its `uri` (of its `SKILL.md`), its
    /// `frontmatter` (`name`, `description` and any other field) and its
    /// `resources`: each file's `uri`, `digest` (`sha256:` and 64 hex
    /// characters) and `size` in bytes, or `"dynamic"`.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] `-32601` when the server did not
    /// declare the skills extension (nothing is sent), or the server's
    /// refusal (an mcp-fusion server's `FORBIDDEN` envelope for a caller
    /// without a scope the skills require); [`FusionClientError::Protocol`]
    /// when the list goes on past the page limit or repeats a cursor;
    /// transport and time-out errors as for [`call`](Self::call).
    pub async fn list_skills(&self) -> Result<Vec<Skill>, FusionClientError> {
        every_page("skills/list", |cursor| async move {
            let page = self
                .page("skills/list", cursor, |p| self.service.list_skills(p))
                .await?;
            Ok((page.skills, page.next_cursor))
        })
        .await
    }

    /// The skill whose `SKILL.md` is at `uri` (`skills/get`), e.g.
    /// `skill://invoice-reminders/SKILL.md`.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] `-32602` for a URI the server serves
    /// no skill at (or that does not end in `/SKILL.md`), `-32601` when the
    /// server did not declare the skills extension; otherwise as for
    /// [`list_skills`](Self::list_skills).
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, FusionClientError> {
        let params = GetSkillRequestParams::new(uri);
        let got = self
            .sent(
                "skills/get",
                |p| Named::Resource(&p.uri),
                params,
                |p| self.service.get_skill(p),
            )
            .await?;
        Ok(got.skill)
    }

    /// The direct children of the directory resource at `uri`
    /// (`resources/directory/read`, every page), e.g.
    /// `skill://invoice-reminders`: files with their `size` in bytes and
    /// `mimeType` when known, folders with `mimeType` `inode/directory`.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] `-32602` for a URI that is not a
    /// directory the server serves, `-32601` when the server did not
    /// declare `directoryRead`; otherwise as for
    /// [`list_skills`](Self::list_skills).
    pub async fn read_resource_directory(
        &self,
        uri: &str,
    ) -> Result<Vec<Resource>, FusionClientError> {
        every_page("resources/directory/read", |cursor| async move {
            let mut params = ReadResourceDirectoryRequestParams::new(uri);
            params.cursor = cursor;
            let page = self
                .sent(
                    "resources/directory/read",
                    |p| Named::Resource(&p.uri),
                    params,
                    |p| self.service.read_resource_directory(p),
                )
                .await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }
}
