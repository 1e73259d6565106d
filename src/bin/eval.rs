//! `linkgap-eval`: the hidden-truth quality harness (see `linkgap::holdout`).
//!
//!     linkgap-eval hide CRAWL_DIR --out DIR [--share 0.1] [--seed N]
//!     linkgap-eval score DIR --queue CSV_DIR [--json] [--row LABEL]
//!
//! `hide` writes a reduced copy of the crawl and `DIR/hidden.csv`; run
//! `linkgap run DIR --out r.xlsx --csv-dir CSV_DIR` on it, then `score`.

use std::path::PathBuf;
use std::process::ExitCode;

use linkgap::holdout::hide::{HideOptions, hide};
use linkgap::holdout::score::{Figures, score};

const USAGE: &str = "usage: linkgap-eval hide CRAWL_DIR --out DIR [--share 0.1] [--seed N]\n       \
                     linkgap-eval score DIR --queue CSV_DIR [--json] [--row LABEL]\n       \
                     linkgap-eval row-header";

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

#[allow(clippy::print_stdout)] // the report is the command's output
fn print(text: &str) {
    println!("{text}");
}

fn run_hide(args: &[String]) -> ExitCode {
    let mut crawl = None;
    let mut out = None;
    let mut share = 0.1;
    let mut seed = 1u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "--share" => match it.next().and_then(|v| v.parse::<f64>().ok()) {
                Some(v) if (0.0..=1.0).contains(&v) => share = v,
                _ => {
                    eprintln!("linkgap-eval: --share takes a number from 0 to 1");
                    return ExitCode::from(2);
                }
            },
            "--seed" => {
                let Some(v) = it.next().and_then(|v| v.parse().ok()) else {
                    eprintln!("linkgap-eval: --seed takes a whole number");
                    return ExitCode::from(2);
                };
                seed = v;
            }
            _ if !a.starts_with('-') && crawl.is_none() => crawl = Some(PathBuf::from(a)),
            _ => return usage(),
        }
    }
    let (Some(crawl), Some(out)) = (crawl, out) else {
        return usage();
    };
    if crawl == out {
        eprintln!("linkgap-eval: --out must not be the crawl folder");
        return ExitCode::from(2);
    }
    match hide(&HideOptions {
        crawl: crawl.clone(),
        out: out.clone(),
        share,
        seed,
    }) {
        Ok(s) => {
            eprintln!(
                "linkgap-eval: hid {} of {} body-link pairs ({} All Inlinks rows removed); \
                 {} <a> unwrapped, {} pairs found in the page text{}; copied {}; left out {}",
                s.hidden,
                s.body_pairs,
                s.rows_removed,
                s.links_unwrapped,
                s.found_in_text,
                if s.page_text { "" } else { " (no page text)" },
                s.copied.join(", "),
                if s.left_out.is_empty() {
                    "nothing".into()
                } else {
                    s.left_out.join(", ")
                },
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("linkgap-eval: {}: {e}", crawl.display());
            ExitCode::from(2)
        }
    }
}

fn run_score(args: &[String]) -> ExitCode {
    let mut dir = None;
    let mut queue = None;
    let mut json = false;
    let mut row = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--queue" => queue = it.next().map(PathBuf::from),
            "--json" => json = true,
            "--row" => row = it.next().cloned(),
            _ if !a.starts_with('-') && dir.is_none() => dir = Some(PathBuf::from(a)),
            _ => return usage(),
        }
    }
    let (Some(dir), Some(queue)) = (dir, queue) else {
        return usage();
    };
    match score(&dir, &queue) {
        Ok(f) => {
            if json {
                print(&f.json());
            } else if let Some(label) = row {
                print(&f.row(&label));
            } else {
                print(f.table().trim_end());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("linkgap-eval: {}: {e}", dir.display());
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("hide") => run_hide(&args[1..]),
        Some("score") => run_score(&args[1..]),
        Some("row-header") => {
            print(&Figures::row_header());
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}
