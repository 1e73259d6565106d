//! The workbook opens cleanly in LibreOffice: a headless conversion succeeds and every sheet
//! and row is there. (.ci/run installs LibreOffice; elsewhere the test says it was skipped.)

use std::process::Command;

use crate::util::*;

fn soffice() -> Option<&'static str> {
    ["soffice", "libreoffice"].into_iter().find(|bin| {
        Command::new(bin)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn libreoffice_converts_the_workbook_without_repair() {
    let Some(bin) = soffice() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs LibreOffice for this test (.ci/run)"
        );
        eprintln!("skipped: LibreOffice is not installed");
        return;
    };
    let w = Workdir::new("libreoffice");
    // With page text, so the Queue's passages are rich strings (the anchor in bold).
    let spec = linkgap::synthetic::Spec {
        page_text: true,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let out = w.run(&[
        "run",
        ".",
        "--out",
        "r.xlsx",
        "--client",
        "=cmd|' /C calc'!A0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let profile = w.dir.join("lo-profile");
    let convert = Command::new(bin)
        .args([
            "--headless",
            "--norestore",
            "--convert-to",
            "ods",
            "--outdir",
        ])
        .arg(&w.dir)
        .arg(format!(
            "-env:UserInstallation=file://{}",
            profile.display()
        ))
        .arg(w.path("r.xlsx"))
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&convert.stdout),
        String::from_utf8_lossy(&convert.stderr)
    );
    assert!(
        convert.status.success() && w.path("r.ods").exists(),
        "conversion failed: {log}"
    );
    assert!(
        !log.to_lowercase().contains("repair") && !log.contains("Error"),
        "{log}"
    );
    let xlsx_sheets = sheet_names(&w.path("r.xlsx"));
    assert_eq!(sheet_names(&w.path("r.ods")), xlsx_sheets);
    for name in &xlsx_sheets {
        let (a, b) = (
            sheet(&w.path("r.xlsx"), name),
            sheet(&w.path("r.ods"), name),
        );
        assert_eq!(a.len(), b.len(), "rows of {name}");
        assert_eq!(a[0], b[0], "header of {name}");
    }
    // The client name that looks like a formula stayed text.
    let queue = records(&w.path("r.ods"), "Queue");
    assert_eq!(queue[0]["Client"], "=cmd|' /C calc'!A0");
    // The passages, rich strings in the workbook, read back whole.
    let written = records(&w.path("r.xlsx"), "Queue");
    let passages = |rows: &[std::collections::HashMap<String, String>]| -> Vec<String> {
        rows.iter()
            .map(|r| r["Suggested Passage"].clone())
            .collect()
    };
    assert!(
        written.iter().any(|r| !r["Suggested Passage"].is_empty()),
        "the Queue has passages"
    );
    assert_eq!(passages(&queue), passages(&written));
}
