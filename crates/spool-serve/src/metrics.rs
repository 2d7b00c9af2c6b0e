//! `/metrics`: requests by endpoint and status, latency, connections,
//! reloads and the indexes served, in the OpenMetrics text format that
//! Prometheus scrapes.
//!
//! Labels take values from small fixed sets (the endpoint a route names,
//! the status code the handlers chose, the hash kind): never anything from
//! the request, so a client cannot grow the series, and no hash or prefix
//! reaches the metrics.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use spool_pwned::HashKind;

/// The endpoint a request was routed to.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Range,
    CheckSha1,
    CheckNtlm,
    CheckPlain,
    Healthz,
    Metrics,
    /// No route: a 404.
    Other,
}

impl Endpoint {
    /// The endpoint of a matched route pattern.
    pub(crate) fn of_route(route: Option<&str>) -> Endpoint {
        match route {
            Some("/range/{prefix}") => Endpoint::Range,
            Some("/check/sha1/{hash}") => Endpoint::CheckSha1,
            Some("/check/ntlm/{hash}") => Endpoint::CheckNtlm,
            Some("/check/plain") => Endpoint::CheckPlain,
            Some("/healthz") => Endpoint::Healthz,
            Some("/metrics") => Endpoint::Metrics,
            _ => Endpoint::Other,
        }
    }

    /// The endpoint's label value.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Endpoint::Range => "range",
            Endpoint::CheckSha1 => "check_sha1",
            Endpoint::CheckNtlm => "check_ntlm",
            Endpoint::CheckPlain => "check_plain",
            Endpoint::Healthz => "healthz",
            Endpoint::Metrics => "metrics",
            Endpoint::Other => "other",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    endpoint: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EndpointLabels {
    endpoint: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    result: &'static str,
}

type LatencyFamily = Family<EndpointLabels, Histogram, fn() -> Histogram>;

/// Every metric the service keeps, and their registry.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: LatencyFamily,
    connections: Gauge,
    index_records: Family<KindLabels, Gauge>,
    index_built: Family<KindLabels, Gauge<f64, AtomicU64>>,
    reloads: Family<OutcomeLabels, Counter>,
    access_log_dropped: Counter,
}

/// Latency buckets: 10 µs to about 0.3 s, doubling. A lookup takes
/// microseconds; what is above a millisecond is waiting.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_01, 2.0, 16))
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("spool");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests by endpoint and status",
            requests.clone(),
        );
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's headers to its response, by endpoint",
            latency.clone(),
        );
        let connections = Gauge::default();
        registry.register(
            "http_connections",
            "Open client connections",
            connections.clone(),
        );
        let index_records = Family::<KindLabels, Gauge>::default();
        registry.register(
            "pwned_index_records",
            "Hashes in the index served",
            index_records.clone(),
        );
        let index_built = Family::<KindLabels, Gauge<f64, AtomicU64>>::default();
        registry.register(
            "pwned_index_build_timestamp_seconds",
            "When the index served was built (its file's modification time), Unix time",
            index_built.clone(),
        );
        let reloads = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "pwned_index_reloads",
            "Index reloads by result",
            reloads.clone(),
        );
        let access_log_dropped = Counter::default();
        registry.register(
            "access_log_dropped_lines",
            "Access log lines dropped because standard error could not keep up",
            access_log_dropped.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            connections,
            index_records,
            index_built,
            reloads,
            access_log_dropped,
        }
    }

    /// Counts a request and its latency.
    pub(crate) fn request(&self, endpoint: Endpoint, status: u16, elapsed: Duration) {
        let endpoint = endpoint.label();
        self.requests
            .get_or_create(&RequestLabels { endpoint, status })
            .inc();
        self.latency
            .get_or_create(&EndpointLabels { endpoint })
            .observe(elapsed.as_secs_f64());
    }

    /// A connection opened (`+1`) or closed (`-1`).
    pub(crate) fn connections(&self, delta: i64) {
        self.connections.inc_by(delta);
    }

    /// Records the index now served for `kind`.
    pub(crate) fn index(&self, kind: HashKind, records: u64, built: SystemTime) {
        let labels = KindLabels {
            kind: match kind {
                HashKind::Sha1 => "sha1",
                HashKind::Ntlm => "ntlm",
            },
        };
        self.index_records
            .get_or_create(&labels)
            .set(i64::try_from(records).unwrap_or(i64::MAX));
        let seconds = built
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        self.index_built.get_or_create(&labels).set(seconds);
    }

    /// Counts a reload.
    pub(crate) fn reload(&self, ok: bool) {
        let result = if ok { "ok" } else { "error" };
        self.reloads.get_or_create(&OutcomeLabels { result }).inc();
    }

    /// Counts an access log line dropped.
    pub(crate) fn access_log_dropped(&self) {
        self.access_log_dropped.inc();
    }

    /// The metrics in the OpenMetrics text format.
    pub(crate) fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}
