//! The access log: one JSON object per request, on a line of its own.
//!
//! Off unless asked for (`--access-log`): a line holds the path, and a
//! path holds a hash prefix or a whole hash, which narrows down the
//! password being checked — the very thing the range API exists not to
//! reveal. (`POST /check/plain` keeps the password in the body, which is
//! never logged.)
//!
//! Request tasks never write to standard error themselves: a slow reader
//! of the log (a full pipe) would stall them. They hand each line to a
//! writer thread through a bounded queue and drop the line, counting it,
//! when the queue is full.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::time::{Duration, SystemTime};

/// Lines queued for the writer before new ones are dropped: a few seconds
/// of a busy server, about 1 MB at most.
const QUEUE_LINES: usize = 8192;

/// One request, as logged.
pub(crate) struct Entry<'a> {
    pub peer: Option<SocketAddr>,
    pub method: &'a str,
    /// Path and query, as sent.
    pub target: &'a str,
    pub status: u16,
    /// Body bytes, when known before sending.
    pub bytes: Option<u64>,
    pub elapsed: Duration,
}

impl Entry<'_> {
    /// The JSON line, newline included.
    fn line(&self, now: SystemTime) -> Vec<u8> {
        let ts = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let value = serde_json::json!({
            "ts": (ts * 1000.0).round() / 1000.0,
            "peer": self.peer.map(|p| p.to_string()),
            "method": self.method,
            "target": self.target,
            "status": self.status,
            "bytes": self.bytes,
            "us": u64::try_from(self.elapsed.as_micros()).unwrap_or(u64::MAX),
        });
        let mut line = serde_json::to_vec(&value).expect("a JSON value serializes");
        line.push(b'\n');
        line
    }
}

/// Where access log lines go.
pub(crate) struct AccessLog {
    queue: SyncSender<Vec<u8>>,
}

impl AccessLog {
    /// A log written to `out` by a thread of its own.
    pub(crate) fn spawn(out: impl Write + Send + 'static) -> AccessLog {
        let (queue, lines) = sync_channel(QUEUE_LINES);
        std::thread::Builder::new()
            .name("access-log".into())
            .spawn(move || write_lines(&lines, out))
            .expect("spawn the access log thread");
        AccessLog { queue }
    }

    /// Queues `entry`; false if it was dropped (the queue is full).
    pub(crate) fn log(&self, entry: &Entry<'_>) -> bool {
        match self.queue.try_send(entry.line(SystemTime::now())) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
        }
    }
}

/// Writes queued lines, flushing whenever the queue runs dry, until every
/// sender is gone. A failing `out` ends logging, not the server.
fn write_lines(lines: &Receiver<Vec<u8>>, out: impl Write) {
    let mut out = std::io::BufWriter::new(out);
    while let Ok(line) = lines.recv() {
        let mut ok = out.write_all(&line).is_ok();
        while let Ok(line) = lines.try_recv() {
            ok &= out.write_all(&line).is_ok();
        }
        if !ok || out.flush().is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_one_json_object_with_the_request_s_fields() {
        let entry = Entry {
            peer: Some("127.0.0.1:5000".parse().unwrap()),
            method: "GET",
            target: "/range/5BAA6?\"x\"\n",
            status: 200,
            bytes: Some(42),
            elapsed: Duration::from_micros(17),
        };
        let line = entry.line(SystemTime::UNIX_EPOCH + Duration::from_millis(1_500));
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"ts": 1.5, "peer": "127.0.0.1:5000", "method": "GET",
                "target": "/range/5BAA6?\"x\"\n", "status": 200, "bytes": 42, "us": 17})
        );
    }

    #[test]
    fn lines_reach_the_writer_in_order() {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        struct Chan(std::sync::mpsc::Sender<Vec<u8>>);
        impl Write for Chan {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.send(buf.to_vec()).unwrap();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let log = AccessLog::spawn(Chan(tx));
        for status in [200, 404, 500] {
            let entry = Entry {
                peer: None,
                method: "GET",
                target: "/",
                status,
                bytes: None,
                elapsed: Duration::ZERO,
            };
            assert!(log.log(&entry));
        }
        drop(log);
        let text: Vec<u8> = rx.iter().flatten().collect();
        let statuses: Vec<u64> = String::from_utf8(text)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["status"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(statuses, [200, 404, 500]);
    }
}
