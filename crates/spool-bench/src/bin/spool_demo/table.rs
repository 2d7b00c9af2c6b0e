//! The demo's result table: one row per measured case, spool's figure next
//! to each peer's, with the ratio.

/// One measured case.
pub struct Row {
    /// Which spool system.
    pub system: &'static str,
    /// What was measured, e.g. "CS144 schedule, no overlap".
    pub case: String,
    /// Unit of the figures, e.g. "MB/s" or "ms".
    pub unit: &'static str,
    /// Whether a larger figure is better (throughput) or worse (time, memory).
    pub higher_is_better: bool,
    /// spool's figure.
    pub spool: f64,
    /// Each peer's name and figure, measured in the same run.
    pub peers: Vec<(String, f64)>,
}

impl Row {
    /// How many times better spool is than a peer figure (>1 means spool wins).
    pub fn advantage(&self, peer: f64) -> f64 {
        if self.higher_is_better {
            self.spool / peer
        } else {
            peer / self.spool
        }
    }
}

/// Prints the rows as an aligned text table.
pub fn print(rows: &[Row]) {
    println!();
    println!(
        "{:<26} {:<40} {:>14}  peers (spool's advantage)",
        "system", "case", "spool"
    );
    println!("{}", "-".repeat(120));
    for row in rows {
        let peers: Vec<String> = row
            .peers
            .iter()
            .map(|(name, value)| {
                format!(
                    "{name} {} ({:.2}x)",
                    format_value(*value),
                    row.advantage(*value)
                )
            })
            .collect();
        println!(
            "{:<26} {:<40} {:>14}  {}",
            row.system,
            row.case,
            format!("{} {}", format_value(row.spool), row.unit),
            peers.join("; ")
        );
    }
}

fn format_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}
