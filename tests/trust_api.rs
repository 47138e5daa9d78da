//! The trust issue's tests that need API the fix adds:
//! `CoercionKind::WrappedList` (rule 7) and `Decoder::lossy` /
//! `Decoder::repair_slice` (rule 8). The rest is in `tests/trust.rs`.

use serde::Deserialize;
use serde_llm::{CoercionKind, Decoder, ErrorKind};

#[derive(Debug, PartialEq, Deserialize)]
struct Contact {
    name: String,
    email: String,
}

#[test]
fn a_wrapped_list_is_recorded_as_a_coercion() {
    let reply = r#"{"contacts": [{"name": "Ada", "email": "ada@example.com"}]}"#;
    let (contacts, report) = Decoder::new()
        .decode_with_report::<Vec<Contact>>(reply)
        .unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(
        contacts,
        vec![Contact {
            name: "Ada".into(),
            email: "ada@example.com".into()
        }]
    );
    let kinds: Vec<CoercionKind> = report.coercions.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [CoercionKind::WrappedList]);
}

#[test]
fn repair_slice_keeps_invalid_utf8_an_error() {
    let e = Decoder::new().repair_slice(b"[\"a\xffb\"]").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(3));
}

#[test]
fn repair_slice_drops_an_incomplete_sequence_at_the_end() {
    assert_eq!(
        Decoder::new().repair_slice(b"{\"a\": \"caf\xc3").unwrap(),
        r#"{"a":"caf"}"#
    );
    assert_eq!(
        Decoder::new()
            .repair_slice(b"{\"a\": \"caf\xc3\xa9\"}")
            .unwrap(),
        r#"{"a":"café"}"#
    );
}

#[test]
fn lossy_replaces_invalid_utf8() {
    assert_eq!(
        Decoder::new()
            .lossy()
            .repair_slice(b"[\"a\xffb\"]")
            .unwrap(),
        "[\"a\u{FFFD}b\"]"
    );
    assert_eq!(
        Decoder::new()
            .lossy()
            .repair_slice(b"{\"a\": \"x\xc3\", \"b\": 1}")
            .unwrap(),
        "{\"a\":\"x\u{FFFD}\",\"b\":1}"
    );
}
