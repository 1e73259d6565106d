//! A row's cells as text, borrowed from where they were read: a CSV chunk's decoded bytes
//! with the bounds of each cell (nothing copied per cell), or a record built cell by cell
//! (an XLSX row, the sequential tokenizer's, a test's). Readers see only [`Row`].

use csv::StringRecord;

/// One row: its cells in order, untrimmed (readers trim through [`super::cell`]).
#[derive(Clone, Copy, Debug)]
pub struct Row<'a>(Repr<'a>);

#[derive(Clone, Copy, Debug)]
enum Repr<'a> {
    /// Cells are `text[start..end]` for each `(start, end)` of `bounds`.
    Flat {
        text: &'a str,
        bounds: &'a [(u32, u32)],
    },
    Record(&'a StringRecord),
}

impl<'a> Row<'a> {
    /// Cells that are `text[start..end]` for each bound; every bound must lie on character
    /// boundaries of `text` (the tokenizer cuts only at ASCII delimiters and quotes).
    pub(super) fn flat(text: &'a str, bounds: &'a [(u32, u32)]) -> Self {
        Row(Repr::Flat { text, bounds })
    }

    /// How many cells the row has.
    pub fn len(&self) -> usize {
        match self.0 {
            Repr::Flat { bounds, .. } => bounds.len(),
            Repr::Record(r) => r.len(),
        }
    }

    /// Whether the row has no cells at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cell `i`, untrimmed; `None` past the row's end (ragged rows).
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self.0 {
            Repr::Flat { text, bounds } => bounds
                .get(i)
                .map(|&(start, end)| &text[start as usize..end as usize]),
            Repr::Record(r) => r.get(i),
        }
    }

    /// The cells in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + 'a {
        let row = *self;
        (0..row.len()).filter_map(move |i| row.get(i))
    }

    /// An owned copy, for the few rows kept past the visit (the rows before a header).
    pub fn to_record(&self) -> StringRecord {
        match self.0 {
            Repr::Record(r) => r.clone(),
            Repr::Flat { .. } => self.iter().collect(),
        }
    }
}

impl<'a> From<&'a StringRecord> for Row<'a> {
    fn from(record: &'a StringRecord) -> Self {
        Row(Repr::Record(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_record_rows_read_alike() {
        let text = "a,\"b\"\"c\",d";
        // "a", "d", and an unquoted copy appended after the text.
        let owned = format!("{text}b\"c");
        let bounds = [(0, 1), (10, 13), (9, 10)];
        let flat = Row::flat(&owned, &bounds);
        let record = StringRecord::from(vec!["a", "b\"c", "d"]);
        let from_record = Row::from(&record);
        for row in [flat, from_record] {
            assert_eq!(row.len(), 3);
            assert_eq!(row.iter().collect::<Vec<_>>(), ["a", "b\"c", "d"]);
            assert_eq!(row.get(3), None);
            assert_eq!(row.to_record(), record);
        }
        assert!(Row::flat("", &[]).is_empty());
    }
}
