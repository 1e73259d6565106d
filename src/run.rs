//! `linkgap run`: the pipeline from exports to workbook. Input → normalize (identity) →
//! eligibility → neighbours → links → workbook, each stage in its own module; this one only
//! wires them together and keeps the books (every row used or reported).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::cli::GroupScope;
use crate::config::RunConfig;
use crate::crawl::{self, Crawl};
use crate::eligibility::{self, Decision, PageFacts};
use crate::input::Table;
use crate::input::embeddings::{self, Embeddings};
use crate::input::internal::Internal;
use crate::links::{LinkSet, LinkStatus};
use crate::neighbors::{self, Matrix, Neighbor};
use crate::normalize::identity::{UrlTable, Via};
use crate::normalize::normalize;
use crate::progress::Progress;
use crate::report::{Report, Role};
use crate::review::{self, Candidate, FoundVia};
use crate::workbook::{self, Cell, Column, Sheet, WorkbookWriter};

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Input rows rejected (exit code 1 when non-zero).
    pub rejected: u64,
    /// One-line summary for stderr.
    pub summary: String,
    /// Wall time per stage, one line.
    pub stages: String,
    /// The crawl date the exports carry (first ten characters of the latest Crawl Timestamp
    /// of Internal: All or the AI tab), if any. `linkgap watch` names workbooks by it.
    pub crawl_date: Option<String>,
}

/// A page of the analysis: a resolved URL that the embeddings export or Internal: All names.
#[derive(Debug, Clone)]
struct Page {
    /// Row of the embeddings matrix.
    vector: Option<u32>,
    /// How close the row that supplied the vector is to the page: 3 its own spelling, 2 a
    /// spelling variant of its URL, 1 a redirect or canonicalised duplicate; 0 none yet.
    vector_from: u8,
    facts: PageFacts,
    decision: Decision,
}

/// One row of the Pages sheet: a URL as written in an export.
#[derive(Debug)]
struct InventoryRow {
    written: String,
    id: Option<u32>,
    note: Option<String>,
}

/// Run the pipeline and write the workbook.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    let started = Instant::now();
    let mut clock = Stages::new();
    let progress = Progress::new(config.quiet);
    let mut report = Report::new();
    let inputs = &config.inputs;

    let emb_table = Table::open(&inputs.embeddings).with_context(|| {
        format!(
            "reading the embeddings export {}",
            inputs.embeddings.display()
        )
    })?;
    let inl_table = Table::open(&inputs.inlinks).with_context(|| {
        format!(
            "reading the All Inlinks export {}",
            inputs.inlinks.display()
        )
    })?;
    let internal_path = inputs.internal.clone().or_else(|| {
        emb_table
            .header()
            .is_internal()
            .then(|| inputs.embeddings.clone())
    });
    let int_table = internal_path
        .as_ref()
        .map(|p| {
            Table::open(p)
                .with_context(|| format!("reading the Internal: All export {}", p.display()))
        })
        .transpose()?;

    // Checksums run on their own thread while the main one parses.
    let mut paths: Vec<PathBuf> = vec![inputs.embeddings.clone(), inputs.inlinks.clone()];
    paths.extend(inputs.internal.clone());
    let hashing = std::thread::spawn(move || {
        paths
            .iter()
            .map(|p| (p.clone(), file_digest(p)))
            .collect::<Vec<_>>()
    });

    let rules = &config.url_rules;
    let mut urls = UrlTable::default();
    let mut inventory: Vec<InventoryRow> = Vec::new();

    // Embeddings.
    report.set_ticker(Some(progress.rows("Reading embeddings")));
    let mut emb = embeddings::read(&emb_table, config.embedding_column.as_deref(), &mut report)
        .with_context(|| format!("reading {}", emb_table.name()))?;
    if emb.vectors() == 0 {
        anyhow::bail!(
            "{}: no valid vectors in column \"{}\"; see the rejected rows with `linkgap inspect`",
            emb.file,
            emb.column
        );
    }
    clock.lap("read embeddings");
    let emb_stats = report.file(&emb.file, Role::Embeddings);
    let emb_ids: Vec<Option<u32>> = emb
        .pages
        .iter()
        .map(|p| normalize(&p.url, rules).ok().map(|n| urls.intern(&n)))
        .collect();

    // The crawl: Internal: All facts, redirects, canonicals and existing links.
    let Crawl {
        urls,
        resolved,
        links,
        internal,
        crawled,
    } = crawl::load(
        urls,
        &inl_table,
        int_table.as_ref(),
        rules,
        &config.link_rules,
        progress,
        &mut report,
    )?;
    clock.lap("read crawl (Internal: All, All Inlinks) and resolve identities");

    // Pages and their vectors: the canonical page's own vector wins over a variant's.
    let mut pages: BTreeMap<u32, Page> = BTreeMap::new();
    let mut row_notes: Vec<Option<String>> = vec![None; emb.pages.len()];
    // One row speaks for each URL: the one spelled exactly as the normalized URL (so the
    // upper-case-host variant of a page never stands in for it), else the first.
    let mut first_row_of: HashMap<u32, usize> = HashMap::new();
    for (i, (p, id)) in emb.pages.iter().zip(&emb_ids).enumerate() {
        if let Some(u) = *id {
            let exact = p.url.trim() == urls.url(u);
            match first_row_of.get(&u) {
                Some(&j) if exact && emb.pages[j].url.trim() != urls.url(u) => {
                    first_row_of.insert(u, i);
                }
                None => {
                    first_row_of.insert(u, i);
                }
                _ => {}
            }
        }
    }
    for (i, (p, id)) in emb.pages.iter().zip(&emb_ids).enumerate() {
        let Some(u) = *id else {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL cannot be normalized");
            }
            continue;
        };
        let (f, via) = resolved[u as usize];
        let primary = first_row_of[&u];
        if primary != i {
            row_notes[i] = Some(format!(
                "same page as row {} ({}): a spelling variant",
                emb.pages[primary].row,
                urls.url(u)
            ));
        }
        if matches!(via, Via::Loop | Via::TooLong) {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL's redirects or canonicals loop");
            }
            continue;
        }
        let page = pages.entry(f).or_insert_with(|| Page {
            vector: None,
            vector_from: 0,
            facts: PageFacts::default(),
            decision: ok_decision(),
        });
        if let Some(v) = p.vector {
            // The canonical page's own row wins over a variant's, which wins over a redirect's
            // or a canonicalised duplicate's; among equals, the first.
            let closeness = match (u == f, primary == i) {
                (true, true) => 3,
                (true, false) => 2,
                (false, _) => 1,
            };
            if closeness > page.vector_from {
                page.vector = Some(v);
                page.vector_from = closeness;
            }
        }
    }
    // Count vector rows once the winners are known.
    for (p, id) in emb.pages.iter().zip(&emb_ids) {
        let (Some(v), Some(u)) = (p.vector, *id) else {
            continue;
        };
        let f = resolved[u as usize].0;
        if pages.get(&f).is_some_and(|pg| pg.vector == Some(v)) {
            report.stats(emb_stats).used += 1;
        } else if pages.contains_key(&f) {
            report.skip(emb_stats, "another row's vector stands for the same page");
        }
    }

    // Internal: All URLs that the embeddings export lacks are pages too, without a vector, so
    // the inventory gives them their real reason (a 404 is a 404, not a missing vector).
    for &id in crawled.keys() {
        let (f, via) = resolved[id as usize];
        if via == Via::Itself {
            pages.entry(f).or_insert_with(|| Page {
                vector: None,
                vector_from: 0,
                facts: PageFacts::default(),
                decision: ok_decision(),
            });
        }
    }

    // Facts: Internal: All for the resolved page, else the embeddings export's own columns.
    for (&f, page) in &mut pages {
        if let (Some(internal), Some(&i)) = (&internal, crawled.get(&f)) {
            let u = &internal.urls[i];
            page.facts = PageFacts {
                status_code: u.status_code,
                content_type: Some(u.content_type.clone()).filter(|s| !s.is_empty()),
                indexability: Some(u.indexability.clone()).filter(|s| !s.is_empty()),
                indexability_status: u.indexability_status.clone(),
                meta_robots: u.meta_robots.clone(),
                word_count: u.word_count,
                no_vector: None,
            };
        } else if let Some(&i) = first_row_of.get(&f) {
            let p = &emb.pages[i];
            page.facts = PageFacts {
                status_code: p.status_code,
                content_type: p.content_type.clone(),
                indexability: p.indexability.clone(),
                ..PageFacts::default()
            };
        }
        if page.vector.is_none() {
            let why = first_row_of
                .get(&f)
                .and_then(|&i| emb.pages[i].problem.clone())
                .unwrap_or_else(|| "no vector (no row in the embeddings export)".into());
            page.facts.no_vector = Some(why);
        }
        page.decision = eligibility::decide(urls.url(f), &page.facts, &config.eligibility);
    }

    // Inventory rows: every URL of the embeddings export, then Internal: All URLs not in it.
    for ((p, id), note) in emb.pages.iter().zip(&emb_ids).zip(row_notes) {
        inventory.push(InventoryRow {
            written: p.url.clone(),
            id: *id,
            note,
        });
    }
    if let Some(internal) = &internal {
        for u in &internal.urls {
            let id = normalize(&u.url, rules).ok().and_then(|n| urls.get(&n));
            if id.is_some_and(|id| first_row_of.contains_key(&id)) {
                continue;
            }
            inventory.push(InventoryRow {
                written: u.url.clone(),
                id,
                note: None,
            });
        }
    }

    // Neighbours: destinations against sources, ids in URL order for a deterministic tie-break.
    let mut order: Vec<u32> = pages
        .iter()
        .filter(|(_, p)| p.vector.is_some())
        .map(|(&f, _)| f)
        .collect();
    order.sort_by(|a, b| urls.url(*a).cmp(urls.url(*b)));
    let rank: HashMap<u32, u32> = order
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i as u32))
        .collect();
    let targets: Vec<u32> = order
        .iter()
        .copied()
        .filter(|f| pages[f].decision.destination.is_ok())
        .collect();
    let sources: Vec<u32> = order
        .iter()
        .copied()
        .filter(|f| pages[f].decision.source.is_ok())
        .collect();
    clock.lap("eligibility");
    // Page-type groups: with scope "same", each group is searched on its own.
    let group_of: HashMap<u32, String> = match &config.groups {
        Some((rule, _)) => pages
            .keys()
            .map(|&f| {
                let segment = internal
                    .as_ref()
                    .and_then(|i| crawled.get(&f).map(|&r| i.urls[r].segment.as_str()))
                    .unwrap_or("");
                (f, rule.group(urls.url(f), segment))
            })
            .collect(),
        None => HashMap::new(),
    };
    let same_group = matches!(&config.groups, Some((_, GroupScope::Same)));
    // The vectors, moved in place into URL order: row i is page order[i]. One copy of the
    // vectors lives through the search; subsets are gathered only when a role excludes pages.
    let dim = emb.dim;
    let matrix = embeddings::reorder(
        std::mem::take(&mut emb.data),
        dim,
        &order
            .iter()
            .map(|f| pages[f].vector.expect("ordered pages have vectors"))
            .collect::<Vec<_>>(),
    );
    let method = match config.index {
        crate::cli::IndexChoice::Exact => neighbors::Method::Exact,
        crate::cli::IndexChoice::Approx => neighbors::Method::Ivf,
        crate::cli::IndexChoice::Auto => neighbors::Method::Auto,
    };
    let reports: std::cell::RefCell<Vec<neighbors::SearchReport>> =
        std::cell::RefCell::new(Vec::new());
    let search = |queries: &[u32], candidates: &[u32], what: &str| -> HashMap<u32, Vec<Neighbor>> {
        let partitions: Vec<(Vec<u32>, Vec<u32>)> = if same_group {
            let mut by_group: BTreeMap<&str, (Vec<u32>, Vec<u32>)> = BTreeMap::new();
            for &q in queries {
                by_group.entry(group_of[&q].as_str()).or_default().0.push(q);
            }
            for &c in candidates {
                by_group.entry(group_of[&c].as_str()).or_default().1.push(c);
            }
            by_group.into_values().collect()
        } else {
            vec![(queries.to_vec(), candidates.to_vec())]
        };
        let bar = progress.items(what, queries.len() as u64);
        let mut out = HashMap::with_capacity(queries.len());
        let mut done = 0u64;
        for (group_queries, group_candidates) in &partitions {
            if group_queries.is_empty() {
                continue;
            }
            let query_ranks: Vec<u32> = group_queries.iter().map(|f| rank[f]).collect();
            let cand_ranks: Vec<u32> = group_candidates.iter().map(|f| rank[f]).collect();
            // All pages in URL order are the matrix itself; a subset is gathered.
            let gather = |ranks: &[u32]| -> Option<Vec<f32>> {
                if ranks.len() * dim == matrix.len() {
                    return None;
                }
                let mut data = Vec::with_capacity(ranks.len() * dim);
                for &r in ranks {
                    data.extend_from_slice(&matrix[r as usize * dim..(r as usize + 1) * dim]);
                }
                Some(data)
            };
            let query_data = gather(&query_ranks);
            // Equal sets share one buffer, which lets the kernel form each pair once.
            let cand_data = if group_queries == group_candidates {
                None
            } else {
                gather(&cand_ranks)
            };
            let query_slice = query_data.as_deref().unwrap_or(&matrix);
            let cand_slice = if group_queries == group_candidates {
                query_slice
            } else {
                cand_data.as_deref().unwrap_or(&matrix)
            };
            let base = done;
            let (found, searched) = neighbors::search(
                Matrix {
                    data: query_slice,
                    rows: group_queries.len(),
                    dim,
                },
                &query_ranks,
                Matrix {
                    data: cand_slice,
                    rows: group_candidates.len(),
                    dim,
                },
                &cand_ranks,
                config.top_k,
                method,
                config.recall_sample,
                &|rows| bar.set_position(base + rows as u64),
            );
            reports.borrow_mut().push(searched);
            done += group_queries.len() as u64;
            out.extend(group_queries.iter().copied().zip(found));
        }
        bar.finish_and_clear();
        out
    };
    // Inbound: for each destination, the most similar sources (the Moz view). Outbound: for
    // each source, the most similar destinations; the same lists when both sets are equal.
    let mut inbound = search(&targets, &sources, "Ranking similar pages");
    let found: Vec<Vec<Neighbor>> = targets
        .iter()
        .map(|t| inbound.remove(t).unwrap_or_default())
        .collect();
    let outbound: Vec<(u32, Vec<Neighbor>)> = if targets == sources {
        targets.iter().copied().zip(found.iter().cloned()).collect()
    } else {
        let mut out = search(&sources, &targets, "Ranking similar pages (outbound)");
        sources
            .iter()
            .map(|s| (*s, out.remove(s).unwrap_or_default()))
            .collect()
    };
    clock.lap("neighbour search");
    let preparing = progress.rows("Preparing the review queue");
    preparing.set_message("Preparing the review queue (candidates, earlier decisions)");

    let analysis = Analysis {
        config,
        urls: &urls,
        order: &order,
        targets: &targets,
        found: &found,
        outbound: &outbound,
        links: &links,
    };
    let body = links.body_sources();
    let fingerprints: HashMap<u32, Arc<str>> = order
        .iter()
        .map(|&f| {
            let title = internal
                .as_ref()
                .and_then(|i| crawled.get(&f).map(|&r| i.urls[r].title.as_str()))
                .unwrap_or("");
            let r = rank[&f] as usize;
            (
                f,
                review::fingerprint(&matrix[r * dim..(r + 1) * dim], title).into(),
            )
        })
        .collect();
    // The vectors are not needed past this point; free them before the sheets are built.
    drop(matrix);
    let candidates = analysis.candidates(&body, &fingerprints);
    let previous = match &config.previous {
        Some(path) => review::read_previous(path, rules, &mut report)
            .with_context(|| format!("reading the earlier review {}", path.display()))?,
        None => Vec::new(),
    };
    let today = crate::dates::today();
    let gone = |source: &str, destination: &str| -> String {
        let page = |u: &str| {
            urls.get(u)
                .map(|id| resolved[id as usize].0)
                .filter(|f| pages.contains_key(f))
        };
        match (page(source), page(destination)) {
            (Some(s), Some(d)) => match links.status(s, d) {
                LinkStatus::Body | LinkStatus::BodyNofollow => {
                    format!("a body link exists in this crawl ({today})")
                }
                LinkStatus::ViaRedirect => {
                    format!("a body link exists via a redirect in this crawl ({today})")
                }
                _ if pages[&s].decision.source.is_err() => format!(
                    "the source is no longer eligible: {}",
                    pages[&s].decision.source.clone().err().unwrap_or_default()
                ),
                _ if pages[&d].decision.destination.is_err() => format!(
                    "the destination is no longer eligible: {}",
                    pages[&d]
                        .decision
                        .destination
                        .clone()
                        .err()
                        .unwrap_or_default()
                ),
                _ => "no longer among the most similar pages".to_string(),
            },
            (None, _) => "the source page is not in this crawl".into(),
            (_, None) => "the destination page is not in this crawl".into(),
        }
    };
    let (queue_rows, history) = review::carry_forward(candidates, previous, &gone, &today);
    let counts = analysis.counts();
    let crawl_date_text = crawl_date(config, &emb, internal.as_ref());
    let mut summary = summary_sheet(
        config,
        &crawl_date_text,
        &pages,
        &counts,
        &queue_rows,
        &history,
    );
    for (name, rows) in [
        ("Opportunities", targets.len()),
        ("Queue", queue_rows.len()),
        ("Pages", inventory.len()),
    ] {
        if rows > workbook::MAX_DATA_ROWS {
            let note = format!(
                "{name} has {rows} rows; Excel holds {} per sheet, so it continues in \"{name} (2)\" and on. --csv-dir writes it as one CSV.",
                workbook::MAX_DATA_ROWS
            );
            summary
                .rows
                .push(vec![Cell::text("Note"), Cell::text(note)]);
        }
    }
    let digests = hashing.join().unwrap_or_default();
    preparing.finish_and_clear();
    clock.lap("review queue");
    let run_sheet = run_sheet(
        config,
        &report,
        &emb,
        internal.as_ref(),
        &digests,
        &links,
        &counts,
        &clock,
        &[Some(&emb_table), Some(&inl_table), int_table.as_ref()],
        &search_description(&reports.borrow()),
    );
    // One sheet at a time: each is built, streamed to the workbook (and its CSV) and dropped,
    // so the largest sheet, not all of them, sets the memory high-water mark.
    let write = |writer: &mut WorkbookWriter, sheet: Sheet| {
        writer
            .add(sheet)
            .with_context(|| format!("writing the workbook {}", config.out.display()))
    };
    let mut writer = WorkbookWriter::new(&config.out, config.csv_dir.as_deref())
        .with_context(|| format!("preparing {}", config.out.display()))?;
    writer.set_progress(progress.rows("Writing the workbook"));
    write(&mut writer, summary)?;
    writer
        .add_rows(
            &analysis.opportunities_header(),
            targets.len(),
            analysis.opportunity_rows(&body),
        )
        .with_context(|| format!("writing the workbook {}", config.out.display()))?;
    // The Queue can run to millions of rows: each is built as it is written.
    let queue_len = queue_rows.len();
    writer
        .add_rows(
            &review::queue_header(),
            queue_len,
            queue_rows
                .into_iter()
                .map(|r| review::queue_row(&config.client, r)),
        )
        .with_context(|| format!("writing the workbook {}", config.out.display()))?;
    write(&mut writer, analysis.near_duplicates())?;
    write(
        &mut writer,
        pages_sheet(&inventory, &resolved, &pages, &urls, &links, &group_of),
    )?;
    if config.previous.is_some() || !history.is_empty() {
        write(&mut writer, review::history_sheet(&history))?;
    }
    write(&mut writer, rejected_sheet(&report))?;
    write(&mut writer, run_sheet)?;
    let pages_compared = order.len();
    // The date the exports carry, for `linkgap watch` to name the workbook (None: no timestamp).
    let crawl_date = internal
        .as_ref()
        .and_then(|i| i.crawl_timestamp.clone())
        .or_else(|| emb.crawl_timestamp.clone())
        .map(|t| t.chars().take(10).collect());
    drop((
        links, resolved, urls, pages, inventory, emb, internal, crawled, found, outbound, order,
    ));
    writer
        .finish()
        .with_context(|| format!("writing the workbook {}", config.out.display()))?;
    clock.lap("write workbook");
    let rejected = report.rejected_total();
    let summary = format!(
        "wrote {}: {} pages compared, {} link opportunities, {} near-duplicate pairs; {} input rows rejected{} ({:.1} s)",
        config.out.display(),
        pages_compared,
        counts.opportunities,
        counts.near_duplicates,
        rejected,
        if rejected > 0 {
            " (see the Rejected Rows sheet)"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    let stages = clock.describe();
    Ok(Outcome {
        rejected,
        summary,
        stages,
        crawl_date,
    })
}

fn ok_decision() -> Decision {
    Decision {
        source: Ok(()),
        destination: Ok(()),
    }
}

/// How the neighbours were found, with the approximate index's measured recall.
fn search_description(reports: &[neighbors::SearchReport]) -> String {
    let sampled: usize = reports
        .iter()
        .filter(|r| r.approximate)
        .map(|r| r.sample)
        .sum();
    let notes: Vec<&str> = reports.iter().filter_map(|r| r.note.as_deref()).collect();
    let mut text = if reports.iter().any(|r| r.approximate) {
        let weighted: f64 = reports
            .iter()
            .filter(|r| r.approximate)
            .map(|r| r.recall.unwrap_or(1.0) * r.sample as f64)
            .sum();
        format!(
            "cosine of the page vectors; approximate: an inverted-file index (k-means lists, exact scores inside the probed lists); recall@k {:.4} against exact search on {sampled} sampled pages",
            if sampled > 0 {
                weighted / sampled as f64
            } else {
                1.0
            }
        )
    } else {
        "cosine of the page vectors; exact: every pair compared".to_string()
    };
    for note in notes {
        text.push_str("; ");
        text.push_str(note);
    }
    text
}

/// Wall time per stage, for the Run sheet (the workbook's own writing is reported on stderr).
struct Stages {
    last: Instant,
    laps: Vec<(&'static str, f64)>,
    /// Peak resident memory (MiB) after each stage, where the OS tells (Linux).
    peaks: Vec<Option<u64>>,
}

impl Stages {
    fn new() -> Stages {
        Stages {
            last: Instant::now(),
            laps: Vec::new(),
            peaks: Vec::new(),
        }
    }

    fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.laps.push((stage, (now - self.last).as_secs_f64()));
        self.peaks.push(peak_rss_mib());
        self.last = now;
    }

    fn describe(&self) -> String {
        self.laps
            .iter()
            .zip(&self.peaks)
            .map(|((stage, t), peak)| match peak {
                Some(mib) => format!("{stage} {t:.2} s (peak {mib} MiB)"),
                None => format!("{stage} {t:.2} s"),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The process's peak resident set so far, from /proc (Linux); `None` elsewhere.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kib| kib / 1024)
}

struct Counts {
    opportunities: usize,
    near_duplicates: usize,
    by_status: BTreeMap<LinkStatus, usize>,
}

struct Analysis<'a> {
    config: &'a RunConfig,
    urls: &'a UrlTable,
    order: &'a [u32],
    targets: &'a [u32],
    found: &'a [Vec<Neighbor>],
    outbound: &'a [(u32, Vec<Neighbor>)],
    links: &'a LinkSet,
}

impl Analysis<'_> {
    fn url(&self, rank: u32) -> &str {
        self.urls.url(self.order[rank as usize])
    }

    fn page_id(&self, rank: u32) -> u32 {
        self.order[rank as usize]
    }

    fn status(&self, source: u32, destination: u32, score: f32) -> LinkStatus {
        if score >= self.config.near_duplicate {
            LinkStatus::NearDuplicate
        } else {
            self.links.status(source, destination)
        }
    }

    /// The Opportunities sheet's columns; its rows come from [`Analysis::opportunity_rows`].
    fn opportunities_header(&self) -> Sheet {
        let k = self.config.top_k;
        let mut columns = vec![
            Column::new("Target URL", 45.0),
            Column::new("Links to Target URL", 45.0),
        ];
        for i in 1..=k {
            columns.push(Column::new(format!("Related URL {i}"), 45.0));
            columns.push(Column::new(format!("Similarity {i}"), 10.0));
            columns.push(Column::new(format!("Link Status {i}"), 19.0));
        }
        columns.push(Column::new("Body Inlinks", 12.0));
        Sheet::new("Opportunities", columns)
    }

    /// One row per target, built as it is written: a million-page site's sheet never sits in
    /// memory whole.
    fn opportunity_rows<'b>(
        &'b self,
        body: &'b HashMap<u32, Vec<u32>>,
    ) -> impl Iterator<Item = Vec<Cell>> + 'b {
        let k = self.config.top_k;
        self.targets
            .iter()
            .zip(self.found)
            .map(move |(t, neighbours)| {
                let mut linking: Vec<&str> = body
                    .get(t)
                    .map(|v| v.iter().map(|&s| self.urls.url(s)).collect())
                    .unwrap_or_default();
                linking.sort_unstable();
                let mut row = vec![
                    Cell::Url(self.urls.url(*t).to_string()),
                    Cell::text(list_urls(&linking)),
                ];
                for n in neighbours {
                    let source = self.page_id(n.id);
                    row.push(Cell::Url(self.url(n.id).to_string()));
                    row.push(Cell::Percent(f64::from(n.score)));
                    row.push(Cell::Status(self.status(source, *t, n.score)));
                }
                row.resize(2 + 3 * k, Cell::Empty);
                row.push(Cell::Int(linking.len() as i64));
                row
            })
    }

    /// Directed candidates: Not found or Template link only pairs, found inbound (the source
    /// is among the destination's neighbours) or outbound (the reverse), merged.
    fn candidates(
        &self,
        body: &HashMap<u32, Vec<u32>>,
        fingerprints: &HashMap<u32, Arc<str>>,
    ) -> Vec<Candidate> {
        let mut pairs: HashMap<(u32, u32), (f32, u32, FoundVia)> = HashMap::new();
        let mut add = |s: u32, d: u32, score: f32, rank: u32, via: FoundVia| {
            let e = pairs.entry((s, d)).or_insert((score, rank, via));
            if e.2 != via {
                e.2 = FoundVia::Both;
            }
            e.1 = e.1.min(rank);
        };
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for (i, n) in neighbours.iter().enumerate() {
                add(
                    self.page_id(n.id),
                    *t,
                    n.score,
                    i as u32 + 1,
                    FoundVia::Inbound,
                );
            }
        }
        for (s, neighbours) in self.outbound {
            for (i, n) in neighbours.iter().enumerate() {
                add(
                    *s,
                    self.page_id(n.id),
                    n.score,
                    i as u32 + 1,
                    FoundVia::Outbound,
                );
            }
        }
        // One shared copy of each page's URL, however many pairs it is in.
        let mut shared: HashMap<u32, Arc<str>> = HashMap::new();
        let mut url = |id: u32| {
            shared
                .entry(id)
                .or_insert_with(|| self.urls.url(id).into())
                .clone()
        };
        let no_fingerprint: Arc<str> = Arc::from("");
        let fingerprint = |id: u32| fingerprints.get(&id).unwrap_or(&no_fingerprint).clone();
        pairs
            .into_iter()
            .filter_map(|((s, d), (score, rank, via))| {
                let status = self.status(s, d, score);
                status.is_opportunity().then(|| {
                    let destination = url(d);
                    Candidate {
                        source: url(s),
                        importance: self.config.importance.weight(&destination),
                        destination,
                        similarity: score,
                        rank,
                        found_via: via,
                        existing: if status == LinkStatus::TemplateOnly {
                            "template only"
                        } else {
                            "none"
                        },
                        destination_inlinks: body.get(&d).map_or(0, Vec::len) as u32,
                        source_fingerprint: fingerprint(s),
                        destination_fingerprint: fingerprint(d),
                    }
                })
            })
            .collect()
    }

    fn near_duplicates(&self) -> Sheet {
        let mut sheet = Sheet::new(
            "Near Duplicates",
            vec![
                Column::new("URL A", 60.0),
                Column::new("URL B", 60.0),
                Column::new("Similarity", 11.0),
            ],
        );
        let mut pairs: BTreeMap<(&str, &str), f32> = BTreeMap::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours
                .iter()
                .filter(|n| n.score >= self.config.near_duplicate)
            {
                let (a, b) = (self.urls.url(*t), self.url(n.id));
                pairs.insert(if a < b { (a, b) } else { (b, a) }, n.score);
            }
        }
        for ((a, b), score) in pairs {
            sheet.rows.push(vec![
                Cell::Url(a.into()),
                Cell::Url(b.into()),
                Cell::Percent(f64::from(score)),
            ]);
        }
        sheet
    }

    fn counts(&self) -> Counts {
        let mut by_status = BTreeMap::new();
        let mut near = std::collections::HashSet::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours {
                let status = self.status(self.page_id(n.id), *t, n.score);
                *by_status.entry(status).or_insert(0) += 1;
                if status == LinkStatus::NearDuplicate {
                    let s = self.page_id(n.id);
                    near.insert(if s < *t { (s, *t) } else { (*t, s) });
                }
            }
        }
        let opportunities = by_status
            .iter()
            .filter(|(s, _)| s.is_opportunity())
            .map(|(_, n)| n)
            .sum();
        Counts {
            opportunities,
            near_duplicates: near.len(),
            by_status,
        }
    }
}

/// Linking pages as one cell: comma-separated like the Moz sheet, capped well under Excel's
/// cell limit.
fn list_urls(urls: &[&str]) -> String {
    use std::fmt::Write;
    const MAX_LISTED: usize = 50;
    if urls.is_empty() {
        return "none".into();
    }
    let mut out = urls
        .iter()
        .take(MAX_LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if urls.len() > MAX_LISTED {
        let _ = write!(out, ", … (+{} more)", urls.len() - MAX_LISTED);
    }
    out
}

fn yes_no(ok: bool) -> Cell {
    Cell::text(if ok { "yes" } else { "no" })
}

fn pages_sheet(
    inventory: &[InventoryRow],
    resolved: &[(u32, Via)],
    pages: &BTreeMap<u32, Page>,
    urls: &UrlTable,
    links: &LinkSet,
    group_of: &HashMap<u32, String>,
) -> Sheet {
    let columns = vec![
        Column::new("URL", 60.0),
        Column::new("Resolved URL", 60.0),
        Column::new("Status Code", 8.0),
        Column::new("Indexability", 14.0),
        Column::new("Has Vector", 8.0),
        Column::new("Eligible", 8.0),
        Column::wrapped("Reason", 40.0),
        Column::new("Source Eligible", 9.0),
        Column::wrapped("Source Reason", 30.0),
        Column::new("Destination Eligible", 11.0),
        Column::wrapped("Destination Reason", 30.0),
        Column::new("Body Inlinks", 9.0),
        Column::new("Group", 16.0),
    ];
    let body = links.body_sources();
    let mut sheet = Sheet::new("Pages", columns);
    for row in inventory {
        let Some(id) = row.id else {
            let mut cells = vec![
                Cell::text(&row.written),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                yes_no(false),
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
            ];
            cells.extend([
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
                Cell::Empty,
                Cell::Empty,
            ]);
            sheet.rows.push(cells);
            continue;
        };
        let (f, via) = resolved[id as usize];
        let page = pages.get(&f);
        let identity_reason = match via {
            Via::Itself => row.note.clone(),
            Via::Redirect => Some(format!("redirects to {}", urls.url(f))),
            Via::Canonical => Some(format!("canonicalised to {}", urls.url(f))),
            Via::Loop => Some("redirect or canonical loop".into()),
            Via::TooLong => Some(format!(
                "redirect chain longer than {} hops",
                crate::normalize::identity::MAX_HOPS
            )),
        };
        let (source, destination) = match (&identity_reason, page) {
            (Some(why), _) => (Err(why.clone()), Err(why.clone())),
            (None, Some(p)) => (p.decision.source.clone(), p.decision.destination.clone()),
            (None, None) => (
                Err("not in the embeddings export".to_string()),
                Err("not in the embeddings export".to_string()),
            ),
        };
        let eligible = source.is_ok() || destination.is_ok();
        let reason = match (&source, &destination) {
            (Err(a), Err(b)) if a == b => a.clone(),
            (Err(a), Err(b)) => format!("source: {a}; destination: {b}"),
            (Err(a), Ok(())) => format!("destination only; source: {a}"),
            (Ok(()), Err(b)) => format!("source only; destination: {b}"),
            (Ok(()), Ok(())) => String::new(),
        };
        let facts = page.map(|p| &p.facts);
        sheet.rows.push(vec![
            Cell::Url(row.written.clone()),
            Cell::Url(urls.url(f).to_string()),
            facts
                .and_then(|f| f.status_code)
                .map_or(Cell::Empty, |c| Cell::Int(i64::from(c))),
            Cell::text(
                facts
                    .and_then(|f| f.indexability.clone())
                    .unwrap_or_default(),
            ),
            yes_no(page.is_some_and(|p| p.vector.is_some()) && via == Via::Itself),
            yes_no(eligible),
            Cell::text(reason),
            yes_no(source.is_ok()),
            Cell::text(source.err().unwrap_or_default()),
            yes_no(destination.is_ok()),
            Cell::text(destination.err().unwrap_or_default()),
            Cell::Int(body.get(&f).map_or(0, Vec::len) as i64),
            Cell::text(group_of.get(&f).cloned().unwrap_or_default()),
        ]);
    }
    sheet
}

fn rejected_sheet(report: &Report) -> Sheet {
    let columns = vec![
        Column::new("File", 30.0),
        Column::new("Sheet", 14.0),
        Column::new("Row", 8.0),
        Column::new("Column", 30.0),
        Column::wrapped("Problem", 60.0),
        Column::wrapped("Value", 60.0),
    ];
    let mut sheet = Sheet::new("Rejected Rows", columns);
    let mut rejections: Vec<_> = report.rejections().iter().collect();
    rejections.sort_by(|a, b| (&a.file, a.row).cmp(&(&b.file, b.row)));
    for r in rejections {
        sheet.rows.push(vec![
            Cell::text(&r.file),
            Cell::text(r.sheet.clone().unwrap_or_default()),
            Cell::Int(r.row as i64),
            Cell::text(&r.column),
            Cell::text(&r.problem),
            Cell::text(&r.value),
        ]);
    }
    if report.rejections_dropped() > 0 {
        sheet.rows.push(vec![
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::text(format!(
                "… and {} more rejected rows not listed",
                report.rejections_dropped()
            )),
            Cell::Empty,
        ]);
    }
    sheet
}

#[allow(clippy::too_many_arguments)]
fn run_sheet(
    config: &RunConfig,
    report: &Report,
    emb: &Embeddings,
    internal: Option<&Internal>,
    digests: &[(PathBuf, io::Result<(u64, String)>)],
    links: &LinkSet,
    counts: &Counts,
    clock: &Stages,
    tables: &[Option<&Table>],
    search: &str,
) -> Sheet {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut kv = |k: &str, v: String| rows.push((k.to_string(), v));
    kv("Client", config.client.clone());
    kv("Run date", now_utc());
    kv("Crawl date", crawl_date(config, emb, internal));
    kv(
        "Tool version",
        format!("linkgap {}", env!("CARGO_PKG_VERSION")),
    );
    let roles = [
        ("embeddings", Some(&config.inputs.embeddings)),
        ("All Inlinks", Some(&config.inputs.inlinks)),
        ("Internal: All", config.inputs.internal.as_ref()),
    ];
    for (role, path) in roles {
        let Some(path) = path else {
            kv(&format!("Input: {role}"), "not given".into());
            continue;
        };
        let digest = digests.iter().find(|(p, _)| p == path).map(|(_, d)| d);
        let detail = match digest {
            Some(Ok((size, sha))) => format!("{size} bytes, SHA-256 {sha}"),
            Some(Err(e)) => format!("checksum failed: {e}"),
            None => String::new(),
        };
        let table = tables
            .iter()
            .flatten()
            .find(|t| t.source().path() == path.as_path());
        let format = table
            .map(|t| {
                format!(
                    "; {}, header on row {}",
                    t.source().container().describe(),
                    t.header().row
                )
            })
            .unwrap_or_default();
        kv(
            &format!("Input: {role}"),
            format!("{} ({detail}{format})", path.display()),
        );
    }
    kv(
        "Embedding column",
        format!(
            "{} ({})",
            emb.column,
            emb.choice.map_or("", |c| c.describe())
        ),
    );
    kv(
        "Embedding model",
        emb.model
            .clone()
            .unwrap_or_else(|| "not recorded in the export".into()),
    );
    kv("Embedding dimension", emb.dim.to_string());
    kv("Top k", config.top_k.to_string());
    kv("Similarity search", search.to_string());
    kv(
        "Near-duplicate threshold",
        format!("{:.2}", config.near_duplicate),
    );
    kv(
        "Body link positions",
        config.link_rules.body_positions.join(", "),
    );
    kv(
        "Template blocks",
        if config.link_rules.template_share > 0.0 {
            format!(
                "a Content link whose Link Path and destination repeat on at least {} linking pages ({}% of them, minimum {}) is a template link; {} links in {} blocks reclassified",
                links.template_floor,
                config.link_rules.template_share * 100.0,
                config.link_rules.template_min_pages,
                links.reclassified,
                links.reclassified_blocks
            )
        } else {
            "off".into()
        },
    );
    for (k, v) in config
        .url_rules
        .describe()
        .into_iter()
        .chain(config.eligibility.describe())
    {
        kv(&k, v);
    }
    for s in report.files() {
        let skipped = if s.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                s.skipped
                    .iter()
                    .map(|(r, n)| format!("{n} {r}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        let roles: Vec<String> = s.roles.iter().map(ToString::to_string).collect();
        kv(
            &format!("Rows: {} ({})", s.file, roles.join(", ")),
            format!(
                "read {}, used {}, skipped {}{skipped}, rejected {}",
                s.read,
                s.used,
                s.skipped_total(),
                s.rejected
            ),
        );
    }
    for (status, n) in &counts.by_status {
        kv(
            &format!("Neighbour pairs: {}", status.label()),
            n.to_string(),
        );
    }
    kv(
        "Link opportunities (Queue rows)",
        counts.opportunities.to_string(),
    );
    for ((stage, seconds), peak) in clock.laps.iter().zip(&clock.peaks) {
        let peak = peak
            .map(|mib| format!(", peak memory so far {mib} MiB"))
            .unwrap_or_default();
        kv(&format!("Time: {stage}"), format!("{seconds:.2} s{peak}"));
    }
    for note in report.notes() {
        kv("Note", note.clone());
    }
    kv("Caveat", "Similarity finds candidate pages; it is not a promise of rankings. People decide which links to add and where.".into());
    let mut sheet = Sheet::new(
        "Run",
        vec![Column::new("Key", 42.0), Column::wrapped("Value", 110.0)],
    );
    sheet.key_value = true;
    sheet.rows = rows
        .into_iter()
        .map(|(k, v)| vec![Cell::text(k), Cell::text(v)])
        .collect();
    sheet
}

/// The crawl's date: the latest Crawl Timestamp of the exports, else the All Inlinks file's
/// modification date (said so).
fn crawl_date(config: &RunConfig, emb: &Embeddings, internal: Option<&Internal>) -> String {
    let crawl = internal
        .and_then(|i| i.crawl_timestamp.clone())
        .or_else(|| emb.crawl_timestamp.clone());
    crawl.map_or_else(
        || {
            format!(
                "{} (file date of the All Inlinks export)",
                file_date(&config.inputs.inlinks)
            )
        },
        |t| t.chars().take(10).collect(),
    )
}

/// The kind of an exclusion reason, for counting: "thin: 12 words (minimum 50)" → "thin".
fn reason_kind(reason: &str) -> String {
    for prefix in [
        "redirects to",
        "canonicalised to",
        "status ",
        "not an HTML page",
        "not indexable",
        "same page as row",
    ] {
        if reason.starts_with(prefix) {
            return reason
                .split(" (")
                .next()
                .unwrap_or(reason)
                .split(" http")
                .next()
                .unwrap_or(reason)
                .trim()
                .to_string();
        }
    }
    reason
        .split([':', '('])
        .next()
        .unwrap_or(reason)
        .trim()
        .to_string()
}

/// The first sheet: what a client reads in a minute.
fn summary_sheet(
    config: &RunConfig,
    crawl_date: &str,
    pages: &BTreeMap<u32, Page>,
    counts: &Counts,
    queue: &[review::QueueRow],
    history: &[review::HistoryRow],
) -> Sheet {
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut kv = |k: &str, v: Cell| rows.push(vec![Cell::text(k), v]);
    let title = if config.client.is_empty() {
        "Internal link opportunities".to_string()
    } else {
        format!("Internal link opportunities: {}", config.client)
    };
    kv(&title, Cell::Empty);
    kv("Crawl date", Cell::text(crawl_date));
    kv("Run date", Cell::text(now_utc()));
    let analysed = pages
        .values()
        .filter(|p| p.decision.source.is_ok() || p.decision.destination.is_ok())
        .count();
    kv(
        "Pages analysed (can carry or receive a link)",
        Cell::Int(analysed as i64),
    );
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    for p in pages.values() {
        if let (Err(reason), Err(_)) = (&p.decision.source, &p.decision.destination) {
            *excluded.entry(reason_kind(reason)).or_default() += 1;
        }
    }
    kv(
        "Pages excluded",
        Cell::Int(excluded.values().sum::<usize>() as i64),
    );
    let mut by_count: Vec<(String, usize)> = excluded.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (reason, n) in by_count {
        kv(&format!("    excluded: {reason}"), Cell::Int(n as i64));
    }
    kv(
        "Link opportunities in the Queue",
        Cell::Int(queue.len() as i64),
    );
    for (status, n) in &counts.by_status {
        rows_status(&mut kv, *status, *n);
    }
    let mut per_destination: BTreeMap<&str, usize> = BTreeMap::new();
    for r in queue {
        *per_destination
            .entry(&*r.candidate.destination)
            .or_default() += 1;
    }
    let mut top: Vec<(&str, usize)> = per_destination.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    kv("Top destinations by opportunity count", Cell::Empty);
    for (url, n) in top.into_iter().take(10) {
        rows.push(vec![Cell::Url(url.to_string()), Cell::Int(n as i64)]);
    }
    if config.previous.is_some() {
        for (k, n) in review::carry_counts(queue, history) {
            rows.push(vec![Cell::text(k), Cell::Int(n as i64)]);
        }
    }
    rows.push(vec![
        Cell::text("Colours in the Opportunities sheet"),
        Cell::Empty,
    ]);
    for (status, meaning) in [
        (
            LinkStatus::Body,
            "the related page already links to the target in its body",
        ),
        (
            LinkStatus::BodyNofollow,
            "a body link exists but is nofollow",
        ),
        (
            LinkStatus::ViaRedirect,
            "a body link exists but goes through a redirect: point it at the final URL",
        ),
        (
            LinkStatus::TemplateOnly,
            "only navigation, header, footer, sidebar or repeated-block links exist",
        ),
        (
            LinkStatus::NotFound,
            "no link: a candidate for a new body link",
        ),
        (
            LinkStatus::NearDuplicate,
            "the two pages are near-duplicates: review them, do not link them",
        ),
    ] {
        rows.push(vec![Cell::Status(status), Cell::text(meaning)]);
    }
    rows.push(vec![
        Cell::text("How to read this"),
        Cell::text("Similarity finds pages about the same thing; it is not a promise of rankings. Each suggestion needs a person to find the passage where a link helps the reader, and to accept, revise or reject it in the Queue."),
    ]);
    let mut sheet = Sheet::new(
        "Summary",
        vec![
            Column::wrapped("Item", 55.0),
            Column::wrapped("Value", 90.0),
        ],
    );
    sheet.key_value = true;
    sheet.rows = rows;
    sheet
}

fn rows_status(kv: &mut impl FnMut(&str, Cell), status: LinkStatus, n: usize) {
    kv(
        &format!("    neighbour pairs: {}", status.label()),
        Cell::Int(n as i64),
    );
}

fn file_digest(path: &Path) -> io::Result<(u64, String)> {
    use std::fmt::Write;
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    let mut hex = String::with_capacity(64);
    for b in hasher.finalize() {
        let _ = write!(hex, "{b:02x}");
    }
    Ok((size, hex))
}

fn file_date(path: &Path) -> String {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or_else(|_| "unknown".into(), crate::dates::format_date)
}

fn now_utc() -> String {
    crate::dates::format_time(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linking_list_is_capped() {
        let many: Vec<String> = (0..60).map(|i| format!("https://a/{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(list_urls(&refs).ends_with("(+10 more)"));
        assert_eq!(list_urls(&[]), "none");
    }
}
