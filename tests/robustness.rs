//! Bad input gets a clear error, never a panic, a hang, or a stack overflow.
//!
//! Arbitrary bytes and JSON-ish noise go through every entry point; pathological
//! nesting must stop at the depth limit with [`ErrorKind::Depth`]; empty,
//! prose-only and non-UTF-8 replies get errors that say what was looked for and
//! where; and large inputs that once hit quadratic paths finish (their timings
//! are printed, never asserted: speed belongs to the benches).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{json, Value};
use serde_llm::{Decoder, ErrorKind};

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Reply {
    label: String,
    score: f64,
    tags: Vec<String>,
    meta: Option<Meta>,
    kind: Kind,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Meta {
    id: u64,
    ok: bool,
    #[serde(default)]
    extra: Option<Box<Meta>>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
enum Kind {
    A,
    B(i32),
    C { x: f32 },
}

/// What every error must look like, whatever the input: a message, a `$` path,
/// and a position inside the text (with line and column) when it has one.
#[track_caller]
fn assert_sane_error(e: &serde_llm::Error, text: &str) {
    assert!(!e.to_string().is_empty(), "{e:?}");
    assert!(e.path().starts_with('$'), "{e:?}");
    if let Some(offset) = e.offset() {
        assert!(offset <= text.len(), "offset past the end: {e:?}");
        assert!(e.line() >= 1 && e.column() >= 1, "no line/column: {e:?}");
    }
}

/// Runs a text through every entry point. Only a panic, or an error without
/// a message or a sane position, fails this.
fn everything(text: &str) {
    match serde_llm::from_llm_str::<Value>(text) {
        Ok(_) => {}
        Err(e) => assert_sane_error(&e, text),
    }
    match serde_llm::from_llm_str::<Reply>(text) {
        Ok(_) => {}
        Err(e) => assert_sane_error(&e, text),
    }
    let _ = serde_llm::from_llm_str::<Vec<Reply>>(text);
    let _ = serde_llm::from_llm_str::<Vec<Value>>(text);
    let _ = serde_llm::from_llm_str::<String>(text);
    let _ = serde_llm::from_llm_str::<Option<f64>>(text);
    let _ = serde_llm::from_llm_str::<(i64, bool)>(text);
    let _ = serde_llm::from_llm_str::<Kind>(text);
    let _ = serde_llm::from_llm_str::<std::collections::HashMap<String, u8>>(text);
    match serde_llm::repair(text) {
        Ok(_) => {}
        Err(e) => assert_sane_error(&e, text),
    }
    let _ = Decoder::new().max_depth(4).repair_with_report(text);
    let _ = Decoder::new()
        .max_depth(4)
        .decode_with_report::<Value>(text);
}

/// Token soup from the characters the repairing scanner cares about: it hits
/// repair paths far more often than random bytes do.
fn jsonish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "{", "}", "[", "]", "\"", ":", ",", "'", "\\", " ", "\n", "\t", "a", "b", "key", "1",
            "0", "-", ".", "e", "t", "f", "n", "true", "null", "None", "NaN", "/", "*", "//", "/*",
            "*/", "#", "`", "```", "json", "(", ")", "+", "_", "...", "é", "\u{a0}", "\\\"",
            "\\u00", "<json>", "</json>", "<think>", "</think>",
        ]),
        0..48,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        match std::str::from_utf8(&bytes) {
            Ok(text) => everything(text),
            // An incomplete character at the very end is truncation
            // (tests/trust.rs); any other bad byte is an error.
            Err(utf8) if utf8.error_len().is_none() => {}
            Err(utf8) => {
                for e in [
                    serde_llm::from_llm_slice::<Value>(&bytes).unwrap_err(),
                    serde_llm::from_llm_slice::<Reply>(&bytes).unwrap_err(),
                ] {
                    prop_assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
                    prop_assert_eq!(e.offset(), Some(utf8.valid_up_to()));
                }
                everything(&String::from_utf8_lossy(&bytes));
            }
        }
        let _ = serde_llm::from_llm_slice::<Value>(&bytes);
        let _ = serde_llm::from_llm_slice::<Reply>(&bytes);
        let _ = serde_llm::repair(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        everything(&text);
    }
}

/// A small JSON document (compact or pretty) to mutate.
fn document() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z '\"\\\\{}]{0,8}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{0,4}", inner), 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    (value, any::<bool>()).prop_map(|(v, pretty)| {
        if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        }
    })
}

/// One edit of a document: delete, insert or replace at a char boundary.
#[derive(Debug, Clone)]
enum Edit {
    Delete(prop::sample::Index, usize),
    Insert(prop::sample::Index, String),
    Replace(prop::sample::Index, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = prop::collection::vec(
        prop::sample::select(vec![
            "{", "}", "[", "]", "\"", "'", ":", ",", "\\", "\n", " ", "//", "/*", "#", "`", "(",
            ")", "...", "+", "x", "1", "e", "-", "true", "null", "NaN", "```", "<json>",
        ]),
        1..4,
    )
    .prop_map(|v| v.concat());
    prop_oneof![
        (any::<prop::sample::Index>(), 1usize..8).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<prop::sample::Index>(), token.clone()).prop_map(|(i, t)| Edit::Insert(i, t)),
        (any::<prop::sample::Index>(), token).prop_map(|(i, t)| Edit::Replace(i, t)),
    ]
}

fn apply(text: &mut String, e: &Edit) {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = |i: &prop::sample::Index| bounds[i.index(bounds.len())];
    let after = |k: usize, n: usize| {
        bounds
            .iter()
            .copied()
            .find(|&b| b >= k + n)
            .unwrap_or(text.len())
    };
    match e {
        Edit::Delete(i, n) => {
            let k = at(i);
            text.replace_range(k..after(k, *n), "");
        }
        Edit::Insert(i, t) => text.insert_str(at(i), t),
        Edit::Replace(i, t) => {
            let k = at(i);
            text.replace_range(k..after(k, 1), t);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Valid documents with a few random edits: the broken JSON a model writes.
    #[test]
    fn edited_documents_never_panic(doc in document(), edits in prop::collection::vec(edit(), 1..6)) {
        let mut text = doc;
        for e in &edits {
            apply(&mut text, e);
        }
        everything(&text);
        // And cut off anywhere in its first 200 bytes.
        for (cut, _) in text.char_indices().take(200).step_by(7) {
            let _ = serde_llm::from_llm_str::<Value>(&text[..cut]);
            let _ = serde_llm::repair(&text[..cut]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn jsonish_strings_never_panic(text in jsonish()) {
        everything(&text);
        let bytes = text.as_bytes();
        let _ = serde_llm::from_llm_slice::<Value>(bytes);
        let _ = serde_llm::from_llm_slice::<Reply>(bytes);
    }

    /// A bad byte spliced into text lands at its exact offset (a character
    /// cut off at the very end is truncation, see tests/trust.rs).
    #[test]
    fn invalid_utf8_offset_is_exact(text in jsonish(), at in any::<prop::sample::Index>(), bad in prop::sample::select(vec![
        vec![0xffu8], vec![0xc3], vec![0xe2, 0x82], vec![0xed, 0xa0, 0x80], vec![0x80], vec![0xf8, 0x88, 0x80, 0x80, 0x80],
    ])) {
        let cut = at.index(text.len() + 1);
        let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap();
        let mut bytes = text.as_bytes()[..cut].to_vec();
        bytes.extend_from_slice(&bad);
        bytes.extend_from_slice(&text.as_bytes()[cut..]);
        // Not at the very end: an incomplete character there is truncation.
        bytes.push(b' ');
        let e = serde_llm::from_llm_slice::<Value>(&bytes).unwrap_err();
        prop_assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
        prop_assert_eq!(e.offset(), Some(cut));
        prop_assert_eq!(e.to_string(), utf8_display(&bytes, cut));
        let e = serde_llm::from_llm_slice::<Reply>(&bytes).unwrap_err();
        prop_assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
        prop_assert_eq!(e.offset(), Some(cut));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// `repair` promises JSON text: whatever it returns must parse.
    #[test]
    fn repair_output_is_always_json(text in jsonish()) {
        if let Ok(out) = serde_llm::repair(&text) {
            prop_assert!(
                serde_json::from_str::<Value>(&out).is_ok(),
                "repair({:?}) = {:?} is not JSON", text, out
            );
        }
    }

    /// `repair` and decoding into `Value` recover the same value (or both
    /// fail), but for an elision (`[1, ..., 3]`), which `repair` removes and
    /// a decode refuses: the decode's error, or another candidate's reading
    /// when the reply holds one.
    #[test]
    fn repair_agrees_with_value_decoding(text in jsonish()) {
        let value = serde_llm::from_llm_str::<Value>(&text);
        let repaired = serde_llm::repair(&text);
        let elided = serde_llm::Decoder::new()
            .repair_with_report(&text)
            .is_ok_and(|(_, r)| r.repairs.iter().any(|r| r.kind == serde_llm::RepairKind::Elision));
        match (&value, &repaired) {
            _ if elided => {}
            (Ok(v), Ok(r)) => {
                let parsed: Result<Value, _> = serde_json::from_str(r);
                prop_assert!(parsed.as_ref().is_ok_and(|p| p == v),
                    "{:?}: value {} but repair {:?}", text, v, r);
            }
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{:?}: value {:?} but repair {:?}", text, value, repaired),
        }
    }
}

/// Found by `repair_agrees_with_value_decoding` and the JSON5 property
/// test: a string read whole but for values after it, or after a comment,
/// and a stray backslash taken for a key, each gave a wrong `Ok`.
#[test]
fn what_a_string_holds_is_no_candidate_and_a_backslash_no_key() {
    let cases = [
        // A string, an elision, a tag: the tag's value, as `repair` reads.
        ("''[...<json>'a", json!("a")),
        // A string after a comment holds the brace: it is no object.
        ("/**/\"{\\\u{2028}\"", json!("{")),
        ("/* c */ \"{x}\"", json!("{x}")),
        // A stray backslash names no key (`{"": "x"}` was invented).
        ("{\\ \"x\": 1}", json!({"x": 1})),
        ("{\"a\": 1, \\ \"b\"}", json!({"a": 1})),
        // One that is the key's own text stays in it.
        ("{a\\b: 1}", json!({"a\\b": 1})),
    ];
    for (text, want) in cases {
        let value = serde_llm::from_llm_str::<Value>(text);
        assert_eq!(value.as_ref().ok(), Some(&want), "{text:?}: {value:?}");
        let repaired: Value = serde_json::from_str(&serde_llm::repair(text).unwrap()).unwrap();
        assert_eq!(repaired, want, "{text:?}");
    }
}

#[test]
fn repair_of_an_empty_group_is_not_empty_text() {
    for text in ["(", "f()", "((", "null1(", "(/*{["] {
        match serde_llm::repair(text) {
            Ok(out) => assert!(
                serde_json::from_str::<Value>(&out).is_ok(),
                "repair({text:?}) = {out:?} is not JSON"
            ),
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::Syntax | ErrorKind::NoJson),
                "{text:?}: {e:?}"
            ),
        }
    }
}

#[test]
fn an_empty_call_as_a_member_value() {
    for text in [
        r#"{"id": ObjectId(), "n": 1}"#,
        r#"{"a": f() , "n": 1}"#,
        r#"{"a": Date(), "n": 1}"#,
    ] {
        let value: Value =
            serde_llm::from_llm_str(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        assert_eq!(value["n"], 1, "{text:?}");
        let out = serde_llm::repair(text).unwrap();
        let repaired: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("repair({text:?}) = {out:?} is not JSON: {e}"));
        assert_eq!(repaired, value, "{text:?}");
    }
}

#[test]
fn repair_and_value_agree_after_an_empty_call() {
    for text in ["f(){", "(:){", "(...){"] {
        let value: Value = serde_llm::from_llm_str(text).unwrap();
        let repaired: Value = serde_json::from_str(&serde_llm::repair(text).unwrap()).unwrap();
        assert_eq!(repaired, value, "{text:?}");
    }
}

#[test]
fn repair_of_a_cut_implicit_object_is_json() {
    for text in [r#"["a":"#, r#"["a": "#, r#"["a":]"#, r#"["":,"#, "['':"] {
        let out = serde_llm::repair(text).unwrap();
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "repair({text:?}) = {out:?} is not JSON"
        );
        // `{"a":` (the same cut without the implicit object) drops the key.
        let value = serde_llm::from_llm_str::<Value>(text);
        assert!(value.is_ok(), "{text:?}: {value:?}");
    }
}

#[test]
fn repair_of_a_wrapper_closed_by_a_brace_is_json() {
    for text in [r#"{"t": a(}"#, "{t:a(}"] {
        let out = serde_llm::repair(text).unwrap();
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "repair({text:?}) = {out:?} is not JSON"
        );
    }
}

// ---------------------------------------------------------------------------
// Depth.

fn arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn objects(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

#[test]
fn a_million_open_brackets_is_a_depth_error() {
    let text = "[".repeat(1_000_000);
    let e = short_err(serde_llm::from_llm_str::<Value>(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    assert_eq!(e.message(), "nesting deeper than 128 levels");
    assert_eq!(e.offset(), Some(128));
    let e = short_err(serde_llm::repair(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    let e = serde_llm::from_llm_slice::<Vec<Value>>(text.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    // Closed, too: still a depth error, not a stack overflow.
    let text = arrays(1_000_000);
    let e = short_err(serde_llm::from_llm_str::<Value>(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    let e = short_err(serde_llm::repair(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
}

#[test]
fn a_million_open_objects_is_a_depth_error() {
    let text = r#"{"a":"#.repeat(1_000_000);
    let e = short_err(serde_llm::from_llm_str::<Value>(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    assert_eq!(e.offset(), Some(128 * 5));
    let e = short_err(serde_llm::repair(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    let e = serde_llm::from_llm_str::<Reply>(&text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    // Mixed and unquoted.
    let text = "{a: [".repeat(500_000);
    let e = short_err(serde_llm::from_llm_str::<Value>(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    let e = short_err(serde_llm::repair(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
    // After prose, into a struct. (A `Value` may take the prose itself as an
    // unquoted string, so only the struct is sure to fail.)
    let text = format!("Here it is: {}", "{a: [".repeat(500_000));
    let e = short_err(serde_llm::from_llm_str::<Reply>(&text));
    assert_eq!(e.kind(), ErrorKind::Depth, "{e:?}");
}

/// The error, or a panic that does not print a megabyte of value.
#[track_caller]
fn short_err<T>(r: serde_llm::Result<T>) -> serde_llm::Error {
    match r {
        Ok(_) => panic!("expected an error, got Ok({})", std::any::type_name::<T>()),
        Err(e) => e,
    }
}

#[test]
fn max_depth_is_exact() {
    let decoder = Decoder::new().max_depth(10);
    for (text, depth) in [(arrays(10), 10), (objects(10), 10), (arrays(1), 1)] {
        let expected: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(decoder.decode::<Value>(&text).unwrap(), expected, "{depth}");
        let repaired = decoder.repair(&text).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&repaired).unwrap(), expected);
    }
    for text in [arrays(11), objects(11), arrays(12), objects(50)] {
        let e = decoder.decode::<Value>(&text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Depth, "{text}: {e:?}");
        assert_eq!(e.message(), "nesting deeper than 10 levels");
        let e = decoder.repair(&text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Depth, "{text}: {e:?}");
    }
    // The 11th opener is where it fails.
    let e = decoder.decode::<Value>(&arrays(11)).unwrap_err();
    assert_eq!(e.offset(), Some(10));
    assert_eq!((e.line(), e.column()), (1, 11));
    // Truncated at depth 10 is fine; an 11th level cut off is not.
    let open10 = "[".repeat(10);
    assert!(decoder.decode::<Value>(&open10).is_ok());
    let open11 = "[".repeat(11);
    assert_eq!(
        decoder.decode::<Value>(&open11).unwrap_err().kind(),
        ErrorKind::Depth
    );
    // The default is 128, like serde_json's recursion limit.
    assert!(serde_llm::from_llm_str::<Value>(&arrays(128)).is_ok());
    assert_eq!(
        serde_llm::from_llm_str::<Value>(&arrays(129))
            .unwrap_err()
            .kind(),
        ErrorKind::Depth
    );
    // Depth 0: scalars only.
    let zero = Decoder::new().max_depth(0);
    assert_eq!(zero.decode::<u8>("7").unwrap(), 7);
    assert_eq!(
        zero.decode::<Value>("[]").unwrap_err().kind(),
        ErrorKind::Depth
    );
}

#[test]
fn lone_closers_finish() {
    for text in [
        "]".repeat(100_000),
        "}".repeat(100_000),
        "]}".repeat(50_000),
        ")".repeat(100_000),
    ] {
        let e = short_err(serde_llm::from_llm_str::<Value>(&text));
        assert_sane_error(&e, &text);
        let _ = serde_llm::from_llm_str::<Reply>(&text);
        let _ = serde_llm::from_llm_str::<Vec<Value>>(&text);
        let _ = serde_llm::repair(&text);
    }
    let e = serde_llm::from_llm_str::<Value>(&"]".repeat(100_000)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
    let e = serde_llm::repair(&"}".repeat(100_000)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
}

// ---------------------------------------------------------------------------
// Clear errors.

#[test]
fn empty_input_is_no_json() {
    for e in [
        serde_llm::from_llm_str::<Reply>("").unwrap_err(),
        serde_llm::from_llm_str::<Value>("").unwrap_err(),
        serde_llm::from_llm_slice::<Reply>(b"").unwrap_err(),
        serde_llm::repair("").unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::NoJson);
        assert_eq!(
            e.to_string(),
            "no JSON value found: the reply is empty (line 1, column 1)"
        );
        assert_eq!(e.offset(), Some(0));
    }
}

#[test]
fn whitespace_only_is_no_json() {
    for text in [" ", "\n\n", " \r\n\t  \n"] {
        for e in [
            serde_llm::from_llm_str::<Reply>(text).unwrap_err(),
            serde_llm::from_llm_str::<Value>(text).unwrap_err(),
            serde_llm::repair(text).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::NoJson);
            assert_eq!(
                e.to_string(),
                "no JSON value found: the reply is only whitespace (line 1, column 1)"
            );
        }
    }
}

#[test]
fn prose_only_is_no_json_and_says_what_was_looked_for() {
    let refusal = "I'm sorry, I can't help with that.";
    let e = serde_llm::from_llm_str::<Reply>(refusal).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
    assert_eq!(
        e.to_string(),
        "expected a JSON object, found prose (looked for a bare value, ```json fences, \
         <json> tags, and {…} spans)"
    );
    assert_eq!(e.path(), "$");
    let e = serde_llm::from_llm_slice::<Reply>(refusal.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");

    let e = serde_llm::from_llm_str::<Vec<Reply>>(refusal).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
    assert_eq!(
        e.to_string(),
        "expected a JSON array, found prose (looked for a bare value, ```json fences, \
         <json> tags, and […] spans)"
    );

    // Several lines of prose: still no object; no position is made up for
    // an error about the whole reply.
    let long = "Let me think about this.\n\nThe answer depends on context; I need more details.\n";
    let e = serde_llm::from_llm_str::<Reply>(long).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
    assert_eq!((e.offset(), e.line(), e.column()), (None, 0, 0));
}

#[test]
fn reasoning_alone_is_no_json() {
    let text = "<think>Let me see.</think>";
    for e in [
        serde_llm::from_llm_str::<Reply>(text).unwrap_err(),
        serde_llm::from_llm_str::<Value>(text).unwrap_err(),
        serde_llm::repair(text).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
        assert_eq!(
            e.to_string(),
            "no JSON value found: the reply holds only a reasoning block (line 1, column 27)"
        );
    }
    for text in [
        "<think>a</think>\n\n  ",
        "<thinking>\n{\"a\": 1}\n</thinking>",
    ] {
        let e = serde_llm::from_llm_str::<Reply>(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{text:?}: {e:?}");
        let e = serde_llm::repair(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{text:?}: {e:?}");
    }
}

#[test]
fn a_lone_bom_is_an_empty_reply() {
    for text in ["\u{feff}", "\u{feff}\u{feff}"] {
        let e = serde_llm::from_llm_str::<Reply>(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{e:?}");
        assert!(!e.to_string().contains("reasoning"), "{text:?}: {e}");
    }
}

/// The Display of an invalid UTF-8 error: the byte offset, then the line and
/// column (in characters) of the bad byte within the valid text before it.
fn utf8_display(bytes: &[u8], offset: usize) -> String {
    let before = std::str::from_utf8(&bytes[..offset]).unwrap();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
    format!("invalid UTF-8 at byte {offset} (line {line}, column {column})")
}

#[test]
fn invalid_utf8_is_reported_at_the_first_bad_byte() {
    let cases: [(&[u8], usize); 9] = [
        (b"line one\n  \xc3\xa9 \xfe", 14),
        (b"\xff", 0),
        (b"[1, \xff]", 4),
        (b"{\"a\": \"\xc3(\"}", 7),
        (b"{\"a\": \"\xed\xa0\x80\"}", 7),
        (b"abc\xc3 ", 3),
        (b"\xe2\x82 ", 0),
        (b"\xef\xbb\xbf{\"k\": \xc0\xaf}", 9),
        (b"{\"\xc3\xa9\": \"ok\"} \xf0\x9f\x98\x80 trailing \x80", 27),
    ];
    for (bytes, offset) in cases {
        for e in [
            serde_llm::from_llm_slice::<Value>(bytes).unwrap_err(),
            serde_llm::from_llm_slice::<Reply>(bytes).unwrap_err(),
            Decoder::new().decode_slice::<Value>(bytes).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::InvalidUtf8, "{bytes:?}");
            assert_eq!(e.offset(), Some(offset), "{bytes:?}");
            assert_eq!(e.message(), format!("invalid UTF-8 at byte {offset}"));
            assert_eq!(e.to_string(), utf8_display(bytes, offset));
        }
    }
}

// ---------------------------------------------------------------------------
// Linear time. Each big input runs once through the main entry points; the
// timings are printed (`--nocapture`), not asserted.

fn timed(name: &str, text: &str) -> Duration {
    let start = Instant::now();
    let value = serde_llm::from_llm_str::<Value>(text).map(|_| ());
    let t_value = start.elapsed();
    let t = Instant::now();
    let reply = serde_llm::from_llm_str::<Reply>(text).map(|_| ());
    let t_struct = t.elapsed();
    let t = Instant::now();
    let list = serde_llm::from_llm_str::<Vec<Value>>(text).map(|_| ());
    let t_list = t.elapsed();
    let t = Instant::now();
    let repaired = serde_llm::repair(text).map(|_| ());
    let t_repair = t.elapsed();
    eprintln!(
        "{name:<40} {:>8} B  Value {t_value:>9.1?} {:<10} struct {t_struct:>9.1?} {:<10} \
         Vec {t_list:>9.1?} {:<10} repair {t_repair:>9.1?} {:?}",
        text.len(),
        format!("{:?}", value.map_err(|e| e.kind())),
        format!("{:?}", reply.map_err(|e| e.kind())),
        format!("{:?}", list.map_err(|e| e.kind())),
        repaired.map_err(|e| e.kind()),
    );
    start.elapsed()
}

const MB: usize = 1 << 20;

#[test]
fn big_unterminated_string() {
    let body = "x,".repeat(MB / 2);
    timed(
        "1 MB x,x,.. in an open string (object)",
        &format!(r#"{{"label": "{body}"#),
    );
    timed(
        "1 MB x,x,.. in an open string (array)",
        &format!(r#"["{body}"#),
    );
    timed(
        "1 MB x,x,.. in an open string (prose)",
        &format!(r#"Here: {{"label": "{body}"#),
    );
    let v: Value = serde_llm::from_llm_str(&format!(r#"{{"label": "{body}"#)).unwrap();
    let label = v["label"].as_str().unwrap();
    // The string is closed at the end (its last `,` may be taken as a separator).
    assert!(
        label.starts_with("x,x,x,") && label.len() >= MB - 1,
        "{}",
        label.len()
    );
}

#[test]
fn big_run_of_strings_in_an_object_value() {
    let run = r#""a" "#.repeat(MB / 4);
    timed(
        "1 MB \"a\" \"a\" .. as an object value",
        &format!(r#"{{"k": {run}}}"#),
    );
    timed(
        "1 MB \"a\" \"a\" .. open object value",
        &format!(r#"{{"k": {run}"#),
    );
    timed("1 MB \"a\" \"a\" .. in an array", &format!("[{run}]"));
}

#[test]
fn big_prose_with_braces() {
    timed("200 KB of `so { then `", &"so { then ".repeat(20_000));
    timed("200 KB of `{`", &"{".repeat(200_000));
    timed("200 KB of `{a`", &"{a".repeat(100_000));
    timed("200 KB of `[ ` in prose", &"a [ b ".repeat(33_000));
}

#[test]
fn big_array_of_unquoted_words() {
    let words: Vec<String> = (0..100_000).map(|i| format!("word{i}")).collect();
    let spaced = format!("[{}]", words.join(" "));
    let commas = format!("[{}]", words.join(", "));
    timed("100k unquoted words, spaces", &spaced);
    timed("100k unquoted words, commas", &commas);
    timed(
        "100k unquoted words, open",
        &format!("[{}", words.join(", ")),
    );
    let v: Vec<String> = serde_llm::from_llm_str(&commas).unwrap();
    assert_eq!(v.len(), 100_000);
    assert_eq!(v[99_999], "word99999");
}

#[test]
fn many_small_candidates_for_a_value() {
    // The `Value` target stops at the first (whole-text) candidate.
    let text = "{}".repeat(100_000);
    let t = Instant::now();
    let v: Value = serde_llm::from_llm_str(&text).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(100_000));
    let _ = serde_llm::repair(&text).unwrap();
    eprintln!(
        "200 KB of `{{}}` as a Value and repaired: {:.1?}",
        t.elapsed()
    );
}

// Inputs that once hit quadratic paths (tens of seconds at these sizes in a
// debug build). Time is not asserted (speed belongs to the benches); a
// regression shows as a test that takes minutes, and the timings are printed.

#[test]
fn many_small_candidates_for_a_struct() {
    // 100k `{}` spans: each is a candidate for the struct and fails.
    let text = "{}".repeat(100_000);
    let err = serde_llm::from_llm_str::<Reply>(&text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data);
    let v: Vec<Value> = serde_llm::from_llm_str(&"]{".repeat(100_000)).unwrap();
    assert!(v.iter().all(|x| x == &serde_json::json!({})));
    timed("200 KB of `{}`", &text);
}

#[test]
fn many_fences_and_tags() {
    let fences = "```json\n{\n```\n".repeat(20_000);
    assert_eq!(
        serde_llm::from_llm_str::<Value>(&fences).unwrap(),
        serde_json::json!({})
    );
    let tags = "<json>{</json>".repeat(20_000);
    assert_eq!(
        serde_llm::from_llm_str::<Value>(&tags).unwrap(),
        serde_json::json!({})
    );
    timed("20k fences", &fences);
    timed("20k tags", &tags);
}

#[test]
fn nested_parens() {
    // Wrappers count toward the depth limit like containers.
    let err = serde_llm::from_llm_str::<Value>(&"(".repeat(100_000)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Depth);
    let wrapped = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    assert_eq!(serde_llm::repair(&wrapped).unwrap(), "1");
    timed("100k `(`", &"(".repeat(100_000));
}
