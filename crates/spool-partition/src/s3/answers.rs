//! What an S3 store says, read: an error answer folded into one line that
//! names the object (a store's XML error body spans lines and repeats the
//! request), and the elements of an XML answer `object_store` does not
//! read for us (`ListMultipartUploads`).

/// An S3 error as an I/O error naming the object, in one line (see
/// [`describe`]); `verbose` keeps the store's whole answer.
pub(crate) fn failed(
    what: &str,
    key: &str,
    e: impl std::fmt::Display,
    verbose: bool,
) -> std::io::Error {
    let e = e.to_string();
    let said = if verbose { e } else { describe(&e) };
    std::io::Error::other(format!("{what} {key}: {said}"))
}

/// The texts of every `<name>…</name>` element in `xml`, in order.
pub(crate) fn elements<'a>(xml: &'a str, name: &str) -> impl Iterator<Item = &'a str> {
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    let mut rest = xml;
    std::iter::from_fn(move || {
        let start = rest.find(&open)? + open.len();
        let end = start + rest[start..].find(&close)?;
        let text = &rest[start..end];
        rest = &rest[end + close.len()..];
        Some(text)
    })
}

/// A store's error in one line: the S3 error code and message of an
/// XML error body, with the HTTP status, in place of the body (which
/// spans lines and repeats the request); the request's URL left out (the
/// caller names the object); the client's retries kept; line breaks
/// folded.
///
/// ```text
/// Generic S3 error: Error performing PUT http://…/b/k?partNumber=1&uploadId=… in 2s, after 10
///   retries … - Server returned non-2xx status code: 500 Internal Server Error: <?xml …><Error>
///   <Code>InternalError</Code><Message>We encountered an internal error.</Message>…
/// → InternalError: We encountered an internal error. (HTTP 500, after 10 retries)
/// ```
pub(crate) fn describe(text: &str) -> String {
    // object_store's "Error performing METHOD URL in T[, after N retries…] - CAUSE".
    let (request, cause) = match (text.find("Error performing "), text.find(" - ")) {
        (Some(at), Some(dash)) if at < dash => (&text[at..dash], &text[dash + 3..]),
        _ => ("", text),
    };
    let retries = request.find(", after ").and_then(|at| {
        let rest = &request[at + 2..];
        Some(&rest[..rest.find(" retries")? + 8])
    });
    let (what, status) = match elements(cause, "Code").next() {
        Some(code) => {
            let message = elements(cause, "Message").next().unwrap_or_default();
            let status = ["status code: ", "status "].iter().find_map(|at| {
                let digits = cause.get(cause.find(at)? + at.len()..)?.get(..3)?;
                digits.bytes().all(|b| b.is_ascii_digit()).then_some(digits)
            });
            let what = format!("{code}: {}", unescape_xml(message.trim()));
            (what, status.map(|s| format!("HTTP {s}")))
        }
        None => (cause.split_whitespace().collect::<Vec<_>>().join(" "), None),
    };
    let notes: Vec<&str> = status.as_deref().into_iter().chain(retries).collect();
    match notes.is_empty() {
        true => what,
        false => format!("{what} ({})", notes.join(", ")),
    }
}

pub(crate) fn unescape_xml(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_read_in_one_line() {
        let said = "Generic S3 error: Error performing PUT http://127.0.0.1:9/b/k?partNumber=1 in 2.1s, \
                    after 10 retries, max_retries: 10, retry_timeout: 180s  - Server returned non-2xx \
                    status code: 500 Internal Server Error: <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                    <Error>\n  <Code>InternalError</Code>\n  <Message>We &amp; you.</Message>\n\
                    <Resource>/b/k</Resource>\n</Error>";
        assert_eq!(
            describe(said),
            "InternalError: We & you. (HTTP 500, after 10 retries)"
        );
        assert_eq!(describe("connection\n  refused"), "connection refused");
        let unreachable =
            "Generic S3 error: Error performing POST http://127.0.0.1:9/b/k?uploadId=1 \
                           in 2.09s, after 10 retries, max_retries: 10, retry_timeout: 180s - HTTP \
                           error: error sending request";
        assert_eq!(
            describe(unreachable),
            "HTTP error: error sending request (after 10 retries)"
        );
        let e = failed("writing", "b/k", said, false).to_string();
        assert_eq!(
            e,
            "writing b/k: InternalError: We & you. (HTTP 500, after 10 retries)"
        );
        assert!(failed("writing", "b/k", said, true)
            .to_string()
            .contains("<Resource>"));
    }
}
