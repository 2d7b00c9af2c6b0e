//! Run ids: the name each run of a many-writers dataset carries in every
//! file it writes ([`AppendRun`](super::AppendRun)), checked before any
//! file is made so that a bad id is a usage error, not a broken name.

/// Longest run id, so that names holding one stay well within 255 bytes.
pub const MAX_RUN_ID_LEN: usize = 64;

/// Checks a run id: 1 to 64 ASCII letters, digits, `_` and `-`, starting
/// with a letter or digit — safe in any file name, and never holding the
/// `.` that separates a flat layout's key from it.
///
/// # Errors
///
/// What is wrong with it, in a sentence for the user.
///
/// # Examples
///
/// ```
/// use spool_partition::append_run::check_run_id;
/// assert!(check_run_id("task-0017_attempt-1").is_ok());
/// assert!(check_run_id("../x").is_err());
/// assert!(check_run_id("").is_err());
/// assert!(check_run_id(&"a".repeat(65)).is_err());
/// ```
pub fn check_run_id(id: &str) -> Result<(), String> {
    let safe = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    if id.is_empty() || id.len() > MAX_RUN_ID_LEN {
        return Err(format!(
            "run id '{id}' must be 1 to {MAX_RUN_ID_LEN} characters long"
        ));
    }
    if !id.bytes().all(safe) || !id.as_bytes()[0].is_ascii_alphanumeric() {
        return Err(format!(
            "run id '{}' may only hold ASCII letters, digits, '_' and '-', \
             and must start with a letter or digit",
            id.escape_debug()
        ));
    }
    Ok(())
}
