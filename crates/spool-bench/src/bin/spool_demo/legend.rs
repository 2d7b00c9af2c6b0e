//! What the demo's names mean: each unit and each peer in one sentence, so
//! a reader of the table knows what "unique MB/s" counts and who "smoltcp"
//! or "copy floor" is without opening the source.
//!
//! The table refuses a row whose unit or peer has no entry here
//! ([`check`]), so a new peer cannot appear unexplained.

/// The unit of a row's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Input megabytes per second.
    MbPerS,
    /// Stream megabytes delivered per second, each byte counted once.
    UniqueMbPerS,
    /// Seconds for the whole job.
    Seconds,
    /// Nanoseconds per message.
    NsPerMsg,
    /// Nanoseconds per token.
    NsPerToken,
    /// Nanoseconds per lookup.
    NsPerLookup,
    /// Bytes per stored hash.
    BytesPerHash,
}

impl Unit {
    /// The unit as printed after a figure.
    pub fn label(self) -> &'static str {
        match self {
            Unit::MbPerS => "MB/s",
            Unit::UniqueMbPerS => "unique MB/s",
            Unit::Seconds => "s",
            Unit::NsPerMsg => "ns/msg",
            Unit::NsPerToken => "ns/token",
            Unit::NsPerLookup => "ns/lookup",
            Unit::BytesPerHash => "bytes/hash",
        }
    }

    /// Whether a larger figure is better (a rate) or worse (a time, a size).
    pub fn higher_is_better(self) -> bool {
        matches!(self, Unit::MbPerS | Unit::UniqueMbPerS)
    }

    /// What the unit counts.
    pub fn meaning(self) -> &'static str {
        match self {
            Unit::MbPerS => {
                "megabytes (10^6 bytes) of input per second of wall time; higher is better"
            }
            Unit::UniqueMbPerS => {
                "megabytes of the stream delivered in order per second, each byte counted \
                 once however often the schedule sends it (the 10x-overlap schedule sends \
                 every byte about ten times); higher is better"
            }
            Unit::Seconds => "wall seconds for the whole job, files written; lower is better",
            Unit::NsPerMsg => "nanoseconds per message, frame or buffer; lower is better",
            Unit::NsPerToken => "nanoseconds per decoded token; lower is better",
            Unit::NsPerLookup => {
                "nanoseconds per lookup of a 20-byte hash, the index in page cache; \
                 lower is better"
            }
            Unit::BytesPerHash => {
                "bytes stored per hash with its count (a SHA-1 hash alone is 20); \
                 lower is better"
            }
        }
    }
}

/// Who each peer is.
const PEERS: &[(&str, &str)] = &[
    (
        "VecDeque",
        "std's VecDeque<u8> used the same way (a ring buffer too)",
    ),
    (
        "copy floor",
        "not a library: the least work any copying design can do — each byte copied \
         in once and out once, with all bookkeeping worked out before timing; spool's \
         figure against it (e.g. 0.60x) says how close spool comes",
    ),
    (
        "s2n-quic",
        "the stream reassembler of AWS's QUIC stack (s2n-quic-core), clipped to the \
         same window",
    ),
    (
        "smoltcp",
        "the embedded TCP/IP stack's Assembler + RingBuffer, wired as its TCP socket \
         wires them (at most 32 holes)",
    ),
    (
        "BTreeMap",
        "the textbook reassembler: pending pieces in a BTreeMap<u64, Vec<u8>>, \
         written out into a VecDeque",
    ),
    (
        "BytesMut",
        "the bytes crate's growable buffer: chunks appended, messages or tokens cut \
         off with split_to (what tokio_util's codecs do)",
    ),
    (
        "flat buffer",
        "one Vec rebuilt by concatenation on every chunk and re-copied after every \
         token (quadratic: the design BufList replaces)",
    ),
    ("buffer_sv2", "Stratum V2's buffer pool (buffer_sv2 3.x)"),
    ("Vec", "a fresh Vec<u8> allocated for every message"),
    (
        "bstr for_byte_line",
        "bstr's line iterator over a BufReader, field split by hand",
    ),
    (
        "read_until (reused Vec)",
        "BufRead::read_until into one reused Vec, field split by hand",
    ),
    (
        "BufRead::lines",
        "std's lines(): a new String per line, then split('\\t')",
    ),
    (
        "csv ByteRecord",
        "the csv crate reading tab-separated ByteRecords",
    ),
    (
        "HashMap<key, BufWriter>",
        "what most programs start with: BufRead::lines, one BufWriter<File> per key \
         in a HashMap (memory and open files grow with the keys)",
    ),
    (
        "HashMap<key, zstd encoder>",
        "the same with one streaming zstd::Encoder (level 3) per key: every encoder \
         holds its own window and tables, several MiB each",
    ),
    (
        "sorted Vec",
        "the whole text parsed into a Vec<([u8; 20], u32)> in RAM and sorted; lookups \
         by binary search",
    ),
    (
        "HashMap",
        "the whole text parsed into a HashMap<[u8; 20], u32> in RAM",
    ),
];

/// The description of peer `name`.
pub fn peer(name: &str) -> Option<&'static str> {
    PEERS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

/// Fails if any row names a peer the legend does not explain.
pub fn check(rows: &[super::table::Row]) -> anyhow::Result<()> {
    for row in rows {
        for (name, _) in &row.peers {
            anyhow::ensure!(
                peer(name).is_some(),
                "the legend does not explain peer {name:?} of {:?}",
                row.case
            );
        }
        anyhow::ensure!(!row.peers.is_empty(), "{:?} has no peer", row.case);
    }
    Ok(())
}

/// The entries the rows use, in order of first use: units, then peers.
pub fn used(rows: &[super::table::Row]) -> (Vec<Unit>, Vec<(&'static str, &'static str)>) {
    let mut units = Vec::new();
    let mut peers = Vec::new();
    for row in rows {
        if !units.contains(&row.unit) {
            units.push(row.unit);
        }
        for (name, _) in &row.peers {
            if let Some(entry) = PEERS.iter().find(|(n, _)| n == name) {
                if !peers.contains(entry) {
                    peers.push(*entry);
                }
            }
        }
    }
    (units, peers)
}
