//! Progress on stderr: one bar or spinner per stage that can take more than a second, with
//! rate and ETA; hidden when stderr is not a terminal or with `--quiet`.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Creates progress indicators for the stages of a run.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    quiet: bool,
}

impl Progress {
    /// Progress shown unless `quiet`.
    pub fn new(quiet: bool) -> Progress {
        Progress { quiet }
    }

    fn bar(self, bar: ProgressBar) -> ProgressBar {
        if self.quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(120));
        }
        bar
    }

    /// A spinner counting rows for a stage of unknown length.
    pub fn rows(self, stage: &str) -> ProgressBar {
        let bar = ProgressBar::no_length().with_message(stage.to_string());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg}: {human_pos} rows ({per_sec}, {elapsed})",
            )
            .expect("valid template"),
        );
        self.bar(bar)
    }

    /// A bar for a stage of known length.
    pub fn items(self, stage: &str, len: u64) -> ProgressBar {
        let bar = ProgressBar::new(len).with_message(stage.to_string());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg}: {wide_bar} {human_pos}/{human_len} ({per_sec}, ETA {eta})",
            )
            .expect("valid template"),
        );
        self.bar(bar)
    }
}
