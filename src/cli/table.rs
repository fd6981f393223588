//! A plain text table for the human reports: a header, columns as wide as their widest cell,
//! numbers aligned right, two spaces between columns, nothing after the last cell. Also the
//! human forms of the figures that fill it (durations, byte counts).

use std::fmt::Write as _;
use std::time::Duration;

/// How a column aligns its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

pub(crate) struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub(crate) fn new(columns: &[(&'static str, Align)]) -> Self {
        Self {
            columns: columns.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are empty, extra ones are dropped.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub(crate) fn render(&self) -> String {
        let width = |i: usize| {
            self.rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain(std::iter::once(self.columns[i].0.len()))
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.columns.len()).map(width).collect();
        let mut out = String::new();
        let header: Vec<String> = self.columns.iter().map(|c| c.0.to_owned()).collect();
        for row in std::iter::once(&header).chain(self.rows.iter()) {
            let mut line = String::new();
            for (i, (_, align)) in self.columns.iter().enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                let pad = widths[i].saturating_sub(cell.chars().count());
                if i > 0 {
                    line.push_str("  ");
                }
                match align {
                    Align::Left => {
                        line.push_str(cell);
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                    Align::Right => {
                        line.extend(std::iter::repeat_n(' ', pad));
                        line.push_str(cell);
                    }
                }
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        out
    }
}

/// `850 µs`, `12.3 ms`, `1.25 s`, `3 min 20 s`.
pub(crate) fn duration(d: Duration) -> String {
    let us = d.as_micros();
    if us < 1000 {
        format!("{us} µs")
    } else if us < 100_000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else if us < 1_000_000 {
        format!("{} ms", us / 1000)
    } else if us < 120_000_000 {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        let s = d.as_secs();
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// A duration given in fractional milliseconds (as the protocol reports them).
pub(crate) fn millis(ms: f64) -> String {
    duration(Duration::from_secs_f64((ms / 1000.0).max(0.0)))
}

/// `512 B`, `3.1 KiB`, `12.0 MiB`.
pub(crate) fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else if f < KIB * KIB * KIB {
        format!("{:.1} MiB", f / KIB / KIB)
    } else {
        format!("{:.1} GiB", f / KIB / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_their_widest_cell() {
        let mut t = Table::new(&[
            ("NAME", Align::Left),
            ("N", Align::Right),
            ("NOTE", Align::Left),
        ]);
        t.row(vec!["alpha".into(), "7".into(), "".into()]);
        t.row(vec!["b".into(), "123".into(), "slow".into()]);
        assert_eq!(
            t.render(),
            "NAME     N  NOTE\nalpha    7\nb      123  slow\n"
        );
    }

    #[test]
    fn human_figures() {
        assert_eq!(duration(Duration::from_micros(850)), "850 µs");
        assert_eq!(duration(Duration::from_micros(12_345)), "12.3 ms");
        assert_eq!(duration(Duration::from_millis(250)), "250 ms");
        assert_eq!(duration(Duration::from_millis(1250)), "1.25 s");
        assert_eq!(duration(Duration::from_secs(200)), "3 min 20 s");
        assert_eq!(millis(0.5), "500 µs");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 * 1024 + 100), "3.1 KiB");
        assert_eq!(bytes(12 * 1024 * 1024), "12.0 MiB");
    }
}
