//! The review lifecycle: the Queue a person works through (priority, decision, passage,
//! state), carrying an earlier workbook's decisions onto a new run (`--previous`), keeping
//! everything a person typed in a History sheet when its pair leaves the queue, and checking
//! approved links against a later crawl (`linkgap verify`).

mod previous;
pub mod verify;

use previous::take_cut;
pub use previous::{Origin, Previous, PreviousRow, foreign_review_check, read_previous};

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::input::{InputError, Table};
use crate::normalize::{Rules, normalize};
use crate::passage::Context;
use crate::report::Report;
use crate::workbook::{Cell, Column, ColumnStyle, Sheet};

/// What already links the pair: nothing, or only template links (navigation, footer,
/// repeated blocks) that a reader of the text does not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// No link at all.
    Nothing,
    /// Only template links.
    TemplateOnly,
}

impl Existing {
    /// Workbook text.
    pub fn label(self) -> &'static str {
        match self {
            Existing::Nothing => "none",
            Existing::TemplateOnly => "template only",
        }
    }
}

/// Where in the source page the link would sit, and with what words.
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestedPassage {
    /// The block, shared by the rows that chose the same block of the same page (the pool
    /// is 4 to 16 times the Queue: a row holds a pointer, not the text).
    pub block: Arc<PassageBlock>,
    /// The words to link: a byte range of the block's `text`.
    pub anchor: Option<std::ops::Range<usize>>,
    /// How well the block fits, 0–1 (see docs/method.md).
    pub strength: f64,
}

/// A block of a source page chosen as a passage.
#[derive(Debug, PartialEq)]
pub struct PassageBlock {
    /// The block's text.
    pub text: Box<str>,
    /// Byte ranges of `text` that already link somewhere: the anchor is never among them.
    pub links: Box<[std::ops::Range<usize>]>,
    /// The element the block sits in, when it holds more than the block (a link list under
    /// its heading): what the Suggested Passage column shows.
    pub context: Option<Context>,
}

/// The passage column of one Queue row.
#[derive(Debug, Clone, PartialEq)]
pub enum Placement {
    /// No page text was given, so no passage was looked for.
    NotLooked,
    /// The page text export has no text for the source page.
    NoText,
    /// The source's text has no block that fits, and why (typed: the pool holds millions
    /// of rows, and the words are needed only for the rows the budget keeps).
    NoPlace(crate::passage::NoPlace),
    /// The best block.
    Found(Box<SuggestedPassage>),
}

/// One directed candidate link. A million-page site has millions of these, so the URLs and
/// fingerprints are shared per page (`Arc<str>`), not copied per pair.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The crawl's ids of the source and the destination (see [`crate::crawl::Crawl`]).
    pub pages: (u32, u32),
    /// Page that would carry the link.
    pub source: Arc<str>,
    /// Page it would link to.
    pub destination: Arc<str>,
    /// Cosine similarity.
    pub similarity: f32,
    /// Position of the source in the destination's list of most similar pages (1 = most
    /// similar); 0 when the link graph, not similarity, brought the pair in.
    pub rank: u32,
    /// The ranking's evidence (link graph and similarity) and score.
    pub evidence: crate::rank::Evidence,
    /// The ranking's score (see [`crate::rank`]).
    pub score: f32,
    /// What links the pair today.
    pub existing: Existing,
    /// Body inlinks of the destination.
    pub destination_inlinks: u32,
    /// Importance weight of the destination (1 without a priority list).
    pub importance: f64,
    /// Where the link would sit.
    pub placement: Placement,
    /// Fingerprints of the two pages (vector and title), to tell when they changed.
    pub source_fingerprint: Arc<str>,
    /// See `source_fingerprint`.
    pub destination_fingerprint: Arc<str>,
    /// The destination's crawl signals shown in the Queue (e.g. its Search Console clicks),
    /// one per column added with [`queue_header_with`]; shared per destination.
    pub destination_signals: Option<Arc<[Option<f64>]>>,
}

/// Weight of how underlinked the destination is in [`Candidate::priority`].
const UNDERLINKED_WEIGHT: f64 = 0.2;
/// Weight of the passage's strength (0–1) added to the evidence score, when page text was
/// read: a source whose text already names the destination the way other pages link to it
/// is likely to take the link.
pub const PASSAGE_WEIGHT: f64 = 1.0;

impl Candidate {
    /// Priority 0–100, for the Queue's order and its budget (see [`priority`]).
    pub fn priority(&self) -> f64 {
        priority(
            self.score,
            &self.placement,
            self.destination_inlinks,
            self.importance,
        )
    }
}

/// A pair of the Queue's pool: what the passages and the budget need. The pool runs to
/// millions of pairs with page text, four times the Queue or more; the rest of a row
/// ([`Candidate`]: its URLs, fingerprints, rank, evidence, signals) is made only for the
/// pairs the budget keeps.
#[derive(Debug, Clone)]
pub struct Pooled {
    /// The crawl's ids of the source and the destination.
    pub pages: (u32, u32),
    /// The pair's index among the ranking's proposals.
    pub proposal: usize,
    /// The ranking's score.
    pub score: f32,
    /// Body inlinks of the destination.
    pub destination_inlinks: u32,
    /// Importance weight of the destination.
    pub importance: f64,
    /// Where the link would sit.
    pub placement: Placement,
}

impl Pooled {
    /// Priority 0–100 (see [`priority`]).
    pub fn priority(&self) -> f64 {
        priority(
            self.score,
            &self.placement,
            self.destination_inlinks,
            self.importance,
        )
    }
}

/// Priority 0–100, for the Queue's order and its budget:
/// `100 × (1 − e^−(score + passage)) × (0.8 + 0.2·underlinked) × importance`, where
/// `score` is the ranking's evidence (similarity plus link-graph evidence), `passage` the
/// suggested passage's strength (0–1; 0 without page text or a place),
/// `underlinked = 1 / (1 + ln(1 + body inlinks))` (1 for a page with no body inlinks, 0.29
/// with 10) and `importance` the destination's weight (1 without signals). The evidence
/// dominates by design: it is what predicts that a link belongs.
pub fn priority(
    score: f32,
    placement: &Placement,
    destination_inlinks: u32,
    importance: f64,
) -> f64 {
    let passage = match placement {
        Placement::Found(p) => p.strength.clamp(0.0, 1.0),
        Placement::NotLooked | Placement::NoText | Placement::NoPlace(_) => 0.0,
    };
    let evidence = 1.0 - (-(f64::from(score.max(0.0)) + PASSAGE_WEIGHT * passage)).exp();
    let underlinked = 1.0 / (1.0 + f64::from(destination_inlinks).ln_1p());
    let value = 100.0
        * evidence
        * (1.0 - UNDERLINKED_WEIGHT + UNDERLINKED_WEIGHT * underlinked)
        * importance;
    (value * 10.0).round() / 10.0
}

/// A `--priority-urls` file that gives no weights, named with its path.
#[derive(Debug)]
pub enum ImportanceError {
    /// The file cannot be read as a list (the reader's message names the file).
    Read(InputError),
    /// The Search Console table cannot be read.
    Table(PathBuf, InputError),
    /// No `URL,weight` line.
    NoRows(PathBuf),
    /// A Search Console table with no row holding a page and its Clicks.
    NoClicks(PathBuf),
}

impl fmt::Display for ImportanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportanceError::Read(e) => write!(f, "--priority-urls {e}"),
            ImportanceError::Table(path, e) => write!(f, "--priority-urls {}: {e}", path.display()),
            ImportanceError::NoRows(path) => write!(
                f,
                "--priority-urls {}: no \"URL,weight\" rows found",
                path.display()
            ),
            ImportanceError::NoClicks(path) => write!(
                f,
                "--priority-urls {}: no rows with a page and its Clicks",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ImportanceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportanceError::Read(e) | ImportanceError::Table(_, e) => Some(e),
            ImportanceError::NoRows(_) | ImportanceError::NoClicks(_) => None,
        }
    }
}

/// Importance weights from `--priority-urls`: a CSV (or text) of URL and weight, e.g. clicks.
/// Listed pages get 0.5 + 0.5 × weight / max weight; unlisted pages 0.5.
#[derive(Debug, Clone, Default)]
pub struct Importance {
    weights: HashMap<String, f64>,
    max: f64,
}

impl Importance {
    /// Read URL, weight pairs; a header row and unparseable weights are skipped and counted.
    /// A Search Console Performance export (the Pages tab: `Top pages, Clicks, Impressions,
    /// CTR, Position`, CSV or XLSX as downloaded) is read by its header, weight = Clicks.
    pub fn read(path: &Path, rules: &Rules) -> Result<(Importance, usize), ImportanceError> {
        if let Some(read) = Importance::read_search_console(path, rules) {
            return read;
        }
        let rows = crate::input::list::rows(path).map_err(ImportanceError::Read)?;
        let mut weights = HashMap::new();
        let mut skipped = 0;
        for row in &rows {
            let mut parts = row.iter().map(String::as_str);
            let (Some(url), weight) = (parts.next(), parts.next()) else {
                continue;
            };
            let weight = weight.map_or(Some(1.0), |w| w.replace(',', ".").parse::<f64>().ok());
            match (normalize(url, rules), weight) {
                (Ok(u), Some(w)) if w.is_finite() && w >= 0.0 => {
                    weights.insert(u, w);
                }
                _ => skipped += 1,
            }
        }
        if weights.is_empty() {
            return Err(ImportanceError::NoRows(path.to_path_buf()));
        }
        let max = weights.values().copied().fold(0.0, f64::max);
        Ok((Importance { weights, max }, skipped))
    }

    /// A table with a page column and a Clicks column (the Search Console Pages tab, or the
    /// first sheet); `None` when the file is not such a table.
    fn read_search_console(
        path: &Path,
        rules: &Rules,
    ) -> Option<Result<(Importance, usize), ImportanceError>> {
        use crate::input::columns::Col;
        let table = Table::open_sheet(path, "Pages")
            .or_else(|_| Table::open(path))
            .ok()?;
        let h = table.header();
        let (Some(url_col), Some(clicks_col)) = (h.get(Col::Address), h.get(Col::Clicks)) else {
            return None;
        };
        let mut report = Report::new();
        let stats = report.file(table.name(), crate::report::Role::Review);
        let mut weights = HashMap::new();
        let mut skipped = 0;
        let read = table.rows(&mut report, stats, &mut |_, _, r| {
            let url = crate::input::cell(r, Some(url_col));
            let clicks = crate::input::internal::Signal::Clicks
                .parse(crate::input::cell(r, Some(clicks_col)));
            match (normalize(url, rules), clicks) {
                (Ok(u), Ok(Some(w))) => {
                    weights.insert(u, w);
                }
                _ => skipped += 1,
            }
        });
        if let Err(e) = read {
            return Some(Err(ImportanceError::Table(path.to_path_buf(), e)));
        }
        skipped += report.rejected_total() as usize;
        if weights.is_empty() {
            return Some(Err(ImportanceError::NoClicks(path.to_path_buf())));
        }
        let max = weights.values().copied().fold(0.0, f64::max);
        Some(Ok((Importance { weights, max }, skipped)))
    }

    /// Weight of a page.
    pub fn weight(&self, url: &str) -> f64 {
        if self.weights.is_empty() {
            return 1.0;
        }
        0.5 + 0.5
            * self
                .weights
                .get(url)
                .map_or(0.0, |w| if self.max > 0.0 { w / self.max } else { 1.0 })
    }

    /// Listed URLs.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether no list was given.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
}

/// A reviewer's decision, read from the Decision cell. Case, surrounding and doubled spaces
/// and the past tense ("Rejected") are accepted; anything else is listed in Rejected Rows
/// with the allowed values, and the row is kept undecided with its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Add the link as suggested.
    Accept,
    /// Add it with another passage or anchor.
    Revise,
    /// Do not add it.
    Reject,
}

/// Where a pair is in its life: found, approved by a person, marked live, seen by a crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Found by a run; nobody approved it yet.
    Candidate,
    /// A person accepted or revised it.
    Approved,
    /// A person marked it live.
    Published,
    /// A later crawl found the body link.
    Observed,
}

/// A Decision or State cell that is not one of the allowed values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidValue {
    /// The column: "Decision" or "State".
    pub column: &'static str,
    /// What was typed.
    pub text: String,
}

impl std::fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let allowed = if self.column == "Decision" {
            DECISIONS
        } else {
            STATES
        };
        write!(
            f,
            "\"{}\" is not a {}: use {} (or leave it blank); the row is kept as undecided",
            self.text,
            self.column.to_ascii_lowercase(),
            allowed.join(", ")
        )
    }
}

impl std::error::Error for InvalidValue {}

/// Lower case, spaces trimmed and collapsed: the spellings read as the same value.
fn folded(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Decision {
    /// Read a Decision cell: `Ok(None)` when blank.
    pub fn parse(text: &str) -> Result<Option<Decision>, InvalidValue> {
        match folded(text).as_str() {
            "" => Ok(None),
            "accept" | "accepted" => Ok(Some(Decision::Accept)),
            "revise" | "revised" => Ok(Some(Decision::Revise)),
            "reject" | "rejected" => Ok(Some(Decision::Reject)),
            _ => Err(InvalidValue {
                column: "Decision",
                text: text.to_string(),
            }),
        }
    }

    /// The workbook's (drop-down) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Accept => "accept",
            Decision::Revise => "revise",
            Decision::Reject => "reject",
        }
    }
}

impl State {
    /// Read a State cell: `Ok(None)` when blank (a blank state reads as candidate).
    pub fn parse(text: &str) -> Result<Option<State>, InvalidValue> {
        match folded(text).as_str() {
            "" => Ok(None),
            "candidate" => Ok(Some(State::Candidate)),
            "approved" => Ok(Some(State::Approved)),
            "published" => Ok(Some(State::Published)),
            "observed" => Ok(Some(State::Observed)),
            _ => Err(InvalidValue {
                column: "State",
                text: text.to_string(),
            }),
        }
    }

    /// The workbook's (drop-down) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Candidate => "candidate",
            State::Approved => "approved",
            State::Published => "published",
            State::Observed => "observed",
        }
    }
}

/// The columns a person fills in, carried from run to run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// Where the link would go.
    pub passage: String,
    /// Who reviewed.
    pub reviewer: String,
    /// accept, revise or reject.
    pub decision: String,
    /// When decided.
    pub decision_date: String,
    /// candidate, approved, published or observed.
    pub state: String,
    /// When the state last changed.
    pub change_date: String,
    /// Why.
    pub reason: String,
    /// Values typed into columns a person added to the Queue (name, value), in column order;
    /// only the non-empty ones.
    pub added: Vec<(String, String)>,
}

impl Review {
    /// Whether a person typed anything.
    pub fn is_blank(&self) -> bool {
        [
            &self.passage,
            &self.reviewer,
            &self.decision,
            &self.decision_date,
            &self.reason,
        ]
        .iter()
        .all(|s| s.trim().is_empty())
            && self.added.is_empty()
            && matches!(self.state(), None | Some(State::Candidate))
    }

    /// The decision typed, if it is one ([`Decision::parse`]); the text stays as typed.
    pub fn decision(&self) -> Option<Decision> {
        Decision::parse(&self.decision).ok().flatten()
    }

    /// The state typed, if it is one ([`State::parse`]).
    pub fn state(&self) -> Option<State> {
        State::parse(&self.state).ok().flatten()
    }

    /// The first Decision or State cell that is not an allowed value.
    pub fn invalid(&self) -> Option<InvalidValue> {
        Decision::parse(&self.decision)
            .err()
            .or_else(|| State::parse(&self.state).err())
    }

    /// Approved for publishing: accepted or revised, or a state past candidate.
    pub fn is_approved(&self) -> bool {
        matches!(self.decision(), Some(Decision::Accept | Decision::Revise))
            || matches!(
                self.state(),
                Some(State::Approved | State::Published | State::Observed)
            )
    }
}

/// A Queue row: a candidate and its review.
#[derive(Debug, Clone)]
pub struct QueueRow {
    /// The candidate.
    pub candidate: Candidate,
    /// Its review, carried forward or changed by this run; `None` for a new candidate that
    /// nobody has reviewed (most rows: boxing keeps them small at millions of rows).
    pub review: Option<Box<Review>>,
}

/// The review of a row nobody has touched; its state reads as "candidate".
static BLANK: Review = Review {
    passage: String::new(),
    reviewer: String::new(),
    decision: String::new(),
    decision_date: String::new(),
    state: String::new(),
    change_date: String::new(),
    reason: String::new(),
    added: Vec::new(),
};

impl QueueRow {
    /// The row's review (blank for a new candidate).
    pub fn review(&self) -> &Review {
        self.review.as_deref().unwrap_or(&BLANK)
    }
}

/// An earlier review whose pair is not in the new Queue.
#[derive(Debug, Clone)]
pub struct HistoryRow {
    /// The earlier row.
    pub previous: PreviousRow,
    /// Why it is here.
    pub note: String,
}

/// Carry `previous` reviews onto `candidates`. A rejected pair stays rejected unless either
/// page changed (its fingerprint differs): then it is reopened and the old review goes to
/// History. Reviews whose pair is no longer a candidate go to History with `gone_reason`.
pub fn carry_forward(
    candidates: Vec<Candidate>,
    previous: Vec<PreviousRow>,
    gone_reason: &dyn Fn(&str, &str) -> String,
    today: &str,
) -> (Vec<QueueRow>, Vec<HistoryRow>) {
    let mut by_pair: HashMap<(String, String), PreviousRow> = HashMap::new();
    let mut by_cut: HashMap<(String, String), Vec<PreviousRow>> = HashMap::new();
    let mut history = Vec::new();
    for p in previous {
        if p.origin == Origin::History {
            history.push(HistoryRow {
                note: p.note.clone(),
                previous: p,
            });
            continue;
        }
        let key = (p.source.clone(), p.destination.clone());
        if p.cut {
            by_cut.entry(key).or_default().push(p);
            continue;
        }
        if let Some(older) = by_pair.insert(key, p) {
            history.push(HistoryRow {
                previous: older,
                note: "duplicate row in the earlier Queue".into(),
            });
        }
    }
    let mut rows = Vec::with_capacity(candidates.len());
    for c in candidates {
        // Without an earlier review (the usual run) no key is built for millions of rows.
        let found = (!by_pair.is_empty())
            .then(|| by_pair.remove(&(c.source.to_string(), c.destination.to_string())))
            .flatten()
            .or_else(|| {
                (!by_cut.is_empty())
                    .then(|| take_cut(&mut by_cut, &c))
                    .flatten()
            });
        let Some(p) = found else {
            rows.push(QueueRow {
                review: None,
                candidate: c,
            });
            continue;
        };
        let mut review = p.review.clone();
        let rejected = review.decision() == Some(Decision::Reject);
        let changed: Vec<&str> = [
            (
                "source",
                p.source_fingerprint.as_str(),
                &*c.source_fingerprint,
            ),
            (
                "destination",
                p.destination_fingerprint.as_str(),
                &*c.destination_fingerprint,
            ),
        ]
        .iter()
        .filter(|(_, old, new)| !old.is_empty() && old != new)
        .map(|(which, _, _)| *which)
        .collect();
        if rejected && !changed.is_empty() {
            let note = format!(
                "reopened on {today}: the {} page changed since it was rejected",
                changed.join(" and ")
            );
            history.push(HistoryRow {
                previous: p,
                note: note.clone(),
            });
            review = Review {
                state: "candidate".into(),
                change_date: today.into(),
                reason: note,
                ..Review::default()
            };
        } else if review.is_approved() && matches!(review.state(), None | Some(State::Candidate)) {
            review.state = "approved".into();
            if review.change_date.is_empty() {
                review.change_date = today.into();
            }
        }
        rows.push(QueueRow {
            candidate: c,
            review: Some(Box::new(review)),
        });
    }
    let mut gone: Vec<PreviousRow> = by_pair
        .into_values()
        .chain(by_cut.into_values().flatten())
        .filter(|p| !p.review.is_blank())
        .collect();
    gone.sort_by(|a, b| (&a.source, &a.destination).cmp(&(&b.source, &b.destination)));
    for p in gone {
        let note = gone_reason(&p.source, &p.destination);
        history.push(HistoryRow { previous: p, note });
    }
    // Unstable is deterministic here: (destination, source) is unique, so no two rows tie.
    // Each row's priority is worked out once, not at every comparison.
    let mut keyed: Vec<_> = rows
        .into_iter()
        .map(|r| (r.candidate.priority(), r))
        .collect();
    keyed.sort_unstable_by(|(pa, a), (pb, b)| {
        pb.total_cmp(pa)
            .then_with(|| b.candidate.similarity.total_cmp(&a.candidate.similarity))
            .then_with(|| {
                (&a.candidate.destination, &a.candidate.source)
                    .cmp(&(&b.candidate.destination, &b.candidate.source))
            })
    });
    let rows = keyed.into_iter().map(|(_, r)| r).collect();
    (rows, history)
}

/// Queue columns, in order. A contract: `--previous` and `verify` read them by name.
pub const QUEUE_COLUMNS: &[(&str, f64, ColumnStyle)] = &[
    ("Client", 14.0, ColumnStyle::Plain),
    ("Priority", 9.0, ColumnStyle::Decimal),
    ("Source URL", 50.0, ColumnStyle::Plain),
    ("Destination URL", 50.0, ColumnStyle::Plain),
    ("Similarity", 10.0, ColumnStyle::Percent),
    ("Rank", 6.0, ColumnStyle::Plain),
    ("Evidence", 40.0, ColumnStyle::Wrap),
    ("Link Kind", 14.0, ColumnStyle::Plain),
    ("Existing Link", 13.0, ColumnStyle::Plain),
    ("Destination Body Inlinks", 11.0, ColumnStyle::Plain),
    ("Suggested Passage", 60.0, ColumnStyle::Wrap),
    ("Suggested Anchor", 24.0, ColumnStyle::Wrap),
    ("Passage Score", 9.0, ColumnStyle::Decimal),
    ("Passage Note", 30.0, ColumnStyle::Wrap),
    ("Passage", 45.0, ColumnStyle::Wrap),
    ("Reviewer", 12.0, ColumnStyle::Plain),
    ("Decision", 10.0, ColumnStyle::Plain),
    ("Decision Date", 12.0, ColumnStyle::Plain),
    ("State", 11.0, ColumnStyle::Plain),
    ("Change Date", 12.0, ColumnStyle::Plain),
    ("Reason", 35.0, ColumnStyle::Wrap),
    ("Source Fingerprint", 18.0, ColumnStyle::Plain),
    ("Destination Fingerprint", 18.0, ColumnStyle::Plain),
];

/// The drop-down values of Decision and State.
pub const DECISIONS: &[&str] = &["accept", "revise", "reject"];
/// See [`DECISIONS`].
pub const STATES: &[&str] = &["candidate", "approved", "published", "observed"];

fn column_index(name: &str) -> usize {
    QUEUE_COLUMNS
        .iter()
        .position(|(n, _, _)| *n == name)
        .expect("a Queue column")
}

/// The Queue sheet's columns and drop-downs, without rows (see [`queue_row`]).
pub fn queue_header() -> Sheet {
    queue_header_with(&[], &[])
}

/// Where signal columns go: after `Destination Body Inlinks`.
const SIGNALS_AT: usize = 10;

/// [`queue_header`] with `signals` (e.g. `Destination Clicks`) after `Destination Body
/// Inlinks`; each row then carries its [`Candidate::destination_signals`]. `added` are the
/// columns a person added to the earlier Queue ([`Previous::added_columns`]), last.
pub fn queue_header_with(signals: &[String], added: &[String]) -> Sheet {
    let mut columns: Vec<Column> = QUEUE_COLUMNS
        .iter()
        .map(|&(n, w, style)| Column::styled(n, w, style))
        .collect();
    let shift = |i: usize| {
        if i >= SIGNALS_AT {
            i + signals.len()
        } else {
            i
        }
    };
    columns.splice(
        SIGNALS_AT..SIGNALS_AT,
        signals
            .iter()
            .map(|n| Column::styled(n, 11.0, ColumnStyle::Decimal)),
    );
    columns.extend(added.iter().map(|n| Column::wrapped(n, 20.0)));
    let mut sheet = Sheet::new("Queue", columns);
    sheet.dropdowns.push((
        shift(column_index("Decision")),
        DECISIONS.iter().map(|s| (*s).to_string()).collect(),
    ));
    sheet.dropdowns.push((
        shift(column_index("State")),
        STATES.iter().map(|s| (*s).to_string()).collect(),
    ));
    sheet
}

/// One Queue row, taking the review's strings. A blank State is written as "candidate": the
/// one place that rule lives, for new rows and carried ones alike. `added` are the header's
/// added columns ([`queue_header_with`]).
pub fn queue_row(client: &str, row: QueueRow, added: &[String]) -> Vec<Cell> {
    let c = row.candidate;
    let v = row.review.map_or_else(Review::default, |v| *v);
    let state = if v.state.trim().is_empty() {
        "candidate".to_string()
    } else {
        v.state
    };
    let priority = c.priority();
    let mut row = vec![
        Cell::text(client),
        Cell::Number(priority),
        Cell::Url(c.source.to_string()),
        Cell::Url(c.destination.to_string()),
        Cell::Percent(f64::from(c.similarity)),
        if c.rank > 0 {
            Cell::Int(i64::from(c.rank))
        } else {
            Cell::Empty
        },
        Cell::text(c.evidence.to_string()),
        Cell::text(c.evidence.kind()),
        Cell::text(c.existing.label()),
        Cell::Int(i64::from(c.destination_inlinks)),
    ];
    row.extend(placement_cells(c.placement));
    row.extend([
        Cell::text(v.passage),
        Cell::text(v.reviewer),
        Cell::text(v.decision),
        Cell::text(v.decision_date),
        Cell::text(state),
        Cell::text(v.change_date),
        Cell::text(v.reason),
        Cell::text(&*c.source_fingerprint),
        Cell::text(&*c.destination_fingerprint),
    ]);
    if let Some(signals) = &c.destination_signals {
        row.splice(
            SIGNALS_AT..SIGNALS_AT,
            signals.iter().map(|v| v.map_or(Cell::Empty, Cell::Number)),
        );
    }
    row.extend(added_cells(&v.added, added));
    row
}

/// The cells of the added columns `names`, from a review's added values.
fn added_cells<'a>(
    values: &'a [(String, String)],
    names: &'a [String],
) -> impl Iterator<Item = Cell> + 'a {
    names.iter().map(move |n| {
        values
            .iter()
            .find(|(name, _)| name == n)
            .map_or(Cell::Empty, |(_, v)| Cell::text(v))
    })
}

/// Suggested Passage (the anchor in bold), Suggested Anchor, Passage Score and Passage Note
/// (why there is no passage, or, for a passage, why it has no anchor).
fn placement_cells(placement: Placement) -> [Cell; 4] {
    let note = |why: crate::passage::NoPlace| {
        [
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::text(why.to_string()),
        ]
    };
    match placement {
        Placement::NotLooked => [Cell::Empty, Cell::Empty, Cell::Empty, Cell::Empty],
        Placement::NoText => note(crate::passage::NoPlace::NoText),
        Placement::NoPlace(why) => note(why),
        Placement::Found(p) => {
            let SuggestedPassage {
                block,
                anchor,
                strength,
            } = *p;
            let anchor_text = anchor
                .as_ref()
                .and_then(|a| block.text.get(a.clone()))
                .map_or(Cell::Empty, Cell::text);
            // The element's whole text, the anchor moved to where the block sits in it. The
            // block's own text is moved into the cell, not copied: the Queue's rows are built
            // on the write stage's longest path.
            let (shown, at) = if let Some(c) = &block.context {
                (c.text.to_string(), c.at)
            } else {
                let text = std::sync::Arc::try_unwrap(block)
                    .map_or_else(|shared| shared.text.to_string(), |own| own.text.into());
                (text, 0)
            };
            let (passage, note) = match anchor {
                Some(a) => (Cell::Marked(shown, a.start + at..a.end + at), Cell::Empty),
                None => (
                    Cell::text(shown),
                    Cell::text(crate::passage::NoAnchor.to_string()),
                ),
            };
            [
                passage,
                anchor_text,
                Cell::Number((strength * 100.0).round()),
                note,
            ]
        }
    }
}

/// The History sheet: earlier reviews whose pair left the Queue, with every typed value
/// (the columns a person added, `added`, last).
pub fn history_sheet(rows: &[HistoryRow], added: &[String]) -> Sheet {
    let names = [
        ("Source URL", 50.0),
        ("Destination URL", 50.0),
        ("Note", 45.0),
        ("Similarity", 10.0),
        ("Passage", 45.0),
        ("Reviewer", 12.0),
        ("Decision", 10.0),
        ("Decision Date", 12.0),
        ("State", 11.0),
        ("Change Date", 12.0),
        ("Reason", 35.0),
        ("Source Fingerprint", 18.0),
        ("Destination Fingerprint", 18.0),
    ];
    let columns = names
        .iter()
        .map(|&(n, w)| {
            if matches!(n, "Note" | "Passage" | "Reason") {
                Column::wrapped(n, w)
            } else {
                Column::new(n, w)
            }
        })
        .chain(added.iter().map(|n| Column::wrapped(n, 20.0)))
        .collect();
    let mut sheet = Sheet::new("History", columns);
    for h in rows {
        let p = &h.previous;
        let v = &p.review;
        sheet.rows.push(vec![
            Cell::Url(p.source.clone()),
            Cell::Url(p.destination.clone()),
            Cell::text(&h.note),
            Cell::text(&p.similarity),
            Cell::text(&v.passage),
            Cell::text(&v.reviewer),
            Cell::text(&v.decision),
            Cell::text(&v.decision_date),
            Cell::text(&v.state),
            Cell::text(&v.change_date),
            Cell::text(&v.reason),
            Cell::text(&p.source_fingerprint),
            Cell::text(&p.destination_fingerprint),
        ]);
        let row = sheet.rows.last_mut().expect("just pushed");
        row.extend(added_cells(&v.added, added));
    }
    sheet
}

/// A page's fingerprint: FNV-1a over its vector rounded to 3 decimals and its title. Rounding
/// keeps re-embedding noise from reading as a change; a value that crosses a rounding boundary
/// reads as changed, which only reopens a rejected pair for another look.
pub fn fingerprint(vector: &[f32], title: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for &x in vector {
        eat(&((f64::from(x) * 1000.0).round() as i32).to_le_bytes());
    }
    eat(title.trim().as_bytes());
    format!("{h:016x}")
}

/// Counts for the Summary sheet: decisions carried, reopened, moved to History.
pub fn carry_counts(rows: &[QueueRow], history: &[HistoryRow]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    m.insert(
        "Queue rows with a carried review",
        rows.iter().filter(|r| !r.review().is_blank()).count(),
    );
    m.insert("History rows", history.len());
    m.insert(
        "Reopened after a page changed",
        rows.iter()
            .filter(|r| r.review().reason.starts_with("reopened on"))
            .count(),
    );
    m
}

#[cfg(test)]
impl Candidate {
    /// A plain candidate for tests: pages 0 → 1, similarity and score 0.8, no passage.
    pub(crate) fn example(source: &str, destination: &str) -> Candidate {
        Candidate {
            pages: (0, 1),
            source: source.into(),
            destination: destination.into(),
            similarity: 0.8,
            rank: 1,
            evidence: crate::rank::Evidence(crate::rank::Features {
                similarity: 0.8,
                links_back: false,
                via_pages: 0,
                like_pages: 0,
            }),
            score: 0.8,
            existing: Existing::Nothing,
            destination_inlinks: 0,
            importance: 1.0,
            placement: Placement::NotLooked,
            source_fingerprint: "s".into(),
            destination_fingerprint: "d".into(),
            destination_signals: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--priority-urls` holding `text`, read, with each listed URL's weight.
    fn importance(name: &str, text: &str, urls: &[&str]) -> Vec<f64> {
        let dir = std::env::temp_dir().join(format!("linkgap-prio-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let rules = Rules::default();
        let (read, _) = Importance::read(&path, &rules).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        urls.iter()
            .map(|u| read.weight(&normalize(u, &rules).unwrap()))
            .collect()
    }

    #[test]
    fn priority_weights_with_a_decimal_comma_under_semicolons() {
        // 1.5 of at most 3: 0.5 + 0.5 × 0.5. Split by hand, `1,5` was 1.
        let weights = importance(
            "semicolon.csv",
            "https://e.com/a;1,5\nhttps://e.com/b;3\n",
            &["https://e.com/a", "https://e.com/b", "https://e.com/c"],
        );
        assert_eq!(weights, [0.75, 1.0, 0.5]);
    }

    #[test]
    fn priority_urls_with_quoted_commas() {
        let weights = importance(
            "quoted.csv",
            "URL,Weight\n\"https://e.com/a,b\",2\nhttps://e.com/c,4\n",
            &["https://e.com/a,b", "https://e.com/c"],
        );
        assert_eq!(weights, [0.75, 1.0]);
    }

    fn cand(s: &str, d: &str, fp: &str) -> Candidate {
        Candidate {
            source_fingerprint: fp.into(),
            ..Candidate::example(s, d)
        }
    }

    fn prev(s: &str, d: &str, decision: &str, fp: &str) -> PreviousRow {
        PreviousRow {
            source: s.into(),
            destination: d.into(),
            review: Review {
                decision: decision.into(),
                reviewer: "ann".into(),
                passage: "see also".into(),
                ..Review::default()
            },
            source_fingerprint: fp.into(),
            destination_fingerprint: "d".into(),
            similarity: "0.8".into(),
            origin: Origin::Queue,
            note: String::new(),
            cut: false,
        }
    }

    #[test]
    fn rejections_stay_unless_a_page_changed() {
        let (rows, history) = carry_forward(
            vec![
                cand("a", "b", "s1"),
                cand("c", "b", "s2"),
                cand("e", "b", "s3"),
            ],
            vec![
                prev("a", "b", "reject", "s1"),
                prev("c", "b", "reject", "OLD"),
                prev("e", "b", "accept", "s3"),
                prev("x", "y", "accept", "s"),
            ],
            &|_, _| "no longer a candidate".into(),
            "2026-11-29",
        );
        let by = |s: &str| rows.iter().find(|r| &*r.candidate.source == s).unwrap();
        assert_eq!(by("a").review().decision, "reject");
        assert_eq!(by("c").review().decision, "", "reopened");
        assert!(by("c").review().reason.contains("source page changed"));
        assert_eq!(by("e").review().state, "approved");
        assert_eq!(by("e").review().passage, "see also");
        assert_eq!(
            history.len(),
            2,
            "the reopened rejection and the vanished pair"
        );
        assert!(
            history
                .iter()
                .any(|h| h.previous.source == "x" && h.note == "no longer a candidate")
        );
    }

    #[test]
    fn priority_follows_evidence_then_passage_underlinking_and_importance() {
        let mut c = cand("a", "b", "");
        let base = c.priority();
        // 100 × (1 − e^−0.8), no inlinks, no page text, importance 1.
        assert!((base - 55.1).abs() < 0.05, "{base}");
        c.score = 1.6;
        let stronger = c.priority();
        assert!(stronger > base);
        c.destination_inlinks = 10;
        let linked = c.priority();
        assert!(linked < stronger && linked > stronger * 0.8, "{linked}");
        c.placement = Placement::NoPlace(crate::passage::NoPlace::BelowFloor { best: 0.01 });
        assert!((c.priority() - linked).abs() < 0.05);
        c.placement = Placement::Found(Box::new(SuggestedPassage {
            block: Arc::new(PassageBlock {
                text: "see the index".into(),
                links: Box::new([]),
                context: None,
            }),
            anchor: Some(8..13),
            strength: 1.0,
        }));
        let placed = c.priority();
        assert!(placed > linked, "{placed} {linked}");
        c.importance = 0.5;
        assert!((c.priority() - placed * 0.5).abs() < 0.1);
    }

    #[test]
    fn a_passage_shows_its_element_with_the_anchor_where_the_block_sits() {
        let found_with = |context: Option<Context>, anchor| {
            Placement::Found(Box::new(SuggestedPassage {
                block: Arc::new(PassageBlock {
                    text: "CONNECT, DISCONNECT".into(),
                    links: Box::new([std::ops::Range { start: 0, end: 7 }]),
                    context,
                }),
                anchor,
                strength: 0.9,
            }))
        };
        let found = |context| found_with(context, Some(9..19));
        let [passage, anchor, score, note] = placement_cells(found(Some(Context {
            text: "See Also CONNECT, DISCONNECT".into(),
            at: 9,
        })));
        assert_eq!(
            passage,
            Cell::Marked("See Also CONNECT, DISCONNECT".into(), 18..28)
        );
        assert_eq!(anchor, Cell::text("DISCONNECT"));
        assert_eq!((score, note), (Cell::Number(90.0), Cell::Empty));
        // Without a wider element the block itself is the passage.
        let [passage, ..] = placement_cells(found(None));
        assert_eq!(passage, Cell::Marked("CONNECT, DISCONNECT".into(), 9..19));
        // A passage with no anchor shown plain, and the note says why.
        let [passage, anchor, _, note] = placement_cells(found_with(None, None));
        assert_eq!(
            (passage, anchor),
            (Cell::text("CONNECT, DISCONNECT"), Cell::Empty)
        );
        assert_eq!(note, Cell::text(crate::passage::NoAnchor.to_string()));
    }

    #[test]
    fn another_sites_review_is_refused_a_few_gone_pages_are_not() {
        let ours = |u: &str| u.starts_with("https://ours/");
        let foreign: Vec<(String, String)> = (0..40)
            .map(|i| {
                (
                    format!("https://theirs/{i}"),
                    "https://theirs/x".to_string(),
                )
            })
            .collect();
        let check = |rows: &[(String, String)]| {
            foreign_review_check(rows.iter().map(|(s, d)| (s.as_str(), d.as_str())), &ours)
        };
        assert_eq!(check(&foreign), Err((0, 40)));
        let mut mostly_ours: Vec<(String, String)> = (0..40)
            .map(|i| (format!("https://ours/{i}"), "https://ours/x".to_string()))
            .collect();
        mostly_ours.extend(foreign.iter().take(30).cloned());
        assert!(check(&mostly_ours).is_ok());
        // Too small to judge.
        assert!(check(&foreign[..3]).is_ok());
    }

    #[test]
    fn fingerprints_ignore_noise_but_see_changes() {
        assert_eq!(
            fingerprint(&[0.12341, 0.5], "T"),
            fingerprint(&[0.12339, 0.5], "T")
        );
        assert_ne!(
            fingerprint(&[0.1234, 0.5], "T"),
            fingerprint(&[0.1234, 0.5], "New title")
        );
        assert_ne!(
            fingerprint(&[0.1234, 0.5], "T"),
            fingerprint(&[0.2234, 0.5], "T")
        );
    }
}
