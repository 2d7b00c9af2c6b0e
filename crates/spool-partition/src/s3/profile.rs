//! Credentials from the AWS shared credentials file, for a run whose
//! environment names no key: the profile `AWS_PROFILE` (else `default`)
//! in `AWS_SHARED_CREDENTIALS_FILE` (else `~/.aws/credentials`), as the
//! AWS CLI and SDKs read it. Only static keys are read (no SSO, no role
//! to assume, no process to run); the file is parsed by `configparser`.

use std::path::PathBuf;

/// The access key, secret key and session token (if any) of the
/// profile, if the file and the profile hold them.
pub(crate) fn credentials() -> Option<(String, String, Option<String>)> {
    let path = match std::env::var_os("AWS_SHARED_CREDENTIALS_FILE") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".aws/credentials"),
    };
    let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".into());
    from_ini(&std::fs::read_to_string(path).ok()?, &profile)
}

/// The keys of `profile` in the text of a credentials file (INI, read by
/// `configparser` with profile and key names case-sensitive, as the AWS
/// CLI reads them).
fn from_ini(text: &str, profile: &str) -> Option<(String, String, Option<String>)> {
    let mut ini = configparser::ini::Ini::new_cs();
    ini.read(text.to_owned()).ok()?;
    let value = |name: &str| ini.get(profile, name);
    Some((
        value("aws_access_key_id")?,
        value("aws_secret_access_key")?,
        value("aws_session_token"),
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_named_profile() {
        let text = "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\
                    [work]\naws_access_key_id=C\naws_secret_access_key=D\naws_session_token=E\n";
        assert_eq!(
            super::from_ini(text, "default"),
            Some(("A".into(), "B".into(), None))
        );
        let work = super::from_ini(text, "work");
        assert_eq!(work, Some(("C".into(), "D".into(), Some("E".into()))));
        assert_eq!(super::from_ini(text, "other"), None);
        assert_eq!(
            super::from_ini(text, "Work"),
            None,
            "names are case-sensitive"
        );
        // Comments, blank lines, spaces around names, a secret with `/`,
        // `+` and a backslash, taken as written.
        let text = "# keys\n[ ci ]\n; the test account\naws_access_key_id = K\n\n\
                    aws_secret_access_key = a/b+c\\d\n";
        assert_eq!(
            super::from_ini(text, "ci"),
            Some(("K".into(), "a/b+c\\d".into(), None))
        );
    }
}
