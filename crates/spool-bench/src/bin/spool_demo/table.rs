//! The demo's results: one [`Row`] per measured case, spool's figure next
//! to each peer's, printed as a table with its legend or as JSON.

use super::legend::{self, Unit};
use super::timing::{Figure, MIN_RUN};

/// Where the careful figures are, said under every table.
const CAREFUL: &str = "These are one machine's figures from one demo run, meant to show each \
     system working next to its peers; BENCHMARKS.md holds the careful ones (criterion, \
     instruction counts, repeated runs, the exact commands).";

/// One measured case.
pub struct Row {
    /// Which spool system.
    pub system: &'static str,
    /// What was measured, e.g. "CS144 schedule, no overlap".
    pub case: String,
    /// Unit of the figures.
    pub unit: Unit,
    /// spool's figure.
    pub spool: Figure,
    /// Each peer's name (explained in the legend) and figure, measured in
    /// the same runs, taking turns with spool.
    pub peers: Vec<(&'static str, Figure)>,
}

impl Row {
    /// How many times better spool's median is than a peer's (above 1:
    /// spool is faster or smaller).
    pub fn advantage(&self, peer: &Figure) -> f64 {
        if self.unit.higher_is_better() {
            self.spool.median / peer.median
        } else {
            peer.median / self.spool.median
        }
    }
}

/// Prints the rows as a table, then the legend of every unit and peer used.
pub fn print(rows: &[Row], runs: usize) {
    println!();
    print_wrapped("", CAREFUL);
    println!();
    println!("Each figure is the median of {runs} runs [lowest-highest]; \"spool 1.50x\" means");
    println!("spool's median is 1.50 times better than that peer's (below 1: worse). A run");
    println!(
        "lasts at least {} ms: a shorter case repeats its work within the run.",
        MIN_RUN.as_millis()
    );
    let mut system = "";
    for row in rows {
        if row.system != system {
            system = row.system;
            println!();
            println!("{system}");
        }
        println!("  {} ({})", row.case, row.unit.label());
        println!("    {:<28}{}", "spool", figure(&row.spool).trim_end());
        for (name, peer) in &row.peers {
            println!(
                "    {name:<28}{}  spool {:.2}x",
                figure(peer),
                row.advantage(peer)
            );
        }
    }
    let (units, peers) = legend::used(rows);
    println!();
    println!("Units");
    for unit in units {
        print_wrapped(&format!("  {:<13}", unit.label()), unit.meaning());
    }
    println!();
    println!("Peers");
    for (name, meaning) in peers {
        print_wrapped(&format!("  {name:<28}"), meaning);
    }
    println!();
    print_wrapped("", CAREFUL);
}

/// Prints `text` after `label`, wrapped at 100 columns, continuation lines
/// indented under the text's start.
fn print_wrapped(label: &str, text: &str) {
    let indent = label.chars().count();
    let mut line = label.to_owned();
    let mut width = indent;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if width > indent && width + 1 + len > 100 {
            println!("{line}");
            line = " ".repeat(indent);
            width = indent;
        }
        if width > indent {
            line.push(' ');
            width += 1;
        }
        line.push_str(word);
        width += len;
    }
    println!("{line}");
}

/// The rows, the legend and the note as one JSON document.
pub fn json(rows: &[Row], runs: usize) -> serde_json::Value {
    let figure = |f: &Figure| {
        let mut doc = serde_json::json!({"median": f.median, "min": f.min, "max": f.max});
        if let Some(runs) = f.runs {
            doc["run_ms"] = (runs.median.as_secs_f64() * 1e3).into();
            doc["repeats_per_run"] = runs.repeats.into();
        }
        doc
    };
    let (units, peers) = legend::used(rows);
    serde_json::json!({
        "runs": runs,
        "min_run_ms": MIN_RUN.as_millis() as u64,
        "note": CAREFUL,
        "rows": rows.iter().map(|row| serde_json::json!({
            "system": row.system,
            "case": row.case,
            "unit": row.unit.label(),
            "higher_is_better": row.unit.higher_is_better(),
            "spool": figure(&row.spool),
            "peers": row.peers.iter().map(|(name, f)| serde_json::json!({
                "name": name,
                "figure": figure(f),
                "spool_advantage": row.advantage(f),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "units": units.iter().map(|u| (u.label().to_owned(), u.meaning().into()))
            .collect::<serde_json::Map<String, serde_json::Value>>(),
        "peers": peers.iter().map(|(n, m)| ((*n).to_owned(), (*m).into()))
            .collect::<serde_json::Map<String, serde_json::Value>>(),
    })
}

/// `median  [min-max]`, aligned; a figure that did not vary has no range.
fn figure(f: &Figure) -> String {
    let range = if f.min == f.max {
        String::new()
    } else {
        format!("[{}-{}]", value(f.min), value(f.max))
    };
    format!("{:>10}  {range:<20}", value(f.median))
}

fn value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_holds_figures_ratios_and_the_legend() {
        let rows = [Row {
            system: "BufList",
            case: "case".into(),
            unit: Unit::Seconds,
            spool: Figure::exact(1.0),
            peers: vec![("VecDeque", Figure::exact(3.0))],
        }];
        let doc = json(&rows, 5);
        assert_eq!(doc["runs"], 5);
        assert_eq!(doc["min_run_ms"], MIN_RUN.as_millis() as u64);
        let peer = &doc["rows"][0]["peers"][0];
        assert_eq!(peer["name"], "VecDeque");
        assert_eq!(peer["spool_advantage"], 3.0);
        assert!(doc["peers"]["VecDeque"].is_string());
        assert!(doc["units"]["s"]
            .as_str()
            .unwrap()
            .contains("lower is better"));
        assert!(doc["note"].as_str().unwrap().contains("BENCHMARKS.md"));
        legend::check(&rows).unwrap();
    }
}
