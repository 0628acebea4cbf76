//! The invoice view is self-contained (nothing loaded from another origin,
//! so the restrictive default CSP holds) and the server builds with it.

use invoice_app_example::{INVOICE_VIEW_HTML, INVOICE_VIEW_URI};

#[test]
fn the_view_loads_nothing_from_outside() {
    for outside in ["http://", "https://", "//cdn", " src=", "@import", "url("] {
        assert!(
            !INVOICE_VIEW_HTML.contains(outside),
            "the view names {outside:?}: a host's default CSP would block it"
        );
    }
    assert!(INVOICE_VIEW_HTML.starts_with("<!DOCTYPE html>"));
}

#[test]
fn the_server_serves_the_view_and_links_the_tool() {
    let dir = std::env::temp_dir().join(format!("invoice-app-{}", std::process::id()));
    let db = billing_example::Db::open_creating_folders(&dir.join("billing.db")).unwrap();
    let server = invoice_app_example::server(&db).expect("a valid definition");
    let listed = server.listings();
    let show = listed
        .iter()
        .find(|l| l.name == "billing_show_invoice")
        .expect("the linked tool");
    assert_eq!(
        show.meta["ui"],
        serde_json::json!({"resourceUri": INVOICE_VIEW_URI, "visibility": ["model", "app"]})
    );
    std::fs::remove_dir_all(dir).ok();
}
