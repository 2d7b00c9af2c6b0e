//! Chunked file I/O around spool's sans-IO core (placeholder, filled in by its own issue).
#![deny(missing_docs)]
