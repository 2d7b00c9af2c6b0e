//! The service as `spool pwned serve` runs it: a runtime, the server,
//! signals and the watch of the index files. Operational messages (what is
//! served, reloads, shutdown) go to standard error, one line each, unless
//! [`Config::quiet`] (errors and warnings are printed all the same).
//!
//! | signal           | effect                                                  |
//! |------------------|---------------------------------------------------------|
//! | SIGTERM, SIGINT  | stop accepting, finish requests in flight, exit 0       |
//! | the same, again  | exit 1 at once                                          |
//! | SIGHUP           | reopen the index paths and swap the new indexes in      |

use std::net::SocketAddr;

use tokio::signal::unix::{signal, SignalKind};

use crate::{watch, Config, Handle, ServeError, Server};

/// Prefix of the service's messages.
pub(crate) const NAME: &str = "spool pwned serve";

/// Serves `config` until SIGTERM or SIGINT; calls `ready` with the bound
/// address once signals are handled and connections accepted.
///
/// # Errors
///
/// A [`ServeError`] if the service could not start.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let threads = config
        .threads
        .or_else(|| std::thread::available_parallelism().ok().map(Into::into))
        .unwrap_or(1)
        .max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(serve(config, ready))
}

async fn serve(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let server = Server::bind(&config).await?;
    let handle = server.handle();
    let quiet = config.quiet;
    if !quiet {
        report_indexes(&handle, "serving");
    }
    let mut hangup = signal(SignalKind::hangup()).map_err(ServeError::Runtime)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(ServeError::Runtime)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(ServeError::Runtime)?;
    let _watcher = match config.watch {
        true => Some(watch::spawn(handle.clone(), quiet)?),
        false => None,
    };
    let reloader = handle.clone();
    tokio::spawn(async move {
        while hangup.recv().await.is_some() {
            reload(&reloader, "SIGHUP", quiet).await;
        }
    });
    ready(server.local_addr());
    server
        .run(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            if !quiet {
                eprintln!("{NAME}: shutting down: finishing the requests in flight");
            }
            // An operator who asks twice does not want to wait.
            tokio::spawn(async move {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt.recv() => {}
                }
                eprintln!("{NAME}: second signal: exiting without waiting");
                std::process::exit(1);
            });
        })
        .await;
    Ok(())
}

/// Reloads off the async threads (opening, and verifying if asked, blocks)
/// and says what happened (a success only unless `quiet`).
pub(crate) async fn reload(handle: &Handle, why: &str, quiet: bool) {
    let reloader = handle.clone();
    match tokio::task::spawn_blocking(move || reloader.reload()).await {
        Ok(Ok(_)) if quiet => {}
        Ok(Ok(_)) => report_indexes(handle, &format!("reloaded ({why})")),
        Ok(Err(e)) => {
            eprintln!("{NAME}: reload ({why}) failed, still serving the previous index: {e}")
        }
        Err(e) => eprintln!("{NAME}: reload ({why}) failed: {e}"),
    }
}

fn report_indexes(handle: &Handle, what: &str) {
    for kind in [spool_pwned::HashKind::Sha1, spool_pwned::HashKind::Ntlm] {
        if let Some(loaded) = handle.indexes().get(kind).as_ref() {
            let index = loaded.index();
            eprintln!(
                "{NAME}: {what}: {} ({} {} hashes, {} index, records checksum {:08x})",
                index.path(),
                index.header().records,
                crate::query::kind_name(kind),
                index.layout().name(),
                index.header().data_crc
            );
        }
    }
}
