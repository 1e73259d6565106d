//! Test hook: the points of a set's life where `linkgap watch --crash-at` aborts the process
//! (as a kill -9 would), so tests can check that every one is recovered.

use std::fmt;

use clap::ValueEnum;

/// Where a set's life can be cut short, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CrashPoint {
    /// Some of the set's files moved into the work folder, not all.
    ClaimPartial,
    /// The pipeline finished; nothing recorded yet.
    RunDone,
    /// The workbook's name is in the journal; the staged file is not renamed.
    OutputChosen,
    /// The workbook has its name; the status file is not written.
    Renamed,
    /// The status is written; the inputs are not moved to `processed/`.
    StatusWritten,
    /// A failed set's `error.txt` is written; the inputs are not moved to `failed/`.
    ErrorWritten,
}

impl fmt::Display for CrashPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_possible_value() {
            Some(v) => f.write_str(v.get_name()),
            None => write!(f, "{self:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CrashPoint;
    use clap::ValueEnum;

    #[test]
    fn points_are_named_as_the_option_takes_them() {
        assert_eq!(CrashPoint::ClaimPartial.to_string(), "claim-partial");
        assert_eq!(CrashPoint::ErrorWritten.to_string(), "error-written");
        assert_eq!(
            CrashPoint::from_str("status-written", false),
            Ok(CrashPoint::StatusWritten)
        );
        assert!(CrashPoint::from_str("sometime", false).is_err());
    }
}
