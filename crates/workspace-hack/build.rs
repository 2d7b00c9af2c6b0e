//! Present so that cargo treats the `[build-dependencies]` above as build
//! dependencies of this crate (which unifies their features too).
fn main() {}
