//! Calendar dates without a date library: the few conversions linkgap needs (run time,
//! file times, Excel date serials typed by reviewers), all in UTC.

use std::time::SystemTime;

/// `(year, month, day)` of a day count since 1970-01-01 (Howard Hinnant's civil-from-days).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DD HH:MM UTC`.
pub fn format_time(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// `YYYY-MM-DD` of a time.
pub fn format_date(t: SystemTime) -> String {
    format_time(t).chars().take(10).collect()
}

/// Today's date, `YYYY-MM-DD`.
pub fn today() -> String {
    format_date(SystemTime::now())
}

/// An Excel date serial (days since 1899-12-30 in the 1900 system) as `YYYY-MM-DD`, with
/// ` HH:MM` when it has a time of day.
pub fn excel_serial(serial: f64, is_1904: bool) -> String {
    let base = if is_1904 { -24_107 } else { -25_569 }; // 1904-01-01 / 1899-12-30 from 1970-01-01
    let days = serial.floor() as i64;
    let (y, m, d) = civil_from_days(days + base);
    let minutes = ((serial - serial.floor()) * 1440.0).round() as i64;
    if minutes == 0 || minutes == 1440 {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}",
            minutes / 60,
            minutes % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_format_without_a_library() {
        assert_eq!(format_time(SystemTime::UNIX_EPOCH), "1970-01-01 00:00 UTC");
        assert_eq!(
            format_time(SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000)),
            "2026-11-30 00:53 UTC"
        );
        assert_eq!(
            format_time(SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29 00:00 UTC"
        );
        assert_eq!(excel_serial(25_569.0, false), "1970-01-01");
        assert_eq!(excel_serial(46_357.5, false), "2026-12-01 12:00");
    }
}
