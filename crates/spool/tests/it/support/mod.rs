//! Helpers shared by the integration tests.

pub mod block_reader;
pub mod csv_reference;
pub mod reassembler_model;
