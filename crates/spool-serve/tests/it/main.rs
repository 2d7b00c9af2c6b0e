//! spool-serve's integration tests, one test binary with a module per
//! subject (`cargo test -p spool-serve --test it`; `-- MODULE::` for one of
//! them); the helpers they share are in `support`.

mod support;

mod api;
mod bad_requests;
mod damaged;
mod etags;
mod formats;
mod limits;
mod range_body;
mod ranges;
mod reload;
mod tls;
