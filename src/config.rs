//! The validated run configuration, built once from the command line: paths checked, roles of
//! a folder's files detected, regular expressions compiled, numbers range-checked.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::cli::{GroupScope, Policy, RunArgs};
use crate::eligibility::{EligibilityRules, GroupBy};
use crate::input::Table;
use crate::links::LinkRules;
use crate::normalize::{Rules, SlashPolicy, WwwPolicy, normalize};
use crate::report::Role;

/// A setting that cannot work, named with its option.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

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
    pub index: crate::cli::IndexChoice,
    /// Queries sampled to measure the approximate index's recall.
    pub recall_sample: usize,
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

fn regex(option: &str, pattern: Option<&String>) -> Result<Option<Regex>, ConfigError> {
    pattern
        .map(|p| {
            Regex::new(p).map_err(|e| {
                ConfigError(format!(
                    "{option} \"{p}\": not a valid regular expression: {}",
                    one_line_regex_error(&e)
                ))
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
fn check_file(option: &str, path: &Path) -> Result<(), ConfigError> {
    let prefix = if option.is_empty() {
        String::new()
    } else {
        format!("{option} ")
    };
    if path.is_dir() {
        return Err(ConfigError(format!(
            "{prefix}{}: is a folder, not a file",
            path.display()
        )));
    }
    if !path.is_file() {
        return Err(ConfigError(format!(
            "{prefix}{}: no such file",
            path.display()
        )));
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
    inputs: &[(&str, &Path)],
) -> Result<(), ConfigError> {
    if let Some(dir) = csv_dir
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(ConfigError(format!(
            "--csv-dir {}: is a file, not a folder",
            dir.display()
        )));
    }
    if out.is_dir() {
        return Err(ConfigError(format!(
            "--out {}: is a folder; name the workbook, e.g. {}",
            out.display(),
            out.join("linkgap.xlsx").display()
        )));
    }
    for &(role, input) in inputs {
        if same_file(out, input) {
            return Err(ConfigError(format!(
                "--out {} is the {role} input {}: the workbook would replace it; write it elsewhere",
                out.display(),
                input.display()
            )));
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
                return Err(ConfigError(format!(
                    "--csv-dir {} holds the {role} input {}: the sheets' CSV files could replace it; choose another folder",
                    dir.display(),
                    input.display()
                )));
            }
        }
    }
    Ok(())
}

fn url_list(
    option: &str,
    path: Option<&PathBuf>,
    rules: &Rules,
) -> Result<Option<HashSet<String>>, ConfigError> {
    let Some(path) = path else { return Ok(None) };
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("{option} {}: {e}", path.display())))?;
    let mut set = HashSet::new();
    for line in text.lines() {
        let first = line
            .split([',', ';', '\t'])
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"')
            .trim_start_matches('\u{FEFF}');
        if let Ok(url) = normalize(first, rules) {
            set.insert(url);
        }
    }
    if set.is_empty() {
        return Err(ConfigError(format!(
            "{option} {}: no URLs found (one per line, or in the first column)",
            path.display()
        )));
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
            return Err(ConfigError(
                "--body-positions needs at least one Link Position name, e.g. Content".into(),
            ));
        }
        if args
            .out
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("xlsx"))
        {
            return Err(ConfigError(format!(
                "--out {}: the workbook name must end in .xlsx",
                args.out.display()
            )));
        }
        let inputs = match &args.folder {
            Some(folder) => detect_roles(folder)?,
            None => Inputs {
                embeddings: args
                    .embeddings
                    .clone()
                    .ok_or_else(|| ConfigError("--embeddings is required".into()))?,
                inlinks: args
                    .inlinks
                    .clone()
                    .ok_or_else(|| ConfigError("--inlinks is required".into()))?,
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
                    .map_err(ConfigError)?
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
                .map_err(ConfigError)?
                .map(|g| (g, args.group_scope)),
            cross_language: args.cross_language,
            index: args.index,
            recall_sample: args.recall_sample,
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
        return Err(ConfigError(format!(
            "--top-k must be between 1 and 100, not {}",
            args.top_k
        )));
    }
    if !(0.0..=1.0).contains(&args.near_duplicate) {
        return Err(ConfigError(format!(
            "--near-duplicate must be between 0 and 1, not {}",
            args.near_duplicate
        )));
    }
    if !(0.0..=1.0).contains(&args.template_share) {
        return Err(ConfigError(format!(
            "--template-share must be between 0 and 1, not {}",
            args.template_share
        )));
    }
    if args.queue_limit_destination == 0 || args.queue_limit_source == 0 {
        return Err(ConfigError(
            "--queue-limit-destination and --queue-limit-source must be at least 1 (use --queue all for no caps)".into(),
        ));
    }
    Ok(())
}

/// Find the embeddings, All Inlinks and Internal: All files in a folder by their headers.
pub fn detect_roles(folder: &Path) -> Result<Inputs, ConfigError> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| ConfigError(format!("{}: {e}", folder.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut embeddings: Vec<(PathBuf, bool)> = Vec::new();
    let mut inlinks = Vec::new();
    let mut internal = Vec::new();
    let mut page_text = Vec::new();
    let mut unread = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Excel lock files and hidden files are never exports.
        if name.starts_with('.') || name.starts_with("~$") {
            continue;
        }
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if !matches!(ext.as_str(), "csv" | "gz" | "xlsx" | "tsv" | "txt") {
            continue;
        }
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
    let pick = |role: &str, found: Vec<PathBuf>| -> Result<Option<PathBuf>, ConfigError> {
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
            _ => Err(ConfigError(format!(
                "{}: more than one {role} file ({}); name them with --embeddings/--inlinks/--internal",
                folder.display(),
                found
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
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
    let missing = |role: &str| {
        let mut msg = format!(
            "{}: no {role} export found (roles are detected from header rows)",
            folder.display()
        );
        if !unread.is_empty() {
            msg.push_str("; unreadable: ");
            msg.push_str(&unread.join("; "));
        }
        ConfigError(msg)
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
