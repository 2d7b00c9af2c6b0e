//! Printing an error once.
//!
//! anyhow's `{:#}` joins an error and each of its causes with `: `. Error
//! types that already put their cause in their own message (as
//! `"{path}: {source}"` types do, so that a plain `{}` is complete) would
//! then print the cause twice: `nosuch.idx: No such file or directory: No
//! such file or directory`. [`message`] skips a cause whose text the message
//! already holds, so every error reads once whichever convention the
//! library that raised it follows.

/// The error and its causes joined with `: `, each text once.
pub fn message(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !cause.is_empty() && !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Says `"{path}": {source}` and also returns `source` as its cause.
    #[derive(Debug)]
    struct Repeats {
        path: String,
        source: std::io::Error,
    }

    impl std::fmt::Display for Repeats {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for Repeats {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn a_cause_in_the_message_is_not_repeated() {
        let err = anyhow::Error::new(Repeats {
            path: "nosuch.idx".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file"),
        });
        assert_eq!(message(&err), "nosuch.idx: No such file");
    }

    #[test]
    fn a_new_cause_is_added() {
        let err = anyhow::Error::new(std::io::Error::other("disk full")).context("out.tsv");
        assert_eq!(message(&err), "out.tsv: disk full");
    }
}
