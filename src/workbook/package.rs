//! A workbook saved in parts: the main workbook (every sheet, with an empty placeholder
//! worksheet where a large part belongs) and one package of its own per large part, written
//! and compressed as the part is filled ([`super::stream`]), on whichever core fills it,
//! then joined into one package by copying their compressed entries.
//!
//! Why: `rust_xlsxwriter` deflates a workbook's parts one after another on one thread, and a
//! large Queue's XML (hundreds of MB at 100,000 pages, gigabytes at a million) made the save
//! the longest stretch of a run with one core idle. A part in a package of its own is the
//! same XML: the formats are registered in the same order in every workbook (so a cell's
//! style number is the same), a constant-memory worksheet writes its strings inline (so it
//! needs no shared-string table), and the part is the second sheet of its package (so,
//! like every sheet but the first, it is not the selected tab). The main workbook's
//! placeholder carries what the workbook itself says about the part: its name, and the
//! defined names of its autofilter and printed header row. The join checks that the styles
//! agree.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek};
use std::path::Path;

use rust_xlsxwriter::XlsxError;
use zip::{ZipArchive, ZipWriter};

/// A saved workbook, opened.
type Archive = ZipArchive<BufReader<File>>;

/// A part's worksheet in its own workbook: the second sheet (the first is an empty sheet
/// that takes the selected tab).
pub(super) const PART_SHEET: usize = 1;

/// The styles every workbook of the package must share.
const STYLES: &str = "xl/styles.xml";

/// Join the main workbook saved at `main` and the parts saved at `parts` (each with the
/// index of its placeholder among the main workbook's worksheets) into one package at `out`.
/// Each part's file is removed once its entries are copied, so the folder holds the
/// workbook's bytes about once, not twice.
pub(super) fn join(main: &Path, parts: &[(usize, &Path)], out: &Path) -> Result<(), XlsxError> {
    let mut main = open(main)?;
    let styles = entry_bytes(&mut main, STYLES)?;
    let mut parts: Vec<(String, Option<Archive>, &Path)> = parts
        .iter()
        .map(|&(index, path)| Ok((sheet_name(index), Some(open(path)?), path)))
        .collect::<Result<_, XlsxError>>()?;
    for (name, part, _) in &mut parts {
        let Some(part) = part else { continue };
        check_part(part, name, &styles)?;
    }
    let mut writer = ZipWriter::new(BufWriter::new(File::create(out)?));
    for i in 0..main.len() {
        let entry = main.by_index_raw(i)?;
        let name = entry.name()?.into_owned();
        let Some((_, part, path)) = parts.iter_mut().find(|(n, _, _)| *n == name) else {
            writer.raw_copy_file(entry)?;
            continue;
        };
        drop(entry);
        let Some(mut archive) = part.take() else {
            continue;
        };
        let sheet = archive.by_name_raw(sheet_name(PART_SHEET).as_bytes())?;
        writer.raw_copy_file_rename(sheet, &name)?;
        // The part's hyperlinks, if it has any.
        let rels = rels_name(&sheet_name(PART_SHEET));
        if archive.index_for_name(&rels).is_some() {
            let rels_entry = archive.by_name_raw(rels.as_bytes())?;
            writer.raw_copy_file_rename(rels_entry, rels_name(&name))?;
        }
        drop(archive);
        let _ = std::fs::remove_file(path);
    }
    writer.finish()?;
    Ok(())
}

/// A part's workbook holds nothing the join would lose: the same styles as the main
/// workbook, and besides its worksheet and the worksheet's hyperlinks only what every
/// workbook has (which the main workbook's copy stands for). A comment, table or image in a
/// part would need files and content types of its own.
fn check_part(part: &mut Archive, name: &str, styles: &[u8]) -> Result<(), XlsxError> {
    let fail = |what: String| internal(&format!("the workbook part written for {name} {what}"));
    if entry_bytes(part, STYLES)? != styles {
        return fail("has styles of its own".into());
    }
    let sheet = sheet_name(PART_SHEET);
    let known = |entry: &str| {
        !entry.starts_with("xl/")
            || entry.starts_with("xl/theme/")
            || [
                "xl/workbook.xml",
                STYLES,
                "xl/sharedStrings.xml",
                "xl/_rels/workbook.xml.rels",
                "xl/worksheets/sheet1.xml",
                &sheet,
                &rels_name(&sheet),
            ]
            .contains(&entry)
    };
    for entry in part.file_names() {
        let entry = entry?;
        if !known(&entry) {
            return fail(format!("has {entry}, which the package would lose"));
        }
    }
    Ok(())
}

fn open(path: &Path) -> Result<Archive, XlsxError> {
    Ok(ZipArchive::new(BufReader::new(File::open(path)?))?)
}

/// An entry's bytes, uncompressed (a small one: the styles, a frame's worksheet).
fn entry_bytes<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    name: &str,
) -> Result<Vec<u8>, XlsxError> {
    let mut bytes = Vec::new();
    archive.by_name(name)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// An entry's text (a worksheet's XML).
pub(super) fn entry_text<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    name: &str,
) -> Result<String, XlsxError> {
    String::from_utf8(entry_bytes(archive, name)?)
        .or_else(|_| internal(&format!("{name} is not UTF-8")))
}

/// An error that is linkgap's own, not the input's or the disk's.
pub(super) fn internal<T>(what: &str) -> Result<T, XlsxError> {
    Err(XlsxError::ParameterError(format!("internal error: {what}")))
}

/// The package entry of the worksheet at `index` (0-based) among a workbook's worksheets.
pub(super) fn sheet_name(index: usize) -> String {
    format!("xl/worksheets/sheet{}.xml", index + 1)
}

/// The relationships (hyperlink targets) of the worksheet entry `sheet`.
fn rels_name(sheet: &str) -> String {
    let file = sheet.rsplit('/').next().unwrap_or(sheet);
    format!("xl/worksheets/_rels/{file}.rels")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_follow_the_worksheet_order() {
        assert_eq!(sheet_name(0), "xl/worksheets/sheet1.xml");
        assert_eq!(sheet_name(2), "xl/worksheets/sheet3.xml");
        assert_eq!(
            rels_name("xl/worksheets/sheet3.xml"),
            "xl/worksheets/_rels/sheet3.xml.rels"
        );
    }
}
