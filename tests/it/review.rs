//! The review cycle: a person edits the Queue, a later run carries every typed value forward,
//! a changed page reopens a rejection, and `verify` checks approved links in a later crawl.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use calamine::{Data, Reader, open_workbook_auto};
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};

use crate::util::*;

type Row = HashMap<String, String>;

/// Re-save a workbook the way another program would (fresh file, shared strings, typed cells),
/// applying `edit` to the Queue rows.
fn edit_workbook(from: &Path, to: &Path, edit: &dyn Fn(usize, &mut Row)) {
    let mut wb_in = open_workbook_auto(from).unwrap();
    let mut wb = Workbook::new();
    let date_format = Format::new().set_num_format("yyyy-mm-dd");
    for name in wb_in.sheet_names() {
        let range = wb_in.worksheet_range(&name).unwrap();
        let ws = wb.add_worksheet();
        ws.set_name(&name).unwrap();
        let rows: Vec<Vec<Data>> = range.rows().map(<[Data]>::to_vec).collect();
        let mut header: Vec<String> = rows
            .first()
            .map(|r| r.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        let edited: Vec<Row> = rows
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, row)| {
                let mut values: Row = header
                    .iter()
                    .cloned()
                    .zip(row.iter().map(ToString::to_string))
                    .collect();
                if name == "Queue" {
                    edit(i - 1, &mut values);
                }
                values
            })
            .collect();
        // A column the edit introduced is a column the person added, after the others.
        let mut added: Vec<String> = edited
            .iter()
            .flat_map(|r| r.keys())
            .filter(|k| !header.contains(k))
            .cloned()
            .collect();
        added.sort();
        added.dedup();
        header.extend(added);
        for (c, h) in header.iter().enumerate() {
            ws.write_string(0, c as u16, h).unwrap();
        }
        for (i, values) in edited.iter().enumerate() {
            let i = i + 1;
            let row = &rows[i];
            for (c, h) in header.iter().enumerate() {
                let v = values.get(h).cloned().unwrap_or_default();
                let original = row.get(c).cloned().unwrap_or(Data::Empty);
                let r = i as u32;
                let c = c as u16;
                match (h.as_str(), &original) {
                    ("Decision Date", _) if v.len() == 10 && v.as_bytes()[4] == b'-' => {
                        // A person types a date: Excel stores a date serial, not text.
                        let d = ExcelDateTime::parse_from_str(&v).unwrap();
                        ws.write_datetime_with_format(r, c, d, &date_format)
                            .unwrap();
                    }
                    (_, Data::Float(f)) if v == original.to_string() => {
                        ws.write_number(r, c, *f).unwrap();
                    }
                    _ if !v.is_empty() => {
                        ws.write_string(r, c, &v).unwrap();
                    }
                    _ => {}
                }
            }
        }
    }
    wb.save(to).unwrap();
}

fn queue(path: &Path) -> Vec<Row> {
    records(path, "Queue")
}

fn find<'a>(rows: &'a [Row], s: &str, d: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r["Source URL"] == s && r["Destination URL"] == d)
}

#[test]
// One review cycle end to end (run, review, rerun, verify): its steps read in order.
#[allow(clippy::too_many_lines)]
fn typed_reviews_survive_a_rerun_and_a_later_crawl_verifies_them() {
    let w = Workdir::new("review");
    let spec = linkgap::synthetic::Spec {
        messy: false,
        pages: 40,
        ..linkgap::synthetic::Spec::default()
    };
    let files = linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let base_args = [
        "run",
        "--embeddings",
        "custom_javascript_all.csv",
        "--inlinks",
        "all_inlinks.csv",
        "--internal",
        "internal_all.csv",
        "--client",
        "Acme",
    ];
    let run = |out: &str, extra: &[&str]| {
        let mut args: Vec<&str> = base_args.to_vec();
        args.extend_from_slice(&["--out", out]);
        args.extend_from_slice(extra);
        let o = w.run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        w.path(out)
    };
    let first = run("r1.xlsx", &[]);
    let names = sheet_names(&first);
    assert_eq!(names[0], "Summary", "{names:?}");
    let q1 = queue(&first);
    assert!(q1.len() >= 6);
    // Sorted by priority, highest first; every row says how it was found.
    let priorities: Vec<f64> = q1.iter().map(|r| r["Priority"].parse().unwrap()).collect();
    assert!(
        priorities.windows(2).all(|p| p[0] >= p[1]),
        "{priorities:?}"
    );
    assert!(q1.iter().all(|r| r["Evidence"].contains("similar: ")
        && ["new link", "reverse of an existing link"].contains(&r["Link Kind"].as_str())
        && r["Client"] == "Acme"
        && r["State"] == "candidate"));

    // A person reviews three rows in a spreadsheet program.
    let (a, b, c) = (q1[0].clone(), q1[1].clone(), q1[2].clone());
    let pair = |r: &Row| (r["Source URL"].clone(), r["Destination URL"].clone());
    let tricky = "=SUM(1) «see also» the\nsecond paragraph";
    edit_workbook(&first, &w.path("r1-reviewed.xlsx"), &|i, row| match i {
        0 => {
            row.insert("Decision".into(), "accept".into());
            row.insert(
                "Passage".into(),
                "After the intro: \"read our guide\"".into(),
            );
            row.insert("Reviewer".into(), "Ann".into());
            row.insert("Decision Date".into(), "2026-11-20".into());
        }
        1 => {
            row.insert("Decision".into(), "reject".into());
            row.insert("Reason".into(), "off-topic for readers".into());
            row.insert("Reviewer".into(), "Bo".into());
        }
        2 => {
            row.insert("Decision".into(), "revise".into());
            row.insert("Passage".into(), tricky.into());
            row.insert("Reviewer".into(), "Ann".into());
        }
        _ => {}
    });

    // Rerun with --previous: every typed value is back on the same pair.
    let second = run("r2.xlsx", &["--previous", "r1-reviewed.xlsx"]);
    let q2 = queue(&second);
    let ra = find(&q2, &pair(&a).0, &pair(&a).1).expect("accepted pair still queued");
    assert_eq!(
        (
            ra["Decision"].as_str(),
            ra["Reviewer"].as_str(),
            ra["Decision Date"].as_str(),
            ra["State"].as_str()
        ),
        ("accept", "Ann", "2026-11-20", "approved")
    );
    assert_eq!(ra["Passage"], "After the intro: \"read our guide\"");
    let rb = find(&q2, &pair(&b).0, &pair(&b).1).expect("rejected pair");
    assert_eq!(
        (
            rb["Decision"].as_str(),
            rb["Reason"].as_str(),
            rb["Reviewer"].as_str()
        ),
        ("reject", "off-topic for readers", "Bo")
    );
    let rc = find(&q2, &pair(&c).0, &pair(&c).1).expect("revised pair");
    assert_eq!(
        rc["Passage"], tricky,
        "text that looks like a formula survives as text"
    );
    assert_eq!(rc["State"], "approved");
    assert!(sheet_names(&second).contains(&"History".to_string()));

    // The rejected pair's source page changes (new vector): it is reopened, the old review kept.
    let emb_text = std::fs::read_to_string(&files.embeddings).unwrap();
    let vector_of = |line: &str| line.rsplit_once(",\"").map(|(_, v)| v.to_string()).unwrap();
    let home_vector = vector_of(emb_text.lines().nth(1).unwrap());
    let changed: String = emb_text
        .lines()
        .map(|line| {
            if line.starts_with(&format!("\"{}\"", pair(&b).0)) {
                format!("{},\"{home_vector}", line.rsplit_once(",\"").unwrap().0)
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(w.path("changed.csv"), changed + "\n").unwrap();
    // And the accepted pair gets its body link published.
    let mut inlinks = std::fs::read_to_string(&files.inlinks).unwrap();
    let _ = writeln!(
        inlinks,
        "\"Hyperlink\",\"{}\",\"{}\",\"0\",\"\",\"guide\",\"200\",\"OK\",\"true\",\"\",\"\",\"Absolute\",\"//body/main/article/p[9]/a\",\"Content\",\"HTML\"",
        pair(&a).0,
        pair(&a).1
    );
    std::fs::write(w.path("later_inlinks.csv"), inlinks).unwrap();
    edit_workbook(&second, &w.path("r2-reviewed.xlsx"), &|_, _| {});
    let o = w.run(&[
        "run",
        "--embeddings",
        "changed.csv",
        "--inlinks",
        "later_inlinks.csv",
        "--internal",
        "internal_all.csv",
        "--out",
        "r3.xlsx",
        "--previous",
        "r2-reviewed.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let third = w.path("r3.xlsx");
    let q3 = queue(&third);
    let history = records(&third, "History");
    if let Some(rb) = find(&q3, &pair(&b).0, &pair(&b).1) {
        assert_eq!(rb["Decision"], "", "reopened: {rb:?}");
        assert!(rb["Reason"].contains("source page changed"), "{rb:?}");
        let old = history
            .iter()
            .find(|h| h["Source URL"] == pair(&b).0 && h["Destination URL"] == pair(&b).1)
            .expect("old rejection kept");
        assert_eq!(
            (old["Decision"].as_str(), old["Reason"].as_str()),
            ("reject", "off-topic for readers")
        );
    } else {
        let old = history
            .iter()
            .find(|h| h["Source URL"] == pair(&b).0)
            .expect("old rejection kept in History");
        assert_eq!(old["Reviewer"], "Bo");
    }
    assert!(
        find(&q3, &pair(&a).0, &pair(&a).1).is_none(),
        "linked now, so no longer a candidate"
    );
    let gone = history
        .iter()
        .find(|h| h["Source URL"] == pair(&a).0 && h["Destination URL"] == pair(&a).1)
        .expect("accepted review kept");
    assert!(gone["Note"].contains("body link exists"), "{gone:?}");
    assert_eq!(gone["Passage"], "After the intro: \"read our guide\"");

    // verify: the later crawl has the accepted link but not the revised one.
    let o = w.run(&[
        "verify",
        "--queue",
        "r2-reviewed.xlsx",
        "--inlinks",
        "later_inlinks.csv",
        "--internal",
        "internal_all.csv",
        "--out",
        "verified.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = queue(&w.path("verified.xlsx"));
    assert_eq!(v.len(), q2.len(), "every Queue row kept");
    let va = find(&v, &pair(&a).0, &pair(&a).1).unwrap();
    assert_eq!(va["State"], "observed");
    assert_eq!(
        va["Change Date"], "2026-11-20",
        "the crawl date of the exports"
    );
    assert!(
        va["Verification"].starts_with("body link found in the crawl of 2026-11-20"),
        "{va:?}"
    );
    let vc = find(&v, &pair(&c).0, &pair(&c).1).unwrap();
    assert_eq!(vc["State"], "approved");
    let expected = if vc["Existing Link"] == "template only" {
        "only a template link exists"
    } else {
        "not found"
    };
    assert!(vc["Verification"].contains(expected), "{vc:?}");
    assert_eq!(vc["Passage"], tricky);
    let vb = find(&v, &pair(&b).0, &pair(&b).1).unwrap();
    assert_eq!(vb["Verification"], "", "a rejected row is not checked");
    let changes = records(&w.path("verified.xlsx"), "Crawl Changes");
    assert!(changes.is_empty(), "same pages in both crawls: {changes:?}");

    // A later Internal: All with one page gone and one new page.
    let internal = std::fs::read_to_string(&files.internal).unwrap();
    let mut lines: Vec<String> = internal.lines().map(str::to_string).collect();
    let gone_line = lines.iter().position(|l| l.contains("/guide-3\"")).unwrap();
    let gone_url = lines[gone_line]
        .split("\",\"")
        .next()
        .unwrap()
        .trim_start_matches('"')
        .to_string();
    let new_line = lines[gone_line].replace("/guide-3\"", "/brand-new\"");
    lines[gone_line] = new_line;
    std::fs::write(w.path("later_internal.csv"), lines.join("\n") + "\n").unwrap();
    let o = w.run(&[
        "verify",
        "--queue",
        "r2-reviewed.xlsx",
        "--inlinks",
        "later_inlinks.csv",
        "--internal",
        "later_internal.csv",
        "--out",
        "verified2.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let changes = records(&w.path("verified2.xlsx"), "Crawl Changes");
    let change = |kind: &str| {
        changes
            .iter()
            .filter(|r| r["Change"] == kind)
            .map(|r| r["URL"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(change("page gone"), vec![gone_url.clone()]);
    assert_eq!(
        change("new page"),
        vec![gone_url.replace("/guide-3", "/brand-new")]
    );
}

/// Decisions typed loosely: obvious spellings (case, spaces, past tense) are read, the rest
/// are listed in Rejected Rows with the allowed values and their rows kept, undecided.
#[test]
fn loose_decisions_are_read_and_invalid_ones_are_listed() {
    let w = Workdir::new("decisions");
    let spec = linkgap::synthetic::Spec {
        messy: false,
        pages: 40,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let args = |out: &str, previous: Option<&str>| {
        let mut a = vec![
            "run",
            "--embeddings",
            "custom_javascript_all.csv",
            "--inlinks",
            "all_inlinks.csv",
            "--internal",
            "internal_all.csv",
            "--out",
        ];
        a.push(out);
        if let Some(p) = previous {
            a.extend(["--previous", p]);
        }
        a.iter().map(|s| (*s).to_string()).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| w.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run(args("r1.xlsx", None)).status.code(), Some(0));
    let q1 = queue(&w.path("r1.xlsx"));
    let typed = ["ACCEPT", " Rejected ", "YES", "maybe", "Revise"];
    edit_workbook(
        &w.path("r1.xlsx"),
        &w.path("r1-reviewed.xlsx"),
        &|i, row| {
            if let Some(t) = typed.get(i) {
                row.insert("Decision".into(), (*t).into());
            }
        },
    );
    let o = run(args("r2.xlsx", Some("r1-reviewed.xlsx")));
    assert_eq!(o.status.code(), Some(1), "two rows listed: {}", stderr(&o));
    let q2 = queue(&w.path("r2.xlsx"));
    let row = |i: usize| {
        find(&q2, &q1[i]["Source URL"], &q1[i]["Destination URL"])
            .unwrap_or_else(|| panic!("row {i} kept"))
            .clone()
    };
    assert_eq!(row(0)["State"], "approved");
    assert_eq!(row(4)["State"], "approved");
    assert_eq!(
        row(1)["Decision"],
        "Rejected",
        "the text as typed (cells are trimmed)"
    );
    for i in [2, 3] {
        assert_eq!(
            (row(i)["Decision"].as_str(), row(i)["State"].as_str()),
            (typed[i], "candidate")
        );
    }
    let rejected = records(&w.path("r2.xlsx"), "Rejected Rows");
    let listed: Vec<&Row> = rejected
        .iter()
        .filter(|r| r["Column"] == "Decision")
        .collect();
    assert_eq!(listed.len(), 2, "{rejected:?}");
    assert!(
        listed
            .iter()
            .all(|r| r["Problem"].contains("accept, revise, reject")),
        "{listed:?}"
    );

    // verify lists them too, and keeps the rows.
    let o = w.run(&[
        "verify",
        "--queue",
        "r1-reviewed.xlsx",
        "--inlinks",
        "all_inlinks.csv",
        "--out",
        "v.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(queue(&w.path("v.xlsx")).len(), q1.len());
}

/// Copy a workbook with its Queue split in two, as linkgap writes a Queue past Excel's row
/// limit ("Queue", then "Queue (2)"), applying `edit` to the Queue rows (numbered across both).
fn split_queue(from: &Path, to: &Path, edit: &dyn Fn(usize, &mut Row)) {
    let mut wb_in = open_workbook_auto(from).unwrap();
    let mut wb = Workbook::new();
    for name in wb_in.sheet_names() {
        let range = wb_in.worksheet_range(&name).unwrap();
        let rows: Vec<Vec<String>> = range
            .rows()
            .map(|r| r.iter().map(ToString::to_string).collect())
            .collect();
        let header = rows[0].clone();
        let body: Vec<Vec<String>> = rows[1..].to_vec();
        let parts: Vec<(String, Vec<Vec<String>>)> = if name == "Queue" {
            let half = body.len() / 2;
            vec![
                ("Queue".into(), body[..half].to_vec()),
                ("Queue (2)".into(), body[half..].to_vec()),
            ]
        } else {
            vec![(name.clone(), body)]
        };
        let mut n = 0;
        for (sheet, rows) in parts {
            let ws = wb.add_worksheet();
            ws.set_name(&sheet).unwrap();
            for (c, h) in header.iter().enumerate() {
                ws.write_string(0, c as u16, h).unwrap();
            }
            for (i, row) in rows.iter().enumerate() {
                let mut values: Row = header.iter().cloned().zip(row.iter().cloned()).collect();
                if sheet.starts_with("Queue") {
                    edit(n, &mut values);
                    n += 1;
                }
                for (c, h) in header.iter().enumerate() {
                    ws.write_string(i as u32 + 1, c as u16, &values[h]).unwrap();
                }
            }
        }
    }
    wb.save(to).unwrap();
}

/// A Queue continued in "Queue (2)" is read whole by --previous and by verify.
#[test]
fn a_queue_in_two_parts_is_read_whole() {
    let w = Workdir::new("queue-parts");
    let spec = linkgap::synthetic::Spec {
        messy: false,
        pages: 40,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let base = [
        "run",
        "--embeddings",
        "custom_javascript_all.csv",
        "--inlinks",
        "all_inlinks.csv",
        "--out",
    ];
    let run = |out: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.push(out);
        args.extend_from_slice(extra);
        let o = w.run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        queue(&w.path(out))
    };
    let q1 = run("r1.xlsx", &[]);
    let last = q1.len() - 1;
    split_queue(&w.path("r1.xlsx"), &w.path("r1-split.xlsx"), &|i, row| {
        if i == last {
            row.insert("Decision".into(), "accept".into());
            row.insert("Reviewer".into(), "Cy".into());
        }
    });
    let names = sheet_names(&w.path("r1-split.xlsx"));
    assert!(names.contains(&"Queue (2)".to_string()), "{names:?}");
    let q2 = run("r2.xlsx", &["--previous", "r1-split.xlsx"]);
    let r = find(&q2, &q1[last]["Source URL"], &q1[last]["Destination URL"]).expect("kept");
    assert_eq!(
        (r["Reviewer"].as_str(), r["State"].as_str()),
        ("Cy", "approved")
    );
    let o = w.run(&[
        "verify",
        "--queue",
        "r1-split.xlsx",
        "--inlinks",
        "all_inlinks.csv",
        "--out",
        "v.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = queue(&w.path("v.xlsx"));
    assert_eq!(v.len(), q1.len(), "both parts");
    let r = find(&v, &q1[last]["Source URL"], &q1[last]["Destination URL"]).unwrap();
    assert!(!r["Verification"].is_empty(), "{r:?}");
}

/// A small synthetic site in `w`, and the `linkgap run` arguments for it writing `out`.
fn reviewed_site(w: &Workdir, origin: &str) {
    let spec = linkgap::synthetic::Spec {
        messy: false,
        pages: 40,
        origin: origin.into(),
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
}

fn run_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--embeddings",
        "custom_javascript_all.csv",
        "--inlinks",
        "all_inlinks.csv",
        "--out",
        out,
    ];
    a.extend_from_slice(extra);
    a
}

/// Columns a reviewer types into the Queue ("Notes", "Owner") come back after the known
/// columns, in the Queue and in History, with every value.
#[test]
fn columns_a_reviewer_adds_are_carried() {
    let w = Workdir::new("added-columns");
    reviewed_site(&w, "https://www.example.com");
    assert_eq!(w.run(&run_args("r1.xlsx", &[])).status.code(), Some(0));
    let q1 = queue(&w.path("r1.xlsx"));
    edit_workbook(
        &w.path("r1.xlsx"),
        &w.path("r1-reviewed.xlsx"),
        &|i, row| {
            match i {
                0 => {
                    row.insert("Notes".into(), "ask the client first".into());
                }
                1 => {
                    row.insert("Owner".into(), "Bo".into());
                    // A pair that can never be a candidate again (a self-link): to History.
                    let source = row["Source URL"].clone();
                    row.insert("Destination URL".into(), source);
                }
                _ => {}
            }
        },
    );
    let o = w.run(&run_args("r2.xlsx", &["--previous", "r1-reviewed.xlsx"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let header = &sheet(&w.path("r2.xlsx"), "Queue")[0];
    let at = |name: &str| header.iter().position(|h| h == name);
    assert_eq!(
        (at("Notes"), at("Owner")),
        (Some(header.len() - 2), Some(header.len() - 1)),
        "added columns last, in their order: {header:?}"
    );
    assert!(at("Destination Fingerprint") < at("Notes"));
    let q2 = queue(&w.path("r2.xlsx"));
    let kept = find(&q2, &q1[0]["Source URL"], &q1[0]["Destination URL"]).expect("row 0 kept");
    assert_eq!(kept["Notes"], "ask the client first");
    let history = records(&w.path("r2.xlsx"), "History");
    let moved = history
        .iter()
        .find(|r| {
            r["Source URL"] == q1[1]["Source URL"] && r["Destination URL"] == q1[1]["Source URL"]
        })
        .unwrap_or_else(|| panic!("the self-pair is in History: {history:?}"));
    assert_eq!(moved["Owner"], "Bo");

    // And on the next run again, from History and the Queue.
    let o = w.run(&run_args("r3.xlsx", &["--previous", "r2.xlsx"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let q3 = queue(&w.path("r3.xlsx"));
    let kept = find(&q3, &q1[0]["Source URL"], &q1[0]["Destination URL"]).unwrap();
    assert_eq!(kept["Notes"], "ask the client first");
    let history = records(&w.path("r3.xlsx"), "History");
    assert!(history.iter().any(|r| r["Owner"] == "Bo"), "{history:?}");
}

/// `verify` reads the URL rules of the run that wrote the Queue from its Run sheet: the rows
/// of a `--trailing-slash add` run name the later crawl's pages, which are written without
/// the slash.
#[test]
fn verify_normalizes_urls_as_the_run_did() {
    let w = Workdir::new("verify-rules");
    reviewed_site(&w, "https://www.example.com");
    let o = w.run(&run_args("r1.xlsx", &["--trailing-slash", "add"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let q1 = queue(&w.path("r1.xlsx"));
    assert!(q1[0]["Source URL"].ends_with('/'), "{:?}", q1[0]);
    edit_workbook(
        &w.path("r1.xlsx"),
        &w.path("r1-reviewed.xlsx"),
        &|i, row| {
            if i == 0 {
                row.insert("Decision".into(), "accept".into());
            }
        },
    );
    let o = w.run(&[
        "verify",
        "--queue",
        "r1-reviewed.xlsx",
        "--inlinks",
        "all_inlinks.csv",
        "--out",
        "v.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = queue(&w.path("v.xlsx"));
    let r = find(&v, &q1[0]["Source URL"], &q1[0]["Destination URL"]).unwrap();
    assert!(
        !r["Verification"].is_empty() && !r["Verification"].contains("is not in the crawl"),
        "both pages are in the later crawl: {r:?}"
    );
    let summary = sheet(&w.path("v.xlsx"), "Summary");
    assert!(
        summary
            .iter()
            .any(|r| r[0] == "URL rules" && r[1].contains("Run sheet")),
        "{summary:?}"
    );
}

/// `verify` with a Queue from another site refuses (exit 2) instead of reporting every
/// approved page gone.
#[test]
fn verify_refuses_a_review_of_another_site() {
    let w = Workdir::new("verify-foreign");
    reviewed_site(&w, "https://www.example.com");
    assert_eq!(w.run(&run_args("r1.xlsx", &[])).status.code(), Some(0));
    let other = Workdir::new("verify-foreign-other");
    reviewed_site(&other, "https://shop.example.org");
    let o = w.run(&[
        "verify",
        "--queue",
        "r1.xlsx",
        "--inlinks",
        other.path("all_inlinks.csv").to_str().unwrap(),
        "--out",
        "v.xlsx",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("another site"), "{}", stderr(&o));
    assert!(!w.path("v.xlsx").exists());
}

/// A decision on a pair whose URL is longer than an Excel cell (32,767 characters, so the
/// Queue cell was cut) is matched by the cut text and the fingerprints, not re-opened.
#[test]
fn decisions_on_urls_past_the_cell_limit_are_kept() {
    let w = Workdir::new("long-url");
    let o = "https://www.example.com";
    let long = format!("{o}/search/{}", "x".repeat(40_000));
    let v = |head: [f32; 3], at: usize| {
        let mut x = [0.0f32; 8];
        x[at] = head[0];
        x[at + 1] = head[1];
        x[at + 2] = head[2];
        let n = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        vector_text(&x.iter().map(|a| a / n).collect::<Vec<_>>())
    };
    let rows = vec![
        emb_row(&format!("{o}/a"), &v([1.0, 0.3, 0.0], 0)),
        emb_row(&format!("{o}/b"), &v([1.0, -0.3, 0.0], 0)),
        emb_row(&long, &v([1.0, 0.0, 0.3], 0)),
        emb_row(&format!("{o}/c"), &v([1.0, 0.3, 0.0], 4)),
        emb_row(&format!("{o}/d"), &v([1.0, -0.3, 0.0], 4)),
        emb_row(&format!("{o}/e"), &v([1.0, 0.0, 0.3], 4)),
    ];
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &[]);
    let run = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "run",
            "--embeddings",
            "embeddings.csv",
            "--inlinks",
            "inlinks.csv",
            "--near-duplicate",
            "0.999",
            "--out",
            out,
        ];
        a.extend_from_slice(extra);
        let o = w.run(&a);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        queue(&w.path(out))
    };
    let q1 = run("r1.xlsx", &[]);
    let is_long = |r: &Row| r["Source URL"].ends_with('…') || r["Destination URL"].ends_with('…');
    let cut = q1.iter().filter(|r| is_long(r)).count();
    assert_eq!(
        cut, 4,
        "the long page's four pairs, cut in the cell: {q1:?}"
    );
    edit_workbook(
        &w.path("r1.xlsx"),
        &w.path("r1-reviewed.xlsx"),
        &|_, row| {
            if row["Source URL"].ends_with('…') || row["Destination URL"].ends_with('…') {
                row.insert("Decision".into(), "reject".into());
                row.insert("Reason".into(), "a search page".into());
            }
        },
    );
    let q2 = run("r2.xlsx", &["--previous", "r1-reviewed.xlsx"]);
    let decided: Vec<&Row> = q2.iter().filter(|r| is_long(r)).collect();
    assert_eq!(decided.len(), 4);
    for r in decided {
        assert_eq!(
            (r["Decision"].as_str(), r["Reason"].as_str()),
            ("reject", "a search page"),
            "{r:?}"
        );
    }
    let names = sheet_names(&w.path("r2.xlsx"));
    if names.iter().any(|n| n == "History") {
        let history = records(&w.path("r2.xlsx"), "History");
        assert!(history.is_empty(), "nothing left the Queue: {history:?}");
    }
}
