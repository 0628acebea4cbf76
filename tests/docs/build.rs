//! Writes `$OUT_DIR/pages.rs`: one empty module per Markdown page of the
//! documentation, its doc comment the page itself, so that rustdoc compiles
//! (and runs) each page's `rust` blocks as doctests; and
//! `$OUT_DIR/page_paths.rs`, the same pages' paths, which `tests/fences.rs`
//! reads. A page added to `docs/` or `docs/guide/` is tested without being
//! listed anywhere.
//!
//! `MCP_FUSION_DOCS_ONLY=oauth,gateway` keeps the pages whose file name
//! contains one of the words, to compile one chapter while writing it.

use std::{env, fs, path::Path};

fn main() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    let only = env::var("MCP_FUSION_DOCS_ONLY").ok();
    let mut pages = vec![root.join("README.md"), root.join("examples/README.md")];
    for dir in ["docs", "docs/guide"] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut found: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
            .collect();
        found.sort();
        pages.extend(found);
    }
    println!("cargo:rerun-if-env-changed=MCP_FUSION_DOCS_ONLY");
    let mut out = String::new();
    let mut paths = String::from(
        "/// The documentation's pages, absolute paths.\npub const PAGES: &[&str] = &[\n",
    );
    for page in pages.iter().filter(|page| page.exists()) {
        println!("cargo:rerun-if-changed={}", page.display());
        let relative = page
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .into_owned();
        if let Some(only) = &only
            && !only.split(',').any(|word| relative.contains(word.trim()))
        {
            continue;
        }
        let name: String = relative
            .trim_end_matches(".md")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let path = page.canonicalize().expect("a page's path");
        paths.push_str(&format!("    {path:?},\n"));
        out.push_str(&format!(
            "#[doc = include_str!({path:?})]\npub mod {name} {{}}\n"
        ));
    }
    let out_dir = env::var("OUT_DIR").expect("OUT_DIR is set by cargo");
    fs::write(Path::new(&out_dir).join("pages.rs"), out).expect("write pages.rs");
    paths.push_str("];\n");
    fs::write(Path::new(&out_dir).join("page_paths.rs"), paths).expect("write page_paths.rs");
}
