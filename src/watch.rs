//! `linkgap watch`: an inbox of client folders. It owns the loop (which folders to look at,
//! when a set has settled, when to stop), the log lines and the options; the life of one set
//! (claim, run, finish, recover) is in [`set`], the status file in [`status`].
//!
//! File-system events (notify) wake the loop as soon as a file lands; polling every
//! `--poll-interval` always runs too, because network shares and synced folders often send no
//! events. `--mode auto` uses events when the system can watch the inbox, `poll` never does.

pub mod crash;
pub mod layout;
pub mod set;
pub mod status;

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant, SystemTime};

use crate::cli::{WatchArgs, WatchMode};
pub use crash::CrashPoint;
use layout::FileStamp;
use set::SetResult;

/// Why watching cannot go on.
#[derive(Debug)]
pub enum WatchError {
    /// A file operation failed.
    Io {
        /// What was being done, e.g. "moving".
        action: String,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The options cannot work.
    Usage(String),
}

impl fmt::Display for WatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WatchError::Io {
                action,
                path,
                source,
            } => write!(f, "{action} {}: {source}", path.display()),
            WatchError::Usage(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WatchError::Io { source, .. } => Some(source),
            WatchError::Usage(_) => None,
        }
    }
}

/// `map_err` helper: an I/O error with what was being done to which path.
fn io_err(action: &str, path: &Path) -> impl FnOnce(io::Error) -> WatchError {
    let (action, path) = (action.to_string(), path.to_path_buf());
    move |source| WatchError::Io {
        action,
        path,
        source,
    }
}

/// The validated options of `linkgap watch`.
#[derive(Debug, Clone)]
pub struct Options {
    /// Client folders live here.
    pub inbox: PathBuf,
    /// Workbooks go to `outbox/<client>/`.
    pub outbox: PathBuf,
    /// How long a set's files must stay unchanged.
    pub settle: Duration,
    /// Time between looks.
    pub poll_interval: Duration,
    /// Events, polling or the best available.
    pub mode: WatchMode,
    /// Exit when nothing is left to do.
    pub once: bool,
    /// Test hook: sleep after claiming a set.
    pub pause_after_claim: Option<Duration>,
    /// Test hook: abort at this point of a set's life.
    pub crash_at: Option<CrashPoint>,
}

impl Options {
    /// Check the command-line options.
    pub fn from_args(args: &WatchArgs) -> Result<Options, WatchError> {
        if !args.inbox.is_dir() {
            return Err(WatchError::Usage(format!(
                "{}: the inbox is not a folder",
                args.inbox.display()
            )));
        }
        let outbox = args
            .out
            .clone()
            .ok_or_else(|| WatchError::Usage("--out OUTBOX is required".into()))?;
        fs::create_dir_all(&outbox).map_err(io_err("creating", &outbox))?;
        if args.poll_interval.is_zero() {
            return Err(WatchError::Usage(
                "--poll-interval must be more than 0 seconds".into(),
            ));
        }
        Ok(Options {
            inbox: args.inbox.clone(),
            outbox,
            settle: args.settle,
            poll_interval: args.poll_interval,
            mode: args.mode,
            once: args.once,
            pause_after_claim: args.pause_after_claim,
            crash_at: args.crash_at,
        })
    }
}

/// A client: its inbox folder and its outbox folder.
#[derive(Debug, Clone)]
pub struct Client {
    /// The folder's name: names the outbox folder and the workbooks.
    pub name: String,
    /// `INBOX/<client>/`.
    pub dir: PathBuf,
    /// `OUTBOX/<client>/`.
    pub out_dir: PathBuf,
}

impl Client {
    /// The client `name` of an inbox and outbox.
    pub fn new(inbox: &Path, outbox: &Path, name: &str) -> Client {
        Client {
            name: name.to_string(),
            dir: inbox.join(name),
            out_dir: outbox.join(name),
        }
    }
}

/// What running a set needs besides the set: the stop flag and the test pause.
#[derive(Debug, Clone, Default)]
pub struct Runner {
    /// Set by SIGINT/SIGTERM.
    pub stop: Arc<AtomicBool>,
    /// Test hook: sleep after claiming.
    pub pause_after_claim: Option<Duration>,
    /// Test hook: abort at this point (see [`Runner::crash_point`]).
    pub crash_at: Option<CrashPoint>,
}

impl Runner {
    /// Test hook: die here, without any cleanup, if the tests asked for it.
    pub fn crash_point(&self, point: CrashPoint) {
        if self.crash_at == Some(point) {
            eprintln!("linkgap: test hook: aborting at {point}");
            std::process::abort();
        }
    }

    /// Sleep, waking early on a stop; `false` if stopped.
    pub fn sleep(&self, total: Duration) -> bool {
        self.sleep_or_event(total, None)
    }

    /// Sleep until `total` has passed or a file-system event arrives (the events are drained);
    /// `false` if stopped.
    pub fn sleep_or_event(
        &self,
        total: Duration,
        events: Option<&Receiver<notify::Result<notify::Event>>>,
    ) -> bool {
        let until = Instant::now() + total;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            let step = (until - now).min(Duration::from_millis(50));
            match events {
                Some(rx) => {
                    if rx.recv_timeout(step).is_ok_and(|e| is_change(&e)) {
                        // A burst of events (a copy in progress) is one wake-up.
                        while rx.try_recv().is_ok() {}
                        return !self.stop.load(Ordering::SeqCst);
                    }
                }
                None => std::thread::sleep(step),
            }
        }
    }
}

/// Whether an event means a folder changed: created, written, closed after writing, renamed
/// or removed. Opening, reading and closing a file unwritten, and access-time updates, are the
/// watcher's own scans: waking on them made it spin (each look caused the next wake-up).
/// A watch error wakes the loop: a look is the safe response.
pub fn is_change(event: &notify::Result<notify::Event>) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
    let Ok(event) = event else { return true };
    matches!(
        event.kind,
        EventKind::Access(AccessKind::Close(AccessMode::Write))
    ) || !matches!(
        event.kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))
    )
}

/// Counts of a watch session.
#[derive(Debug, Default, Clone, Copy)]
pub struct Summary {
    /// Sets that produced a workbook.
    pub done: usize,
    /// Sets moved to `failed/`.
    pub failed: usize,
    /// Client folders that could not be looked at or recovered (a folder the watcher cannot
    /// write to, a share gone away): logged, and with `--once` an exit code of 2.
    pub errors: usize,
}

/// One log line on stderr: time, client, event, detail.
pub fn log(client: &str, event: &str, detail: impl fmt::Display) {
    let client = if client.contains(char::is_whitespace) {
        format!("{client:?}")
    } else {
        client.to_string()
    };
    eprintln!(
        "{} client={client} event={event} {detail}",
        iso_time(SystemTime::now())
    );
}

/// `2026-11-20T09:30:05Z`.
pub fn iso_time(t: SystemTime) -> String {
    let (date, hm, s) = split_time(t);
    format!("{date}T{hm}:{s:02}Z")
}

/// `2026-11-20T09-30-05Z`: a timestamp that is a valid folder name on Windows too.
pub fn folder_time(t: SystemTime) -> String {
    let (date, hm, s) = split_time(t);
    format!("{date}T{}-{s:02}Z", hm.replace(':', "-"))
}

fn split_time(t: SystemTime) -> (String, String, u64) {
    // `format_time` gives `YYYY-MM-DD HH:MM UTC`; seconds are added here.
    let text = crate::dates::format_time(t);
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (text[..10].to_string(), text[11..16].to_string(), secs % 60)
}

/// The `--status` table.
pub fn status_report(inbox: &Path) -> Result<String, WatchError> {
    status::report(inbox).map_err(io_err("reading", inbox))
}

/// The client's newest workbook (by modification time), whose reviewed Queue a new run
/// carries forward as `--previous`. Staged (hidden) workbooks are not candidates.
pub fn previous_workbook(client: &Client) -> Option<PathBuf> {
    fs::read_dir(&client.out_dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && name.to_ascii_lowercase().ends_with(".xlsx")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, path)| path)
}

/// What the loop knows of one client folder between looks.
#[derive(Debug)]
struct Tracker {
    files: Vec<FileStamp>,
    since: Instant,
    /// This snapshot was looked at and is not a complete set: wait for a change.
    judged: bool,
}

/// What one look at a client folder found.
enum Look {
    /// Nothing to do until something changes.
    Idle,
    /// Files still settling, or just processed: look again.
    Busy,
    /// Stopped in the middle of a set.
    Stopped,
}

/// The lock file that keeps a second watcher off an inbox.
pub const LOCK_FILE: &str = ".linkgap-watch.lock";

/// Take the inbox's lock, so two watchers (a service and a forgotten terminal, or two cron
/// runs that overlap) never claim the same set. The operating system drops the lock when the
/// process ends, however it ends, so a crash leaves nothing stale behind. Where the lock
/// cannot be taken at all (a read-only inbox root, a file system without locks), say so and go
/// on unlocked, as before there was a lock.
fn lock_inbox(inbox: &Path) -> Result<Option<fs::File>, WatchError> {
    let path = inbox.join(LOCK_FILE);
    let unlocked = |why: &dyn fmt::Display| {
        log(
            "-",
            "lock",
            format_args!(
                "cannot lock {} ({why}); make sure only one watcher runs on this inbox",
                path.display()
            ),
        );
        Ok(None)
    };
    let opened = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path);
    // Another user's lock file, or a read-only folder: a lock needs no write access.
    let (mut file, writable) = match opened {
        Ok(f) => (f, true),
        Err(e) => match fs::File::open(&path) {
            Ok(f) => (f, false),
            Err(_) => return unlocked(&e),
        },
    };
    match file.try_lock() {
        Ok(()) => {
            use std::io::Write as _;
            if writable {
                // For a person wondering who holds the inbox; the lock itself is the OS's.
                let _ = file.set_len(0);
                let _ = writeln!(file, "pid {}", std::process::id());
            }
            Ok(Some(file))
        }
        Err(fs::TryLockError::WouldBlock) => {
            // Windows locks are mandatory: there the holder's note cannot be read.
            let holder = fs::read_to_string(&path)
                .ok()
                .map(|h| format!(" ({})", h.trim()))
                .filter(|h| h.len() > 3)
                .unwrap_or_default();
            Err(WatchError::Usage(format!(
                "another linkgap watch is already watching {}{holder}; stop it first, or let it finish (with --once from a scheduler, this run has nothing to do)",
                inbox.display(),
            )))
        }
        Err(fs::TryLockError::Error(e)) => unlocked(&e),
    }
}

/// Watch until stopped (SIGINT/SIGTERM), or with `once` until nothing is left to do.
pub fn watch(options: &Options) -> Result<Summary, WatchError> {
    let _lock = lock_inbox(&options.inbox)?;
    let runner = Runner {
        stop: Arc::new(AtomicBool::new(false)),
        pause_after_claim: options.pause_after_claim,
        crash_at: options.crash_at,
    };
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&runner.stop))
            .map_err(|e| WatchError::Usage(format!("cannot listen for stop signals: {e}")))?;
    }
    // Events make a dropped export visible at once; the polling loop stays as the safety net.
    let (events_tx, events_rx) = mpsc::channel();
    let watcher = match options.mode {
        WatchMode::Poll => None,
        WatchMode::Auto | WatchMode::Events => {
            let started = notify::recommended_watcher(events_tx).and_then(|mut w| {
                notify::Watcher::watch(&mut w, &options.inbox, notify::RecursiveMode::Recursive)?;
                Ok(w)
            });
            match started {
                Ok(w) => Some(w),
                Err(e) if options.mode == WatchMode::Events => {
                    return Err(WatchError::Usage(format!(
                        "--mode events: cannot watch {}: {e}",
                        options.inbox.display()
                    )));
                }
                Err(e) => {
                    log(
                        "-",
                        "events",
                        format_args!("no file-system events ({e}); polling only"),
                    );
                    None
                }
            }
        }
    };
    let events = watcher.as_ref().map(|_| &events_rx);
    log(
        "-",
        "start",
        format_args!(
            "inbox {}, outbox {}, settle {} s, look every {} s ({}){}",
            options.inbox.display(),
            options.outbox.display(),
            options.settle.as_secs_f64(),
            options.poll_interval.as_secs_f64(),
            if events.is_some() {
                "file-system events and polling"
            } else {
                "polling"
            },
            if options.once { ", once" } else { "" }
        ),
    );
    let mut summary = Summary::default();
    for client in clients(options)? {
        let results = match set::recover(&client, &runner) {
            Ok(r) => r,
            Err(e) => {
                log(&client.name, "error", format_args!("recovering: {e}"));
                summary.errors += 1;
                continue;
            }
        };
        for result in results {
            if tally(&client, &result, &mut summary) {
                return Ok(summary);
            }
        }
    }
    let mut trackers: BTreeMap<String, Tracker> = BTreeMap::new();
    loop {
        if runner.stop.load(Ordering::SeqCst) {
            log("-", "stop", "stop signal: no set in progress; exiting");
            return Ok(summary);
        }
        let mut busy = false;
        let list = match clients(options) {
            Ok(list) => list,
            Err(e) if !options.once => {
                // A network share that went away comes back; keep looking.
                log("-", "error", e);
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        trackers.retain(|name, _| list.iter().any(|c| &c.name == name));
        for client in &list {
            match look(client, &mut trackers, options, &runner, &mut summary) {
                Ok(Look::Idle) => {}
                Ok(Look::Busy) => busy = true,
                Ok(Look::Stopped) => return Ok(summary),
                Err(e) => {
                    log(&client.name, "error", e);
                    summary.errors += 1;
                }
            }
        }
        if options.once && !busy {
            log(
                "-",
                "done",
                format_args!(
                    "nothing left to do: {} workbook(s) written, {} set(s) failed, {} folder error(s)",
                    summary.done, summary.failed, summary.errors
                ),
            );
            return Ok(summary);
        }
        // A client whose files are still settling needs another look after the settle time even
        // if no event comes; otherwise an event or the poll interval wakes the loop.
        let wait = if busy {
            options
                .poll_interval
                .min(options.settle.max(Duration::from_millis(100)))
        } else {
            options.poll_interval
        };
        if !runner.sleep_or_event(wait, events) {
            log("-", "stop", "stop signal: no set in progress; exiting");
            return Ok(summary);
        }
    }
}

/// The client folders of the inbox (hidden folders are not clients).
fn clients(options: &Options) -> Result<Vec<Client>, WatchError> {
    let mut names: Vec<String> = fs::read_dir(&options.inbox)
        .map_err(io_err("reading", &options.inbox))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    Ok(names
        .iter()
        .map(|n| Client::new(&options.inbox, &options.outbox, n))
        .collect())
}

/// Log a set's end and count it. `true` when the loop must stop (the set was abandoned).
fn tally(client: &Client, result: &SetResult, summary: &mut Summary) -> bool {
    match result {
        SetResult::Done {
            workbook,
            rejected,
            moved_to,
        } => {
            summary.done += 1;
            log(
                &client.name,
                "done",
                format_args!(
                    "wrote {}{}; inputs moved to {}",
                    workbook.display(),
                    if *rejected > 0 {
                        format!(" ({rejected} input rows rejected, see the Rejected Rows sheet)")
                    } else {
                        String::new()
                    },
                    moved_to.display()
                ),
            );
            false
        }
        SetResult::Failed { error, moved_to } => {
            summary.failed += 1;
            let first = set::one_line(error);
            log(
                &client.name,
                "failed",
                format_args!("{first}; inputs and error.txt in {}", moved_to.display()),
            );
            false
        }
        SetResult::Abandoned => {
            log(
                &client.name,
                "stop",
                "stop signal: set abandoned mid-run; it stays claimed and is redone on the next start",
            );
            true
        }
    }
}

/// Look at one client folder: note changes, and once a complete set has settled, claim and
/// process it.
fn look(
    client: &Client,
    trackers: &mut BTreeMap<String, Tracker>,
    options: &Options,
    runner: &Runner,
    summary: &mut Summary,
) -> Result<Look, WatchError> {
    let files = layout::scan(&client.dir).map_err(io_err("reading", &client.dir))?;
    let has_exports = files.iter().any(|f| crate::input::is_export_name(&f.name));
    let tracker = trackers
        .entry(client.name.clone())
        .or_insert_with(|| Tracker {
            files: Vec::new(),
            since: Instant::now(),
            judged: false,
        });
    if tracker.files != files {
        if has_exports && (tracker.judged || tracker.files.is_empty()) {
            log(
                &client.name,
                "seen",
                format_args!(
                    "{} file(s); waiting {:.1} s for them to stop changing",
                    files.len(),
                    options.settle.as_secs_f64()
                ),
            );
        }
        *tracker = Tracker {
            files,
            since: Instant::now(),
            judged: false,
        };
    }
    if !has_exports {
        // A client folder just made can fill before the file-system watch reaches inside it
        // (a new directory's own events start only once it is watched, so files moved in at
        // once can pass unseen): look again after the settle time rather than at the next
        // poll, which may be minutes away. (`--once` looks once: it has no events to miss.)
        return Ok(
            if !options.once && tracker.since.elapsed() < options.settle {
                Look::Busy
            } else {
                Look::Idle
            },
        );
    }
    if tracker.judged {
        return Ok(Look::Idle);
    }
    if tracker.since.elapsed() < options.settle {
        return Ok(Look::Busy);
    }
    let shape = set::shape(&client.dir, &tracker.files);
    if !shape.complete() {
        log(&client.name, "waiting", shape.missing());
        tracker.judged = true;
        return Ok(Look::Idle);
    }
    if !shape.unreadable.is_empty() {
        log(
            &client.name,
            "skipped",
            format_args!(
                "left in place, not part of the set: {}",
                shape.unreadable.join("; ")
            ),
        );
    }
    // Whatever happens next, the folder's next snapshot is a fresh start.
    tracker.files.clear();
    let Some(claimed) = set::claim(client, &shape.members, runner)? else {
        return Ok(Look::Busy); // changed under our feet: settle again
    };
    log(
        &client.name,
        "claimed",
        format_args!(
            "set {} ({}) → {}",
            claimed.journal.id,
            shape
                .members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            claimed.work.display()
        ),
    );
    let result = set::run_claimed(client, claimed, runner)?;
    if tally(client, &result, summary) {
        return Ok(Look::Stopped);
    }
    Ok(Look::Busy)
}
