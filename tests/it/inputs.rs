//! Every export variant reads to the same result as the plain modern CSV: containers,
//! encodings, delimiters, title rows, legacy and future headers, the French UI, XLSX cells.

use std::fmt::Write as _;
use std::io::Write;

use rust_xlsxwriter::Workbook;

use crate::util::*;

const O: &str = "https://shop.example";

fn vectors() -> Vec<(String, Vec<f32>)> {
    let raw: [&[f32]; 6] = [
        &[1.0, 0.1, 0.0, 0.2],
        &[0.7, 0.5, 0.3, 0.0],
        &[0.2, 1.0, 0.1, 0.3],
        &[0.1, 0.8, 0.5, 0.0],
        &[0.0, 0.2, 1.0, 0.4],
        &[0.5, 0.5, 0.5, 0.5],
    ];
    // Padded to 16 dimensions: content detection wants more numbers than a short list.
    raw.iter()
        .enumerate()
        .map(|(i, v)| {
            (
                format!("{O}/p{i}"),
                v.iter()
                    .copied()
                    .chain((0..12).map(|j| 0.002 * j as f32))
                    .collect(),
            )
        })
        .collect()
}

fn emb_rows() -> Vec<Vec<String>> {
    vectors()
        .iter()
        .map(|(u, v)| emb_row(u, &vector_text(v)))
        .collect()
}

/// (source, destination, position, follow)
fn links() -> Vec<(usize, usize, &'static str, bool)> {
    vec![
        (1, 0, "Content", true),
        (0, 1, "Navigation", true),
        (3, 2, "Content", true),
        (2, 3, "Footer", true),
        (4, 5, "Content", false),
        (5, 0, "Content", true),
    ]
}

fn link_rows() -> Vec<Vec<String>> {
    links()
        .iter()
        .map(|&(s, d, pos, follow)| {
            link_row(
                "Hyperlink",
                &format!("{O}/p{s}"),
                &format!("{O}/p{d}"),
                pos,
                &format!("//body/main/p[{s}]/a"),
                follow,
            )
        })
        .collect()
}

/// Opportunities of a run, as rows of strings.
fn opportunities(w: &Workdir, emb: &str, inl: &str, out: &str) -> Vec<Vec<String>> {
    let o = w.run(&[
        "run",
        "--embeddings",
        emb,
        "--inlinks",
        inl,
        "--out",
        out,
        "--min-words",
        "0",
        "-k",
        "3",
    ]);
    assert!(o.status.code() == Some(0), "{emb} + {inl}: {}", stderr(&o));
    sheet(&w.path(out), "Opportunities")
}

fn baseline(w: &Workdir) -> Vec<Vec<String>> {
    w.write_sf_csv("base-emb.csv", EMB_HEADER, &emb_rows());
    w.write_sf_csv("base-inl.csv", INLINKS_HEADER, &link_rows());
    opportunities(w, "base-emb.csv", "base-inl.csv", "base.xlsx")
}

fn plain_csv(header: &[&str], rows: &[Vec<String>], delim: char, eol: &str, bom: bool) -> String {
    let q = |f: &str| {
        if f.contains([delim, '"', '\n']) {
            format!("\"{}\"", f.replace('"', "\"\""))
        } else {
            f.to_string()
        }
    };
    let mut s = String::new();
    if bom {
        s.push('\u{FEFF}');
    }
    s.push_str(
        &header
            .iter()
            .map(|h| q(h))
            .collect::<Vec<_>>()
            .join(&delim.to_string()),
    );
    s.push_str(eol);
    for r in rows {
        s.push_str(
            &r.iter()
                .map(|f| q(f))
                .collect::<Vec<_>>()
                .join(&delim.to_string()),
        );
        s.push_str(eol);
    }
    s
}

#[test]
fn csv_encodings_delimiters_and_compression_read_alike() {
    let w = Workdir::new("csv-variants");
    let base = baseline(&w);
    assert!(base.len() == 7, "{base:?}");
    // No BOM, CRLF, minimal quoting.
    w.write(
        "e1.csv",
        plain_csv(EMB_HEADER, &emb_rows(), ',', "\r\n", false),
    );
    w.write(
        "i1.csv",
        plain_csv(INLINKS_HEADER, &link_rows(), ',', "\r\n", false),
    );
    assert_eq!(
        opportunities(&w, "e1.csv", "i1.csv", "1.xlsx"),
        base,
        "no BOM, CRLF"
    );
    // Semicolons, as Excel re-saves in many European locales.
    w.write(
        "e2.csv",
        plain_csv(EMB_HEADER, &emb_rows(), ';', "\n", true),
    );
    w.write(
        "i2.csv",
        plain_csv(INLINKS_HEADER, &link_rows(), ';', "\n", true),
    );
    assert_eq!(
        opportunities(&w, "e2.csv", "i2.csv", "2.xlsx"),
        base,
        "semicolon"
    );
    // Excel's "Unicode text": UTF-16LE with BOM, tab-delimited.
    let utf16 = |text: String| {
        let mut b = vec![0xFF, 0xFE];
        for unit in text.trim_start_matches('\u{FEFF}').encode_utf16() {
            b.extend_from_slice(&unit.to_le_bytes());
        }
        b
    };
    w.write(
        "e3.txt",
        utf16(plain_csv(EMB_HEADER, &emb_rows(), '\t', "\r\n", false)),
    );
    w.write(
        "i3.txt",
        utf16(plain_csv(INLINKS_HEADER, &link_rows(), '\t', "\r\n", false)),
    );
    assert_eq!(
        opportunities(&w, "e3.txt", "i3.txt", "3.xlsx"),
        base,
        "UTF-16 tab"
    );
    // gzip-compressed exports.
    let gz = |bytes: Vec<u8>| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&bytes).unwrap();
        e.finish().unwrap()
    };
    w.write("e4.csv.gz", gz(sf_csv(EMB_HEADER, &emb_rows())));
    w.write("i4.csv.gz", gz(sf_csv(INLINKS_HEADER, &link_rows())));
    assert_eq!(
        opportunities(&w, "e4.csv.gz", "i4.csv.gz", "4.xlsx"),
        base,
        "gzip"
    );
}

#[test]
fn a_windows_1252_export_decodes_and_inspect_names_its_encoding() {
    let w = Workdir::new("cp1252");
    let base = baseline(&w);
    // An old Excel re-save: no BOM, one byte per character, é as 0xE9.
    let rows: Vec<Vec<String>> = emb_rows()
        .into_iter()
        .map(|mut r| {
            r[3] = "Trouvé".into();
            r
        })
        .collect();
    let text = plain_csv(EMB_HEADER, &rows, ',', "\r\n", false);
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
        .collect();
    assert!(std::str::from_utf8(&bytes).is_err());
    w.write("e.csv", bytes);
    assert_eq!(
        opportunities(&w, "e.csv", "base-inl.csv", "1252.xlsx"),
        base
    );
    let inspect = w.run(&["inspect", "e.csv"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("container: CSV (comma, Windows-1252)")
            && text.contains("encoding: Windows-1252 (not valid UTF-8"),
        "{text}"
    );
    let inspect = w.run(&["inspect", "base-emb.csv"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(text.contains("encoding: UTF-8\n"), "{text}");
}

#[test]
fn legacy_future_and_french_inlinks_read_alike() {
    let w = Workdir::new("eras");
    let base = baseline(&w);
    // v24: Crawlability after Status, and Segments columns.
    let mut h24: Vec<&str> = INLINKS_HEADER.to_vec();
    h24.insert(8, "Crawlability");
    h24.insert(2, "Source Segments");
    h24.insert(4, "Destination Segments");
    let rows24: Vec<Vec<String>> = link_rows()
        .into_iter()
        .map(|mut r| {
            r.insert(8, "Crawlable".into());
            r.insert(2, "blog".into());
            r.insert(4, "shop".into());
            r
        })
        .collect();
    w.write_sf_csv("i24.csv", &h24, &rows24);
    assert_eq!(
        opportunities(&w, "base-emb.csv", "i24.csv", "24.xlsx"),
        base,
        "v24 with Crawlability and Segments"
    );
    // French UI: localised headers and values.
    let fr_header = [
        "Type",
        "Source",
        "Destination",
        "Taille (octets)",
        "Texte alternatif",
        "Ancrage",
        "Code de statut",
        "Statut",
        "Suivre",
        "Cible",
        "Rel",
        "Type de chemin",
        "Chemin du lien",
        "Position du lien",
        "Origine du lien",
    ];
    let fr_rows: Vec<Vec<String>> = link_rows()
        .into_iter()
        .map(|mut r| {
            r[0] = "Hyperlien".into();
            if r[13] == "Content" {
                r[13] = "Contenu".into();
            }
            r[8] = if r[8] == "true" {
                "Vrai".into()
            } else {
                "Faux".into()
            };
            r
        })
        .collect();
    w.write_sf_csv("ifr.csv", &fr_header, &fr_rows);
    assert_eq!(
        opportunities(&w, "base-emb.csv", "ifr.csv", "fr.xlsx"),
        base,
        "French"
    );
    // 2017: title row, 9 columns, HREF types, ragged image rows, no Link Position (so every
    // hyperlink is a body link: the template links of the baseline become body links).
    let mut legacy = String::from(
        "\"All Inlinks\"\n\"Type\",\"Source\",\"Destination\",\"Size (Bytes)\",\"Alt Text\",\"Anchor\",\"Status Code\",\"Status\",\"Follow\"\n",
    );
    for (s, d, _, follow) in links() {
        let _ = writeln!(
            legacy,
            "\"HREF\",\"{O}/p{s}\",\"{O}/p{d}\",\"0\",\"\",\"a\",\"200\",\"OK\",\"{follow}\""
        );
    }
    let _ = writeln!(
        legacy,
        "\"IMG\",\"{O}/p1\",\"{O}/logo.png\",\"0\",\"logo\",\"\",\"200\",\"OK\""
    );
    w.write("i2017.csv", legacy);
    let old = opportunities(&w, "base-emb.csv", "i2017.csv", "2017.xlsx");
    assert_eq!(old.len(), base.len());
    let p1_row = old.iter().find(|r| r[0] == format!("{O}/p1")).unwrap();
    let i = 2 + p1_row[2..]
        .iter()
        .position(|c| *c == format!("{O}/p0"))
        .expect("p0 is near p1");
    assert_eq!(
        p1_row[i + 2],
        "Body link",
        "no positions in 2017: the navigation link p0→p1 counts as body"
    );
    let run = sheet(&w.path("2017.xlsx"), "Run");
    assert!(
        run.iter().any(|r| r[1].contains("no Link Position column")),
        "the Run sheet says so"
    );
    let skipped = run
        .iter()
        .find(|r| r[0].starts_with("Rows: i2017.csv"))
        .unwrap();
    assert!(
        skipped[1].contains("read 7, used 6, skipped 1"),
        "{skipped:?}"
    );
}

/// Write rows to an XLSX with an optional title row, the way Apache POI does: inline strings
/// (constant-memory mode), numeric status codes and boolean Follow cells.
fn write_xlsx(path: &std::path::Path, title: Option<&str>, header: &[&str], rows: &[Vec<String>]) {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet_with_constant_memory().unwrap();
    ws.set_name("1 - Export").unwrap();
    let mut r = 0u32;
    if let Some(t) = title {
        ws.write_string(r, 0, t).unwrap();
        r += 1;
    }
    for (c, h) in header.iter().enumerate() {
        ws.write_string(r, c as u16, *h).unwrap();
    }
    for row in rows {
        r += 1;
        for (c, v) in row.iter().enumerate() {
            let c = c as u16;
            if v == "true" || v == "false" {
                ws.write_boolean(r, c, v == "true").unwrap();
            } else if !v.is_empty() && v.len() < 6 && v.chars().all(|ch| ch.is_ascii_digit()) {
                ws.write_number(r, c, v.parse::<f64>().unwrap()).unwrap();
            } else if !v.is_empty() {
                ws.write_string(r, c, v).unwrap();
            }
        }
    }
    wb.save(path).unwrap();
}

#[test]
fn xlsx_with_title_rows_and_typed_cells_reads_alike() {
    let w = Workdir::new("xlsx");
    let base = baseline(&w);
    write_xlsx(
        &w.path("e.xlsx"),
        Some("Custom JavaScript"),
        EMB_HEADER,
        &emb_rows(),
    );
    write_xlsx(
        &w.path("i.xlsx"),
        Some("All Inlinks"),
        INLINKS_HEADER,
        &link_rows(),
    );
    assert_eq!(opportunities(&w, "e.xlsx", "i.xlsx", "x.xlsx"), base);
    let inspect = w.run(&["inspect", "i.xlsx"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("header row: 2") && text.contains("sheet \"1 - Export\""),
        "{text}"
    );
}

#[test]
fn an_xlsx_vector_cut_at_the_cell_limit_is_reported_as_truncated() {
    let w = Workdir::new("xlsx-cut");
    let vector = |seed: usize| -> Vec<f32> {
        (0..2000)
            .map(|i| (((i * 7919 + seed * 104_729) % 1000) as f32 / 1000.0) - 0.456_789_1)
            .collect()
    };
    // Rows a, b: 2,000 values fit in a cell. Row c: written with 17 digits per value, the text
    // runs past 32,767 characters and the cell is cut there. Row d: fewer values than the rest.
    let long_text: String = vector(3)
        .iter()
        .map(|x| format!("{:.17}", f64::from(*x)))
        .collect::<Vec<_>>()
        .join(",");
    assert!(long_text.len() > 32_767);
    let short: Vec<f32> = vector(4).into_iter().take(1400).collect();
    let rows = [
        emb_row(&format!("{O}/a"), &vector_text(&vector(1))),
        emb_row(&format!("{O}/b"), &vector_text(&vector(2))),
        emb_row(
            &format!("{O}/c"),
            &long_text.chars().take(32_767).collect::<String>(),
        ),
        emb_row(&format!("{O}/d"), &vector_text(&short)),
    ];
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    for (c, h) in EMB_HEADER.iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            ws.write_string(r as u32 + 1, c as u16, v).unwrap();
        }
    }
    wb.save(w.path("e.xlsx")).unwrap();
    w.write_sf_csv("i.csv", INLINKS_HEADER, &[]);
    let out = w.run(&[
        "run",
        "--embeddings",
        "e.xlsx",
        "--inlinks",
        "i.csv",
        "--out",
        "r.xlsx",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejected = records(&w.path("r.xlsx"), "Rejected Rows");
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert!(
        rejected
            .iter()
            .all(|r| r["Problem"].contains("export the embeddings as CSV")),
        "{rejected:?}"
    );
    assert!(
        rejected
            .iter()
            .any(|r| r["Row"] == "4" && r["Problem"].contains("32767 characters")),
        "{rejected:?}"
    );
    assert!(
        rejected
            .iter()
            .any(|r| r["Row"] == "5" && r["Problem"].contains("1400 values instead of 2000")),
        "{rejected:?}"
    );
}

#[test]
fn a_plain_url_vector_table_is_found_by_content() {
    let w = Workdir::new("plain");
    let rows: Vec<Vec<String>> = vectors()
        .iter()
        .map(|(u, v)| vec![u.clone(), "Some title".into(), vector_text(v)])
        .collect();
    w.write(
        "e.csv",
        plain_csv(&["page", "title", "data"], &rows, ',', "\n", false),
    );
    let inspect = w.run(&["inspect", "e.csv"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("vector column: \"data\" (detected from its content)"),
        "{text}"
    );
    let base = baseline(&w);
    assert_eq!(opportunities(&w, "e.csv", "base-inl.csv", "p.xlsx"), base);
}

#[test]
fn an_unsupported_language_is_named() {
    let w = Workdir::new("german");
    w.write_sf_csv(
        "i.csv",
        &["Typ", "Quelle", "Ziel", "Anker"],
        &[vec!["Hyperlink".into(), "a".into(), "b".into(), "c".into()]],
    );
    w.write_sf_csv("e.csv", EMB_HEADER, &emb_rows());
    let out = w.run(&[
        "run",
        "--embeddings",
        "e.csv",
        "--inlinks",
        "i.csv",
        "--out",
        "r.xlsx",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("German") && err.contains("English"), "{err}");
}

#[test]
fn inspect_exits_2_when_a_file_cannot_be_read() {
    let w = Workdir::new("inspect-fail");
    std::fs::create_dir_all(w.path("a-folder")).unwrap();
    w.write(
        "random.bin",
        [0xde_u8, 0xad, 0xbe, 0xef, 0x00, 0x01, 0xff, 0xfe, 0x00],
    );
    w.write("doc.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n");
    for file in ["missing.csv", "a-folder", "random.bin", "doc.pdf"] {
        let out = w.run(&["inspect", file]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stdout}{stderr}");
        assert!(stdout.contains("error:"), "{file}: {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{file}: one line: {stderr}");
    }
}

/// A folder stands for its export files, as `run FOLDER` reads them: each is described, and
/// a file that is not an export is left alone.
#[test]
fn inspect_describes_every_export_of_a_folder() {
    let w = Workdir::new("inspect-folder");
    std::fs::create_dir_all(w.path("crawl")).unwrap();
    w.write(
        "crawl/all_inlinks.csv",
        sf_csv(INLINKS_HEADER, &link_rows()),
    );
    w.write("crawl/notes.md", b"not an export");
    std::fs::copy(
        env!("CARGO_MANIFEST_DIR").to_string() + "/samples/internal_all.csv",
        w.path("crawl/internal_all.csv"),
    )
    .unwrap();
    let out = w.run(&["inspect", "crawl"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let all = stdout
        .find("all_inlinks.csv")
        .expect("All Inlinks described");
    let internal = stdout
        .find("internal_all.csv")
        .expect("Internal: All described");
    assert!(all < internal, "in name order: {stdout}");
    assert!(!stdout.contains("notes.md"), "{stdout}");
}

/// A file cut off inside a quoted field: the partial last row is rejected and named, by a run
/// and by `inspect` alike, instead of becoming a link to a truncated URL.
#[test]
fn a_last_row_cut_inside_a_quote_is_rejected() {
    let w = Workdir::new("cut-quote");
    let mut text = sf_csv(INLINKS_HEADER, &link_rows());
    text.extend_from_slice(
        b"\"Hyperlink\",\"https://shop.example/p1\",\"https://www.example.com/tom",
    );
    w.write("i.csv", &text);
    let inspect = w.run(&["inspect", "i.csv"]);
    let out = String::from_utf8_lossy(&inspect.stdout);
    assert_eq!(inspect.status.code(), Some(1), "{out}");
    assert!(out.contains("ends inside a quoted field"), "{out}");
    assert!(
        out.contains(&format!("rows: {} read", link_rows().len() + 1)),
        "{out}"
    );
    // A quoted field spanning lines is not cut: the grammar, not the quote count, decides.
    let mut whole = sf_csv(INLINKS_HEADER, &link_rows());
    whole.extend_from_slice(b"\"Hyperlink\",\"https://shop.example/p1\",\"https://shop.example/p2\",\"0\",\"a \"\"quoted\"\"\nanchor\"");
    w.write("ok.csv", &whole);
    let inspect = w.run(&["inspect", "ok.csv"]);
    let out = String::from_utf8_lossy(&inspect.stdout);
    assert!(!out.contains("ends inside a quoted field"), "{out}");
}

/// A line with no end is refused at a bound, with a reason, not read into memory whole.
#[test]
fn a_huge_line_is_refused_with_a_reason() {
    let w = Workdir::new("huge-line");
    let mut text = sf_csv(INLINKS_HEADER, &link_rows());
    text.extend(std::iter::repeat_n(
        b'x',
        linkgap::input::source::MAX_RECORD_BYTES + 1024,
    ));
    w.write("i.csv", &text);
    let out = w.run(&["inspect", "i.csv"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("no line end"), "{stdout}");
}
