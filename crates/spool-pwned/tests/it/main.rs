//! spool-pwned's integration tests, one test binary with a module per
//! subject (`cargo test -p spool-pwned --test it`; `-- MODULE::` for one of
//! them); the helpers they share are in `support`.

mod support;

mod build_and_lookup;
mod damaged_index;
mod formats;
mod range_records;
