//! `spool pwned serve`: the command line of the `spool-serve` service.
//! Everything else — routes, limits, signals, reloads — is the library's.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::ArgGroup;
use spool_serve::{Config, Limits, TlsFiles};

/// Arguments of `spool pwned serve`.
#[derive(clap::Args)]
#[command(group(ArgGroup::new("index").required(true).multiple(true).args(["sha1", "ntlm"])))]
pub struct Args {
    /// Address to listen on (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:8082")]
    listen: SocketAddr,
    /// The SHA-1 index to serve (`/range/{prefix}`, `/check/sha1/{hash}`).
    #[arg(long)]
    sha1: Option<PathBuf>,
    /// The NTLM index to serve (`/range/{prefix}?mode=ntlm`,
    /// `/check/ntlm/{hash}`).
    #[arg(long)]
    ntlm: Option<PathBuf>,
    /// Also reload when an index path is replaced (a rebuilt index renamed
    /// over it), not only on SIGHUP.
    #[arg(long)]
    watch: bool,
    /// Check the indexes' checksums (reading them whole) before serving
    /// them, at start and on every reload.
    #[arg(long)]
    verify: bool,
    /// Log one JSON line per request to standard error. Off by default:
    /// the lines hold hash prefixes and hashes.
    #[arg(long)]
    access_log: bool,
    /// No status lines (the address listened on, what is served, reloads,
    /// shutdown); errors and warnings are still printed.
    #[arg(short, long)]
    quiet: bool,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = crate::count::parse_count)]
    threads: Option<usize>,
    /// Connections served at once; more wait in the accept backlog.
    #[arg(long, default_value_t = Limits::default().max_connections,
          value_parser = crate::count::parse_count)]
    max_connections: usize,
    /// Seconds a client has to send request headers; also closes idle
    /// keep-alive connections (HTTP/2 ones with GOAWAY) and bounds a TLS
    /// handshake.
    #[arg(long, default_value = "10", value_parser = parse_seconds)]
    header_timeout: Duration,
    /// Seconds a client has to send a request body (then 408).
    #[arg(long, default_value = "10", value_parser = parse_seconds)]
    body_timeout: Duration,
    /// Seconds a client has to take a response once the socket is full (with
    /// HTTP/2 also a response held by the client's shut window, after the
    /// body timeout); a client that does not read is disconnected.
    #[arg(long, default_value = "10", value_parser = parse_seconds)]
    write_timeout: Duration,
    /// HTTP/2 requests open at once on one connection.
    #[arg(long, default_value_t = Limits::default().max_streams,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_streams: u32,
    /// Largest request body (a password), e.g. 4K.
    #[arg(long, default_value = "4K", value_parser = spool_io::size::parse)]
    max_body: usize,
    /// Serve HTTPS with this PEM certificate chain (with --tls-key);
    /// HTTP/2 or HTTP/1.1 by ALPN. Without it: plain HTTP/1.1, and
    /// HTTP/2 for clients that start with its preface (h2c).
    #[arg(long, requires = "tls_key", value_name = "PEM")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, requires = "tls_cert", value_name = "PEM")]
    tls_key: Option<PathBuf>,
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("'{s}' is not a positive number of seconds"))
}

/// Runs `spool pwned serve` until SIGTERM or Ctrl-C.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = Config {
        listen: args.listen,
        sha1: args.sha1,
        ntlm: args.ntlm,
        watch: args.watch,
        verify: args.verify,
        access_log: args.access_log,
        quiet: args.quiet,
        threads: args.threads,
        tls: args
            .tls_cert
            .zip(args.tls_key)
            .map(|(cert, key)| TlsFiles { cert, key }),
        limits: Limits {
            max_connections: args.max_connections.max(1),
            header_timeout: args.header_timeout,
            body_timeout: args.body_timeout,
            write_timeout: args.write_timeout,
            max_streams: args.max_streams,
            max_body: args.max_body,
            ..Limits::default()
        },
    };
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let quiet = config.quiet;
    spool_serve::run(config, |addr| {
        if !quiet {
            eprintln!("spool pwned serve: listening on {scheme}://{addr}");
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
