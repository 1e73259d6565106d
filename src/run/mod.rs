//! `linkgap run`: the pipeline from exports to workbook. Input → normalize (identity) →
//! eligibility → neighbours → links → queue → workbook, each stage in its own module; this
//! one only wires them together and keeps the books (every row used or reported).
//!
//! The submodules are the run's own stages: [`inputs`] opens the files, [`pages`] decides
//! which row's vector speaks for each page, [`search`] runs the neighbour search with the
//! run's groups, [`analysis`] reads link statuses off the neighbour lists, [`queue`] builds the
//! review queue, and [`sheets`] builds each sheet.

mod analysis;
mod clock;
mod inputs;
mod pages;
mod passages;
mod queue;
mod ranking;
mod search;
mod sheets;

use std::time::Instant;

use anyhow::{Context, Result};

use crate::config::RunConfig;
use crate::crawl::{self, Crawl};
use crate::input::embeddings::{self, Embeddings};
use crate::normalize::identity::UrlTable;
use crate::normalize::normalize;
use crate::progress::Progress;
use crate::report::{Report, Role};
use crate::review;
use crate::workbook::{self, Cell, Sheet, WorkbookWriter};

use crate::crawl::CrawlDate;
use analysis::Analysis;
use clock::Stages;
use inputs::Tables;
use pages::PageSet;
use search::Compared;

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Input rows rejected (exit code 1 when non-zero).
    pub rejected: u64,
    /// One-line summary for stderr.
    pub summary: String,
    /// Wall time per stage, one line.
    pub stages: String,
    /// The crawl date (first ten characters of the latest Crawl Timestamp of Internal: All
    /// or the AI tab, else the All Inlinks file's date). `linkgap watch` names workbooks by it.
    pub crawl_date: CrawlDate,
}

/// Run the pipeline and write the workbook.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    let started = Instant::now();
    let mut clock = Stages::new();
    let progress = Progress::new(config.quiet);
    let mut report = Report::new();
    let tables = Tables::open(&config.inputs)?;
    let (mut emb, emb_ids, emb_stats, crawl) =
        read_inputs(config, &tables, progress, &mut report, &mut clock)?;

    // Pages, their vectors and eligibility.
    let PageSet { pages, inventory } = PageSet::build(
        config,
        &tables.embeddings,
        &emb,
        &emb_ids,
        emb_stats,
        &crawl,
        &mut report,
    );
    let compared = Compared::new(config, &pages, &crawl);
    clock.lap("eligibility");

    let dim = emb.dim;
    let matrix = ordered_matrix(&mut emb, &compared, &pages);
    let mut found = search::neighbours(config, &compared, &matrix, dim, progress);
    clock.lap("neighbour search");

    // The ranking: link-graph evidence over the neighbour lists, a budget, a self-check.
    let unrelated = analysis::unrelated_similarity(&matrix, dim);
    let neighbors = found.by_row(&compared);
    let ranked = ranking::rank(
        config,
        &compared,
        &pages,
        &crawl,
        &neighbors,
        (&matrix, dim),
        unrelated,
    );
    clock.lap("ranking");

    // The review queue.
    let preparing = progress.rows("Preparing the review queue");
    preparing.set_message("Preparing the review queue (candidates, earlier decisions)");
    let (pool, signals, fingerprints) = pooled(config, &compared, &crawl, &ranked, (matrix, dim));
    let (kept, [budget_text, check_text, passages_text]) =
        placed_and_budgeted(config, &crawl, &pages, &ranked, pool, progress, &mut report)?;
    let candidates = queue::candidates(
        &crawl,
        &ranked.ranking.kept,
        &neighbors,
        &fingerprints,
        signals.as_ref(),
        kept,
    );
    drop(fingerprints);
    found.put_back(&compared, neighbors, config.top_k);
    let analysis = Analysis {
        config,
        urls: &crawl.urls,
        order: &compared.order,
        targets: &compared.targets,
        found: &found.inbound,
        links: &crawl.links,
    };
    report.note(format!(
        "Unrelated pages score {unrelated:.2} (the median similarity of random page pairs); pairs at or below it are not candidates"
    ));
    let queue::Carried {
        rows: queue_rows,
        history,
        added_columns,
    } = queue::carry_forward(config, candidates, &crawl, &pages, &mut report)?;
    let counts = analysis.counts();
    let crawl_date = inputs::crawl_date(&emb, crawl.internal.as_ref(), &config.inputs.inlinks);
    let mut summary = sheets::summary::sheet(&sheets::summary::SummaryInput {
        config,
        crawl_date: &crawl_date,
        pages: &pages,
        counts: &counts,
        queue: &queue_rows,
        history: &history,
        budget: &budget_text,
        check: &check_text,
        passages: &passages_text,
        importance: signals.as_ref().map(|s| &s.importance),
        languages: &compared.languages,
    });
    excel_notes(&mut summary, &compared, &queue_rows, &inventory);
    let (tables, checksum_paths) = tables.split();
    preparing.finish_and_clear();
    clock.lap("review queue");
    // Built last, when the checksums are in.
    let run_sheet = |digests: &inputs::Digests| {
        sheets::run_info::sheet(&sheets::run_info::RunRecord {
            config,
            report: &report,
            emb: &emb,
            crawl_date: &crawl_date,
            digests,
            links: &crawl.links,
            counts: &counts,
            clock: &clock,
            tables: &tables,
            search: &search::description(&found.reports),
            ranking: [&budget_text, &check_text, &passages_text],
        })
    };

    let queue_len = queue_rows.len();
    write_sheets(Sheets {
        config,
        progress,
        summary,
        analysis: &analysis,
        queue_rows,
        queue_columns: signals
            .as_ref()
            .map(queue::DestinationSignals::columns)
            .unwrap_or_default(),
        added_columns: &added_columns,
        inventory: &inventory,
        pages: &pages,
        crawl: &crawl,
        compared: &compared,
        history: &history,
        report: &report,
        run_sheet: &run_sheet,
        checksum_paths,
    })?;
    let pages_compared = compared.order.len();
    drop((crawl, pages, inventory, emb, found, compared));
    clock.lap("write workbook");
    let rejected = report.rejected_total();
    let summary = one_line(
        config,
        pages_compared,
        queue_len,
        &counts,
        rejected,
        started,
    );
    Ok(Outcome {
        rejected,
        summary,
        stages: clock.describe(),
        crawl_date: crawl_date.clone(),
    })
}

/// Embeddings, then the crawl (Internal: All, All Inlinks) with every URL resolved to its page:
/// the embeddings, each export row's URL id, the embeddings file's entry in `report`, the crawl.
fn read_inputs(
    config: &RunConfig,
    tables: &Tables,
    progress: Progress,
    report: &mut Report,
    clock: &mut Stages,
) -> Result<(Embeddings, Vec<Option<u32>>, usize, Crawl)> {
    let rules = &config.url_rules;

    // Embeddings.
    report.set_ticker(Some(progress.rows("Reading embeddings")));
    let emb = embeddings::read(
        &tables.embeddings,
        config.embedding_column.as_deref(),
        report,
    )
    .with_context(|| format!("reading {}", tables.embeddings.name()))?;
    if emb.vectors() == 0 {
        anyhow::bail!(
            "{}: no valid vectors in column \"{}\"; see the rejected rows with `linkgap inspect`",
            emb.file,
            emb.column
        );
    }
    clock.lap("read embeddings");
    let emb_stats = report.file(&emb.file, Role::Embeddings);
    let mut urls = UrlTable::default();
    let emb_ids: Vec<Option<u32>> = emb
        .pages
        .iter()
        .map(|p| normalize(&p.url, rules).ok().map(|n| urls.intern(&n)))
        .collect();

    // The crawl: Internal: All facts, redirects, canonicals and existing links.
    let crawl: Crawl = crawl::load(
        urls,
        &tables.inlinks,
        tables.internal.as_ref(),
        rules,
        &config.link_rules,
        progress,
        report,
    )?;
    clock.lap("read crawl (Internal: All, All Inlinks) and resolve identities");

    Ok((emb, emb_ids, emb_stats, crawl))
}

/// The vectors, moved in place into URL order: row i is page `compared.order[i]`. One copy
/// of the vectors lives through the search; subsets are gathered only when a role excludes
/// pages.
fn ordered_matrix(
    emb: &mut embeddings::Embeddings,
    compared: &Compared,
    pages: &std::collections::BTreeMap<u32, pages::Page>,
) -> Vec<f32> {
    let rows: Vec<u32> = compared
        .order
        .iter()
        .map(|f| pages[f].vector.expect("ordered pages have vectors"))
        .collect();
    embeddings::reorder(std::mem::take(&mut emb.data), emb.dim, &rows)
}

/// What the workbook is written from.
struct Sheets<'a> {
    config: &'a RunConfig,
    progress: Progress,
    summary: Sheet,
    analysis: &'a Analysis<'a>,
    queue_rows: Vec<review::QueueRow>,
    queue_columns: Vec<String>,
    added_columns: &'a [String],
    inventory: &'a [pages::InventoryRow],
    pages: &'a std::collections::BTreeMap<u32, pages::Page>,
    crawl: &'a Crawl,
    compared: &'a Compared,
    history: &'a [review::HistoryRow],
    report: &'a Report,
    run_sheet: &'a dyn Fn(&inputs::Digests) -> Sheet,
    checksum_paths: Vec<std::path::PathBuf>,
}

/// The ranking's kept pairs as the Queue's pool, with the destinations' crawl signals and
/// each compared page's fingerprint (by matrix row). Takes the vectors: past their
/// fingerprints they are not needed, and are freed before the passages and the sheets are
/// built.
fn pooled(
    config: &RunConfig,
    compared: &Compared,
    crawl: &Crawl,
    ranked: &ranking::Ranked,
    (matrix, dim): (Vec<f32>, usize),
) -> (
    Vec<review::Pooled>,
    Option<queue::DestinationSignals>,
    Vec<std::sync::Arc<str>>,
) {
    let fingerprints = queue::fingerprints(&compared.order, &matrix, dim, crawl);
    drop(matrix);
    let signals = queue::DestinationSignals::new(&compared.targets, crawl);
    let pool = queue::pool(
        config,
        compared,
        crawl,
        &ranked.ranking.kept,
        signals.as_ref(),
    );
    (pool, signals, fingerprints)
}

/// The pool's passages, the budget over them, and the anchors of the rows it keeps; with
/// the ranking's three sentences (the budget, the self-check, the passages) for both the
/// Summary and the Run sheet.
fn placed_and_budgeted(
    config: &RunConfig,
    crawl: &Crawl,
    pages: &std::collections::BTreeMap<u32, pages::Page>,
    ranked: &ranking::Ranked,
    mut candidates: Vec<review::Pooled>,
    progress: Progress,
    report: &mut Report,
) -> Result<(Vec<review::Pooled>, [String; 3])> {
    // The sample is sized by the pages with a vector: Internal: All also lists images,
    // scripts and PDFs, which have no text.
    let with_vectors = pages.values().filter(|p| p.vector.is_some()).count();
    let (mut passages, anchoring) = passages::suggest(
        config,
        crawl,
        with_vectors,
        &mut candidates,
        progress,
        report,
    )?;
    let mut budgeted =
        queue::apply_budget(candidates, config.ranking.budget, &|id| crawl.urls.url(id));
    if let Some(anchoring) = anchoring {
        anchoring.choose_all(&mut budgeted.kept);
    }
    passages.count(&budgeted.kept);
    let texts = [
        ranking::budget_text(ranked, config.ranking.budget, &budgeted),
        ranking::check_text(ranked),
        passages.describe(),
    ];
    Ok((budgeted.kept, texts))
}

/// Write every sheet, in order.
fn write_sheets(s: Sheets<'_>) -> Result<()> {
    let config = s.config;
    // One sheet at a time: each is built, streamed to the workbook (and its CSV) and dropped,
    // so the largest sheet, not all of them, sets the memory high-water mark.
    let writing = || format!("writing the workbook {}", config.out.display());
    // The checksums start now, one file at a time beside the sheets' filling
    // ([`inputs::checksum`]).
    let (widen_checksums, widen) = std::sync::mpsc::channel();
    let checksums = inputs::checksum(s.checksum_paths, widen);
    let mut writer = WorkbookWriter::new(&config.out, config.csv_dir.as_deref())
        .with_context(|| format!("preparing {}", config.out.display()))?;
    writer.set_progress(s.progress.rows("Writing the workbook"));
    let write = |writer: &mut WorkbookWriter, sheet: Sheet| writer.add(sheet).with_context(writing);
    write(&mut writer, s.summary)?;
    // The two largest sheets, written side by side; the Queue can run to millions of rows,
    // each built as it is written.
    let queue_len = s.queue_rows.len();
    let queue_parts = writer.parts(s.queue_rows);
    // The rest of the workbook is written, and saved, as soon as Opportunities is: a long
    // Queue goes on filling (and compressing) in packages of its own meanwhile, on the other
    // core, so the save no longer waits for it with that core idle.
    let rest = |writer: &mut WorkbookWriter| -> Result<(), workbook::XlsxError> {
        writer.add(sheets::near_duplicates::sheet(s.analysis))?;
        writer.add(sheets::pages::sheet(
            s.inventory,
            s.pages,
            s.crawl,
            &s.compared.group_of,
            &s.compared.languages,
        ))?;
        if config.previous.is_some() || !s.history.is_empty() {
            writer.add(review::history_sheet(s.history, s.added_columns))?;
        }
        writer.add_rows(
            &sheets::rejected::header(),
            s.report.rejections().len(),
            sheets::rejected::rows(s.report),
        )?;
        // The Run sheet waits for the checksums: from here they take two threads.
        let _ = widen_checksums.send(());
        writer.add((s.run_sheet)(&inputs::digests(checksums)))?;
        writer.save_main()
    };
    writer
        .add_rows_beside_then(
            (
                &sheets::opportunities::header(s.analysis),
                s.compared.targets.len(),
                sheets::opportunities::rows(s.analysis, s.crawl.links.body_sources()),
            ),
            (
                &review::queue_header_with(&s.queue_columns, s.added_columns),
                queue_len,
                queue_parts
                    .into_iter()
                    .map(|part| {
                        part.into_iter()
                            .map(|r| review::queue_row(&config.client, r, s.added_columns))
                    })
                    .collect(),
            ),
            rest,
        )
        .with_context(writing)?;
    writer.finish().with_context(writing)?;
    Ok(())
}

/// A Summary note for each sheet that continues past Excel's row limit.
fn excel_notes(
    summary: &mut Sheet,
    compared: &Compared,
    queue_rows: &[review::QueueRow],
    inventory: &[pages::InventoryRow],
) {
    for (name, rows) in [
        ("Opportunities", compared.targets.len()),
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
}

/// The run in one line, for stderr.
fn one_line(
    config: &RunConfig,
    pages_compared: usize,
    queue_len: usize,
    counts: &analysis::Counts,
    rejected: u64,
    started: Instant,
) -> String {
    format!(
        "wrote {}: {} pages compared, {} links suggested in the Queue ({} similar pairs without a link), {} near-duplicate pairs; {} input rows rejected{} ({:.1} s)",
        config.out.display(),
        pages_compared,
        queue_len,
        counts.opportunities,
        counts.near_duplicates,
        rejected,
        if rejected > 0 {
            " (see the Rejected Rows sheet)"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    )
}
