//! The library's modules import only downwards (the order is documented at
//! the top of `src/lib.rs`), and no files import each other in a circle.
//!
//! Every `.rs` file under `src/` is read; comments, doc comments and string
//! and character literals are left out; every `crate::…` and `super::…` path
//! (in `use` lines, `use` groups and inline) is checked:
//!
//! - a module may import its own files, the leaf modules and the layers
//!   below its own, never a layer above nor a module of its own layer;
//! - a leaf module (a single file at the crate root, such as `suggest.rs`)
//!   may import only other leaf modules;
//! - a name re-exported at the crate root (`crate::ToolError`) counts as the
//!   module it comes from;
//! - files (not `mod.rs`) may not import each other in a circle, through
//!   `super::file` or `crate::module::file` paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first. Modules listed together share a layer and do not
/// import each other. Leaf modules (single files at the crate root) sit below
/// them all.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["envelope", "validation"],
    &["wire"],
    &["handler"],
    &["present"],
    &["telemetry"],
    &["pipeline", "client"],
    &["guard"],
    &["capability"],
    &["contract"],
    &["server", "router_contract"],
    &["testing"],
    &["transport"],
    &["gateway"],
];

/// One source file: its path under `src/` (with `/`) and its text.
struct Source {
    path: String,
    text: String,
}

#[test]
fn imports_follow_the_layer_order() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_dir(&src, &src, &mut sources);
    assert!(
        sources.iter().any(|s| s.path == "lib.rs"),
        "no src/lib.rs under {}",
        src.display()
    );
    let problems = layer_problems(&sources);
    assert!(problems.is_empty(), "{}", report(&problems));
}

fn read_dir(root: &Path, dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_dir(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src");
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(Source {
                path: rel.join("/"),
                text: std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display())),
            });
        }
    }
}

fn report(problems: &[String]) -> String {
    let order: Vec<String> = LAYERS.iter().map(|layer| layer.join(", ")).collect();
    let mut out = format!(
        "{} layer problem{} in crates/mcp-fusion/src (order, lowest first: leaf modules → {}; see src/lib.rs):\n",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        order.join(" → ")
    );
    for problem in problems {
        out.push_str(&format!("  - {problem}\n"));
    }
    out
}

/// Every problem in `sources`, files in the order given.
fn layer_problems(sources: &[Source]) -> Vec<String> {
    let files: BTreeSet<&str> = sources.iter().map(|s| s.path.as_str()).collect();
    let leaves: BTreeSet<&str> = files
        .iter()
        .filter(|p| !p.contains('/') && **p != "lib.rs")
        .map(|p| p.trim_end_matches(".rs"))
        .collect();
    let reexports = sources
        .iter()
        .find(|s| s.path == "lib.rs")
        .map(|lib| root_reexports(&lib.text))
        .unwrap_or_default();
    let mut problems = Vec::new();
    let mut imports: Vec<BadImport> = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<(String, usize)>> = BTreeMap::new();
    for source in sources.iter().filter(|s| s.path != "lib.rs") {
        let owner = source.path.split('/').next().unwrap_or_default();
        let owner = owner.trim_end_matches(".rs");
        let owner_rank = rank(owner, &leaves);
        if owner_rank.is_none() {
            imports.push(BadImport::whole(format!(
                "src/{}: module `{owner}` is in no layer; add it to LAYERS in tests/server/layers.rs and to the order in src/lib.rs",
                source.path
            )));
        }
        let file_node = node_of(&source.path);
        for path in paths(&clean(&source.text)) {
            let Some(absolute) = absolute(&source.path, &path) else {
                continue;
            };
            let Some(first) = absolute.first() else {
                continue;
            };
            let at = format!("src/{}:{}", source.path, path.line);
            let mut bad = |verdict: String| BadImport::add(&mut imports, &at, verdict, path.text());
            let target = if rank(first, &leaves).is_some() {
                first.as_str()
            } else if let Some(module) = reexports.get(first.as_str()) {
                module.as_str()
            } else {
                bad(format!(
                    "`{first}` is neither a module nor a name src/lib.rs re-exports"
                ));
                continue;
            };
            if let (Some(from), Some(to)) = (owner_rank, rank(target, &leaves))
                && target != owner
            {
                if from == 0 && to > 0 {
                    bad(format!(
                        "`{owner}` is a leaf module, which imports only other leaf modules, not `{target}`"
                    ));
                } else if to > from {
                    bad(format!("`{owner}` imports `{target}`, which is above it"));
                } else if to == from && from > 0 {
                    bad(format!(
                        "`{owner}` and `{target}` share a layer and do not import each other"
                    ));
                }
            }
            if let Some(node) = &file_node
                && let Some(target) = file_of(&absolute, &files)
                && &target != node
            {
                edges
                    .entry(node.clone())
                    .or_default()
                    .insert((target, path.line));
            }
        }
    }
    problems.extend(imports.iter().map(BadImport::to_string));
    problems.extend(circles(&edges));
    problems
}

/// One import against the order: where, why, and the paths of that line
/// that break the rule for the same reason.
struct BadImport {
    at: String,
    verdict: String,
    paths: Vec<String>,
}

impl BadImport {
    /// A problem of a whole file.
    fn whole(verdict: String) -> Self {
        BadImport {
            at: String::new(),
            verdict,
            paths: Vec::new(),
        }
    }

    /// Adds `path` to the last problem when it has the same place and
    /// reason (the names of one `use` group), else a new problem.
    fn add(list: &mut Vec<BadImport>, at: &str, verdict: String, path: String) {
        match list.last_mut() {
            Some(last) if last.at == at && last.verdict == verdict => last.paths.push(path),
            _ => list.push(BadImport {
                at: at.to_owned(),
                verdict,
                paths: vec![path],
            }),
        }
    }
}

impl std::fmt::Display for BadImport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.paths.is_empty() {
            return f.write_str(&self.verdict);
        }
        let paths: Vec<String> = self.paths.iter().map(|p| format!("`{p}`")).collect();
        write!(f, "{}: {}: {}", self.at, paths.join(", "), self.verdict)
    }
}

/// The rank of `module`: 0 for a leaf module, then its layer's place; `None`
/// for a module in no layer.
fn rank(module: &str, leaves: &BTreeSet<&str>) -> Option<usize> {
    if leaves.contains(module) {
        return Some(0);
    }
    LAYERS
        .iter()
        .position(|layer| layer.contains(&module))
        .map(|i| i + 1)
}

/// The file a source is a node of in the file graph: every file but
/// `lib.rs`, `main.rs` and `mod.rs` (a folder's face, which declares and
/// re-exports its files).
fn node_of(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    (!matches!(name, "lib.rs" | "main.rs" | "mod.rs")).then(|| path.to_owned())
}

/// The module path of a file: `a/b.rs` → `[a, b]`, `a/mod.rs` → `[a]`.
fn module_of(path: &str) -> Vec<String> {
    let mut segments: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        segments.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segments.pop();
    }
    segments
}

/// `path`, used in the file `from`, from the crate root (without `crate`);
/// `None` for a `super::` path that stays inside the file (from an inline
/// `mod tests { … }` to the file's own items).
fn absolute(from: &str, path: &CodePath) -> Option<Vec<String>> {
    if path.segments[0] == "crate" {
        return Some(path.segments[1..].to_vec());
    }
    let supers = path.segments.iter().take_while(|s| *s == "super").count();
    let beyond = supers.checked_sub(path.inline_depth).filter(|n| *n > 0)?;
    let base = module_of(from);
    let keep = base.len().checked_sub(beyond)?;
    Some(
        base[..keep]
            .iter()
            .chain(&path.segments[supers..])
            .cloned()
            .collect(),
    )
}

/// The file (a node of the file graph) an absolute path points into, if any.
fn file_of(absolute: &[String], files: &BTreeSet<&str>) -> Option<String> {
    let mut dir = String::new();
    for segment in absolute {
        let file = format!("{dir}{segment}.rs");
        if files.contains(file.as_str()) {
            return node_of(&file);
        }
        let folder = format!("{dir}{segment}/");
        if !files.iter().any(|f| f.starts_with(&folder)) {
            return None;
        }
        dir = folder;
    }
    None
}

/// Every set of files that import each other in a circle, with the imports
/// that close it.
fn circles(edges: &BTreeMap<String, BTreeSet<(String, usize)>>) -> Vec<String> {
    let mut nodes: BTreeSet<&str> = edges.keys().map(String::as_str).collect();
    nodes.extend(edges.values().flatten().map(|(t, _)| t.as_str()));
    let reach = |from: &str| -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for (t, _) in edges.get(n).into_iter().flatten() {
                if seen.insert(t.as_str()) {
                    stack.push(t.as_str());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&str, BTreeSet<&str>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for node in &nodes {
        if done.contains(node) || !reachable[node].contains(node) {
            continue;
        }
        let members: BTreeSet<&str> = reachable[node]
            .iter()
            .copied()
            .filter(|m| reachable[m].contains(node))
            .collect();
        done.extend(members.iter().copied());
        let mut imports = Vec::new();
        for m in &members {
            for (t, line) in edges.get(*m).into_iter().flatten() {
                if members.contains(t.as_str()) {
                    imports.push(format!("src/{m}:{line} → {t}"));
                }
            }
        }
        let names: Vec<&str> = members.into_iter().collect();
        out.push(format!(
            "files import each other in a circle: {} ({}); move what they share into a file both import",
            names.join(", "),
            imports.join(", ")
        ));
    }
    out
}

/// A path found in the code: `crate::…` or `super::…`, with its line and how
/// many inline modules (`mod tests { … }`) it sits in.
#[derive(Debug, Clone, PartialEq)]
struct CodePath {
    segments: Vec<String>,
    line: usize,
    inline_depth: usize,
}

impl CodePath {
    fn text(&self) -> String {
        self.segments.join("::")
    }
}

/// `text` with comments, doc comments, strings and character literals blanked
/// (line breaks kept, so that line numbers stay right).
fn clean(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let is_ident = |k: usize| chars[k].is_alphanumeric() || chars[k] == '_';
        // An identifier character before `r`, but `b` of `br"…"`.
        let ident_before =
            i > 0 && is_ident(i - 1) && !(chars[i - 1] == 'b' && (i < 2 || !is_ident(i - 2)));
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && !ident_before && matches!(next, Some('"' | '#')) {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = i + 2 + hashes;
            while j < chars.len() && !chars[j..].starts_with(&close) {
                j += 1;
            }
            let end = (j + close.len()).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if c == '\'' && next == Some('\\') {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Other(char),
}

/// The tokens of cleaned code, each with its line.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Ident(chars[start..i].iter().collect()), line));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push((Token::Colons, line));
            i += 2;
        } else {
            out.push((
                match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    ',' => Token::Comma,
                    other => Token::Other(other),
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// Every `crate::…` and `super::…` path of cleaned code; a `use` group
/// (`crate::{a::X, b::{Y, Z}}`) gives one path per name.
fn paths(code: &str) -> Vec<CodePath> {
    let tokens = tokens(code);
    let ident = |i: usize| match tokens.get(i) {
        Some((Token::Ident(name), _)) => Some(name.as_str()),
        _ => None,
    };
    let is = |i: usize, t: &Token| tokens.get(i).is_some_and(|(x, _)| x == t);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut inline_mods: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Open => depth += 1,
            Token::Close => {
                depth = depth.saturating_sub(1);
                if inline_mods.last() == Some(&depth) {
                    inline_mods.pop();
                }
            }
            Token::Ident(word)
                if word == "mod" && ident(i + 1).is_some() && is(i + 2, &Token::Open) =>
            {
                inline_mods.push(depth);
            }
            Token::Ident(word)
                if (word == "crate" || word == "super")
                    && is(i + 1, &Token::Colons)
                    && !(i > 0 && (is(i - 1, &Token::Colons) || is(i - 1, &Token::Other('$')))) =>
            {
                let line = tokens[i].1;
                let mut found = Vec::new();
                let end = path_tree(&tokens, i, Vec::new(), &mut found);
                out.extend(found.into_iter().map(|segments| CodePath {
                    segments,
                    line,
                    inline_depth: inline_mods.len(),
                }));
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Reads one path (or group) from `tokens[i]`, after `prefix`; pushes every
/// full path to `out` and returns the index after it.
fn path_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i).map(|(t, _)| t) {
            Some(Token::Ident(name)) if name == "self" && !prefix.is_empty() => i += 1,
            Some(Token::Ident(name)) => {
                prefix.push(name.clone());
                i += 1;
            }
            Some(Token::Open) => {
                i += 1;
                loop {
                    match tokens.get(i).map(|(t, _)| t) {
                        Some(Token::Close) => return i + 1,
                        Some(Token::Comma) => i += 1,
                        None => return i,
                        Some(_) => {
                            let before = i;
                            i = path_tree(tokens, i, prefix.clone(), out);
                            // `as alias` or anything else after a name.
                            while !matches!(
                                tokens.get(i).map(|(t, _)| t),
                                Some(Token::Comma | Token::Close) | None
                            ) {
                                i += 1;
                            }
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
        if matches!(tokens.get(i).map(|(t, _)| t), Some(Token::Colons)) {
            i += 1;
        } else {
            out.push(prefix);
            return i;
        }
    }
}

/// The names `lib.rs` re-exports at the crate root (`pub use error::{ToolError,
/// …}`), each with the module it comes from.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let tokens = tokens(&clean(lib));
    let mut out = BTreeMap::new();
    for (i, window) in tokens.windows(2).enumerate() {
        let (Token::Ident(a), Token::Ident(b)) = (&window[0].0, &window[1].0) else {
            continue;
        };
        if a != "pub" || b != "use" {
            continue;
        }
        let mut found = Vec::new();
        let end = path_tree(&tokens, i + 2, Vec::new(), &mut found);
        let alias = match (tokens.get(end), tokens.get(end + 1)) {
            (Some((Token::Ident(kw), _)), Some((Token::Ident(alias), _))) if kw == "as" => {
                Some(alias.clone())
            }
            _ => None,
        };
        for segments in found {
            if let (Some(module), Some(name)) = (segments.first(), segments.last()) {
                let name = alias.clone().unwrap_or_else(|| name.clone());
                out.insert(name, module.clone());
            }
        }
    }
    out
}

// The checker itself: each rule on a fake crate.

fn fake(files: &[(&str, &str)]) -> Vec<String> {
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, text)| Source {
            path: (*path).to_owned(),
            text: (*text).to_owned(),
        })
        .collect();
    layer_problems(&sources)
}

const LIB: &str = "pub mod error;\npub mod capability;\npub mod pipeline;\nmod suggest;\npub use error::{ErrorCode, ToolError};\npub use capability::Group as Grouping;\n";

#[test]
fn a_back_import_is_reported_with_file_line_and_path() {
    let problems = fake(&[
        ("lib.rs", LIB),
        ("pipeline/mod.rs", "mod path;\n"),
        (
            "pipeline/path.rs",
            "use std::sync::Arc;\n\nuse crate::capability::{Registry, RouteError};\n",
        ),
        ("capability/mod.rs", "pub struct Registry;\n"),
    ]);
    assert_eq!(
        problems,
        [
            "src/pipeline/path.rs:3: `crate::capability::Registry`, `crate::capability::RouteError`: `pipeline` imports `capability`, which is above it"
        ]
    );
    let message = report(&problems);
    assert!(message.starts_with("1 layer problem in crates/mcp-fusion/src (order, lowest first: leaf modules → error → envelope, validation → wire → handler → present → telemetry → pipeline, client → guard → "), "{message}");
}

#[test]
fn downward_imports_comments_and_strings_pass() {
    let problems = fake(&[
        ("lib.rs", LIB),
        (
            "capability/route.rs",
            "//! Uses [`crate::server`].\n/* crate::server::X */\nuse crate::error::ToolError;\nuse crate::{pipeline::Call, suggest::closest};\nfn f() { let s = \"crate::server::X\"; let c = '\"'; let r = r#\"crate::server\"#; crate::ToolError::new(); }\n",
        ),
        ("error/mod.rs", "use crate::suggest::closest;\n"),
        ("suggest.rs", "pub fn closest() {}\n"),
    ]);
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn inline_paths_groups_and_root_reexports_are_read() {
    let problems = fake(&[
        ("lib.rs", LIB),
        (
            "error/code.rs",
            "fn f() -> crate::Grouping { todo!() }\nuse crate::{suggest::closest, pipeline::{self, Call}};\n",
        ),
        ("suggest.rs", ""),
        (
            "capability/route.rs",
            "mod tests {\n    use super::super::super::server::Server;\n    use super::super::group::Group;\n}\n",
        ),
    ]);
    assert_eq!(
        problems,
        [
            "src/error/code.rs:1: `crate::Grouping`: `error` imports `capability`, which is above it",
            "src/error/code.rs:2: `crate::pipeline`, `crate::pipeline::Call`: `error` imports `pipeline`, which is above it",
            "src/capability/route.rs:2: `super::super::super::server::Server`: `capability` imports `server`, which is above it",
        ]
    );
}

#[test]
fn leaves_same_layers_and_unknown_modules_are_reported() {
    let problems = fake(&[
        ("lib.rs", LIB),
        (
            "suggest.rs",
            "use crate::ToolError;\nuse crate::text::cut;\n",
        ),
        ("text.rs", "pub fn cut() {}\n"),
        ("envelope/parse.rs", "use crate::validation::sent;\n"),
        ("extras/mod.rs", "use crate::nowhere::X;\n"),
    ]);
    assert_eq!(
        problems,
        [
            "src/suggest.rs:1: `crate::ToolError`: `suggest` is a leaf module, which imports only other leaf modules, not `error`",
            "src/envelope/parse.rs:1: `crate::validation::sent`: `envelope` and `validation` share a layer and do not import each other",
            "src/extras/mod.rs: module `extras` is in no layer; add it to LAYERS in tests/server/layers.rs and to the order in src/lib.rs",
            "src/extras/mod.rs:1: `crate::nowhere::X`: `nowhere` is neither a module nor a name src/lib.rs re-exports",
        ]
    );
}

#[test]
fn files_importing_each_other_are_a_circle() {
    let problems = fake(&[
        ("lib.rs", LIB),
        (
            "capability/mod.rs",
            "mod a;\nmod b;\nmod c;\npub use a::A;\n",
        ),
        ("capability/a.rs", "use super::b::B;\npub struct A;\n"),
        (
            "capability/b.rs",
            "pub struct B;\nfn f() { crate::capability::a::A; }\n#[cfg(test)]\nmod tests {\n    use super::super::c::C;\n    use super::*;\n}\n",
        ),
        ("capability/c.rs", "use super::A;\npub struct C;\n"),
    ]);
    assert_eq!(
        problems,
        [
            "files import each other in a circle: capability/a.rs, capability/b.rs (src/capability/a.rs:1 → capability/b.rs, src/capability/b.rs:2 → capability/a.rs); move what they share into a file both import"
        ]
    );
}
