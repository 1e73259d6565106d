//! A workbook saved in parts: the main workbook (every sheet, with an empty placeholder
//! worksheet where a large part belongs) and one workbook of its own per large part, each
//! saved on its own core, then joined into one package by copying their compressed entries.
//!
//! Why: `rust_xlsxwriter` deflates a workbook's parts one after another on one thread, and a
//! large Queue's XML (hundreds of MB at 100,000 pages, gigabytes at a million) made the save
//! the longest stretch of a run with one core idle. A part saved in another workbook is the
//! same XML: the formats are registered in the same order in every workbook (so a cell's
//! style number is the same), a constant-memory worksheet writes its strings inline (so it
//! needs no shared-string table), and the part is the second sheet of its workbook (so,
//! like every sheet but the first, it is not the selected tab). The main workbook's
//! placeholder carries what the workbook itself says about the part: its name, and the
//! defined names of its autofilter and printed header row. The join checks that the styles
//! agree.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::Path;

use rust_xlsxwriter::XlsxError;
use zip::{ZipArchive, ZipWriter};

/// A part's worksheet in its own workbook: the second sheet (the first is an empty sheet
/// that takes the selected tab).
pub(super) const PART_SHEET: usize = 1;

/// The styles every workbook of the package must share.
const STYLES: &str = "xl/styles.xml";

/// Join the main workbook saved at `main` and the parts saved at `parts` (each with the
/// index of its placeholder among the main workbook's worksheets) into one package at `out`.
pub(super) fn join(main: &Path, parts: &[(usize, &Path)], out: &Path) -> Result<(), XlsxError> {
    let mut main = open(main)?;
    let styles = entry_bytes(&mut main, STYLES)?;
    let mut parts: Vec<(String, ZipArchive<BufReader<File>>)> = parts
        .iter()
        .map(|&(index, path)| Ok((sheet_name(index), open(path)?)))
        .collect::<Result<_, XlsxError>>()?;
    for (name, part) in &mut parts {
        if entry_bytes(part, STYLES)? != styles {
            return Err(XlsxError::ParameterError(format!(
                "internal error: the workbook part written for {name} has styles of its own"
            )));
        }
    }
    let mut writer = ZipWriter::new(BufWriter::new(File::create(out)?));
    for i in 0..main.len() {
        let entry = main.by_index_raw(i)?;
        let name = entry.name()?.into_owned();
        let Some((_, part)) = parts.iter_mut().find(|(n, _)| *n == name) else {
            writer.raw_copy_file(entry)?;
            continue;
        };
        drop(entry);
        let sheet = part.by_name_raw(sheet_name(PART_SHEET).as_bytes())?;
        writer.raw_copy_file_rename(sheet, &name)?;
        // The part's hyperlinks, if it has any.
        let rels = rels_name(&sheet_name(PART_SHEET));
        if part.index_for_name(&rels).is_some() {
            let rels_entry = part.by_name_raw(rels.as_bytes())?;
            writer.raw_copy_file_rename(rels_entry, rels_name(&name))?;
        }
    }
    writer.finish()?;
    Ok(())
}

fn open(path: &Path) -> Result<ZipArchive<BufReader<File>>, XlsxError> {
    Ok(ZipArchive::new(BufReader::new(File::open(path)?))?)
}

/// An entry's bytes, uncompressed (a small one: the styles).
fn entry_bytes(
    archive: &mut ZipArchive<BufReader<File>>,
    name: &str,
) -> Result<Vec<u8>, XlsxError> {
    let mut bytes = Vec::new();
    archive.by_name(name)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The package entry of the worksheet at `index` (0-based) among a workbook's worksheets.
fn sheet_name(index: usize) -> String {
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
