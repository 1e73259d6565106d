//! `linkgap verify`: a later crawl checks the approved rows of a reviewed Queue. A body link
//! found makes a row "observed" with the crawl date; a link still missing reopens it as
//! "approved" with a note; a template-only link or one through a redirect is said so. The
//! pages new in the later crawl and gone from it are listed, so the next run works from
//! current pages.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::crawl::{self, Crawl, CrawlDate};
use crate::input::{Table, cell};
use crate::links::{LinkRules, LinkStatus};
use crate::normalize::identity::{UrlTable, Via};
use crate::normalize::{Rules, normalize};
use crate::progress::Progress;
use crate::report::{Report, Role};
use crate::workbook::{self, Cell, Column, Sheet};

use super::Review;

/// What `verify` needs, validated.
#[derive(Debug, Clone)]
pub struct VerifyConfig {
    /// The reviewed workbook or Queue CSV.
    pub queue: PathBuf,
    /// Later All Inlinks.
    pub inlinks: PathBuf,
    /// Later Internal: All.
    pub internal: Option<PathBuf>,
    /// Output workbook.
    pub out: PathBuf,
    /// The later crawl's date, if given.
    pub crawl_date: Option<String>,
    /// Body positions.
    pub link_rules: LinkRules,
    /// No progress bars.
    pub quiet: bool,
}

/// What a verification found.
#[derive(Debug)]
pub struct VerifyOutcome {
    /// Rows rejected from the inputs.
    pub rejected: u64,
    /// One line for stderr.
    pub summary: String,
}

/// Columns verify fills in (added to the Queue if missing).
const VERIFICATION: &str = "Verification";

/// Run `linkgap verify`.
pub fn verify(config: &VerifyConfig) -> Result<VerifyOutcome> {
    let (rules, rules_from) = run_rules(&config.queue)?;
    let mut report = Report::new();
    let progress = Progress::new(config.quiet);
    // A Queue past Excel's row limit continues in "Queue (2)", ...: every part is checked.
    let parts = crate::input::Source::sheet_parts(&config.queue, "Queue")
        .with_context(|| format!("reading the reviewed Queue {}", config.queue.display()))?;
    let queues = parts
        .iter()
        .map(|part| {
            Table::open_sheet(&config.queue, part)
                .with_context(|| format!("reading the reviewed Queue {}", config.queue.display()))
        })
        .collect::<Result<Vec<Table>>>()?;
    let is_workbook = queues[0].source().sheet().is_some();
    let inlinks = Table::open(&config.inlinks)
        .with_context(|| format!("reading the later All Inlinks {}", config.inlinks.display()))?;
    let internal = config
        .internal
        .as_ref()
        .map(|p| {
            Table::open(p)
                .with_context(|| format!("reading the later Internal: All {}", p.display()))
        })
        .transpose()?;
    let crawl = crawl::load(
        UrlTable::default(),
        &inlinks,
        internal.as_ref(),
        &rules,
        &config.link_rules,
        progress,
        &mut report,
    )?;
    let crawl_date = crawl_date(config, &crawl);
    let checked = check_queue(&queues, &crawl, &rules, &crawl_date, &mut report)?;
    foreign_check(config, &checked, &crawl, &rules)?;
    let counts = &checked.counts;

    let mut summary = verify_summary(&config.queue, &crawl_date, counts, checked.rows.len());
    summary
        .rows
        .push(vec![Cell::text("URL rules"), Cell::text(rules_from)]);
    let mut sheets = vec![summary];
    sheets.push(queue_out(&checked.columns, &checked.rows));
    let changes = crawl_changes(&config.queue, is_workbook, &crawl, &rules);
    let count_of = |kind: &str| {
        changes
            .rows
            .iter()
            .filter(|r| r[0] == Cell::text(kind))
            .count()
    };
    let new_gone = (count_of("new page"), count_of("page gone"));
    sheets.push(changes);
    if is_workbook && let Ok(history) = Table::open_sheet(&config.queue, "History") {
        let names = history.header().names.clone();
        let mut kept = Vec::new();
        let mut scratch = Report::new();
        let stats = scratch.file(history.name(), Role::Review);
        history.rows(&mut scratch, stats, &mut |_, _, r| {
            kept.push(r.iter().map(str::to_string).collect::<Vec<_>>());
        })?;
        sheets.push(plain_sheet("History", &names, &kept));
    }
    workbook::write_xlsx(&config.out, sheets)
        .with_context(|| format!("writing {}", config.out.display()))?;
    let rejected = report.rejected_total();
    let n = |key: &str| counts.get(key).copied().unwrap_or(0);
    let summary = format!(
        "wrote {}: {} observed, {} still missing, {} template only, {} via redirect; {} new pages, {} pages gone (crawl of {crawl_date})",
        config.out.display(),
        n("observed"),
        n("still missing"),
        n("template link only"),
        n("linked via a redirect"),
        new_gone.0,
        new_gone.1
    );
    Ok(VerifyOutcome { rejected, summary })
}

/// The URL rules of the run that wrote the reviewed Queue, read from its Run sheet (or the
/// Run.csv beside a Queue.csv), so rows of a `--trailing-slash strip` run match the later
/// crawl's pages; else the defaults. With where they came from, for the Summary.
fn run_rules(queue: &Path) -> Result<(Rules, &'static str)> {
    let run_csv = queue.with_file_name("Run.csv");
    let source = match crate::input::Source::open_sheet(queue, "Run") {
        Ok(s) if s.sheet().is_some() => s,
        _ if run_csv.is_file() => crate::input::Source::open(&run_csv)
            .with_context(|| format!("reading the run record {}", run_csv.display()))?,
        _ => {
            return Ok((
                Rules::default(),
                "the defaults (the reviewed workbook has no Run sheet)",
            ));
        }
    };
    let mut rows: Vec<(String, String)> = Vec::new();
    source
        .for_each_row(
            &mut |_, r| {
                rows.push((cell(r, Some(0)).to_string(), cell(r, Some(1)).to_string()));
                std::ops::ControlFlow::Continue(())
            },
            &mut |_, _| {},
        )
        .with_context(|| format!("reading the Run sheet of {}", queue.display()))?;
    let rules = Rules::from_described(rows.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .with_context(|| format!("the Run sheet of {}", queue.display()))?;
    Ok((
        rules,
        "those of the run that wrote the reviewed Queue (its Run sheet)",
    ))
}

/// Refuse a reviewed Queue from another site: when almost none of its rows name a page of
/// the later crawl, "every page gone" would be the wrong report.
fn foreign_check(
    config: &VerifyConfig,
    checked: &Checked,
    crawl: &Crawl,
    rules: &Rules,
) -> Result<()> {
    let idx = |name: &str| checked.columns.iter().position(|c| c == name);
    let (Some(s), Some(d)) = (idx("Source URL"), idx("Destination URL")) else {
        return Ok(());
    };
    let known = |u: &str| crawl.page_of(u, rules).is_some();
    super::foreign_review_check(
        checked.rows.iter().map(|r| (r[s].as_str(), r[d].as_str())),
        &known,
    )
    .map_err(|(hits, total)| {
        anyhow::anyhow!(
            "{}: only {hits} of its {total} Queue rows name a page of the later crawl {}; it looks like the review of another site (or of URLs normalized another way). Check --queue and --inlinks",
            config.queue.display(),
            config.inlinks.display()
        )
    })
}

/// The later crawl's date: given, else Internal: All's crawl timestamp, else the All Inlinks
/// file's modification date, else today.
fn crawl_date(config: &VerifyConfig, crawl: &Crawl) -> String {
    let date = match &config.crawl_date {
        Some(given) => CrawlDate::Given(given.clone()),
        None => CrawlDate::of(
            [crawl
                .internal
                .as_ref()
                .and_then(|i| i.crawl_timestamp.as_deref())],
            &config.inlinks,
        ),
    };
    date.date().map_or_else(crate::dates::today, str::to_string)
}

/// The Queue after checking: every column kept as it was; Verification, State and Change
/// Date updated.
struct Checked {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
    counts: HashMap<&'static str, usize>,
}

/// Check every approved row of the Queue's parts against the later crawl.
fn check_queue(
    queues: &[Table],
    crawl: &Crawl,
    rules: &Rules,
    crawl_date: &str,
    report: &mut Report,
) -> Result<Checked> {
    let header: Vec<String> = queues[0].header().names.clone();
    let mut columns: Vec<String> = header.clone();
    if !columns.iter().any(|c| c == VERIFICATION) {
        columns.push(VERIFICATION.into());
    }
    let mut checked = Checked {
        columns,
        rows: Vec::new(),
        counts: HashMap::new(),
    };
    for queue in queues {
        // A part whose header differs is read by its own column names.
        let names = &queue.header().names;
        let at: Vec<Option<usize>> = checked
            .columns
            .iter()
            .map(|c| names.iter().position(|n| n == c))
            .collect();
        let stats = report.file(
            &format!(
                "{} ({})",
                queue.name(),
                queue.source().sheet().unwrap_or("Queue")
            ),
            Role::Review,
        );
        queue.rows(report, stats, &mut |report, row, r| {
            let values: Vec<String> = at.iter().map(|&i| cell(r, i).to_string()).collect();
            let review = Review {
                decision: value_of(&checked.columns, &values, "Decision"),
                state: value_of(&checked.columns, &values, "State"),
                ..Review::default()
            };
            if let Some(bad) = review.invalid() {
                // Listed with the allowed values; the row is kept as it was, not verified.
                let value = bad.text.clone();
                report.reject(
                    stats,
                    queue.rejection(row, bad.column, bad.to_string(), &value),
                );
                checked.rows.push(values);
                return;
            }
            report.stats(stats).used += 1;
            let values = check_row(
                &checked.columns,
                values,
                &review,
                crawl,
                rules,
                crawl_date,
                &mut checked.counts,
            );
            checked.rows.push(values);
        })?;
    }
    Ok(checked)
}

fn value_of(columns: &[String], values: &[String], name: &str) -> String {
    columns
        .iter()
        .position(|c| c == name)
        .map_or(String::new(), |i| values[i].clone())
}

/// One Queue row: an approved pair is looked up in the later crawl.
fn check_row(
    columns: &[String],
    mut values: Vec<String>,
    review: &Review,
    crawl: &Crawl,
    rules: &Rules,
    crawl_date: &str,
    counts: &mut HashMap<&'static str, usize>,
) -> Vec<String> {
    let idx = |name: &str| columns.iter().position(|c| c == name);
    let (Some(s), Some(d)) = (idx("Source URL"), idx("Destination URL")) else {
        return values;
    };
    if !review.is_approved() {
        return values;
    }
    let mut state = review.state.trim().to_string();
    let mut count = |key: &'static str| *counts.entry(key).or_default() += 1;
    let note = match (
        crawl.page_of(&values[s], rules),
        crawl.page_of(&values[d], rules),
    ) {
        (None, _) => {
            count("source page missing");
            format!("the source page is not in the crawl of {crawl_date}")
        }
        (_, None) => {
            count("destination page missing");
            format!("the destination page is not in the crawl of {crawl_date}")
        }
        (Some(sp), Some(dp)) => match crawl.links.status(sp, dp) {
            status @ (LinkStatus::Body | LinkStatus::BodyNofollow) => {
                state = "observed".into();
                count("observed");
                let nofollow = if status == LinkStatus::BodyNofollow {
                    " (nofollow)"
                } else {
                    ""
                };
                format!("body link found in the crawl of {crawl_date}{nofollow}")
            }
            LinkStatus::ViaRedirect => {
                count("linked via a redirect");
                format!(
                    "{VIA_REDIRECT_NOTE} {crawl_date} but goes through a redirect: point it at the final URL"
                )
            }
            LinkStatus::TemplateOnly => {
                state = "approved".into();
                count("template link only");
                format!("{TEMPLATE_NOTE} {crawl_date}; the body link is still missing")
            }
            LinkStatus::NotFound | LinkStatus::NearDuplicate => {
                state = "approved".into();
                count("still missing");
                format!("not found in the crawl of {crawl_date}; reopened as approved")
            }
        },
    };
    if let Some(i) = idx("State")
        && values[i].trim() != state
        && !state.is_empty()
    {
        values[i] = state;
        if let Some(c) = idx("Change Date") {
            values[c] = crawl_date.to_string();
        }
    }
    if let Some(v) = idx(VERIFICATION) {
        values[v] = note;
    }
    values
}

/// The start of the note for a body link through a redirect.
const VIA_REDIRECT_NOTE: &str = "a body link exists in the crawl of";
/// The start of the note for a template-only link.
const TEMPLATE_NOTE: &str = "only a template link exists in the crawl of";

fn queue_out(columns: &[String], rows: &[Vec<String>]) -> Sheet {
    let typed = |name: &str, v: &str| -> Cell {
        match name {
            "Source URL" | "Destination URL" => Cell::Url(v.to_string()),
            "Similarity" => v
                .parse::<f64>()
                .map_or_else(|_| Cell::text(v), Cell::Percent),
            "Priority" => v
                .parse::<f64>()
                .map_or_else(|_| Cell::text(v), Cell::Number),
            "Rank" | "Destination Body Inlinks" => {
                v.parse::<i64>().map_or_else(|_| Cell::text(v), Cell::Int)
            }
            _ => Cell::text(v),
        }
    };
    let mut sheet = Sheet::new(
        "Queue",
        columns
            .iter()
            .map(|c| {
                if matches!(c.as_str(), "Passage" | "Reason" | VERIFICATION) {
                    Column::wrapped(c.clone(), 40.0)
                } else {
                    Column::new(c.clone(), if c.ends_with("URL") { 50.0 } else { 13.0 })
                }
            })
            .collect(),
    );
    for (name, values) in [("Decision", super::DECISIONS), ("State", super::STATES)] {
        if let Some(i) = columns.iter().position(|c| c == name) {
            sheet
                .dropdowns
                .push((i, values.iter().map(|s| (*s).to_string()).collect()));
        }
    }
    sheet.rows = rows
        .iter()
        .map(|r| columns.iter().zip(r).map(|(c, v)| typed(c, v)).collect())
        .collect();
    sheet
}

fn plain_sheet(name: &str, columns: &[String], rows: &[Vec<String>]) -> Sheet {
    let mut sheet = Sheet::new(
        name,
        columns
            .iter()
            .map(|c| Column::new(c.clone(), if c.ends_with("URL") { 50.0 } else { 16.0 }))
            .collect(),
    );
    sheet.rows = rows
        .iter()
        .map(|r| r.iter().map(Cell::text).collect())
        .collect();
    sheet
}

/// Pages of the earlier run (its Pages sheet) against pages of the later crawl.
fn crawl_changes(
    queue_path: &std::path::Path,
    is_workbook: bool,
    crawl: &Crawl,
    rules: &Rules,
) -> Sheet {
    let mut sheet = Sheet::new(
        "Crawl Changes",
        vec![Column::new("Change", 14.0), Column::new("URL", 70.0)],
    );
    if !is_workbook {
        sheet.rows.push(vec![
            Cell::text("not compared"),
            Cell::text("the reviewed file is a CSV without the Pages sheet"),
        ]);
        return sheet;
    }
    let mut before: BTreeSet<String> = BTreeSet::new();
    if let Ok(pages) = Table::open_sheet(queue_path, "Pages") {
        let h = pages.header();
        let (resolved, eligible) = (h.find("Resolved URL"), h.find("Eligible"));
        let mut scratch = Report::new();
        let stats = scratch.file(pages.name(), Role::Review);
        let _ = pages.rows(&mut scratch, stats, &mut |_, _, r| {
            if cell(r, eligible) == "yes"
                && let Ok(u) = normalize(cell(r, resolved), rules)
            {
                before.insert(u);
            }
        });
    }
    // Pages now: 200 HTML pages of Internal: All when given, else every page that links out.
    let mut now: BTreeSet<String> = BTreeSet::new();
    match &crawl.internal {
        Some(internal) => {
            for (&id, &row) in &crawl.crawled {
                let u = &internal.urls[row];
                if u.status_code == Some(200)
                    && crate::input::embeddings::is_html(&u.content_type)
                    && crawl.resolved[id as usize].1 == Via::Itself
                {
                    now.insert(crawl.urls.url(id).to_string());
                }
            }
        }
        None => {
            for s in crawl.links.sources() {
                now.insert(crawl.urls.url(s).to_string());
            }
        }
    }
    for u in now.difference(&before) {
        sheet
            .rows
            .push(vec![Cell::text("new page"), Cell::Url(u.clone())]);
    }
    for u in before.difference(&now) {
        sheet
            .rows
            .push(vec![Cell::text("page gone"), Cell::Url(u.clone())]);
    }
    sheet
}

fn verify_summary(
    queue: &std::path::Path,
    crawl_date: &str,
    counts: &HashMap<&'static str, usize>,
    rows: usize,
) -> Sheet {
    let mut sheet = Sheet::new(
        "Summary",
        vec![
            Column::wrapped("Item", 50.0),
            Column::wrapped("Value", 80.0),
        ],
    );
    sheet.key_value = true;
    let mut kv = |k: &str, v: Cell| sheet.rows.push(vec![Cell::text(k), v]);
    kv(
        "Verification of approved links",
        Cell::text(queue.display().to_string()),
    );
    kv("Later crawl date", Cell::text(crawl_date));
    kv("Queue rows", Cell::Int(rows as i64));
    for key in [
        "observed",
        "still missing",
        "template link only",
        "linked via a redirect",
        "source page missing",
        "destination page missing",
    ] {
        kv(
            &format!("Approved rows: {key}"),
            Cell::Int(*counts.get(key).unwrap_or(&0) as i64),
        );
    }
    kv(
        "States",
        Cell::text(
            "candidate (found), approved (a person accepted it), published (a person marked it live), observed (a later crawl found the body link)",
        ),
    );
    sheet
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// The later crawl: a body link /a → /b, a navigation (template) link /a → /c, a body
    /// link /a → /old that redirects to /new, and /d linked only from /b.
    const INLINKS: &str = "\"Type\",\"Source\",\"Destination\",\"Anchor\",\"Status Code\",\"Follow\",\"Link Position\"\n\
        \"Hyperlink\",\"https://e.com/a\",\"https://e.com/b\",\"B\",\"200\",\"true\",\"Content\"\n\
        \"Hyperlink\",\"https://e.com/a\",\"https://e.com/c\",\"C\",\"200\",\"true\",\"Navigation\"\n\
        \"Hyperlink\",\"https://e.com/a\",\"https://e.com/old\",\"Old\",\"301\",\"true\",\"Content\"\n\
        \"HTTP Redirect\",\"https://e.com/old\",\"https://e.com/new\",\"\",\"200\",\"true\",\"\"\n\
        \"Hyperlink\",\"https://e.com/b\",\"https://e.com/d\",\"D\",\"200\",\"true\",\"Content\"\n";

    /// [`INLINKS`] loaded, from a folder of its own (the tests run in parallel).
    fn crawl() -> Crawl {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("linkgap-verify-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("all_inlinks.csv");
        std::fs::write(&path, INLINKS).unwrap();
        let table = Table::open(&path).unwrap();
        let crawl = crawl::load(
            UrlTable::default(),
            &table,
            None,
            &Rules::default(),
            &LinkRules::default(),
            Progress::new(true),
            &mut Report::new(),
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        crawl
    }

    fn columns() -> Vec<String> {
        [
            "Source URL",
            "Destination URL",
            "State",
            "Change Date",
            VERIFICATION,
        ]
        .map(String::from)
        .to_vec()
    }

    /// `check_row` on an accepted row from `/a` to `to` whose State is `state`: the row's
    /// State, Change Date and Verification after, and the count it added to.
    fn check(crawl: &Crawl, to: &str, state: &str) -> (Vec<String>, Vec<&'static str>) {
        let values = vec![
            "https://e.com/a".to_string(),
            format!("https://e.com{to}"),
            state.to_string(),
            "2024-01-01".to_string(),
            String::new(),
        ];
        let review = Review {
            decision: "accept".into(),
            state: state.into(),
            ..Review::default()
        };
        let mut counts = HashMap::new();
        let out = check_row(
            &columns(),
            values,
            &review,
            crawl,
            &Rules::default(),
            "2024-06-01",
            &mut counts,
        );
        (out[2..].to_vec(), counts.into_keys().collect())
    }

    #[test]
    fn a_body_link_is_observed_on_the_crawl_date() {
        let (row, counted) = check(&crawl(), "/b", "published");
        assert_eq!(
            row,
            [
                "observed",
                "2024-06-01",
                "body link found in the crawl of 2024-06-01"
            ]
        );
        assert_eq!(counted, ["observed"]);
    }

    #[test]
    fn a_missing_link_reopens_the_row_as_approved() {
        let (row, counted) = check(&crawl(), "/d", "published");
        assert_eq!(
            row,
            [
                "approved",
                "2024-06-01",
                "not found in the crawl of 2024-06-01; reopened as approved"
            ]
        );
        assert_eq!(counted, ["still missing"]);
    }

    #[test]
    fn an_approved_row_still_missing_keeps_its_change_date() {
        let (row, _) = check(&crawl(), "/d", "approved");
        assert_eq!(row[..2], ["approved", "2024-01-01"]);
    }

    #[test]
    fn a_template_link_is_not_the_body_link() {
        let (row, counted) = check(&crawl(), "/c", "published");
        assert_eq!(row[0], "approved");
        assert_eq!(
            row[2],
            format!("{TEMPLATE_NOTE} 2024-06-01; the body link is still missing")
        );
        assert_eq!(counted, ["template link only"]);
    }

    #[test]
    fn a_link_through_a_redirect_is_said_so() {
        let (row, counted) = check(&crawl(), "/new", "published");
        assert_eq!(row[..2], ["published", "2024-01-01"], "state kept");
        assert!(row[2].starts_with(VIA_REDIRECT_NOTE), "{}", row[2]);
        assert!(row[2].ends_with("point it at the final URL"), "{}", row[2]);
        assert_eq!(counted, ["linked via a redirect"]);
    }

    #[test]
    fn pages_gone_from_the_crawl_are_named() {
        let (row, counted) = check(&crawl(), "/gone", "published");
        assert_eq!(
            row[2],
            "the destination page is not in the crawl of 2024-06-01"
        );
        assert_eq!(counted, ["destination page missing"]);
    }

    #[test]
    fn rows_not_approved_are_left_alone() {
        let crawl = crawl();
        let values = vec![
            "https://e.com/a".to_string(),
            "https://e.com/b".to_string(),
            "candidate".to_string(),
            String::new(),
            String::new(),
        ];
        let mut counts = HashMap::new();
        let out = check_row(
            &columns(),
            values.clone(),
            &Review::default(),
            &crawl,
            &Rules::default(),
            "2024-06-01",
            &mut counts,
        );
        assert_eq!(out, values);
        assert!(counts.is_empty());
    }
}
