//! Accepting connections, at most `max_connections` at once, until
//! shutdown; then letting the requests in flight finish. Each connection
//! is `connection.rs`'s.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

use crate::access_log::AccessLog;
use crate::connection::{self, Shared};
use crate::metrics::Metrics;
use crate::router::{router, App, Peer};
use crate::{Config, Indexes, LoadError, Loaded, ServeError};

/// A bound server, ready to [`run`](Self::run).
///
/// # Examples
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn f() -> Result<(), spool_serve::ServeError> {
/// let config = spool_serve::Config {
///     sha1: Some("pwned.idx".into()),
///     ..Default::default()
/// };
/// let server = spool_serve::Server::bind(&config).await?;
/// println!("listening on {}", server.local_addr());
/// server.run(async { tokio::signal::ctrl_c().await.unwrap() }).await;
/// # Ok(()) }
/// ```
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    router: Router,
    tls: Option<tokio_rustls::TlsAcceptor>,
}

/// Reloads the indexes of a running [`Server`].
#[derive(Clone)]
pub struct Handle {
    app: Arc<App>,
}

impl Server {
    /// Opens the indexes of `config` and binds its address.
    ///
    /// # Errors
    ///
    /// No index given, an index that does not open, a certificate or key
    /// that cannot be used, an address that cannot be bound.
    pub async fn bind(config: &Config) -> Result<Server, ServeError> {
        if config.sha1.is_none() && config.ntlm.is_none() {
            return Err(ServeError::NoIndex);
        }
        let tls = match &config.tls {
            Some(files) => Some(tokio_rustls::TlsAcceptor::from(crate::tls::server_config(
                &files.cert,
                &files.key,
            )?)),
            None => None,
        };
        let indexes = Indexes::open(config.sha1.clone(), config.ntlm.clone(), config.verify)?;
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| ServeError::Listen {
                    addr: config.listen,
                    source,
                })?;
        let app = Arc::new(App {
            indexes,
            metrics: Metrics::new(),
            limits: config.limits,
            access_log: config
                .access_log
                .then(|| AccessLog::spawn(std::io::stderr())),
        });
        for kind in [spool_pwned::HashKind::Sha1, spool_pwned::HashKind::Ntlm] {
            if let Some(loaded) = app.indexes.get(kind).as_ref() {
                record_index(&app.metrics, kind, loaded);
            }
        }
        Ok(Server {
            listener,
            router: router(Arc::clone(&app)),
            app,
            tls,
        })
    }

    /// Whether connections speak TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The address bound (with the port chosen, if 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// A handle that reloads the indexes while the server runs.
    pub fn handle(&self) -> Handle {
        Handle {
            app: Arc::clone(&self.app),
        }
    }

    /// The routes, to call in-process (tests, fuzzing) without a socket.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// Serves until `shutdown` completes; then stops accepting, lets the
    /// requests in flight finish (closing each connection after its
    /// response) and returns when all are done, or after the shutdown grace
    /// period, cutting the rest.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let limits = self.app.limits;
        let shared = Arc::new(Shared {
            router: self.router.clone(),
            protocols: connection::protocols(&limits),
            tls: self.tls.clone(),
            limits,
        });
        let slots = Arc::new(Semaphore::new(limits.max_connections));
        let (stop, stopping) = watch::channel(false);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let slot = tokio::select! {
                () = &mut shutdown => break,
                slot = Arc::clone(&slots).acquire_owned() => slot.expect("never closed"),
            };
            let (stream, peer) = tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        pause_after_accept_error(&e).await;
                        continue;
                    }
                },
            };
            let _ = stream.set_nodelay(true);
            let peer = self.app.access_log.is_some().then_some(Peer(peer));
            let (app, shared, stopping) =
                (Arc::clone(&self.app), Arc::clone(&shared), stopping.clone());
            app.metrics.connections(1);
            tokio::spawn(async move {
                connection::serve(shared, stream, peer, stopping).await;
                app.metrics.connections(-1);
                drop(slot);
            });
        }
        drop(self.listener);
        let _ = stop.send(true);
        // Every connection holds a slot until it ends: all slots free is
        // all connections done.
        let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(limits.shutdown_grace, slots.acquire_many(all)).await;
    }
}

/// After a failed accept: nothing for a connection reset before it was
/// accepted; a pause for anything else (out of descriptors or memory),
/// which would otherwise fail again at once, in a busy loop.
async fn pause_after_accept_error(e: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
    if !matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn record_index(metrics: &Metrics, kind: spool_pwned::HashKind, loaded: &Loaded) {
    metrics.index(kind, loaded.index().header().records, loaded.built());
}

impl Handle {
    /// Opens every index path anew and swaps the new indexes in; on error
    /// the previous ones stay. Blocks while opening (and verifying, if
    /// configured): call it off the async threads.
    ///
    /// # Errors
    ///
    /// The [`LoadError`] of the first index that would not open.
    pub fn reload(&self) -> Result<Vec<(spool_pwned::HashKind, Arc<Loaded>)>, LoadError> {
        let result = self.app.indexes.reload();
        self.app.metrics.reload(result.is_ok());
        if let Ok(loaded) = &result {
            for (kind, loaded) in loaded {
                record_index(&self.app.metrics, *kind, loaded);
            }
        }
        result
    }

    /// The indexes served.
    pub fn indexes(&self) -> &Indexes {
        &self.app.indexes
    }
}
