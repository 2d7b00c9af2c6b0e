//! spool's integration tests, one test binary with a module per
//! subject (`cargo test -p spool --test it`; `-- MODULE::` for one of
//! them); the helpers they share are in `support`.

mod support;

mod buf_list_model;
mod codec;
mod csv_block_index;
mod csv_edges;
mod csv_oracle;
mod pool;
mod pool_model;
mod reassembler;
mod reassembler_model;
mod reassembler_sim;
mod stream;
