//! The validated run configuration, built once from the command line: paths checked, roles of
//! a folder's files detected, regular expressions compiled, numbers range-checked.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::cli::{IndexChoice, Policy, RunArgs};
use crate::eligibility::{EligibilityRules, GroupBy, GroupByError, GroupScope};
use crate::input::{InputError, Table, is_export_name, is_hidden_name};
use crate::links::LinkRules;
use crate::neighbors::Method;
use crate::normalize::{Rules, SlashPolicy, WwwPolicy, normalize};
use crate::report::Role;
use crate::review::ImportanceError;
use crate::settings::SettingsError;

/// A setting that cannot work, named with its option.
#[derive(Debug)]
pub enum ConfigError {
    /// The settings file named by `--config` cannot be used.
    Settings(SettingsError),
    /// `--priority-urls` cannot be read.
    Importance(ImportanceError),
    /// `--group-by` is not `folder:N`, `regex:PATTERN` or `segments`.
    GroupBy(GroupByError),
    /// A numeric option outside its range (the bounds as the message gives them).
    OutOfRange {
        /// The option, e.g. `--top-k`.
        option: &'static str,
        /// The lowest value allowed.
        low: &'static str,
        /// The highest value allowed.
        high: &'static str,
        /// The value given, as written back.
        value: String,
    },
    /// A queue cap of zero.
    ZeroQueueLimit,
    /// `--body-positions` names no position.
    NoBodyPositions,
    /// `--out` does not end in `.xlsx`.
    OutNotXlsx(PathBuf),
    /// A required input option is missing (`--embeddings`, `--inlinks`).
    Required(&'static str),
    /// An option's regular expression does not compile.
    Regex {
        /// The option.
        option: &'static str,
        /// The pattern as given.
        pattern: String,
        /// The regex crate's reason, on one line.
        reason: String,
    },
    /// An input file is a folder (`option` is empty for the exports themselves).
    IsFolder {
        /// The option that named it, or "".
        option: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// An input file does not exist.
    NoSuchFile {
        /// The option that named it, or "".
        option: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// `--csv-dir` is a file.
    CsvDirIsFile(PathBuf),
    /// `--out` is a folder.
    OutIsFolder(PathBuf),
    /// `--out` is one of the inputs.
    OutIsInput {
        /// The workbook path.
        out: PathBuf,
        /// The input's role.
        role: &'static str,
        /// The input path.
        input: PathBuf,
    },
    /// `--csv-dir` is the folder an input is in.
    CsvDirHoldsInput {
        /// The folder.
        dir: PathBuf,
        /// The input's role.
        role: &'static str,
        /// The input path.
        input: PathBuf,
    },
    /// A URL list cannot be read.
    UrlList {
        /// `--source-list` or `--destination-list`.
        option: &'static str,
        /// The file.
        path: PathBuf,
        /// Why (the reader's message names the file).
        error: InputError,
    },
    /// A URL list holds no URL.
    EmptyUrlList {
        /// `--source-list` or `--destination-list`.
        option: &'static str,
        /// The file.
        path: PathBuf,
    },
    /// The folder of exports cannot be listed.
    Folder {
        /// The folder.
        folder: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// More than one export of a role in the folder.
    Ambiguous {
        /// The folder.
        folder: PathBuf,
        /// The role, e.g. "embeddings".
        role: &'static str,
        /// The candidates.
        found: Vec<PathBuf>,
    },
    /// No export of a required role in the folder.
    Missing {
        /// The folder.
        folder: PathBuf,
        /// The role.
        role: &'static str,
        /// Export-named files that could not be read, with why.
        unread: Vec<String>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Settings(e) => e.fmt(f),
            ConfigError::Importance(e) => e.fmt(f),
            ConfigError::GroupBy(e) => e.fmt(f),
            ConfigError::OutOfRange {
                option,
                low,
                high,
                value,
            } => write!(f, "{option} must be between {low} and {high}, not {value}"),
            ConfigError::ZeroQueueLimit => f.write_str(ZERO_QUEUE_LIMIT),
            ConfigError::NoBodyPositions => {
                f.write_str("--body-positions needs at least one Link Position name, e.g. Content")
            }
            ConfigError::OutNotXlsx(out) => write!(
                f,
                "--out {}: the workbook name must end in .xlsx",
                out.display()
            ),
            ConfigError::Required(option) => write!(f, "{option} is required"),
            ConfigError::Regex {
                option,
                pattern,
                reason,
            } => write!(
                f,
                "{option} \"{pattern}\": not a valid regular expression: {reason}"
            ),
            ConfigError::IsFolder { option, path } => {
                write!(
                    f,
                    "{}{}: is a folder, not a file",
                    prefix(option),
                    path.display()
                )
            }
            ConfigError::NoSuchFile { option, path } => {
                write!(f, "{}{}: no such file", prefix(option), path.display())
            }
            ConfigError::CsvDirIsFile(dir) => {
                write!(f, "--csv-dir {}: is a file, not a folder", dir.display())
            }
            ConfigError::OutIsFolder(out) => write!(
                f,
                "--out {}: is a folder; name the workbook, e.g. {}",
                out.display(),
                out.join("linkgap.xlsx").display()
            ),
            ConfigError::OutIsInput { out, role, input } => write!(
                f,
                "--out {} is the {role} input {}: the workbook would replace it; write it elsewhere",
                out.display(),
                input.display()
            ),
            ConfigError::CsvDirHoldsInput { dir, role, input } => write!(
                f,
                "--csv-dir {} holds the {role} input {}: the sheets' CSV files could replace it; choose another folder",
                dir.display(),
                input.display()
            ),
            ConfigError::UrlList { option, error, .. } => write!(f, "{option} {error}"),
            ConfigError::EmptyUrlList { option, path } => write!(
                f,
                "{option} {}: no URLs found (one per line, or in the first column)",
                path.display()
            ),
            ConfigError::Folder { folder, error } => write!(f, "{}: {error}", folder.display()),
            ConfigError::Ambiguous {
                folder,
                role,
                found,
            } => write!(
                f,
                "{}: more than one {role} file ({}); name them with --embeddings/--inlinks/--internal",
                folder.display(),
                found
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ConfigError::Missing {
                folder,
                role,
                unread,
            } => {
                write!(
                    f,
                    "{}: no {role} export found (roles are detected from header rows)",
                    folder.display()
                )?;
                if !unread.is_empty() {
                    write!(f, "; unreadable: {}", unread.join("; "))?;
                }
                Ok(())
            }
        }
    }
}

const ZERO_QUEUE_LIMIT: &str = "--queue-limit-destination and --queue-limit-source must be at least 1 (use --queue all for no caps)";

/// `option` and a space, or nothing for an unnamed option.
fn prefix(option: &str) -> String {
    if option.is_empty() {
        String::new()
    } else {
        format!("{option} ")
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Settings(e) => Some(e),
            ConfigError::Importance(e) => Some(e),
            ConfigError::GroupBy(e) => Some(e),
            ConfigError::UrlList { error, .. } => Some(error),
            ConfigError::Folder { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<SettingsError> for ConfigError {
    fn from(e: SettingsError) -> ConfigError {
        ConfigError::Settings(e)
    }
}

/// The input files and their roles.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// Embeddings export.
    pub embeddings: PathBuf,
    /// All Inlinks export.
    pub inlinks: PathBuf,
    /// Internal: All export.
    pub internal: Option<PathBuf>,
    /// Custom Extraction export with the pages' text.
    pub page_text: Option<PathBuf>,
}

/// Everything `linkgap run` needs, validated.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Input files.
    pub inputs: Inputs,
    /// Workbook path.
    pub out: PathBuf,
    /// Folder for per-sheet CSVs.
    pub csv_dir: Option<PathBuf>,
    /// Client name.
    pub client: String,
    /// Neighbours per page.
    pub top_k: usize,
    /// `--embedding-column`.
    pub embedding_column: Option<String>,
    /// Near-duplicate similarity threshold.
    pub near_duplicate: f32,
    /// URL normalization rules.
    pub url_rules: Rules,
    /// Body/template rules.
    pub link_rules: LinkRules,
    /// Eligibility rules.
    pub eligibility: EligibilityRules,
    /// An earlier reviewed workbook.
    pub previous: Option<PathBuf>,
    /// Importance weights for the Queue priority.
    pub importance: crate::review::Importance,
    /// Page-type groups and whether links stay within them.
    pub groups: Option<(GroupBy, GroupScope)>,
    /// Compare pages across languages (`--cross-language`); else only within a language.
    pub cross_language: bool,
    /// Exact, approximate or automatic search.
    pub index: Method,
    /// Queries sampled to measure the approximate index's recall.
    pub recall_sample: usize,
    /// Pages the page text's statistics are built from at most; `None`: every page.
    pub text_stats_pages: Option<usize>,
    /// How candidates are ranked and how many the Queue keeps.
    pub ranking: crate::rank::Options,
    /// Whether the run measures its ranking on hidden links.
    pub self_check: bool,
    /// No progress bars.
    pub quiet: bool,
}

fn policy_slash(p: Policy) -> SlashPolicy {
    match p {
        Policy::Keep => SlashPolicy::Keep,
        Policy::Strip => SlashPolicy::Strip,
        Policy::Add => SlashPolicy::Add,
    }
}

fn policy_www(p: Policy) -> WwwPolicy {
    match p {
        Policy::Keep => WwwPolicy::Keep,
        Policy::Strip => WwwPolicy::Strip,
        Policy::Add => WwwPolicy::Add,
    }
}

/// The search `--index` asks for.
fn method(choice: IndexChoice) -> Method {
    match choice {
        IndexChoice::Exact => Method::Exact,
        IndexChoice::Approx => Method::Ivf,
        IndexChoice::Auto => Method::Auto,
    }
}

fn regex(option: &'static str, pattern: Option<&String>) -> Result<Option<Regex>, ConfigError> {
    pattern
        .map(|p| {
            Regex::new(p).map_err(|e| ConfigError::Regex {
                option,
                pattern: p.clone(),
                reason: one_line_regex_error(&e),
            })
        })
        .transpose()
}

/// The regex crate's syntax errors span several lines (the pattern, a caret, the reason):
/// keep the reason, so every refusal is one line.
fn one_line_regex_error(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map_or_else(
            || text.split_whitespace().collect::<Vec<_>>().join(" "),
            str::to_string,
        )
}

/// A path given as an input file: it must exist and be a file, not a folder.
fn check_file(option: &'static str, path: &Path) -> Result<(), ConfigError> {
    if path.is_dir() {
        return Err(ConfigError::IsFolder {
            option,
            path: path.to_path_buf(),
        });
    }
    if !path.is_file() {
        return Err(ConfigError::NoSuchFile {
            option,
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// True when `a` and `b` are one file, however spelled: the same inode (hard links, symlinks,
/// `./x` and `x`) on Unix, the same canonical path elsewhere.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

/// Refuse outputs that would replace an input: `--out` must not be any input file, and
/// `--csv-dir` must not be the folder an input is in (its `<sheet>.csv` files would land
/// among the exports, or on them). Compared as files, not by spelling.
fn check_outputs(
    out: &Path,
    csv_dir: Option<&Path>,
    inputs: &[(&'static str, &Path)],
) -> Result<(), ConfigError> {
    if let Some(dir) = csv_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(ConfigError::CsvDirIsFile(dir.to_path_buf()));
    }
    if out.is_dir() {
        return Err(ConfigError::OutIsFolder(out.to_path_buf()));
    }
    for &(role, input) in inputs {
        if same_file(out, input) {
            return Err(ConfigError::OutIsInput {
                out: out.to_path_buf(),
                role,
                input: input.to_path_buf(),
            });
        }
        if let Some(dir) = csv_dir
            && let Some(parent) = input.parent()
        {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            if same_file(dir, parent) {
                return Err(ConfigError::CsvDirHoldsInput {
                    dir: dir.to_path_buf(),
                    role,
                    input: input.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

fn url_list(
    option: &'static str,
    path: Option<&PathBuf>,
    rules: &Rules,
) -> Result<Option<HashSet<String>>, ConfigError> {
    let Some(path) = path else { return Ok(None) };
    let rows = crate::input::list::rows(path).map_err(|error| ConfigError::UrlList {
        option,
        path: path.clone(),
        error,
    })?;
    let set: HashSet<String> = rows
        .iter()
        .filter_map(|row| normalize(row.first()?, rules).ok())
        .collect();
    if set.is_empty() {
        return Err(ConfigError::EmptyUrlList {
            option,
            path: path.clone(),
        });
    }
    Ok(Some(set))
}

impl RunConfig {
    /// Validate `linkgap run` arguments, after merging the `--config` file if one is named.
    pub fn from_args(args: &RunArgs) -> Result<RunConfig, ConfigError> {
        let merged;
        let args = match &args.config {
            Some(path) => {
                merged = crate::settings::Settings::load(path)?.apply(args);
                &merged
            }
            None => args,
        };
        check_ranges(args)?;
        let body_positions: Vec<String> = args
            .body_positions
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if body_positions.is_empty() {
            return Err(ConfigError::NoBodyPositions);
        }
        if args
            .out
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("xlsx"))
        {
            return Err(ConfigError::OutNotXlsx(args.out.clone()));
        }
        let inputs = match &args.folder {
            Some(folder) => detect_roles(folder)?,
            None => Inputs {
                embeddings: args
                    .embeddings
                    .clone()
                    .ok_or(ConfigError::Required("--embeddings"))?,
                inlinks: args
                    .inlinks
                    .clone()
                    .ok_or(ConfigError::Required("--inlinks"))?,
                internal: args.internal.clone(),
                page_text: args.page_text.clone(),
            },
        };
        for path in [
            Some(&inputs.embeddings),
            Some(&inputs.inlinks),
            inputs.internal.as_ref(),
            inputs.page_text.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            check_file("", path)?;
        }
        let mut url_rules = Rules {
            trailing_slash: policy_slash(args.trailing_slash),
            www: policy_www(args.www),
            strip_index: args.strip_index,
            sort_query: args.sort_query,
            ..Rules::default()
        };
        if let Some(params) = &args.tracking_params {
            url_rules.tracking_params = params
                .iter()
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
        }
        if let Some(previous) = &args.previous {
            check_file("--previous", previous)?;
        }
        check_outputs(
            &args.out,
            args.csv_dir.as_deref(),
            &input_files(args, &inputs),
        )?;
        let importance = match &args.priority_urls {
            Some(path) => {
                crate::review::Importance::read(path, &url_rules)
                    .map_err(ConfigError::Importance)?
                    .0
            }
            None => crate::review::Importance::default(),
        };
        let eligibility = EligibilityRules {
            min_words: args.min_words,
            source_include: regex("--include-source", args.include_source.as_ref())?,
            source_exclude: regex("--exclude-source", args.exclude_source.as_ref())?,
            destination_include: regex("--include-destination", args.include_destination.as_ref())?,
            destination_exclude: regex("--exclude-destination", args.exclude_destination.as_ref())?,
            source_list: url_list("--source-list", args.source_list.as_ref(), &url_rules)?,
            destination_list: url_list(
                "--destination-list",
                args.destination_list.as_ref(),
                &url_rules,
            )?,
            noindex_sources: args.noindex_sources,
        };
        let keep_anchors = inputs.page_text.is_some();
        Ok(RunConfig {
            inputs,
            out: args.out.clone(),
            csv_dir: args.csv_dir.clone(),
            client: args.client.clone().unwrap_or_default(),
            top_k: args.top_k,
            embedding_column: args.embedding_column.clone(),
            near_duplicate: args.near_duplicate as f32,
            url_rules,
            link_rules: LinkRules {
                body_positions,
                template_share: args.template_share,
                template_min_pages: args.template_min_pages,
                keep_anchors,
            },
            eligibility,
            previous: args.previous.clone(),
            importance,
            groups: args
                .group_by
                .as_deref()
                .map(GroupBy::parse)
                .transpose()
                .map_err(ConfigError::GroupBy)?
                .map(|g| (g, args.group_scope)),
            cross_language: args.cross_language,
            index: method(args.index),
            recall_sample: args.recall_sample,
            text_stats_pages: (args.text_stats_pages > 0).then_some(args.text_stats_pages),
            ranking: crate::rank::Options {
                budget: match args.queue {
                    crate::cli::QueueChoice::All => crate::rank::Budget::UNLIMITED,
                    crate::cli::QueueChoice::Budget => crate::rank::Budget {
                        per_destination: Some(args.queue_limit_destination),
                        per_source: Some(args.queue_limit_source),
                    },
                },
                near_duplicate: args.near_duplicate as f32,
                ..crate::rank::Options::default()
            },
            self_check: !args.no_self_check,
            quiet: args.quiet,
        })
    }
}

/// Every file a run reads, named by its role, for [`check_outputs`].
fn input_files<'a>(args: &'a RunArgs, inputs: &'a Inputs) -> Vec<(&'static str, &'a Path)> {
    let mut files: Vec<(&'static str, &'a Path)> = vec![
        ("embeddings", inputs.embeddings.as_path()),
        ("All Inlinks", inputs.inlinks.as_path()),
    ];
    let optional = [
        ("Internal: All", inputs.internal.as_ref()),
        ("page text", inputs.page_text.as_ref()),
        ("--previous", args.previous.as_ref()),
        ("--priority-urls", args.priority_urls.as_ref()),
        ("--source-list", args.source_list.as_ref()),
        ("--destination-list", args.destination_list.as_ref()),
        ("--config", args.config.as_ref()),
    ];
    files.extend(
        optional
            .into_iter()
            .filter_map(|(role, p)| p.map(|p| (role, p.as_path()))),
    );
    files
}

/// The numeric options within their ranges.
fn check_ranges(args: &RunArgs) -> Result<(), ConfigError> {
    if args.top_k == 0 || args.top_k > 100 {
        return Err(ConfigError::OutOfRange {
            option: "--top-k",
            low: "1",
            high: "100",
            value: args.top_k.to_string(),
        });
    }
    for (option, value) in [
        ("--near-duplicate", args.near_duplicate),
        ("--template-share", args.template_share),
    ] {
        if !(0.0..=1.0).contains(&value) {
            return Err(ConfigError::OutOfRange {
                option,
                low: "0",
                high: "1",
                value: value.to_string(),
            });
        }
    }
    if args.queue_limit_destination == 0 || args.queue_limit_source == 0 {
        return Err(ConfigError::ZeroQueueLimit);
    }
    Ok(())
}

/// The files of a folder that may be exports (CSV, CSV.gz, TSV, TXT, XLSX; not hidden or an
/// Excel lock file),
/// sorted by name: what folder mode reads, and what `inspect FOLDER` describes.
pub fn export_files(folder: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    let entries = std::fs::read_dir(folder).map_err(|error| ConfigError::Folder {
        folder: folder.to_path_buf(),
        error,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            !is_hidden_name(&name) && is_export_name(&name)
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Find the embeddings, All Inlinks and Internal: All files in a folder by their headers.
pub fn detect_roles(folder: &Path) -> Result<Inputs, ConfigError> {
    let files = export_files(folder)?;
    let mut embeddings: Vec<(PathBuf, bool)> = Vec::new();
    let mut inlinks = Vec::new();
    let mut internal = Vec::new();
    let mut page_text = Vec::new();
    let mut unread = Vec::new();
    for path in files {
        let roles = match Table::open(&path).and_then(|t| t.roles()) {
            Ok(r) => r,
            Err(e) => {
                unread.push(format!("{e}"));
                continue;
            }
        };
        if roles.contains(&Role::Inlinks) {
            inlinks.push(path.clone());
        }
        if roles.contains(&Role::Embeddings) {
            embeddings.push((path.clone(), roles.contains(&Role::Internal)));
        }
        if roles.contains(&Role::Internal) {
            internal.push((path.clone(), roles.contains(&Role::Embeddings)));
        }
        if roles.contains(&Role::PageText) {
            page_text.push(path.clone());
        }
    }
    let pick = |role: &'static str, found: Vec<PathBuf>| -> Result<Option<PathBuf>, ConfigError> {
        // The same export saved twice (CSV and XLSX) is common: CSV wins, it has no cell limit.
        let csv: Vec<PathBuf> = found
            .iter()
            .filter(|p| {
                !p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("xlsx"))
            })
            .cloned()
            .collect();
        let found = if csv.len() == 1 { csv } else { found };
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.into_iter().next()),
            _ => Err(ConfigError::Ambiguous {
                folder: folder.to_path_buf(),
                role,
                found,
            }),
        }
    };
    // A dedicated embeddings export beats Internal: All that happens to carry a vector column.
    let dedicated: Vec<PathBuf> = embeddings
        .iter()
        .filter(|(_, is_internal)| !is_internal)
        .map(|(p, _)| p.clone())
        .collect();
    let embeddings = if dedicated.is_empty() {
        embeddings.into_iter().map(|(p, _)| p).collect()
    } else {
        dedicated
    };
    let missing = |role: &'static str| ConfigError::Missing {
        folder: folder.to_path_buf(),
        role,
        unread: unread.clone(),
    };
    let embeddings = pick("embeddings", embeddings)?.ok_or_else(|| missing("embeddings"))?;
    let inlinks = pick("All Inlinks", inlinks)?.ok_or_else(|| missing("All Inlinks"))?;
    // Likewise a plain Internal: All beats the AI tab, which carries a few Internal columns.
    let internal: Vec<(PathBuf, bool)> = internal
        .into_iter()
        .filter(|(p, _)| *p != embeddings)
        .collect();
    let plain: Vec<PathBuf> = internal
        .iter()
        .filter(|(_, has_vectors)| !has_vectors)
        .map(|(p, _)| p.clone())
        .collect();
    let internal = pick(
        "Internal: All",
        if plain.is_empty() {
            internal.into_iter().map(|(p, _)| p).collect()
        } else {
            plain
        },
    )?;
    let page_text = pick("page text (Custom Extraction)", page_text)?;
    Ok(Inputs {
        embeddings,
        inlinks,
        internal,
        page_text,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A fresh folder holding `embeddings.csv` and `inlinks.csv` (their contents are read by
    /// the run, not by the validation), and arguments naming them with `--out` in the folder.
    fn setup() -> (PathBuf, RunArgs) {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("linkgap-config-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["embeddings.csv", "inlinks.csv"] {
            std::fs::write(dir.join(name), "Address\n").unwrap();
        }
        let mut args = RunArgs::defaults(dir.join("report.xlsx"), dir.clone());
        args.folder = None;
        args.embeddings = Some(dir.join("embeddings.csv"));
        args.inlinks = Some(dir.join("inlinks.csv"));
        (dir, args)
    }

    #[test]
    fn valid_arguments_are_accepted() {
        let (dir, args) = setup();
        let config = RunConfig::from_args(&args).unwrap();
        assert_eq!(config.inputs.inlinks, dir.join("inlinks.csv"));
        assert_eq!(config.index, Method::Auto);
        assert_eq!(config.top_k, crate::neighbors::TOP_K);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn out_may_not_be_an_input_however_spelled() {
        let (dir, mut args) = setup();
        std::fs::write(dir.join("inlinks.xlsx"), "").unwrap();
        args.inlinks = Some(dir.join("inlinks.xlsx"));
        args.out = dir.join(".").join("inlinks.xlsx");
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::OutIsInput {
                    role: "All Inlinks",
                    ..
                }
            ),
            "{err}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn csv_dir_may_not_hold_an_input() {
        let (dir, mut args) = setup();
        args.csv_dir = Some(dir.clone());
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::CsvDirHoldsInput {
                    role: "embeddings",
                    ..
                }
            ),
            "{err}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_bad_regex_is_named_on_one_line() {
        let (dir, mut args) = setup();
        args.exclude_destination = Some("(unclosed".into());
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Regex { option: "--exclude-destination", pattern, .. } if pattern == "(unclosed"),
            "{err}"
        );
        let text = err.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.contains("unclosed group"), "{text}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_refused() {
        let (dir, mut args) = setup();
        args.internal = Some(dir.join("internal_all.csv"));
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(&err, ConfigError::NoSuchFile { path, .. } if path.ends_with("internal_all.csv")),
            "{err}"
        );
        args.internal = None;
        args.previous = Some(dir.clone());
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::IsFolder {
                    option: "--previous",
                    ..
                }
            ),
            "{err}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn url_lists_keep_quoted_commas() {
        let (dir, _) = setup();
        let path = dir.join("sources.csv");
        std::fs::write(
            &path,
            "URL;Note\n\"https://e.com/a;b\";x\nhttps://e.com/c;y\n",
        )
        .unwrap();
        let rules = Rules::default();
        let list = url_list("--source-list", Some(&path), &rules)
            .unwrap()
            .unwrap();
        let want: HashSet<String> = ["https://e.com/a;b", "https://e.com/c"]
            .iter()
            .map(|u| normalize(u, &rules).unwrap())
            .collect();
        assert_eq!(list, want);
        std::fs::write(&path, "URL\n\n").unwrap();
        let err = url_list("--source-list", Some(&path), &rules).unwrap_err();
        assert!(matches!(err, ConfigError::EmptyUrlList { .. }), "{err}");
        let gone = dir.join("gone.csv");
        let err = url_list("--source-list", Some(&gone), &rules).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("--source-list {}: ", gone.display())),
            "{err}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn values_out_of_range_are_refused() {
        let (dir, mut args) = setup();
        args.top_k = 0;
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::OutOfRange {
                    option: "--top-k",
                    ..
                }
            ),
            "{err}"
        );
        args.top_k = 5;
        args.near_duplicate = 1.5;
        let err = RunConfig::from_args(&args).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--near-duplicate must be between 0 and 1, not 1.5"
        );
        args.near_duplicate = 0.9;
        args.queue_limit_source = 0;
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(matches!(err, ConfigError::ZeroQueueLimit), "{err}");
        args.queue_limit_source = 3;
        args.body_positions = vec![" ".into()];
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(matches!(err, ConfigError::NoBodyPositions), "{err}");
        args.body_positions = vec!["Content".into()];
        args.out = dir.join("report.csv");
        let err = RunConfig::from_args(&args).unwrap_err();
        assert!(matches!(err, ConfigError::OutNotXlsx(_)), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
