//! The pwned-password index (placeholder, filled in by its own issue).
#![deny(missing_docs)]
