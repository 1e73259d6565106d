//! linkgap finds missing internal links on websites from Screaming Frog SEO Spider exports.
//!
//! The pipeline, one module per stage: [`input`] reads the exports of every era,
//! [`normalize`] decides which URLs are one page, [`eligibility`] decides which pages may
//! carry or receive a link, [`neighbors`] ranks similar pages, [`links`] subtracts the links
//! that already exist, [`rank`] orders the candidate links with link-graph evidence
//! and a budget, [`passage`] finds where in a source a link fits and with which words,
//! and [`workbook`] writes the result. [`run`] wires them together;
//! [`report`] accounts for every input row. [`settings`] reads a client's `linkgap.toml`;
//! [`watch`] runs the pipeline on every complete set dropped into an inbox.

pub mod cli;
pub mod config;
pub mod crawl;
pub mod dates;
pub mod eligibility;
pub mod holdout;
pub mod importance;
pub mod input;
pub mod inspect;
pub mod languages;
pub mod links;
pub mod neighbors;
pub mod normalize;
pub mod passage;
pub mod progress;
pub mod rank;
pub mod report;
pub mod review;
pub mod rng;
pub mod run;
pub mod settings;
pub mod synthetic;
pub mod watch;
pub mod workbook;

use std::process::ExitCode;

use anyhow::Result;

use cli::{Cli, Command};

/// How a command ended, mapped to the documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything read and used: exit 0.
    Clean,
    /// Output written, some rows rejected: exit 1.
    RowsRejected,
}

impl Status {
    /// The process exit code.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Status::Clean => ExitCode::SUCCESS,
            Status::RowsRejected => ExitCode::from(1),
        }
    }
}

/// Run a parsed command line. Messages for people go to stderr; `inspect` prints to stdout.
pub fn run_cli(cli: Cli) -> Result<Status> {
    workbook::quiet_write_panics();
    match cli.command {
        Command::Run(args) => {
            let config = config::RunConfig::from_args(&args)?;
            workbook::clean_up_on_signals();
            let outcome = run::run(&config)?;
            note(&format!("linkgap: {}", outcome.summary));
            if !config.quiet {
                note(&format!("linkgap: stages: {}", outcome.stages));
            }
            Ok(if outcome.rejected > 0 {
                Status::RowsRejected
            } else {
                Status::Clean
            })
        }
        Command::Watch(args) => {
            if args.status {
                print_stdout(&watch::status_report(&args.inbox)?)?;
                return Ok(Status::Clean);
            }
            let options = watch::Options::from_args(&args)?;
            let summary = watch::watch(&options)?;
            // For cron or a scheduled task, a failed set is worth a non-zero exit.
            if options.once && summary.failed > 0 {
                anyhow::bail!(
                    "{} set(s) failed; see error.txt in the clients' failed/ folders",
                    summary.failed
                );
            }
            if options.once && summary.errors > 0 {
                anyhow::bail!(
                    "{} client folder(s) could not be processed (see the error lines above)",
                    summary.errors
                );
            }
            Ok(Status::Clean)
        }
        Command::Verify(args) => {
            let config = review::verify::VerifyConfig {
                queue: args.queue,
                inlinks: args.inlinks,
                internal: args.internal,
                out: args.out,
                crawl_date: args.crawl_date,
                link_rules: links::LinkRules {
                    body_positions: args.body_positions,
                    ..links::LinkRules::default()
                },
                quiet: args.quiet,
            };
            let outcome = review::verify::verify(&config)?;
            note(&format!("linkgap: {}", outcome.summary));
            Ok(if outcome.rejected > 0 {
                Status::RowsRejected
            } else {
                Status::Clean
            })
        }
        Command::Inspect(args) => {
            let mut rejected = 0;
            let mut failed = 0;
            let mut text = String::new();
            // A folder stands for its export files, as `run FOLDER` reads them; a folder with
            // none is an error, like a file that cannot be read.
            let mut files = Vec::new();
            for path in &args.files {
                if !path.is_dir() {
                    files.push(path.clone());
                    continue;
                }
                let found = config::export_files(path)?;
                if found.is_empty() {
                    use std::fmt::Write as _;
                    let _ = write!(
                        text,
                        "{}\n  error: no export files (.csv, .csv.gz, .tsv, .txt, .xlsx) in this folder\n\n",
                        path.display()
                    );
                    failed += 1;
                }
                files.extend(found);
            }
            for file in &files {
                let d = inspect::describe(file, args.embedding_column.as_deref());
                text.push_str(&d.text);
                rejected += d.rejected;
                failed += usize::from(d.failed);
            }
            print_stdout(&text)?;
            // A file that could not be read is an error (exit 2), like a missing input to `run`.
            if failed > 0 {
                anyhow::bail!(
                    "{failed} of {} file(s) could not be read; see the error lines above",
                    files.len().max(failed)
                );
            }
            Ok(if rejected > 0 {
                Status::RowsRejected
            } else {
                Status::Clean
            })
        }
    }
}

/// A line for people on stderr. Not `eprintln!`, which panics (exit 101) when stderr is a
/// closed pipe: a lost message must not change the exit code.
fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[allow(clippy::print_stdout)] // `inspect` is a report for the terminal or a pipe.
fn print_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
