//! The report of a comparison, rendered from its [`Figures`]: `report.md` (the command and seed,
//! one summary table with the variants as rows, a paragraph per finding, detail tables, plots),
//! and beside it `summary.csv` (the summary table), `results.json` (the figures serialised) and
//! the raw CSV files.
//!
//! Everything written here is a function of the figures alone (no clock, no paths of the
//! machine), so a resumed run writes the same files as an uninterrupted one.

mod csv_files;
mod markdown;
mod plots;

use super::figures::Figures;
use std::path::{Path, PathBuf};

/// Where the report went, and its summary table for the terminal.
#[derive(Debug)]
pub struct Written {
    pub report: PathBuf,
    pub summary_table: String,
}

/// Rows of text cells under a header: a Markdown table in the report, a CSV file beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table in Markdown, an empty cell as `| |`.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| -> String {
            let mut l = String::from("|");
            for c in cells {
                if !c.is_empty() {
                    l.push(' ');
                    l.push_str(c);
                }
                l.push_str(" |");
            }
            l.push('\n');
            l
        };
        let mut t = line(&self.head);
        t += &format!("|{}\n", "---|".repeat(self.head.len()));
        for row in &self.rows {
            t += &line(row);
        }
        t
    }

    /// The table as CSV, a cell quoted where it holds a comma or a quote.
    pub fn csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(&self.head)?;
        for row in &self.rows {
            out.write_record(row)?;
        }
        out.into_inner().map_err(|e| e.into_error().into())
    }
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let path = dir.join(name);
    sowing_exact::output_file::write(&path, bytes).map_err(|e| e.to_string())
}

/// Write `report.md`, `summary.csv`, `results.json` and the raw CSVs of `figures` into `out`.
pub fn write(out: &Path, figures: &Figures) -> Result<Written, String> {
    let summary = markdown::summary(figures);
    let plots = plots::draw(out, figures);
    write_file(
        out,
        "report.md",
        markdown::report(figures, &summary, &plots).as_bytes(),
    )?;
    let csv = summary
        .csv()
        .map_err(|e| format!("cannot write summary.csv: {e}"))?;
    write_file(out, "summary.csv", &csv)?;
    // Through a `Value`, whose map sorts the keys: the file keeps the layout it has always had.
    let json = serde_json::to_value(figures).expect("figures serialise");
    let text = serde_json::to_string_pretty(&json).expect("a JSON value prints") + "\n";
    write_file(out, "results.json", text.as_bytes())?;
    csv_files::write(out, figures)?;
    Ok(Written {
        report: out.join("report.md"),
        summary_table: summary.markdown(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_renders_as_markdown_and_as_csv_cell_for_cell() {
        let table = Table {
            head: vec!["variant".into(), "rules".into(), "note".into()],
            rows: vec![
                vec!["first".into(), "2x1, 2 seeds".into(), "say \"hi\"".into()],
                vec!["second".into(), "2x3".into(), String::new()],
            ],
        };
        assert_eq!(
            table.markdown(),
            "| variant | rules | note |\n|---|---|---|\n| first | 2x1, 2 seeds | say \"hi\" |\n\
             | second | 2x3 | |\n"
        );
        let csv = String::from_utf8(table.csv().unwrap()).unwrap();
        assert_eq!(
            csv,
            "variant,rules,note\nfirst,\"2x1, 2 seeds\",\"say \"\"hi\"\"\"\nsecond,2x3,\n"
        );
    }
}
