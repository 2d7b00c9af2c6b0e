//! Helpers shared by the service's tests: sample indexes, a server on an
//! ephemeral loopback port, raw connections for requests no polite client
//! sends.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use spool_pwned::build::{build, BuildOptions};
use spool_pwned::build::{sources, Source};
use spool_pwned::sample::{write_sample, Order};
use spool_pwned::HashKind;
use spool_serve::{Config, Handle, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A fresh temporary folder for one test, removed on drop.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A new empty folder, its name starting with `spool-serve-TAG-`.
    pub fn new(tag: &str) -> Self {
        let prefix = format!("spool-serve-{tag}-");
        Dir(tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir()
            .unwrap()
            .keep())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds the index of `lines` sample hashes of `seed` at `out` (through a
/// temporary name and a rename, as `pwned build` always writes).
pub fn sample_index(out: &Path, kind: HashKind, lines: u64, seed: u64) {
    let mut text = Vec::new();
    write_sample(&mut text, kind, lines, seed, Order::Hash, false).unwrap();
    let opts = BuildOptions {
        kind,
        ..BuildOptions::default()
    };
    let source = Source::from_reader("sample", std::io::Cursor::new(text));
    build(vec![source], out, &opts).unwrap();
}

/// Builds the index of `text` (hash lines) at `out`.
pub fn index_from_text(out: &Path, kind: HashKind, text: &str) {
    let opts = BuildOptions {
        kind,
        ..BuildOptions::default()
    };
    let source = Source::from_reader("text", std::io::Cursor::new(text.as_bytes().to_vec()));
    build(vec![source], out, &opts).unwrap();
}

/// Builds an index from a range directory.
pub fn index_from_ranges(ranges: &Path, out: &Path, kind: HashKind) {
    let opts = BuildOptions {
        kind,
        ..BuildOptions::default()
    };
    build(sources(&[ranges.to_path_buf()]).unwrap(), out, &opts).unwrap();
}

/// A configuration serving the given indexes on an ephemeral loopback port.
pub fn config(sha1: Option<&Path>, ntlm: Option<&Path>) -> Config {
    Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        sha1: sha1.map(Path::to_path_buf),
        ntlm: ntlm.map(Path::to_path_buf),
        ..Config::default()
    }
}

/// A server running on the test's runtime until [`stop`](Running::stop).
pub struct Running {
    pub addr: SocketAddr,
    pub handle: Handle,
    stop: tokio::sync::oneshot::Sender<()>,
    done: tokio::task::JoinHandle<()>,
}

impl Running {
    pub async fn start(config: Config) -> Running {
        let server = Server::bind(&config).await.unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        Running {
            addr: server.local_addr(),
            handle: server.handle(),
            stop,
            done: tokio::spawn(server.run(async {
                let _ = stopped.await;
            })),
        }
    }

    /// `http://ADDR` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Asks the server to shut down; the handle ends when it has.
    pub fn begin_stop(self) -> tokio::task::JoinHandle<()> {
        let _ = self.stop.send(());
        self.done
    }

    /// Asks the server to shut down and waits until it has.
    pub async fn stop(self) {
        self.begin_stop().await.unwrap();
    }
}

/// A client for the tests: keep-alive, no proxy from the environment.
pub fn client() -> reqwest::Client {
    install_tls_provider();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Installs rustls' ring provider for reqwest. In a workspace build,
/// reqwest's features are unified with spool-download's, which asks for
/// rustls without a provider, and reqwest then refuses to build a client,
/// even a plain-HTTP one, until a provider is installed.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Sends `request` and reads the whole response.
pub async fn fetch(
    request: reqwest::RequestBuilder,
) -> (
    reqwest::StatusCode,
    reqwest::header::HeaderMap,
    bytes::Bytes,
) {
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.bytes().await.unwrap())
}

/// Writes `bytes` on a fresh connection and reads until the server closes
/// it or `wait` passes; returns what was read.
pub async fn raw_exchange(addr: SocketAddr, bytes: &[u8], wait: std::time::Duration) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(wait, stream.read_to_end(&mut out)).await;
    out
}

/// The status code of a raw HTTP/1.x response.
pub fn raw_status(response: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(response.get(..12)?).ok()?;
    let (version, status) = text.split_at(9);
    ["HTTP/1.0 ", "HTTP/1.1 "]
        .contains(&version)
        .then(|| status.parse().ok())?
}
