//! spool-partition's integration tests, one test binary with a module per
//! subject (`cargo test -p spool-partition --test it`; `-- MODULE::` for one of
//! them); the helpers they share are in `support`.

mod support;

mod memory_plan;
mod partition;
mod partition_csv;
mod partition_failures;
mod partition_parquet;
mod partition_parquet_misfits;
mod sources;
mod sources_ndjson_parquet;
mod sources_parquet;
mod sources_remote;
