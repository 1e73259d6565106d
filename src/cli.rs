//! Command-line arguments, in the words of the people who run Screaming Frog. Parsed by clap
//! and turned into a validated [`Config`](crate::config) once; nothing downstream re-parses.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::eligibility::{self, GroupScope};
use crate::{links, neighbors, passage, rank};

/// linkgap: find missing internal links from Screaming Frog exports.
///
/// Give it the page embeddings (Custom JavaScript or AI tab export) and Bulk Export > Links >
/// All Inlinks, optionally Internal: All, and it writes an XLSX workbook: for every page, the
/// pages most similar to it and whether they already link to it. Similarity finds candidates;
/// people decide which links to add.
///
/// Exit codes: 0 = workbook written, every row used; 1 = workbook written, some input rows were
/// rejected (see the "Rejected Rows" sheet); 2 = no workbook (a file is missing or unreadable).
#[derive(Debug, Parser)]
#[command(name = "linkgap", version, about, long_about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process
pub enum Command {
    /// Build the opportunity workbook from Screaming Frog exports.
    Run(RunArgs),
    /// Show how linkgap reads export files: role, era, header row, columns, rows, vectors.
    Inspect(InspectArgs),
    /// Watch an inbox of client folders: complete export sets in, workbooks out.
    Watch(WatchArgs),
    /// Check the approved links of a reviewed workbook against a later crawl.
    Verify(VerifyArgs),
}

/// Parse the process's command line, recording which `run` options were given (see
/// [`RunArgs::given`]).
pub fn parse() -> Cli {
    try_parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// Parse `args` like [`parse`]. `Cli::try_parse_from` works too, but then `RunArgs::given` is
/// empty and a `--config` file would override every option.
pub fn try_parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = Cli::command().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let (Command::Run(run), Some(("run", sub))) = (&mut cli.command, matches.subcommand()) {
        run.given = given(sub);
    }
    Ok(cli)
}

/// Ids of the options a person wrote (or set through the environment), as opposed to clap's
/// defaults: only these beat a settings file.
fn given(matches: &ArgMatches) -> Vec<String> {
    matches
        .ids()
        .filter(|id| {
            matches!(
                matches.value_source(id.as_str()),
                Some(ValueSource::CommandLine | ValueSource::EnvVariable)
            )
        })
        .map(|id| id.as_str().to_string())
        .collect()
}

/// Arguments of `linkgap verify`.
#[derive(Debug, Args)]
#[command(
    after_long_help = "Every Queue row accepted or revised (or in state approved/published) is looked up in the later crawl: a body link found makes it \"observed\" with the crawl date; a missing link reopens it as \"approved\" with a note; a template-only link or a link through a redirect is said so. The output also lists pages new in the later crawl and pages gone from it.\n\nExit codes: 0 = written; 1 = written, some rows rejected; 2 = not written."
)]
pub struct VerifyArgs {
    /// The reviewed workbook (or its Queue.csv).
    #[arg(long, value_name = "XLSX")]
    pub queue: PathBuf,

    /// All Inlinks of the later crawl.
    #[arg(long, value_name = "FILE")]
    pub inlinks: PathBuf,

    /// Internal: All of the later crawl (redirects, canonicals, the page list).
    #[arg(long, value_name = "FILE")]
    pub internal: Option<PathBuf>,

    /// Where to write the verified workbook (.xlsx).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,

    /// The later crawl's date, when its exports carry none (default: from Crawl Timestamp,
    /// else the All Inlinks file's date).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub crawl_date: Option<String>,

    /// Link Positions that count as body links.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = links::BODY_POSITION,
        value_name = "NAMES"
    )]
    pub body_positions: Vec<String>,

    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `linkgap run`.
#[derive(Debug, Clone, Args)]
#[command(
    after_long_help = "Exit codes: 0 = workbook written, every row used; 1 = workbook written, some rows rejected (see the Rejected Rows sheet); 2 = no workbook.\n\nExamples:\n  linkgap run --embeddings custom_javascript_all.csv --inlinks all_inlinks.csv --internal internal_all.csv --out report.xlsx\n  linkgap run exports/ --out report.xlsx --client \"Acme\""
)]
pub struct RunArgs {
    /// A folder holding the exports; each file's role is found from its header row, not its name.
    #[arg(value_name = "FOLDER", conflicts_with_all = ["embeddings", "inlinks", "internal", "page_text"])]
    pub folder: Option<PathBuf>,

    /// Embeddings export: Custom JavaScript tab or Bulk Export > Custom > Custom JavaScript, the
    /// AI tab (`ai_all.csv`), Internal: All with an embedding column, or a URL + vector table.
    #[arg(long, value_name = "FILE", required_unless_present = "folder")]
    pub embeddings: Option<PathBuf>,

    /// Bulk Export > Links > All Inlinks (All Outlinks works too). CSV, CSV.gz or XLSX.
    #[arg(long, value_name = "FILE", required_unless_present = "folder")]
    pub inlinks: Option<PathBuf>,

    /// Internal: All (or Internal: HTML): status codes, indexability, canonicals, redirects,
    /// word counts. Optional, but without it redirects and canonicals come only from All Inlinks.
    #[arg(long, value_name = "FILE")]
    pub internal: Option<PathBuf>,

    /// Custom Extraction export with each page's main content (inner HTML or text): the
    /// Queue then suggests the passage and the words for each link. Optional.
    #[arg(long, value_name = "FILE")]
    pub page_text: Option<PathBuf>,

    /// With --page-text: build the site's word and template statistics from a fixed sample
    /// of about this many pages when the site has more (0 = every page).
    #[arg(long, default_value_t = passage::SAMPLE_PAGES, value_name = "PAGES")]
    pub text_stats_pages: usize,

    /// Where to write the workbook (.xlsx).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,

    /// Also write every sheet as <sheet>.csv into this folder.
    #[arg(long, value_name = "DIR")]
    pub csv_dir: Option<PathBuf>,

    /// Client name shown in the workbook.
    #[arg(long, value_name = "NAME")]
    pub client: Option<String>,

    /// How many similar pages to list for each page.
    #[arg(long, short = 'k', default_value_t = neighbors::TOP_K, value_name = "N")]
    pub top_k: usize,

    /// The embeddings column, when its header is not one Screaming Frog writes by default.
    #[arg(long, value_name = "HEADER")]
    pub embedding_column: Option<String>,

    /// Pairs at least this similar (0–1) are near-duplicates: listed for review, never
    /// suggested as links.
    #[arg(long, default_value_t = rank::NEAR_DUPLICATE, value_name = "SCORE")]
    pub near_duplicate: f64,

    /// Pages with fewer words (Word Count from Internal: All) are thin and left out. 0 = off.
    #[arg(long, default_value_t = eligibility::MIN_WORDS, value_name = "WORDS")]
    pub min_words: u32,

    /// Link Positions that count as body links; every other position is a template link.
    /// The Moz script also counts Aside: --body-positions Content,Aside.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = links::BODY_POSITION,
        value_name = "NAMES"
    )]
    pub body_positions: Vec<String>,

    /// A Content link whose Link Path and destination repeat on at least this share of linking
    /// pages is a template block (breadcrumbs, related-post widgets). 0 = off.
    #[arg(long, default_value_t = links::TEMPLATE_SHARE, value_name = "SHARE")]
    pub template_share: f64,

    /// ...and on at least this many pages.
    #[arg(long, default_value_t = links::TEMPLATE_MIN_PAGES, value_name = "PAGES")]
    pub template_min_pages: u32,

    /// Trailing slashes: keep (default; /a and /a/ can be different pages), strip or add.
    #[arg(long, value_enum, default_value_t = Policy::Keep)]
    pub trailing_slash: Policy,

    /// Leading www.: keep (default), strip or add.
    #[arg(long, value_enum, default_value_t = Policy::Keep)]
    pub www: Policy,

    /// Treat /dir/index.html (index.htm, index.php, default.aspx) as /dir/.
    #[arg(long)]
    pub strip_index: bool,

    /// Sort query parameters by name, so ?b=2&a=1 and ?a=1&b=2 are one page (off by default:
    /// a few sites serve different content by parameter order).
    #[arg(long)]
    pub sort_query: bool,

    /// Query parameters to drop as tracking noise (a trailing * matches a prefix). Replaces
    /// the default list: utm_*, gclid, fbclid, msclkid and other ad-click identifiers.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub tracking_params: Option<Vec<String>>,

    /// Only pages whose URL matches this regular expression may carry new links.
    #[arg(long, value_name = "REGEX")]
    pub include_source: Option<String>,

    /// Pages whose URL matches this regular expression never carry new links.
    #[arg(long, value_name = "REGEX")]
    pub exclude_source: Option<String>,

    /// Only pages whose URL matches this regular expression may receive new links.
    #[arg(long, value_name = "REGEX")]
    pub include_destination: Option<String>,

    /// Pages whose URL matches this regular expression never receive new links.
    #[arg(long, value_name = "REGEX")]
    pub exclude_destination: Option<String>,

    /// A text or CSV file of URLs (first column); only these may carry new links.
    #[arg(long, value_name = "FILE")]
    pub source_list: Option<PathBuf>,

    /// A text or CSV file of URLs (first column); only these may receive new links.
    #[arg(long, value_name = "FILE")]
    pub destination_list: Option<PathBuf>,

    /// Settings file (linkgap.toml, see docs/watch.md): options given on the command line win
    /// over the file, the file wins over the defaults.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// An earlier linkgap workbook whose Queue a person reviewed (in Excel, LibreOffice or
    /// Google Sheets): decisions, passages, reviewers and reasons carry over to the same pairs.
    #[arg(long, value_name = "XLSX")]
    pub previous: Option<PathBuf>,

    /// A CSV of URL and weight (a client's priority pages), or a Search Console Performance
    /// export (Pages tab, CSV or XLSX; weight = Clicks): the Queue puts suggestions for heavier
    /// pages first. It wins over Internal: All's Search Console / Analytics columns.
    #[arg(long, value_name = "FILE")]
    pub priority_urls: Option<PathBuf>,

    /// Page-type groups: `folder:N` (the first N folders of the path), `regex:PATTERN` (the
    /// first capture group, or the whole match), or `segments` (Screaming Frog Segments from
    /// Internal: All).
    #[arg(long, value_name = "RULE")]
    pub group_by: Option<String>,

    /// With --group-by: suggest links only within a group (`same`) or across groups (`all`).
    #[arg(long, value_enum, default_value_t = GroupScope::Same, requires = "group_by")]
    pub group_scope: GroupScope,

    /// Compare pages across languages too. By default, on a site with two or more languages
    /// (Internal: All `Language`, or hreflang), pages are compared only within their language.
    #[arg(long)]
    pub cross_language: bool,

    /// Similarity search: `exact` compares every pair; `approx` probes an inverted-file index
    /// (much faster on very large sites, recall measured on a sample every run); `auto` picks
    /// approx above the size where it wins (about 25,000 pages at 1,536 dimensions).
    #[arg(long, value_enum, default_value_t = IndexChoice::Auto)]
    pub index: IndexChoice,

    /// Queries checked against exact search to report the approximate index's recall.
    #[arg(long, default_value_t = neighbors::RECALL_SAMPLE, value_name = "N")]
    pub recall_sample: usize,

    /// Let noindex pages carry new links (by default they are neither sources nor
    /// destinations).
    #[arg(long)]
    pub noindex_sources: bool,

    /// The Queue: `budget` keeps the strongest few new links per destination and per source
    /// page (see --queue-limit-destination and --queue-limit-source); `all` keeps every
    /// candidate, in the same order.
    #[arg(long, value_enum, default_value_t = QueueChoice::Budget)]
    pub queue: QueueChoice,

    /// With --queue budget: new links proposed per destination at most.
    #[arg(long, default_value_t = rank::PER_DESTINATION, value_name = "N")]
    pub queue_limit_destination: usize,

    /// With --queue budget: new links proposed per source page at most.
    #[arg(long, default_value_t = rank::PER_SOURCE, value_name = "N")]
    pub queue_limit_source: usize,

    /// Skip the ranking's self-check (hiding 10% of the site's body links and counting how
    /// many the ranking finds again); it costs a second ranking, noticeable on huge sites.
    #[arg(long)]
    pub no_self_check: bool,

    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,

    /// Ids of the options given on the command line (filled by [`parse`]); the rest are
    /// defaults that a `--config` file may replace.
    #[arg(skip)]
    pub given: Vec<String>,
}

impl RunArgs {
    /// `linkgap run FOLDER --out OUT` with every other option at its default, none of them
    /// given (so a `--config` file replaces any): what `linkgap watch` runs on a client folder.
    pub fn defaults(out: PathBuf, folder: PathBuf) -> RunArgs {
        RunArgs {
            folder: Some(folder),
            embeddings: None,
            inlinks: None,
            internal: None,
            page_text: None,
            text_stats_pages: passage::SAMPLE_PAGES,
            out,
            csv_dir: None,
            client: None,
            top_k: neighbors::TOP_K,
            embedding_column: None,
            near_duplicate: rank::NEAR_DUPLICATE,
            min_words: eligibility::MIN_WORDS,
            body_positions: vec![links::BODY_POSITION.to_string()],
            template_share: links::TEMPLATE_SHARE,
            template_min_pages: links::TEMPLATE_MIN_PAGES,
            trailing_slash: Policy::Keep,
            www: Policy::Keep,
            strip_index: false,
            sort_query: false,
            tracking_params: None,
            include_source: None,
            exclude_source: None,
            include_destination: None,
            exclude_destination: None,
            source_list: None,
            destination_list: None,
            config: None,
            previous: None,
            priority_urls: None,
            group_by: None,
            group_scope: GroupScope::Same,
            cross_language: false,
            index: IndexChoice::Auto,
            recall_sample: neighbors::RECALL_SAMPLE,
            noindex_sources: false,
            queue: QueueChoice::Budget,
            queue_limit_destination: rank::PER_DESTINATION,
            queue_limit_source: rank::PER_SOURCE,
            no_self_check: false,
            quiet: false,
            given: Vec::new(),
        }
    }

    /// Whether the option with clap id `id` (the field name) was given on the command line.
    pub fn was_given(&self, id: &str) -> bool {
        self.given.iter().any(|g| g == id)
    }
}

/// Arguments of `linkgap watch`.
#[derive(Debug, Args)]
#[command(
    after_long_help = "Layout: INBOX/<client>/ holds one client's exports (and optionally linkgap.toml); workbooks go to OUTBOX/<client>/<client>-<crawl date>.xlsx; used exports move to INBOX/<client>/processed/<time>/, failed ones to INBOX/<client>/failed/<time>/ with error.txt.\n\nExamples:\n  linkgap watch /srv/inbox --out /srv/outbox\n  linkgap watch D:\\Exports --out D:\\Workbooks --once\n  linkgap watch --status /srv/inbox\n\nSee docs/watch.md."
)]
pub struct WatchArgs {
    /// The inbox: one folder per client, each holding that client's exports.
    #[arg(value_name = "INBOX")]
    pub inbox: PathBuf,

    /// The outbox: workbooks are written to OUTBOX/<client>/.
    #[arg(long, short, value_name = "OUTBOX", required_unless_present = "status")]
    pub out: Option<PathBuf>,

    /// List the clients with their last run and result, then exit.
    #[arg(long, conflicts_with_all = ["out", "once"])]
    pub status: bool,

    /// Process the sets that are there (waiting for them to settle), then exit: for cron or a
    /// scheduled task.
    #[arg(long)]
    pub once: bool,

    /// Seconds a set's files must keep the same size and modification time before they are
    /// read (copies over a network or a sync client arrive in pieces).
    #[arg(long, default_value = "30", value_parser = seconds, value_name = "SECONDS")]
    pub settle: Duration,

    /// Seconds between looks at the inbox.
    #[arg(long, default_value = "5", value_parser = seconds, value_name = "SECONDS")]
    pub poll_interval: Duration,

    /// How changes are noticed: file-system events (inotify, `ReadDirectoryChangesW`, `FSEvents`)
    /// with polling as a safety net (auto), polling only, or events required.
    #[arg(long, value_enum, default_value_t = WatchMode::Auto)]
    pub mode: WatchMode,

    /// Test hook: sleep this many seconds after claiming a set, so tests can stop or kill the
    /// watcher "during processing".
    #[arg(long, hide = true, value_parser = seconds, value_name = "SECONDS")]
    pub pause_after_claim: Option<Duration>,

    /// Test hook: abort the process (as a kill -9 would) at this point of a set's life, so
    /// tests can check that every crash point is recovered: claim-partial, run-done,
    /// output-chosen, renamed, status-written, error-written.
    #[arg(long, hide = true, value_enum, value_name = "POINT")]
    pub crash_at: Option<crate::watch::crash::CrashPoint>,
}

/// How `linkgap watch` notices new files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WatchMode {
    /// File-system events where the system gives them, with polling kept as a safety net
    /// (network shares and synced folders often send no events); polling alone otherwise.
    Auto,
    /// Look at the folders every --poll-interval only.
    Poll,
    /// File-system events (fails if the system cannot watch the inbox), plus polling.
    Events,
}

/// A duration in seconds, fractions allowed (tests use tenths).
fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, not {text:?}"))?;
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("expected a number of seconds of zero or more, not {text:?}"))
}

/// How similar pages are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IndexChoice {
    /// Every pair (blocked matrix products).
    Exact,
    /// An inverted-file index (k-means lists, exact search inside the probed lists).
    Approx,
    /// Exact or approx, by the measured crossover.
    Auto,
}

/// How much of the ranked candidates the Queue keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueueChoice {
    /// The strongest few per destination and per source page.
    Budget,
    /// Every candidate.
    All,
}

/// A keep/strip/add policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Policy {
    /// Keep as written.
    Keep,
    /// Remove.
    Strip,
    /// Add.
    Add,
}

/// Arguments of `linkgap inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Export files to describe; a folder stands for its export files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The embeddings column, when its header is not one Screaming Frog writes by default.
    #[arg(long, value_name = "HEADER")]
    pub embedding_column: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn folder_and_files_are_exclusive() {
        assert!(
            Cli::try_parse_from([
                "linkgap",
                "run",
                "dir",
                "--embeddings",
                "e.csv",
                "--out",
                "o.xlsx"
            ])
            .is_err()
        );
        assert!(Cli::try_parse_from(["linkgap", "run", "dir", "--out", "o.xlsx"]).is_ok());
        assert!(
            Cli::try_parse_from(["linkgap", "run", "--embeddings", "e.csv", "--out", "o.xlsx"])
                .is_err(),
            "inlinks required"
        );
        let cli = Cli::try_parse_from([
            "linkgap",
            "run",
            "--embeddings",
            "e",
            "--inlinks",
            "i",
            "-o",
            "o.xlsx",
            "--body-positions",
            "Content,Aside",
        ])
        .unwrap();
        let Command::Run(args) = cli.command else {
            panic!("run")
        };
        assert_eq!(args.body_positions, vec!["Content", "Aside"]);
        assert_eq!(args.top_k, 5);
    }

    #[test]
    fn run_defaults_are_clap_defaults() {
        let parsed = Cli::try_parse_from(["linkgap", "run", "--out", "o.xlsx", "--", "in"])
            .unwrap()
            .command;
        let Command::Run(parsed) = parsed else {
            panic!("run")
        };
        let built = RunArgs::defaults("o.xlsx".into(), "in".into());
        assert_eq!(format!("{built:?}"), format!("{parsed:?}"));
    }

    #[test]
    fn given_options_are_told_from_defaults() {
        let cli = try_parse_from([
            "linkgap",
            "run",
            "dir",
            "-o",
            "o.xlsx",
            "-k",
            "5",
            "--strip-index",
        ])
        .unwrap();
        let Command::Run(args) = cli.command else {
            panic!("run")
        };
        assert!(
            args.was_given("top_k"),
            "given even when equal to the default"
        );
        assert!(args.was_given("strip_index"));
        assert!(!args.was_given("near_duplicate"));
        assert!(!args.was_given("min_words"));
    }

    #[test]
    fn watch_needs_an_outbox_unless_asking_for_status() {
        assert!(Cli::try_parse_from(["linkgap", "watch", "in"]).is_err());
        assert!(Cli::try_parse_from(["linkgap", "watch", "--status", "in"]).is_ok());
        let cli =
            Cli::try_parse_from(["linkgap", "watch", "in", "--out", "out", "--settle", "0.25"])
                .unwrap();
        let Command::Watch(args) = cli.command else {
            panic!("watch")
        };
        assert_eq!(args.settle, Duration::from_millis(250));
        assert!(
            Cli::try_parse_from(["linkgap", "watch", "in", "-o", "o", "--settle", "-1"]).is_err()
        );
    }
}
