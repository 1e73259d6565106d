//! Near Duplicates: page pairs similar enough to be one page twice, each pair once.

use std::collections::BTreeMap;

use crate::workbook::{Cell, Column, ColumnStyle, Sheet};

use super::super::analysis::Analysis;

pub(in crate::run) fn sheet(analysis: &Analysis<'_>) -> Sheet {
    let mut sheet = Sheet::new(
        "Near Duplicates",
        vec![
            Column::new("URL A", 60.0),
            Column::new("URL B", 60.0),
            Column::styled("Similarity", 11.0, ColumnStyle::Percent),
        ],
    );
    let mut pairs: BTreeMap<(&str, &str), f32> = BTreeMap::new();
    for (t, neighbours) in analysis.targets.iter().zip(analysis.found) {
        for n in neighbours
            .iter()
            .filter(|n| n.score >= analysis.config.near_duplicate)
        {
            let (a, b) = (analysis.urls.url(*t), analysis.url(n.id));
            pairs.insert(if a < b { (a, b) } else { (b, a) }, n.score);
        }
    }
    for ((a, b), score) in pairs {
        sheet.rows.push(vec![
            Cell::Url(a.into()),
            Cell::Url(b.into()),
            Cell::Percent(f64::from(score)),
        ]);
    }
    sheet
}
