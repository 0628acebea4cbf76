//! `fusion skills TARGET` and `fusion skill TARGET URI`: a server's skills
//! (SEP-2640, `skills/list`), and one skill fetched (`skills/get`, then its
//! `SKILL.md` read with `resources/read` and checked against the digest and
//! size its manifest gives).

use std::process::ExitCode;

use clap::Args;
use mcp_fusion::client::{FusionClient, FusionClientError};
use mcp_fusion::model::{ResourceContents, Skill, SkillResources};

use crate::output;
use crate::surface::{self, surface_help};
use crate::target::{self, ConnectArgs, TargetArgs};

/// The hint after an unknown skill or a server without skills.
const LISTING: &str = "`fusion skills` lists the skills this server serves";

// Options of `fusion skills`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion skills [OPTIONS] <URL>\n       \
                      fusion skills [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct SkillsArgs {
    #[command(flatten)]
    pub(crate) server: TargetArgs,
    /// Print the skills as JSON, as the server listed them: [{"uri",
    /// "frontmatter": {"name", "description", …}, "resources": [{"uri",
    /// "digest", "size"}] | "dynamic"}].
    #[arg(long)]
    json: bool,
}

// Options of `fusion skill`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion skill [OPTIONS] <URL> <URI>\n       \
                      fusion skill [OPTIONS] --cmd '<COMMAND ARGS>' <URI>",
    after_help = surface_help!()
)]
pub struct SkillArgs {
    /// <URL> <URI>, or <URI> with --cmd: the URI of the skill's SKILL.md
    /// (e.g. skill://invoice-reminders/SKILL.md).
    #[arg(value_name = "ARGS", num_args = 1.., required = true)]
    args: Vec<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Print the skill and its SKILL.md as JSON: {"skill": {"uri",
    /// "frontmatter", "resources"}, "skillMd": "<text>"}.
    #[arg(long)]
    json: bool,
}

/// Runs `fusion skills`.
pub fn run_skills(args: SkillsArgs) -> ExitCode {
    surface::list(
        &args.server,
        args.json,
        LISTING,
        async |client| client.list_skills().await,
        |client, target, skills| {
            let rows: Vec<Vec<String>> = skills.iter().map(row).collect();
            let heading = surface::heading(client, target, rows.len(), "skill");
            let paint = args.server.connect.paint_stdout();
            output::out_line(format_args!("{}", paint.bold(&heading)));
            if !rows.is_empty() {
                let headers = ["URI", "NAME", "FILES", "DESCRIPTION"];
                output::out(format_args!("\n{}", output::table(&paint, &headers, &rows)));
            }
        },
    )
}

/// A listed skill's row: its URI, name, file count (`dynamic` when the
/// server gives no manifest) and the first line of its description.
fn row(skill: &Skill) -> Vec<String> {
    let files = match &skill.resources {
        SkillResources::Files(files) => files.len().to_string(),
        _ => String::from("dynamic"),
    };
    vec![
        skill.uri.clone(),
        skill.frontmatter.name.clone(),
        files,
        skill
            .frontmatter
            .description
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_owned(),
    ]
}

/// A fetched skill: its manifest and the text of its `SKILL.md`.
#[derive(serde::Serialize)]
struct Fetched {
    skill: Skill,
    #[serde(rename = "skillMd")]
    skill_md: String,
}

/// Runs `fusion skill`.
pub fn run_skill(args: SkillArgs) -> ExitCode {
    let (target, uri) =
        match surface::target_and_words(&args.args, &args.connect, "the skill's URI").and_then(
            |(target, words)| {
                Ok((
                    target,
                    surface::one_word(words, &args.connect, "skill URI")?,
                ))
            },
        ) {
            Ok(parts) => parts,
            Err(err) => return target::usage(err),
        };
    surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| fetch(client, &uri).await,
        |_, fetched| output::out(format_args!("{}", skill_text(&fetched))),
    )
}

/// `skills/get` of `uri`, then `resources/read` of its `SKILL.md`, checked
/// against the manifest's size and digest.
///
/// # Errors
/// The server's refusal of either request;
/// [`FusionClientError::Protocol`] when the bytes read are not those the
/// manifest describes, or the read gives no text.
async fn fetch(client: &FusionClient, uri: &str) -> Result<Fetched, FusionClientError> {
    let skill = client.get_skill(uri).await?;
    let read = client.read_resource(&skill.uri).await?;
    // A SKILL.md is UTF-8 (its frontmatter is YAML), so it comes as text.
    let bytes = match read.contents.first() {
        Some(ResourceContents::TextResourceContents { text, .. }) => text.clone().into_bytes(),
        Some(_) => {
            return Err(protocol(format!(
                "{uri}: the SKILL.md came as a blob, not text"
            )));
        }
        None => return Err(protocol(format!("{uri}: the read gave no contents"))),
    };
    if let SkillResources::Files(files) = &skill.resources
        && let Some(entry) = files.iter().find(|file| file.uri == skill.uri)
    {
        entry.verify(&bytes).map_err(|e| protocol(e.to_string()))?;
    }
    let skill_md = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Fetched { skill, skill_md })
}

/// A protocol error saying what was wrong with the answer.
fn protocol(message: String) -> FusionClientError {
    FusionClientError::Protocol {
        message,
        source: None,
    }
}

/// A fetched skill for a person: its name and description, each file's
/// size and URI, then the `SKILL.md` text.
fn skill_text(fetched: &Fetched) -> String {
    let skill = &fetched.skill;
    let mut out = format!(
        "{} ({})\n{}\n",
        skill.frontmatter.name, skill.uri, skill.frontmatter.description
    );
    match &skill.resources {
        SkillResources::Files(files) => {
            out.push_str(&format!("\nFiles ({}):\n", files.len()));
            for file in files {
                out.push_str(&format!("  {:>8} bytes  {}\n", file.size, file.uri));
            }
        }
        _ => out.push_str("\nFiles: dynamic (no manifest)\n"),
    }
    out.push_str("\n--- SKILL.md\n");
    out.push_str(&fetched.skill_md);
    if !fetched.skill_md.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_fusion::model::{SkillFrontmatter, SkillResource};
    use serde_json::json;

    fn fetched() -> Fetched {
        let skill_md = String::from("---\nname: refunds\ndescription: Refund.\n---\nBody.\n");
        let entry = SkillResource::from_bytes("skill://refunds/SKILL.md", skill_md.as_bytes());
        let skill = serde_json::from_value(json!({
            "uri": "skill://refunds/SKILL.md",
            "frontmatter": SkillFrontmatter::new("refunds", "Refund."),
            "resources": [entry],
        }))
        .unwrap();
        Fetched { skill, skill_md }
    }

    #[test]
    fn a_fetched_skill_reads_as_its_files_then_its_text() {
        let fetched = fetched();
        assert_eq!(
            skill_text(&fetched),
            "refunds (skill://refunds/SKILL.md)\nRefund.\n\nFiles (1):\n        49 bytes  skill://refunds/SKILL.md\n\n--- SKILL.md\n---\nname: refunds\ndescription: Refund.\n---\nBody.\n"
        );
        assert_eq!(
            serde_json::to_value(&fetched).unwrap()["skillMd"],
            json!(fetched.skill_md)
        );
        assert_eq!(
            row(&fetched.skill),
            ["skill://refunds/SKILL.md", "refunds", "1", "Refund."]
        );
    }
}
