//! The cart example over stdio: `cargo run -p cart-example`.

use mcp_fusion::transport::StdioOptions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    cart_example::server()?
        .serve_stdio(StdioOptions::default())
        .await?;
    Ok(())
}
