//! `linkgap.toml`: a client's settings file, read by `linkgap run --config FILE` and by
//! `linkgap watch` from each client folder. It owns the file's keys, their checking (an
//! unknown key is an error naming the file and the key) and how they merge with the command
//! line: options a person typed win over the file, the file wins over the defaults.

use std::fmt;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Deserialize;

use crate::cli::{Policy, RunArgs};
use crate::eligibility::GroupScope;

/// The name `linkgap watch` looks for in a client folder.
pub const FILE_NAME: &str = "linkgap.toml";

/// A settings file that cannot be used, named with its path.
#[derive(Debug)]
pub enum SettingsError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not TOML with the known keys (toml's message names the line and key).
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        error: toml::de::Error,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::Read { path, error } => {
                write!(f, "settings file {}: {error}", path.display())
            }
            SettingsError::Parse { path, error } => {
                write!(f, "settings file {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for SettingsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SettingsError::Read { error, .. } => Some(error),
            SettingsError::Parse { error, .. } => Some(error),
        }
    }
}

/// The keys of a settings file; every one optional. Names are the long options of
/// `linkgap run` with `_` for `-`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `--client`.
    pub client: Option<String>,
    /// `--top-k`.
    pub top_k: Option<usize>,
    /// `--embedding-column`.
    pub embedding_column: Option<String>,
    /// `--near-duplicate`.
    pub near_duplicate: Option<f64>,
    /// `--min-words`.
    pub min_words: Option<u32>,
    /// `--body-positions`, as a list.
    pub body_positions: Option<Vec<String>>,
    /// `--template-share`.
    pub template_share: Option<f64>,
    /// `--template-min-pages`.
    pub template_min_pages: Option<u32>,
    /// `--trailing-slash`: keep, strip or add.
    #[serde(default, deserialize_with = "choice")]
    pub trailing_slash: Option<Policy>,
    /// `--www`: keep, strip or add.
    #[serde(default, deserialize_with = "choice")]
    pub www: Option<Policy>,
    /// `--strip-index`.
    pub strip_index: Option<bool>,
    /// `--sort-query`.
    pub sort_query: Option<bool>,
    /// `--tracking-params`, as a list.
    pub tracking_params: Option<Vec<String>>,
    /// `--include-source`.
    pub include_source: Option<String>,
    /// `--exclude-source`.
    pub exclude_source: Option<String>,
    /// `--include-destination`.
    pub include_destination: Option<String>,
    /// `--exclude-destination`.
    pub exclude_destination: Option<String>,
    /// `--source-list`, relative to the settings file's folder.
    pub source_list: Option<PathBuf>,
    /// `--destination-list`, relative to the settings file's folder.
    pub destination_list: Option<PathBuf>,
    /// `--priority-urls`, relative to the settings file's folder.
    pub priority_urls: Option<PathBuf>,
    /// `--noindex-sources`.
    pub noindex_sources: Option<bool>,
    /// `--queue`: budget or all.
    #[serde(default, deserialize_with = "choice")]
    pub queue: Option<crate::cli::QueueChoice>,
    /// `--queue-limit-destination`.
    pub queue_limit_destination: Option<usize>,
    /// `--queue-limit-source`.
    pub queue_limit_source: Option<usize>,
    /// `--group-by`.
    pub group_by: Option<String>,
    /// `--group-scope`: same or all.
    #[serde(default, deserialize_with = "choice")]
    pub group_scope: Option<GroupScope>,
    /// `--cross-language`.
    pub cross_language: Option<bool>,
}

impl Settings {
    /// Read and check a settings file.
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|error| SettingsError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let mut settings = Settings::parse(&text).map_err(|error| SettingsError::Parse {
            path: path.to_path_buf(),
            error,
        })?;
        // A list named in the file is next to the file, wherever linkgap was started from.
        let base = path.parent().unwrap_or(Path::new(""));
        for list in [
            &mut settings.source_list,
            &mut settings.destination_list,
            &mut settings.priority_urls,
        ]
        .into_iter()
        .flatten()
        {
            if list.is_relative() {
                *list = base.join(&*list);
            }
        }
        Ok(settings)
    }

    /// Parse settings text. Errors name the line and the key (toml's own messages).
    pub fn parse(text: &str) -> Result<Settings, toml::de::Error> {
        toml::from_str(text)
    }

    /// `args` with every option that was not given on the command line replaced by this
    /// file's value, where it has one.
    pub fn apply(&self, args: &RunArgs) -> RunArgs {
        let mut out = args.clone();
        macro_rules! take {
            ($field:ident) => {
                if let Some(v) = &self.$field
                    && !args.was_given(stringify!($field))
                {
                    out.$field = v.clone();
                }
            };
            ($field:ident, Some) => {
                if let Some(v) = &self.$field
                    && !args.was_given(stringify!($field))
                {
                    out.$field = Some(v.clone());
                }
            };
        }
        take!(client, Some);
        take!(top_k);
        take!(embedding_column, Some);
        take!(near_duplicate);
        take!(min_words);
        take!(body_positions);
        take!(template_share);
        take!(template_min_pages);
        take!(strip_index);
        take!(sort_query);
        take!(tracking_params, Some);
        take!(include_source, Some);
        take!(exclude_source, Some);
        take!(include_destination, Some);
        take!(exclude_destination, Some);
        take!(source_list, Some);
        take!(destination_list, Some);
        take!(priority_urls, Some);
        take!(group_by, Some);
        take!(noindex_sources);
        take!(queue_limit_destination);
        take!(queue_limit_source);
        if let Some(q) = self.queue
            && !args.was_given("queue")
        {
            out.queue = q;
        }
        take!(cross_language);
        if let Some(scope) = self.group_scope
            && !args.was_given("group_scope")
        {
            out.group_scope = scope;
        }
        if let Some(p) = self.trailing_slash
            && !args.was_given("trailing_slash")
        {
            out.trailing_slash = p;
        }
        if let Some(p) = self.www
            && !args.was_given("www")
        {
            out.www = p;
        }
        out
    }
}

/// A key whose value is one of an option's choices, read as the command line reads it (case
/// does not matter); any other value is an error naming the choices, with toml's line.
fn choice<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: ValueEnum,
{
    let Some(text) = Option::<String>::deserialize(deserializer)? else {
        return Ok(None);
    };
    T::from_str(&text, true).map(Some).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .map(|p| format!("\"{}\"", p.get_name()))
            .collect();
        let expected = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        serde::de::Error::custom(format!("{text:?} is not a choice: expected {expected}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> RunArgs {
        let cli = crate::cli::try_parse_from(line.iter().copied()).unwrap();
        let crate::cli::Command::Run(args) = cli.command else {
            panic!("run")
        };
        args
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = Settings::parse("top_k = 3\ntopk = 4\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("topk"), "{err}");
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn wrong_types_are_named() {
        let err = Settings::parse("top_k = \"five\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("top_k"), "{err}");
    }

    #[test]
    fn choices_are_read_as_on_the_command_line() {
        let s =
            Settings::parse("www = \"Strip\"\nqueue = \"all\"\ngroup_scope = \"same\"\n").unwrap();
        assert_eq!(s.www, Some(Policy::Strip), "case does not matter");
        assert_eq!(s.queue, Some(crate::cli::QueueChoice::All));
        assert_eq!(s.group_scope, Some(GroupScope::Same));
        let err = Settings::parse("top_k = 3\nwww = \"remove\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2") && err.contains("www"), "{err}");
        assert!(err.contains("\"keep\", \"strip\" or \"add\""), "{err}");
    }

    #[test]
    fn command_line_beats_file_beats_default() {
        let s = Settings::parse(
            "top_k = 7\nmin_words = 10\nwww = \"strip\"\nbody_positions = [\"Content\", \"Aside\"]\n",
        )
        .unwrap();
        let merged = s.apply(&args(&["linkgap", "run", "d", "-o", "o.xlsx", "-k", "3"]));
        assert_eq!(merged.top_k, 3, "the command line wins");
        assert_eq!(merged.min_words, 10, "the file beats the default");
        assert_eq!(merged.www, Policy::Strip);
        assert_eq!(merged.body_positions, vec!["Content", "Aside"]);
        assert!(
            (merged.near_duplicate - crate::rank::NEAR_DUPLICATE).abs() < 1e-9,
            "default kept"
        );
    }
}
