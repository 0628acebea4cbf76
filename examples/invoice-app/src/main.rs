//! `invoice-app [DB]`: the billing example with its invoice view (an MCP
//! App), over stdio, on the SQLite file `DB` (default: the billing
//! example's default database).

use mcp_fusion::transport::StdioOptions;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(billing_example::default_db_path);
    let db = billing_example::Db::open_creating_folders(&path)?;
    invoice_app_example::server(&db)?
        .serve_stdio(StdioOptions::default())
        .await?;
    Ok(())
}
