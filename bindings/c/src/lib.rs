//! C ABI (placeholder).
