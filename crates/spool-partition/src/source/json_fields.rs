//! One NDJSON line's top-level fields, in the order written, each value
//! kept as its raw JSON text: a nested object or array is carried whole,
//! byte for byte, and a string is unescaped only when it is written.
//!
//! serde_json's own map types would sort the keys (or need a feature the
//! workspace does not turn on) and re-serialize nested values; a visitor
//! that borrows keys and [`RawValue`]s from the line does neither and
//! allocates only for a key that holds an escape.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A JSON object's fields, borrowed from its text.
pub(crate) struct Fields<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

/// Parses one line as a JSON object.
///
/// # Errors
///
/// Text that is not one JSON object: what serde_json says, and the column.
pub(crate) fn parse(line: &[u8]) -> Result<Fields<'_>, String> {
    serde_json::from_slice(line).map_err(|e| {
        let text = e.to_string();
        let what = text.rsplit_once(" at line ").map_or(&text[..], |(w, _)| w);
        format!("not a JSON object: {what} at column {}", e.column())
    })
}

/// A value as text: a string unescaped, `null` empty, anything else (a
/// number, `true`, an object, an array) as written.
///
/// # Errors
///
/// A string whose escapes are not text (a lone surrogate, `"\ud800"`):
/// checked only here, since a [`RawValue`] keeps a string as written.
pub(crate) fn text(value: &RawValue) -> Result<Cow<'_, [u8]>, String> {
    let raw = value.get();
    Ok(match raw.as_bytes()[0] {
        b'"' if !raw.contains('\\') => Cow::Borrowed(&raw.as_bytes()[1..raw.len() - 1]),
        b'"' => {
            let unescaped: String = serde_json::from_str(raw)
                .map_err(|e| format!("a string that is not text: {raw}: {e}"))?;
            Cow::Owned(unescaped.into_bytes())
        }
        b'n' => Cow::Borrowed(b""),
        _ => Cow::Borrowed(raw.as_bytes()),
    })
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FieldsVisitor)
    }
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8));
        while let Some((Key(key), value)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
            fields.push((key, value));
        }
        Ok(Fields(fields))
    }
}

/// A key borrowed from the line unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_order_values_raw() {
        let line =
            br#"{"z":"a\"b\u00e9","a":null,"n":-1.5e3,"o":{"y":[1, 2],"x":true},"k\u0041":"x"}"#;
        let fields = parse(line).unwrap();
        let got: Vec<(&str, String)> = (fields.0.iter())
            .map(|(k, v)| {
                (
                    &k[..],
                    String::from_utf8(text(v).unwrap().into_owned()).unwrap(),
                )
            })
            .collect();
        let want = [
            ("z", "a\"bé"),
            ("a", ""),
            ("n", "-1.5e3"),
            ("o", r#"{"y":[1, 2],"x":true}"#),
            ("kA", "x"),
        ];
        let want: Vec<(&str, String)> = want.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        assert_eq!(got, want);
        for bad in [
            &b"[1]"[..],
            b"{\"a\":1",
            b"{\"a\" 1}",
            b"17",
            b"{\"a\":1} x",
        ] {
            let e = parse(bad).err().expect("refused");
            assert!(e.starts_with("not a JSON object"), "{e}");
        }
    }
}
