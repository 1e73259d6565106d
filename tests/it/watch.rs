//! `linkgap watch`: the real binary on an inbox of client folders, with settle and poll
//! intervals of tenths of a second. Every wait has a deadline; no test sleeps longer than
//! the behaviour it checks needs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use linkgap::synthetic::{Spec, write_exports};

use crate::util::*;

const SETTLE: &str = "0.3";
const POLL: &str = "0.05";
/// The synthetic exports' Crawl Timestamp.
const CRAWL_DATE: &str = "2026-11-20";

fn linkgap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linkgap"))
}

/// `watch in --out out` with test intervals and `extra`, stderr to `log`.
/// (`--settle` in `extra` replaces the test default.)
fn watch_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["watch", "in", "--out", "out", "--poll-interval", POLL];
    if !extra.contains(&"--settle") {
        args.extend(["--settle", SETTLE]);
    }
    args.extend_from_slice(extra);
    args
}

fn spawn(w: &Workdir, extra: &[&str], log: &str) -> Child {
    linkgap()
        .args(watch_args(extra))
        .current_dir(&w.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(w.path(log)).unwrap())
        .spawn()
        .unwrap()
}

fn wait(child: &mut Child, secs: u64) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("linkgap watch did not exit within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `watch --once`, bounded; returns the exit status and the log.
fn once(w: &Workdir, extra: &[&str]) -> (ExitStatus, String) {
    let log = "once.log";
    let mut args = vec!["--once"];
    args.extend_from_slice(extra);
    let mut child = spawn(w, &args, log);
    let status = wait(&mut child, 30);
    (status, fs::read_to_string(w.path(log)).unwrap())
}

fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A complete export set for `client`, written elsewhere and moved in (as a finished copy).
fn drop_set(w: &Workdir, client: &str) {
    let staging = w.path(&format!("staging-{client}"));
    write_exports(&staging, &Spec::default()).unwrap();
    let dir = w.path(&format!("in/{client}"));
    fs::create_dir_all(&dir).unwrap();
    for name in names(&staging) {
        fs::rename(staging.join(&name), dir.join(&name)).unwrap();
    }
    fs::remove_dir(staging).unwrap();
}

/// A client's set with page text (`custom_extraction_all.csv`) too, moved in.
fn drop_set_with_page_text(w: &Workdir, client: &str) {
    let staging = w.path(&format!("staging-{client}"));
    let spec = Spec {
        page_text: true,
        messy: false,
        pages: 60,
        ..Spec::default()
    };
    write_exports(&staging, &spec).unwrap();
    let dir = w.path(&format!("in/{client}"));
    fs::create_dir_all(&dir).unwrap();
    for name in names(&staging) {
        fs::rename(staging.join(&name), dir.join(&name)).unwrap();
    }
    fs::remove_dir(staging).unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

const EXPORTS: [&str; 3] = [
    "all_inlinks.csv",
    "custom_javascript_all.csv",
    "internal_all.csv",
];

/// Visible files only: the journal travels with the set as a hidden file.
fn visible(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .collect()
}

fn run_value(workbook: &Path, key: &str) -> String {
    records(workbook, "Run")
        .into_iter()
        .find(|r| r["Key"] == key)
        .unwrap_or_else(|| panic!("no {key} in the Run sheet"))["Value"]
        .clone()
}

/// The end state of a client whose one set was processed once: one workbook, the inputs in
/// one processed folder, nothing left claimed or staged.
fn assert_processed_once(w: &Workdir, client: &str) -> PathBuf {
    let out = w.path(&format!("out/{client}"));
    assert_eq!(
        names(&out),
        vec![format!("{client}-{CRAWL_DATE}.xlsx")],
        "exactly one workbook, no staged or temporary files"
    );
    let inbox = w.path(&format!("in/{client}"));
    let processed = subdirs(&inbox.join("processed"));
    assert_eq!(processed.len(), 1, "{processed:?}");
    assert_eq!(visible(&processed[0]), EXPORTS);
    assert!(
        !inbox.join(".linkgap-work").exists(),
        "nothing left claimed"
    );
    assert!(!inbox.join("failed").exists());
    for e in EXPORTS {
        assert!(!inbox.join(e).exists(), "{e} left in the inbox");
    }
    out.join(format!("{client}-{CRAWL_DATE}.xlsx"))
}

#[test]
fn two_clients_at_once_with_their_own_settings() {
    let w = Workdir::new("watch-two");
    drop_set(&w, "acme");
    drop_set(&w, "beta");
    w.write("in/acme/linkgap.toml", "client = \"Acme Ltd\"\ntop_k = 2\n");
    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    let acme = assert_processed_once(&w, "acme");
    let beta = assert_processed_once(&w, "beta");
    assert_eq!(run_value(&acme, "Top k"), "2");
    assert_eq!(run_value(&acme, "Client"), "Acme Ltd");
    assert_eq!(run_value(&beta, "Top k"), "5");
    assert_eq!(run_value(&beta, "Client"), "beta");
    assert!(!records(&acme, "Opportunities").is_empty());
    assert!(w.path("in/acme/linkgap.toml").exists(), "settings stay");
    for event in ["event=claimed", "event=done wrote"] {
        assert_eq!(log.matches(&format!("{event} ")).count(), 2, "{log}");
    }

    // A second crawl of the same date gets a suffix; the first workbook is kept.
    drop_set(&w, "acme");
    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    assert_eq!(
        names(&w.path("out/acme")),
        vec![
            format!("acme-{CRAWL_DATE}-2.xlsx"),
            format!("acme-{CRAWL_DATE}.xlsx")
        ]
    );
    assert_eq!(subdirs(&w.path("in/acme/processed")).len(), 2);
    // The first workbook was passed as --previous: its review decisions carry forward.
    let names_of = |n: &str| sheet_names(&w.path(&format!("out/acme/{n}")));
    assert!(!names_of(&format!("acme-{CRAWL_DATE}.xlsx")).contains(&"History".to_string()));
    assert!(names_of(&format!("acme-{CRAWL_DATE}-2.xlsx")).contains(&"History".to_string()));

    let status = w.run(&["watch", "--status", "in"]);
    assert!(status.status.success());
    let table = String::from_utf8(status.stdout).unwrap();
    let acme_line = table.lines().find(|l| l.starts_with("acme")).unwrap();
    assert!(
        acme_line.contains(" ok ") && acme_line.contains(&format!("acme-{CRAWL_DATE}-2.xlsx")),
        "{table}"
    );
    assert!(table.lines().any(|l| l.starts_with("beta")), "{table}");
}

#[test]
fn a_file_copied_in_slowly_is_not_read_before_it_settles() {
    let w = Workdir::new("watch-slow");
    let staging = w.path("staging");
    let exports = write_exports(&staging, &Spec::default()).unwrap();
    let dir = w.path("in/slow");
    fs::create_dir_all(&dir).unwrap();
    fs::copy(&exports.embeddings, dir.join(EXPORTS[1])).unwrap();
    fs::copy(&exports.internal, dir.join(EXPORTS[2])).unwrap();
    let inlinks = fs::read(&exports.inlinks).unwrap();

    // Settle 0.6 s; chunks every 0.1 s: each gap is far shorter than the settle period, the
    // whole copy longer.
    let mut child = spawn(&w, &["--settle", "0.6"], "watch.log");
    wait_for("the start line", 5, || {
        fs::read_to_string(w.path("watch.log")).is_ok_and(|l| l.contains("event=start"))
    });
    let target = dir.join(EXPORTS[0]);
    let chunk = inlinks.len().div_ceil(10);
    for part in inlinks.chunks(chunk) {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&target)
            .unwrap();
        f.write_all(part).unwrap();
        drop(f);
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the watcher is running"
        );
        assert!(target.exists(), "claimed while still being copied");
        assert!(
            !dir.join(".linkgap-work").exists(),
            "claimed while still being copied"
        );
    }
    let workbook = w.path(&format!("out/slow/slow-{CRAWL_DATE}.xlsx"));
    wait_for("the workbook", 15, || workbook.exists());
    wait_for("the move to processed", 5, || {
        !dir.join(".linkgap-work").exists()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let processed = subdirs(&dir.join("processed"));
    assert_eq!(processed.len(), 1);
    assert_eq!(
        fs::read(processed[0].join(EXPORTS[0])).unwrap(),
        inlinks,
        "the whole file was claimed"
    );
    let log = fs::read_to_string(w.path("watch.log")).unwrap();
    assert_eq!(log.matches("event=claimed").count(), 1, "{log}");
}

#[test]
fn a_corrupt_set_fails_alone_with_a_readable_error() {
    let w = Workdir::new("watch-corrupt");
    drop_set(&w, "good");
    drop_set(&w, "bad");
    // The embeddings header is right, every vector cell is garbage.
    let rows: Vec<Vec<String>> = (0..5)
        .map(|i| {
            emb_row(
                &format!("https://www.example.com/p{i}"),
                "#REF! not a vector",
            )
        })
        .collect();
    w.write_sf_csv("in/bad/custom_javascript_all.csv", EMB_HEADER, &rows);
    // A settings file with a typo fails its client's set, naming the key.
    drop_set(&w, "typo");
    w.write("in/typo/linkgap.toml", "top_k = 3\nnear_dupe = 0.9\n");

    let (status, log) = once(&w, &[]);
    assert_eq!(
        status.code(),
        Some(2),
        "failed sets give a non-zero exit: {log}"
    );
    assert_processed_once(&w, "good");

    for (client, expect) in [("bad", "no valid vectors"), ("typo", "near_dupe")] {
        let inbox = w.path(&format!("in/{client}"));
        let failed = subdirs(&inbox.join("failed"));
        assert_eq!(failed.len(), 1, "{client}: {log}");
        let mut files = visible(&failed[0]);
        files.retain(|f| f != "error.txt");
        assert_eq!(files, EXPORTS, "{client}: inputs kept");
        let error = fs::read_to_string(failed[0].join("error.txt")).unwrap();
        assert!(error.contains(expect), "{client}: {error}");
        assert!(error.contains("move the export files back"), "{error}");
        assert!(visible(&w.path(&format!("out/{client}"))).is_empty());
        assert!(!inbox.join(".linkgap-work").exists());
        assert!(
            log.contains(&format!("client={client} event=failed")),
            "{log}"
        );
        let status = fs::read_to_string(inbox.join(".linkgap-status")).unwrap();
        assert!(status.contains("result=failed"), "{status}");
    }
    assert!(w.path("in/typo/linkgap.toml").exists(), "settings stay");
}

#[test]
fn a_set_missing_its_inlinks_waits() {
    let w = Workdir::new("watch-missing");
    drop_set(&w, "half");
    let dir = w.path("in/half");
    fs::rename(dir.join(EXPORTS[0]), w.path("held-back.csv")).unwrap();

    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    assert!(
        log.contains("event=waiting for an All Inlinks export"),
        "{log}"
    );
    assert_eq!(visible(&dir), &EXPORTS[1..], "nothing moved");
    assert!(!dir.join("failed").exists() && !dir.join("processed").exists());
    assert!(visible(&w.path("out/half")).is_empty());

    fs::rename(w.path("held-back.csv"), dir.join(EXPORTS[0])).unwrap();
    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    assert_processed_once(&w, "half");
}

#[cfg(unix)]
fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name}");
}

/// Wait until the watcher has claimed the client's set (its journal exists).
fn wait_claimed(w: &Workdir, client: &str) -> PathBuf {
    let work = w.path(&format!("in/{client}/.linkgap-work"));
    let mut found = None;
    wait_for("the claim", 10, || {
        found = subdirs(&work)
            .into_iter()
            .find(|d| d.join(".linkgap-journal").exists());
        found.is_some()
    });
    found.unwrap()
}

/// Also: the inbox lock turns a second watcher away, and kill -9 leaves no stale lock.
#[cfg(unix)]
#[test]
fn kill_9_during_processing_then_restart() {
    let w = Workdir::new("watch-kill");
    drop_set(&w, "acme");
    let mut child = spawn(&w, &["--pause-after-claim", "30"], "watch.log");
    let work = wait_claimed(&w, "acme");
    // A second watcher on the same inbox (an overlapping cron run) is turned away.
    let (status, log) = once(&w, &[]);
    assert_eq!(status.code(), Some(2), "{log}");
    assert!(
        log.contains("another linkgap watch is already watching"),
        "{log}"
    );
    assert!(!log.contains("event=start"), "{log}");
    signal(&child, "KILL");
    wait(&mut child, 5);
    // Nothing lost: every input is in the claimed set.
    wait_for("the claim to complete", 5, || visible(&work) == EXPORTS);

    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    assert!(log.contains("event=recover"), "{log}");
    assert_processed_once(&w, "acme");
}

/// Abort (as kill -9 does: no cleanup) at every step of a set's life, then restart: each
/// time, no input is lost and exactly one workbook exists.
#[test]
fn a_crash_at_any_step_is_recovered() {
    for point in [
        "claim-partial",
        "run-done",
        "output-chosen",
        "renamed",
        "status-written",
    ] {
        let w = Workdir::new(&format!("watch-crash-{point}"));
        drop_set(&w, "acme");
        let (status, log) = once(&w, &["--crash-at", point]);
        assert!(!status.success(), "{point}: should have crashed: {log}");
        assert!(log.contains(&format!("aborting at {point}")), "{log}");
        let (status, log) = once(&w, &[]);
        assert!(status.success(), "{point}: {log}");
        assert_processed_once(&w, "acme");
        assert_eq!(
            log.matches("event=done wrote").count(),
            1,
            "{point}: one set finished: {log}"
        );
    }
    // And a failing set whose error was written but not yet moved.
    let w = Workdir::new("watch-crash-error");
    drop_set(&w, "bad");
    w.write("in/bad/linkgap.toml", "topk = 3\n");
    let (status, _) = once(&w, &["--crash-at", "error-written"]);
    assert!(!status.success());
    let (status, log) = once(&w, &[]);
    assert_eq!(status.code(), Some(2), "{log}");
    let failed = subdirs(&w.path("in/bad/failed"));
    assert_eq!(failed.len(), 1, "{log}");
    assert!(failed[0].join("error.txt").exists());
    assert!(!w.path("in/bad/.linkgap-work").exists());
}

#[cfg(unix)]
#[test]
fn sigterm_during_processing_exits_cleanly_and_the_set_is_recovered() {
    let w = Workdir::new("watch-term");
    drop_set(&w, "acme");
    let mut child = spawn(&w, &["--pause-after-claim", "30"], "watch.log");
    let work = wait_claimed(&w, "acme");
    wait_for("the claim to complete", 5, || visible(&work) == EXPORTS);
    signal(&child, "TERM");
    let status = wait(&mut child, 5);
    assert!(status.success(), "clean exit: {status:?}");
    let log = fs::read_to_string(w.path("watch.log")).unwrap();
    assert!(log.contains("set abandoned"), "{log}");
    assert_eq!(visible(&work), EXPORTS, "left claimed, recoverable");

    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    assert_processed_once(&w, "acme");

    // Idle: SIGTERM ends the loop at once.
    let mut child = spawn(&w, &[], "idle.log");
    wait_for("the start line", 5, || {
        fs::read_to_string(w.path("idle.log")).is_ok_and(|l| l.contains("event=start"))
    });
    signal(&child, "TERM");
    assert!(wait(&mut child, 5).success());
}

#[test]
fn events_wake_the_watcher_long_before_the_next_poll() {
    let w = Workdir::new("watch-events");
    fs::create_dir_all(w.path("in")).unwrap();
    // A 60-second poll: only a file-system event can get the set processed within seconds.
    let mut child = linkgap()
        .args([
            "watch",
            "in",
            "--out",
            "out",
            "--poll-interval",
            "60",
            "--settle",
            SETTLE,
            "--mode",
            "events",
        ])
        .current_dir(&w.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(w.path("events.log")).unwrap())
        .spawn()
        .unwrap();
    wait_for("the watcher to start", 10, || {
        fs::read_to_string(w.path("events.log")).is_ok_and(|l| l.contains("start"))
    });
    let log = fs::read_to_string(w.path("events.log")).unwrap();
    assert!(log.contains("file-system events and polling"), "{log}");
    drop_set(&w, "acme");
    wait_for("the workbook, woken by an event", 20, || {
        !visible(&w.path("out/acme")).is_empty()
    });
    signal(&child, "TERM");
    assert!(wait(&mut child, 5).success());
    assert_processed_once(&w, "acme");
    // --mode poll never asks for events.
    let (status, log) = once(&w, &["--mode", "poll"]);
    assert!(status.success(), "{log}");
    assert!(log.contains("(polling)"), "{log}");
}

/// CPU seconds (user + system) the process `pid` has used, from /proc.
#[cfg(target_os = "linux")]
fn cpu_seconds(pid: u32) -> f64 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0 // USER_HZ is 100 on Linux
}

/// Waiting costs next to no CPU: with a set settling and with nothing to do, the watcher's own
/// scans (opening files and folders) must not wake it again and again.
#[cfg(target_os = "linux")]
#[test]
fn waiting_costs_next_to_no_cpu() {
    let w = Workdir::new("watch-cpu");
    fs::create_dir_all(w.path("in/empty-client")).unwrap();
    // A file that is not a set: an export alone (no inlinks) keeps the client waiting.
    write_exports(&w.path("staging"), &Spec::default()).unwrap();
    fs::create_dir_all(w.path("in/acme")).unwrap();
    fs::rename(
        w.path("staging/custom_javascript_all.csv"),
        w.path("in/acme/custom_javascript_all.csv"),
    )
    .unwrap();
    let mut child = spawn(&w, &["--settle", "1.5", "--mode", "events"], "cpu.log");
    wait_for("the watcher to start", 10, || {
        fs::read_to_string(w.path("cpu.log")).is_ok_and(|l| l.contains("start"))
    });
    let before = cpu_seconds(child.id());
    // The settle window, then as long again with nothing left to do.
    std::thread::sleep(Duration::from_secs(3));
    let used = cpu_seconds(child.id()) - before;
    signal(&child, "TERM");
    assert!(wait(&mut child, 5).success());
    let log = fs::read_to_string(w.path("cpu.log")).unwrap();
    // A 50 ms poll costs a little; a spinning watcher used a whole core (3 s here).
    assert!(used < 0.5, "{used} CPU seconds in 3 s: {log}");
}

/// `watch --once` that cannot work in a client folder exits 2, so a scheduled job shows it.
#[test]
fn once_exits_2_when_a_client_folder_cannot_be_worked_in() {
    let w = Workdir::new("watch-unwritable");
    drop_set(&w, "acme");
    // In the way of the work folder (as an unwritable folder is, for another user than root).
    fs::write(w.path("in/acme/.linkgap-work"), "not a folder").unwrap();
    let (status, log) = once(&w, &[]);
    assert_eq!(status.code(), Some(2), "{log}");
    assert!(log.contains("error"), "{log}");
    assert!(
        log.lines()
            .last()
            .unwrap()
            .contains("could not be processed"),
        "{log}"
    );
}

/// The page text export in a client folder is part of the set: the workbook's Queue has
/// suggested passages, and the export is filed with the others.
#[test]
fn a_client_folder_with_page_text_gets_passages() {
    let w = Workdir::new("watch-page-text");
    drop_set_with_page_text(&w, "acme");
    let (status, log) = once(&w, &[]);
    assert!(status.success(), "{log}");
    let out = w.path("out/acme");
    let workbook = out.join(names(&out).first().expect("a workbook"));
    let queue = records(&workbook, "Queue");
    assert!(!queue.is_empty());
    let placed = queue
        .iter()
        .filter(|r| !r["Suggested Passage"].is_empty())
        .count();
    assert!(
        placed * 10 >= queue.len() * 8,
        "{placed} of {} rows have a passage",
        queue.len()
    );
    // A passage without an anchor says why; the Summary counts both.
    let anchored = queue
        .iter()
        .filter(|r| !r["Suggested Anchor"].is_empty())
        .count();
    for r in queue.iter().filter(|r| !r["Suggested Passage"].is_empty()) {
        assert_eq!(
            r["Suggested Anchor"].is_empty(),
            r["Passage Note"].starts_with("no anchor:"),
            "{r:?}"
        );
    }
    let summary = records(&workbook, "Summary")
        .into_iter()
        .find(|r| r["Item"] == "Suggested passages")
        .map(|r| r["Value"].clone())
        .expect("the Summary's passage count");
    assert!(
        summary.starts_with(&format!(
            "{placed} of {} Queue rows have a suggested passage",
            queue.len()
        )) && summary.contains(&format!(", {anchored} of them a suggested anchor;")),
        "{summary}"
    );
    let processed = subdirs(&w.path("in/acme/processed"));
    assert!(
        visible(&processed[0]).contains(&"custom_extraction_all.csv".to_string()),
        "{:?}",
        visible(&processed[0])
    );
}
