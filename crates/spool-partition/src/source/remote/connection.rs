//! The clients a run's remote inputs are read through, made once per run
//! and shared by its objects: one S3 client per bucket (credentials and
//! endpoint by the rules of the S3 output, `s3::store::client`), one HTTP
//! client per URL, and the small runtime their requests run on — the
//! same `object_store` clients, on the same reqwest stack, as the output.
//!
//! The rest of the crate is blocking: readers spawn their requests on
//! the runtime and wait for the answers from their own threads.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use object_store::http::HttpBuilder;
use object_store::{ClientOptions, ObjectStore};

/// The clients and the runtime of a run's remote inputs.
pub(crate) struct Connection {
    runtime: tokio::runtime::Runtime,
    buckets: Mutex<HashMap<String, Arc<dyn ObjectStore>>>,
    /// Errors carry the store's whole answer (`-v`), not one line.
    pub verbose: bool,
}

impl Connection {
    /// A runtime of two threads (requests wait on the network, not on
    /// the processor); no client yet.
    ///
    /// # Errors
    ///
    /// The runtime's threads cannot be started.
    pub fn new(verbose: bool) -> std::io::Result<Arc<Self>> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("spool-partition-input")
            .enable_all()
            .build()?;
        Ok(Arc::new(Connection {
            runtime,
            buckets: Mutex::default(),
            verbose,
        }))
    }

    /// The client of `bucket` (made on first use).
    ///
    /// # Errors
    ///
    /// Credentials or an endpoint that cannot be used.
    pub fn bucket(&self, bucket: &str) -> std::io::Result<Arc<dyn ObjectStore>> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = buckets.get(bucket) {
            return Ok(client.clone());
        }
        let (client, ..) = crate::s3::store::client(bucket)?;
        buckets.insert(bucket.to_owned(), client.clone());
        Ok(client)
    }

    /// A client of the one object at `url` (plain `http://` as the user
    /// asked for it).
    ///
    /// # Errors
    ///
    /// A URL that does not parse.
    pub fn http(&self, url: &str) -> std::io::Result<Arc<dyn ObjectStore>> {
        let options = ClientOptions::new().with_allow_http(url.starts_with("http://"));
        let store = HttpBuilder::new()
            .with_url(url)
            .with_client_options(options)
            .build()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        Ok(Arc::new(store))
    }

    /// Runs `future` to its end, from a thread outside the runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.handle().block_on(future)
    }

    /// Starts `future` on the runtime; its answer is awaited later.
    pub fn spawn<F>(&self, future: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.runtime.spawn(future)
    }
}
