//! The tests that measure a `spool` run's own peak RSS, in a test binary
//! of their own: a child's peak RSS counts its parent's memory at the
//! moment it was started, so the parent must stay small — which a binary
//! running every other test beside them is not.

mod partition_memory;
mod pwned_memory;
mod support;
