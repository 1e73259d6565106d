//! One export set's life in a client folder: found, claimed into `.linkgap-work/<set id>/`
//! with a journal, run through the pipeline, its workbook put in place, moved to
//! `processed/<time>/` or `failed/<time>/`. Every step is a rename or a journal write, so a
//! kill at any moment leaves a state that [`recover`] can finish, and the set id (derived
//! from the files) makes a re-run write the same staged workbook rather than a second one.

use std::fmt::{self, Write as _};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::crash::CrashPoint;
use super::layout::{ERROR_FILE, FAILED, FileStamp, JOURNAL, PROCESSED, WORK_DIR};
use super::{Client, Runner, WatchError, folder_time, io_err, log};
use crate::cli::RunArgs;
use crate::config::{ConfigError, Inputs, RunConfig};
use crate::crawl;
use crate::input::{Table, is_export_name};
use crate::report::Role;
use crate::run::{self, Outcome};
use crate::settings;

/// What a settled client folder holds, by header-detected role.
#[derive(Debug, Default)]
pub struct Shape {
    /// Files with a role: the set to claim.
    pub members: Vec<FileStamp>,
    /// Names of the embeddings-capable files.
    pub embeddings: Vec<String>,
    /// Names of the All Inlinks files.
    pub inlinks: Vec<String>,
    /// Export-named files that could not be read (name and reason); left where they are.
    pub unreadable: Vec<String>,
}

impl Shape {
    /// An embeddings export and an All Inlinks export are there.
    pub fn complete(&self) -> bool {
        !self.embeddings.is_empty() && !self.inlinks.is_empty()
    }

    /// What the set still needs, for the log.
    pub fn missing(&self) -> String {
        let mut need = Vec::new();
        if self.embeddings.is_empty() {
            need.push("an embeddings export");
        }
        if self.inlinks.is_empty() {
            need.push("an All Inlinks export");
        }
        let mut text = format!("for {}", need.join(" and "));
        if !self.members.is_empty() {
            let have: Vec<&str> = self.members.iter().map(|m| m.name.as_str()).collect();
            let _ = write!(text, " (have {})", have.join(", "));
        }
        if !self.unreadable.is_empty() {
            let _ = write!(text, "; cannot read {}", self.unreadable.join("; "));
        }
        text
    }
}

/// Read the header of every export-named file in `files` and sort them by role.
pub fn shape(dir: &Path, files: &[FileStamp]) -> Shape {
    let mut shape = Shape::default();
    for f in files.iter().filter(|f| is_export_name(&f.name)) {
        match Table::open(&dir.join(&f.name)).and_then(|t| t.roles()) {
            Ok(roles) if roles.is_empty() => {} // a URL list or notes: not an export
            Ok(roles) => {
                if roles.contains(&Role::Embeddings) {
                    shape.embeddings.push(f.name.clone());
                }
                if roles.contains(&Role::Inlinks) {
                    shape.inlinks.push(f.name.clone());
                }
                shape.members.push(f.clone());
            }
            Err(e) => shape.unreadable.push(format!("{}: {e}", f.name)),
        }
    }
    shape
}

/// A set's id: SHA-256 of its files' names, sizes and modification times. Derived from the
/// inputs, so the run after a crash stages the same workbook path as the run that crashed.
pub fn set_id(members: &[FileStamp]) -> String {
    let mut hasher = Sha256::new();
    for m in members {
        hasher.update(m.name.as_bytes());
        hasher.update([0]);
        hasher.update(m.size.to_le_bytes());
        hasher.update(m.modified.to_le_bytes());
    }
    hasher.finalize()[..8]
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Where a claimed set is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Files moved (or being moved) into the work folder; no workbook chosen yet.
    Claimed,
    /// The workbook's final name in the client's outbox folder is chosen; the staged workbook
    /// is complete and may or may not have been renamed to it yet.
    Output(String),
}

/// The journal of a claimed set: enough to finish or redo it after a crash.
#[derive(Debug, Clone)]
pub struct Journal {
    /// Set id (also the work folder's name).
    pub id: String,
    /// When the set was claimed, seconds since 1970: names its processed/failed folder.
    pub claimed: u64,
    /// Progress.
    pub state: State,
    /// Input rows the run rejected (known once the state is `Output`).
    pub rejected: u64,
    /// The set's files as they were when claimed.
    pub files: Vec<FileStamp>,
}

const JOURNAL_MAGIC: &str = "linkgap set journal 1";

impl Journal {
    /// Write atomically (temp file, flushed, renamed): a reader sees the old or the new.
    pub fn write(&self, work: &Path) -> io::Result<()> {
        let mut text = format!(
            "{JOURNAL_MAGIC}\nid {}\nclaimed {}\nrejected {}\n",
            self.id, self.claimed, self.rejected
        );
        match &self.state {
            State::Claimed => text.push_str("state claimed\n"),
            State::Output(name) => {
                let _ = write!(text, "state output\noutput {name}\n");
            }
        }
        for f in &self.files {
            let _ = writeln!(text, "file {} {} {}", f.size, f.modified, f.name);
        }
        let tmp = work.join(format!("{JOURNAL}.tmp"));
        let mut file = fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, work.join(JOURNAL))
    }

    /// Read a work folder's journal.
    pub fn read(work: &Path) -> io::Result<Journal> {
        let text = fs::read_to_string(work.join(JOURNAL))?;
        let bad = |what: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("unreadable journal ({what})"),
            )
        };
        let mut lines = text.lines();
        if lines.next() != Some(JOURNAL_MAGIC) {
            return Err(bad("first line"));
        }
        let mut journal = Journal {
            id: String::new(),
            claimed: 0,
            state: State::Claimed,
            rejected: 0,
            files: Vec::new(),
        };
        let mut output = None;
        let mut state = "";
        for line in lines {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "id" => journal.id = rest.to_string(),
                "claimed" => journal.claimed = rest.parse().map_err(|_| bad("claimed"))?,
                "rejected" => journal.rejected = rest.parse().map_err(|_| bad("rejected"))?,
                "state" => state = rest,
                "output" => output = Some(rest.to_string()),
                "file" => {
                    let mut parts = rest.splitn(3, ' ');
                    let (Some(size), Some(modified), Some(name)) =
                        (parts.next(), parts.next(), parts.next())
                    else {
                        return Err(bad("file line"));
                    };
                    journal.files.push(FileStamp {
                        name: name.to_string(),
                        size: size.parse().map_err(|_| bad("file size"))?,
                        modified: modified.parse().map_err(|_| bad("file time"))?,
                    });
                }
                _ => return Err(bad(key)),
            }
        }
        journal.state = match (state, output) {
            ("claimed", _) => State::Claimed,
            ("output", Some(name)) => State::Output(name),
            _ => return Err(bad("state")),
        };
        Ok(journal)
    }
}

/// How a set ended.
#[derive(Debug)]
pub enum SetResult {
    /// Workbook written; inputs in `processed`.
    Done {
        /// The workbook.
        workbook: PathBuf,
        /// Input rows rejected (listed in the workbook).
        rejected: u64,
        /// Where the inputs went.
        moved_to: PathBuf,
    },
    /// No workbook; inputs and `error.txt` in `failed`.
    Failed {
        /// The error, as written to `error.txt`.
        error: String,
        /// Where the inputs went.
        moved_to: PathBuf,
    },
    /// Stopped by a signal before the end; left in the work folder for [`recover`].
    Abandoned,
}

/// A set that was claimed.
#[derive(Debug)]
pub struct Claimed {
    /// Its work folder.
    pub work: PathBuf,
    /// Its journal.
    pub journal: Journal,
}

/// Move `members` from the client folder into a new work folder, journal first. `Ok(None)`
/// when a file changed or vanished since it was looked at: nothing is moved, and the caller
/// waits for the folder to settle again.
pub fn claim(
    client: &Client,
    members: &[FileStamp],
    runner: &Runner,
) -> Result<Option<Claimed>, WatchError> {
    for m in members {
        match FileStamp::of(&client.dir.join(&m.name), m.name.clone()) {
            Ok(now) if now == *m => {}
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err("reading", &client.dir.join(&m.name))(e)),
        }
    }
    let id = set_id(members);
    let root = client.dir.join(WORK_DIR);
    fs::create_dir_all(&root).map_err(io_err("creating", &root))?;
    let work = root.join(&id);
    fs::create_dir(&work).map_err(io_err("creating", &work))?;
    let journal = Journal {
        id,
        claimed: SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        state: State::Claimed,
        rejected: 0,
        files: members.to_vec(),
    };
    if let Err(e) = journal.write(&work) {
        let _ = fs::remove_dir_all(&work);
        return Err(io_err("writing the journal in", &work)(e));
    }
    for (i, m) in members.iter().enumerate() {
        if let Err(e) = fs::rename(client.dir.join(&m.name), work.join(&m.name)) {
            // Put back what moved, so the folder is as it was and the next look starts over.
            for back in &members[..i] {
                let _ = fs::rename(work.join(&back.name), client.dir.join(&back.name));
            }
            let _ = fs::remove_file(work.join(JOURNAL));
            let _ = fs::remove_dir(&work);
            if e.kind() == io::ErrorKind::NotFound {
                return Ok(None);
            }
            return Err(io_err("moving", &client.dir.join(&m.name))(e));
        }
        runner.crash_point(CrashPoint::ClaimPartial);
    }
    Ok(Some(Claimed { work, journal }))
}

/// The workbook a set's run writes before it gets its final name: hidden, in the client's
/// outbox folder (so the final rename stays on one file system), named by set id so that a
/// re-run overwrites it rather than adding a second workbook.
pub fn staged_path(client: &Client, id: &str) -> PathBuf {
    client.out_dir.join(format!(".linkgap-{id}.xlsx"))
}

/// Run the pipeline on a claimed set and finish it.
pub fn run_claimed(
    client: &Client,
    claimed: Claimed,
    runner: &Runner,
) -> Result<SetResult, WatchError> {
    let Claimed { work, mut journal } = claimed;
    if let Some(pause) = runner.pause_after_claim
        && !runner.sleep(pause)
    {
        return Ok(SetResult::Abandoned);
    }
    fs::create_dir_all(&client.out_dir).map_err(io_err("creating", &client.out_dir))?;
    let staged = staged_path(client, &journal.id);
    // The pipeline runs on its own thread so a stop signal is answered at once: the set is
    // abandoned mid-run, still claimed, and redone on the next start.
    let (tx, rx) = mpsc::channel();
    {
        let (client, work, staged) = (client.clone(), work.clone(), staged.clone());
        std::thread::spawn(move || {
            let _ = tx.send(pipeline(&client, &work, &staged));
        });
    }
    let result = loop {
        if runner.stop.load(Ordering::SeqCst) {
            return Ok(SetResult::Abandoned);
        }
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(result) => break result,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(PipelineError::Stopped),
        }
    };
    match result {
        Ok((outcome, inputs)) => {
            runner.crash_point(CrashPoint::RunDone);
            let name = workbook_name(client, &outcome, &inputs);
            journal.state = State::Output(name);
            journal.rejected = outcome.rejected;
            journal
                .write(&work)
                .map_err(io_err("writing the journal in", &work))?;
            runner.crash_point(CrashPoint::OutputChosen);
            finish_output(client, &work, &journal, runner)
        }
        Err(error) => finish_failed(client, &work, &journal, &error.to_string(), runner),
    }
}

/// Why a claimed set made no workbook; its text goes to `error.txt` and the status.
#[derive(Debug)]
pub enum PipelineError {
    /// The run cannot be configured (the client's `linkgap.toml`, the folder's exports).
    Config(ConfigError),
    /// The run failed (anyhow's chain, on one line per cause joined by `: `).
    Run(anyhow::Error),
    /// The pipeline's thread ended without an answer (it panicked).
    Stopped,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Config(e) => e.fmt(f),
            PipelineError::Run(e) => write!(f, "{e:#}"),
            PipelineError::Stopped => f.write_str(STOPPED),
        }
    }
}

const STOPPED: &str =
    "linkgap stopped unexpectedly while reading these exports (a bug; the log has the details)";

impl std::error::Error for PipelineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PipelineError::Config(e) => Some(e),
            PipelineError::Run(e) => Some(e.as_ref()),
            PipelineError::Stopped => None,
        }
    }
}

/// `linkgap run` on the work folder, with the client's `linkgap.toml` over the defaults.
fn pipeline(
    client: &Client,
    work: &Path,
    staged: &Path,
) -> Result<(Outcome, Inputs), PipelineError> {
    let mut args = RunArgs::defaults(staged.to_path_buf(), work.to_path_buf());
    args.client = Some(client.name.clone());
    args.quiet = true;
    // The review decisions of the client's last workbook carry over to this one.
    args.previous = super::previous_workbook(client);
    let toml = client.dir.join(settings::FILE_NAME);
    if toml.is_file() {
        args.config = Some(toml);
    }
    let config = RunConfig::from_args(&args).map_err(PipelineError::Config)?;
    let outcome = run::run(&config).map_err(PipelineError::Run)?;
    Ok((outcome, config.inputs))
}

/// `<client>-<crawl date>.xlsx`, with `-2`, `-3`… when a workbook of that name exists (a
/// second crawl on the same date).
fn workbook_name(client: &Client, outcome: &Outcome, inputs: &Inputs) -> String {
    let date = outcome.crawl_date.exported().map_or_else(
        || crawl::file_date(&inputs.inlinks).unwrap_or_else(|| "undated".into()),
        str::to_string,
    );
    let stem = format!("{}-{date}", client.name);
    let path = first_free(|n| {
        client.out_dir.join(if n == 1 {
            format!("{stem}.xlsx")
        } else {
            format!("{stem}-{n}.xlsx")
        })
    });
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The first of `candidate(1)`, `candidate(2)`… that does not exist.
fn first_free(candidate: impl Fn(u32) -> PathBuf) -> PathBuf {
    (1..u32::MAX)
        .map(candidate)
        .find(|p| !p.exists())
        .expect("some suffix is free")
}

/// Give the staged workbook its final name (if not done yet), record the status, move the
/// inputs to `processed/`. Every step can be repeated after a crash.
fn finish_output(
    client: &Client,
    work: &Path,
    journal: &Journal,
    runner: &Runner,
) -> Result<SetResult, WatchError> {
    let rejected = journal.rejected;
    let State::Output(name) = &journal.state else {
        unreachable!("finish_output needs a chosen name");
    };
    let staged = staged_path(client, &journal.id);
    let workbook = client.out_dir.join(name);
    if staged.exists() {
        fs::rename(&staged, &workbook).map_err(io_err("renaming", &staged))?;
    }
    runner.crash_point(CrashPoint::Renamed);
    let detail = if rejected > 0 {
        format!("{name} ({rejected} input rows rejected, listed in the workbook)")
    } else {
        name.clone()
    };
    super::status::write(&client.dir, "ok", &detail)
        .map_err(io_err("writing status in", &client.dir))?;
    runner.crash_point(CrashPoint::StatusWritten);
    let moved_to = move_work(client, work, PROCESSED, journal.claimed)?;
    Ok(SetResult::Done {
        workbook,
        rejected,
        moved_to,
    })
}

/// Leave `error.txt` with the inputs and move them to `failed/`.
fn finish_failed(
    client: &Client,
    work: &Path,
    journal: &Journal,
    error: &str,
    runner: &Runner,
) -> Result<SetResult, WatchError> {
    let files: Vec<&str> = journal.files.iter().map(|f| f.name.as_str()).collect();
    let text = format!(
        "linkgap could not make a workbook from these exports.\n\n\
         Client:  {}\n\
         Files:   {}\n\
         When:    {}\n\n\
         What went wrong:\n  {}\n\n\
         To try again, fix the problem (a new export from Screaming Frog, or the settings in\n\
         {}), then move the export files back into the client folder {}.\n",
        client.name,
        files.join(", "),
        super::iso_time(SystemTime::now()),
        error.replace('\n', "\n  "),
        settings::FILE_NAME,
        client.dir.display(),
    );
    let path = work.join(ERROR_FILE);
    fs::write(&path, text).map_err(io_err("writing", &path))?;
    runner.crash_point(CrashPoint::ErrorWritten);
    let _ = fs::remove_file(staged_path(client, &journal.id));
    super::status::write(&client.dir, "failed", &one_line(error))
        .map_err(io_err("writing status in", &client.dir))?;
    let moved_to = move_work(client, work, FAILED, journal.claimed)?;
    Ok(SetResult::Failed {
        error: error.to_string(),
        moved_to,
    })
}

/// An error in one line for the log and the status file: its first line, and its last when
/// that says more (toml's messages put the snippet between "parse error at" and the cause).
pub fn one_line(error: &str) -> String {
    let mut lines = error.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    match lines.next_back() {
        Some(last) if last != first => format!("{first}: {last}"),
        _ => first.to_string(),
    }
}

/// One rename moves the whole set: it is in the work folder or in `processed`/`failed`,
/// never split between them.
fn move_work(client: &Client, work: &Path, to: &str, claimed: u64) -> Result<PathBuf, WatchError> {
    let root = client.dir.join(to);
    fs::create_dir_all(&root).map_err(io_err("creating", &root))?;
    let stamp = folder_time(SystemTime::UNIX_EPOCH + Duration::from_secs(claimed));
    let dest = first_free(|n| {
        if n == 1 {
            root.join(&stamp)
        } else {
            root.join(format!("{stamp}-{n}"))
        }
    });
    fs::rename(work, &dest).map_err(io_err("moving", work))?;
    let _ = fs::remove_dir(client.dir.join(WORK_DIR)); // only if empty: tidy, not required
    Ok(dest)
}

/// Finish or redo every set a previous process left in the client's work folder.
pub fn recover(client: &Client, runner: &Runner) -> Result<Vec<SetResult>, WatchError> {
    let root = client.dir.join(WORK_DIR);
    let mut works: Vec<PathBuf> = match fs::read_dir(&root) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("reading", &root)(e)),
    };
    works.sort();
    let mut results = Vec::new();
    for work in works {
        if runner.stop.load(Ordering::SeqCst) {
            break;
        }
        let result = recover_one(client, &work, runner)?;
        let abandoned = matches!(result, Some(SetResult::Abandoned));
        results.extend(result);
        if abandoned {
            break;
        }
    }
    let _ = fs::remove_dir(&root);
    Ok(results)
}

fn recover_one(
    client: &Client,
    work: &Path,
    runner: &Runner,
) -> Result<Option<SetResult>, WatchError> {
    let mut journal = match Journal::read(work) {
        Ok(j) => j,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Killed between creating the folder and writing the journal: nothing was moved
            // yet (files move only after the journal is written).
            let _ = fs::remove_file(work.join(format!("{JOURNAL}.tmp")));
            if fs::remove_dir(work).is_err() {
                log(
                    &client.name,
                    "left",
                    format_args!(
                        "{} has no journal but is not empty; left alone for a person to look at",
                        work.display()
                    ),
                );
            }
            return Ok(None);
        }
        Err(e) => return Err(io_err("reading the journal in", work)(e)),
    };
    remove_stale_temp(client, &journal.id);
    log(
        &client.name,
        "recover",
        format_args!(
            "set {} left by an earlier run ({:?})",
            journal.id, journal.state
        ),
    );
    if let State::Output(name) = &journal.state {
        let staged = staged_path(client, &journal.id);
        if staged.exists() || client.out_dir.join(name).exists() {
            return finish_output(client, work, &journal, runner).map(Some);
        }
        // No workbook to be found after all: run again.
        journal.state = State::Claimed;
        journal
            .write(work)
            .map_err(io_err("writing the journal in", work))?;
    }
    // Finish a claim that was cut short: files still in the client folder, unchanged, move in.
    let mut missing = Vec::new();
    for f in &journal.files {
        if work.join(&f.name).exists() {
            continue;
        }
        let outside = client.dir.join(&f.name);
        match FileStamp::of(&outside, f.name.clone()) {
            Ok(now) if now == *f => {
                fs::rename(&outside, work.join(&f.name)).map_err(io_err("moving", &outside))?;
            }
            _ => missing.push(f.name.clone()),
        }
    }
    if !missing.is_empty() {
        let error = format!(
            "after an interrupted run, these files of the set were no longer where linkgap left them: {}",
            missing.join(", ")
        );
        return finish_failed(client, work, &journal, &error, runner).map(Some);
    }
    let claimed = Claimed {
        work: work.to_path_buf(),
        journal,
    };
    run_claimed(client, claimed, runner).map(Some)
}

/// The workbook writer's temporary files (`.<name>.<pid>.tmp`) of a killed run.
fn remove_stale_temp(client: &Client, id: &str) {
    let prefix = format!("..linkgap-{id}.xlsx.");
    let Ok(entries) = fs::read_dir(&client.out_dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        // Exactly the writer's spelling, so a case-sensitive match is right.
        if name.starts_with(&prefix) && name.rsplit('.').next() == Some("tmp") {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_round_trips() {
        let dir = std::env::temp_dir().join(format!("linkgap-journal-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let journal = Journal {
            id: "00ff".into(),
            claimed: 1_700_000_000,
            state: State::Output("acme-2026-11-20.xlsx".into()),
            rejected: 3,
            files: vec![FileStamp {
                name: "all inlinks (1).csv".into(),
                size: 12,
                modified: 1_700_000_000_123_456_789,
            }],
        };
        journal.write(&dir).unwrap();
        let back = Journal::read(&dir).unwrap();
        assert_eq!(back.state, journal.state);
        assert_eq!(back.files, journal.files);
        assert_eq!(back.claimed, journal.claimed);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn set_ids_follow_the_files() {
        let a = FileStamp {
            name: "a.csv".into(),
            size: 1,
            modified: 2,
        };
        let mut b = a.clone();
        assert_eq!(
            set_id(std::slice::from_ref(&a)),
            set_id(std::slice::from_ref(&b))
        );
        b.size = 3;
        assert_ne!(set_id(&[a]), set_id(&[b]));
    }
}
