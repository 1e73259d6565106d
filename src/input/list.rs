//! Lists a person writes or saves from a spreadsheet: `--source-list` and
//! `--destination-list` (a URL per line, or in the first column) and `--priority-urls` (URL
//! and weight). Read with the csv crate like the exports, so quoted fields, UTF-16, gzip and
//! XLSX work, with a delimiter sniffed for lists
//! ([`sniff_list_delimiter`](super::source::sniff_list_delimiter)).

use std::ops::ControlFlow;
use std::path::Path;

use super::InputError;
use super::source::Source;

/// Every row of the list at `path`, its cells trimmed (spaces, stray quotes, a byte order
/// mark); blank lines are not rows. A last row cut off inside a quoted field is left out.
pub fn rows(path: &Path) -> Result<Vec<Vec<String>>, InputError> {
    let mut rows = Vec::new();
    Source::open_list(path)?.for_each_row(
        &mut |_, record| {
            rows.push(
                record
                    .iter()
                    .map(|c| {
                        c.trim()
                            .trim_matches('"')
                            .trim_start_matches('\u{FEFF}')
                            .to_string()
                    })
                    .collect(),
            );
            ControlFlow::Continue(())
        },
        &mut |_, _| {},
    )?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(name: &str, bytes: &[u8]) -> Vec<Vec<String>> {
        let dir = std::env::temp_dir().join(format!("linkgap-list-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let rows = rows(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        rows
    }

    #[test]
    fn quoted_commas_stay_in_their_cell() {
        let rows = rows_of("quoted.csv", b"URL,Weight\n\"https://e.com/a,b\",3\n");
        assert_eq!(rows[1], ["https://e.com/a,b", "3"]);
    }

    #[test]
    fn semicolon_lists_keep_decimal_commas() {
        let rows = rows_of("semicolon.csv", b"https://e.com/a;1,5\nhttps://e.com/b;2\n");
        assert_eq!(rows, [["https://e.com/a", "1,5"], ["https://e.com/b", "2"]]);
    }

    #[test]
    fn utf16_lists_are_decoded() {
        let text = "URL\thttps://e.com/\nhttps://e.com/a\t2\n";
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let rows = rows_of("utf16.txt", &bytes);
        assert_eq!(rows[1], ["https://e.com/a", "2"]);
    }

    #[test]
    fn one_url_per_line_with_blank_lines() {
        let rows = rows_of(
            "plain.txt",
            b"\xEF\xBB\xBFhttps://e.com/a\n\n  https://e.com/b  \n",
        );
        assert_eq!(rows, [["https://e.com/a"], ["https://e.com/b"]]);
    }
}
