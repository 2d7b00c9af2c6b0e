//! spool-cli's integration tests, one test binary with a module per
//! subject (`cargo test -p spool-cli --test it`; `-- MODULE::` for one of
//! them); the helpers they share are in `support`.

mod support;

mod cli_errors;
mod completions_man;
mod disk_full;
mod docs_agree;
mod interrupts;
mod partition_append;
mod partition_append_dead_runs;
mod partition_cli;
mod partition_csv_cli;
mod partition_csv_errors;
mod partition_file_limits;
mod partition_inputs_cli;
mod partition_open_file_limit;
mod partition_parquet_encodings;
mod partition_parquet_manifest;
mod partition_reliability;
mod pwned_cli;
mod pwned_download;
mod pwned_download_ranges;
mod pwned_download_upstream;
mod pwned_formats_cli;
mod pwned_quiet;
mod pwned_reliability;
mod pwned_serve;
mod pwned_serve_http2;
mod pwned_serve_reload;
mod pwned_update;
