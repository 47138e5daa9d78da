//! The trust issue: what a reply decodes to must be what the model meant.
//!
//! 1. every row of the issue's table, typed and through `repair()`;
//! 2. every rule (prose is not a value, scalar targets, ranking, numbers,
//!    fences and strings, what models write, wrapped lists, bytes);
//! 3. properties: generated values wrapped in real model prose (bare and
//!    fenced, compact and pretty, clean and with one repair) decode to the
//!    value; prose alone is `NoJson`; every prefix of valid JSON gives a
//!    value consistent with the whole.
//!
//! The linear-time tests (they need `serde_llm::__private::work()`) are in
//! `tests/linear.rs`; the tests of new API (`CoercionKind::WrappedList`,
//! `Decoder::lossy`, `repair_slice`) are in `tests/trust_api.rs`.

mod common;

use common::consistent;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use serde_llm::{from_llm_slice, from_llm_str, repair, Decoder, Error, ErrorKind, Partial, Report};

// ----- helpers ---------------------------------------------------------------

/// Decodes `text` into `T` with its report, panicking with the error.
#[track_caller]
fn decode<'de, T: Deserialize<'de>>(text: &'de str) -> (T, Report) {
    Decoder::new()
        .decode_with_report(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e:#}"))
}

/// `from_llm_str::<Value>(text)`, panicking with the error.
#[track_caller]
fn value(text: &str) -> Value {
    from_llm_str::<Value>(text).unwrap_or_else(|e| panic!("{text:?}: {e:#}"))
}

/// `repair(text)`, panicking with the error.
#[track_caller]
fn fixed(text: &str) -> String {
    repair(text).unwrap_or_else(|e| panic!("{text:?}: {e:#}"))
}

/// `repair(text)` parsed back (serde_json's `Value` sorts keys, so texts of
/// objects are compared as values).
#[track_caller]
fn fixed_value(text: &str) -> Value {
    serde_json::from_str(&fixed(text)).expect("repair() gives JSON")
}

/// The error decoding `text` into `T` gives, panicking if it decodes.
#[track_caller]
fn error<'de, T: Deserialize<'de> + std::fmt::Debug>(text: &'de str) -> Error {
    match from_llm_str::<T>(text) {
        Ok(v) => panic!("{text:?} decoded to {v:?}, expected an error"),
        Err(e) => e,
    }
}

/// The error `repair(text)` gives, panicking if it succeeds.
#[track_caller]
fn repair_error(text: &str) -> Error {
    match repair(text) {
        Ok(s) => panic!("repair({text:?}) = {s:?}, expected an error"),
        Err(e) => e,
    }
}

/// A `NoJson` error whose message and feedback say what was looked for,
/// and read as "no JSON", not as a missing field.
#[track_caller]
fn assert_no_json(e: &Error, text: &str) {
    assert_eq!(e.kind(), ErrorKind::NoJson, "{text:?}: {e:#}");
    let message = e.to_string();
    assert!(
        message.contains("looked for"),
        "{text:?}: the message does not say what was looked for: {message}"
    );
    let feedback = e.feedback();
    assert!(
        feedback.contains("looked for"),
        "{text:?}: the feedback does not say what was looked for: {feedback}"
    );
    assert!(!message.contains("missing field"), "{text:?}: {message}");
    assert!(!feedback.contains("missing field"), "{text:?}: {feedback}");
}

/// `text` is `NoJson` for `Value`, for `repair()`, and for a struct.
#[track_caller]
fn assert_no_json_everywhere(text: &str) {
    assert_no_json(&error::<Value>(text), text);
    assert_no_json(&repair_error(text), text);
    assert_no_json(&error::<Abc>(text), text);
}

#[derive(Debug, PartialEq, Deserialize)]
struct Abc {
    a: i64,
    b: i64,
    c: i64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Ab {
    a: String,
    b: Vec<u32>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Invoice {
    total: u64,
    currency: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Code {
    code: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Record {
    id: u32,
    note: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Contact {
    name: String,
    email: String,
}

#[derive(Debug, PartialEq, Deserialize)]
enum Choice {
    A,
    B,
    C,
    D,
}

#[derive(Debug, PartialEq, Deserialize)]
enum Sentiment {
    Positive,
    Negative,
    Neutral,
}

/// Only its partial view is read.
#[allow(dead_code)]
#[derive(Debug, Deserialize, Partial)]
struct Tagged {
    #[llm(required)]
    id: u64,
    #[llm(partial)]
    tags: Vec<String>,
}

/// Asserts an ambiguity error naming every one of `values`.
#[track_caller]
fn assert_ambiguous(e: &Error, text: &str, values: &[&str]) {
    let message = e.to_string();
    assert!(
        message.to_lowercase().contains("ambiguous"),
        "{text:?}: not an ambiguity error: {message}"
    );
    // Naming the values, not quoting the reply back.
    assert!(!message.contains(text), "{text:?}: {message}");
    for v in values {
        assert!(
            message.contains(v),
            "{text:?}: the ambiguity error does not name {v:?}: {message}"
        );
    }
}

// =============================================================================
// 1. The table, row by row
// =============================================================================

#[test]
fn row_fenced_reply_whose_intro_has_a_comma() {
    let reply = "Sure! Here it is, as requested:\n```json\n{a: 1, b: 2, c: 3}\n```";
    assert_eq!(fixed(reply), r#"{"a":1,"b":2,"c":3}"#);
    assert_eq!(value(reply), json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(
        from_llm_str::<Abc>(reply).unwrap(),
        Abc { a: 1, b: 2, c: 3 }
    );
}

#[test]
fn row_refusal_is_no_json() {
    assert_no_json_everywhere("I'm sorry, but I can't share that.");
}

#[test]
fn row_stream_before_its_json_is_no_json() {
    for reply in [
        "Here you go:",
        "Here you go:\n```json\n",
        "Sure! Here is the JSON you asked for, ",
    ] {
        assert_no_json_everywhere(reply);
        // A partial view: nothing to show yet.
        assert!(
            serde_llm::from_llm_str_partial::<Tagged>(reply)
                .unwrap_or_else(|e| panic!("{reply:?}: {e:#}"))
                .is_none(),
            "{reply:?}"
        );
    }
}

#[test]
fn row_digit_groups_in_an_object_member() {
    let reply = r#"{"total": 4,250, "currency": "EUR"}"#;
    assert_eq!(value(reply), json!({"total": 4250, "currency": "EUR"}));
    assert_eq!(fixed(reply), r#"{"total":4250,"currency":"EUR"}"#);
    assert_eq!(
        from_llm_str::<Invoice>(reply).unwrap(),
        Invoice {
            total: 4250,
            currency: "EUR".into()
        }
    );
}

#[test]
fn row_stray_brace_in_a_note_before_the_object() {
    let reply = r#"Note: use { for blocks. {"a": "x", "b": [1]}"#;
    let want = Ab {
        a: "x".into(),
        b: vec![1],
    };
    assert_eq!(from_llm_str::<Ab>(reply).unwrap(), want);
    assert_eq!(value(reply), json!({"a": "x", "b": [1]}));
    assert_eq!(fixed(reply), r#"{"a":"x","b":[1]}"#);
}

#[test]
fn row_256_placeholders_then_the_object() {
    let reply = format!(
        "{}Here is the object: {{\"a\": 1, \"b\": 2, \"c\": 3}}",
        "Replace {x} with the value. ".repeat(256)
    );
    assert_eq!(
        from_llm_str::<Abc>(&reply).unwrap(),
        Abc { a: 1, b: 2, c: 3 }
    );
    assert_eq!(value(&reply), json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(fixed(&reply), r#"{"a":1,"b":2,"c":3}"#);
}

#[test]
fn row_fence_marker_inside_a_fenced_string() {
    let reply = "Here is the snippet:\n```json\n{\"md\": \"end }```\", \"ok\": true}\n```\nDone.";
    assert_eq!(value(reply), json!({"md": "end }```", "ok": true}));
    assert_eq!(fixed(reply), r#"{"md":"end }```","ok":true}"#);
    let (v, report) = decode::<Value>(reply);
    assert_eq!(v, json!({"md": "end }```", "ok": true}));
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(
        &reply[report.span.clone()],
        "{\"md\": \"end }```\", \"ok\": true}"
    );

    #[derive(Debug, PartialEq, Deserialize)]
    struct Md {
        md: String,
        ok: bool,
    }
    assert_eq!(
        from_llm_str::<Md>(reply).unwrap(),
        Md {
            md: "end }```".into(),
            ok: true
        }
    );
}

#[test]
fn row_json_tag_inside_a_string_is_text() {
    // A value whose strings hold `<json>` tags (a model explaining a
    // format): the tags are the strings' text, never the value.
    let reply = r#"The answer is ["<json>{}</json>", "use <json>[1]</json> here"]"#;
    let want = json!(["<json>{}</json>", "use <json>[1]</json> here"]);
    assert_eq!(value(reply), want);
    assert_eq!(fixed_value(reply), want);
    let reply = r#"Config: {"wrap": "<json>{"a": 1}</json>", "n": 2} as asked."#;
    assert_eq!(
        value(reply),
        json!({"wrap": "<json>{\"a\": 1}</json>", "n": 2})
    );
    // A tag in prose is still the value.
    assert_eq!(
        value(r#"He said "hi". <json>{"a": 1}</json>"#),
        json!({"a": 1})
    );
}

#[test]
fn row_cut_string_keeps_its_braces() {
    let reply = r#"{"code": "if (x) { return 1; }"#;
    assert_eq!(value(reply), json!({"code": "if (x) { return 1; }"}));
    assert_eq!(fixed(reply), r#"{"code":"if (x) { return 1; }"}"#);
    let (_, report) = decode::<Value>(reply);
    assert!(report.truncated);

    #[derive(Debug, PartialEq, Deserialize)]
    struct CodeSoFar {
        #[serde(default, with = "serde_llm::partial")]
        code: Option<String>,
    }
    assert_eq!(
        from_llm_str::<CodeSoFar>(reply).unwrap(),
        CodeSoFar {
            code: Some("if (x) { return 1; }".into())
        }
    );
}

#[test]
fn row_prefix_with_a_cut_string_holding_brackets() {
    let reply = r#"{"id":1,"tags":["a,[x]"#;
    let view = serde_llm::from_llm_str_partial::<Tagged>(reply)
        .unwrap_or_else(|e| panic!("{e:#}"))
        .expect("the id is complete");
    assert_eq!(view.id, Some(1));
    assert_eq!(view.tags, Some(vec!["a,[x]".to_owned()]));
    assert_eq!(value(reply), json!({"id": 1, "tags": ["a,[x]"]}));
    assert_eq!(fixed(reply), r#"{"id":1,"tags":["a,[x]"]}"#);
}

#[test]
fn row_nul_between_tokens_is_dropped() {
    let reply = "{\"a\":\0\"x\"}";
    assert_eq!(value(reply), json!({"a": "x"}));
    assert_eq!(fixed(reply), r#"{"a":"x"}"#);

    #[derive(Debug, PartialEq, Deserialize)]
    struct A {
        a: String,
    }
    assert_eq!(from_llm_str::<A>(reply).unwrap(), A { a: "x".into() });
}

#[test]
fn row_list_cut_inside_its_last_record() {
    let reply =
        r#"[{"id": 1, "note": "first"}, {"id": 2, "note": "second"}, {"id": 3, "note": "thi"#;
    let (records, report) = decode::<Vec<Record>>(reply);
    assert_eq!(
        records,
        vec![
            Record {
                id: 1,
                note: "first".into()
            },
            Record {
                id: 2,
                note: "second".into()
            },
        ]
    );
    assert!(report.truncated);
}

/// The 10 MB fenced array after an intro sentence with a comma.
fn big_fenced_reply() -> (String, Value) {
    let mut items = Vec::new();
    let mut body = String::from("[");
    let mut i = 0u64;
    while body.len() < 10 << 20 {
        // Written the way models write it: each record needs repairs, so
        // the array's repairs weigh far more than any reading of the intro.
        if i > 0 {
            body.push_str(",\n");
        }
        body.push_str(&format!(
            "{{id: {i}, name: 'item {i}, size M', tags: ['a', 'b',], price: 12.5}}"
        ));
        items.push(json!({"id": i, "name": format!("item {i}, size M"), "tags": ["a", "b"], "price": 12.5}));
        i += 1;
    }
    body.push(']');
    let reply = format!(
        "Sure! Here is the JSON array you asked for, with one record per product:\n```json\n{body}\n```\nLet me know if you need more."
    );
    (reply, Value::Array(items))
}

#[test]
fn row_10mb_fenced_reply_whose_intro_has_a_comma() {
    let (reply, want) = big_fenced_reply();
    assert!(reply.len() > 10 << 20);
    let got = value(&reply);
    assert!(got == want, "got {:.200}", got.to_string());
    let text = fixed(&reply);
    assert_eq!(text.len(), serde_json::to_string(&want).unwrap().len());
    assert!(serde_json::from_str::<Value>(&text).unwrap() == want);
}

// =============================================================================
// 2. Rules
// =============================================================================

// ----- 1. prose is not a value ----------------------------------------------

#[test]
fn prose_alone_is_no_json() {
    for reply in [
        "I'm sorry, but I can't share that.",
        "Here you go:",
        "The total is 12, roughly.",
        "I can't help with that request, but I'm happy to help with something else.",
        "Sure! Let me think about it.",
        "As an AI language model, I don't have access to real-time data.",
        "Hello",
    ] {
        assert_no_json(&error::<Value>(reply), reply);
        assert_no_json(&repair_error(reply), reply);
        assert_no_json(&error::<Abc>(reply), reply);
        assert_no_json(&error::<Vec<Abc>>(reply), reply);
    }
}

/// A word of digits then letters (`0hello`, `3rd`, `10am`) is prose, as a
/// word that starts with a letter is: alone it is no value for an untyped
/// target (a scalar target still reads it), and in a fence it does not
/// outrank the real value in the prose around it. Found by the
/// `stream_typed` fuzz target: `x y```json` (no fence: the marker is inside
/// a word) then the object, then a line ```` ```(0hello ```` gave the string
/// `"0hello"`. A number written with separators, or a code, is still a
/// value.
#[test]
fn a_word_of_digits_then_letters_is_prose() {
    for reply in ["0hello", "3rd", "10am", "(0hello)"] {
        assert_no_json(&error::<Value>(reply), reply);
        assert_no_json(&repair_error(reply), reply);
    }
    assert_eq!(from_llm_str::<String>("3rd").unwrap(), "3rd");
    for (reply, want) in [
        ("Result: {\"a\": 1}\n```\n0hello", json!({"a": 1})),
        ("Result: {\"a\": 1}\n```\n(0hello", json!({"a": 1})),
        ("x y```json\n{\"a\":\"b\"}\n```(0hello\n", json!({"a": "b"})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    for reply in [
        "1.2.3",
        "555-1234",
        "2024-01-05T10:00:00Z",
        "746de9ad-d4ff-4c66-97d7-00a92ad46967",
        "4K",
    ] {
        assert_eq!(value(reply), json!(reply), "{reply:?}");
    }
}

/// A reply that opens with a quoted term (`"term": a definition`) read as
/// one string to its last quote, the quotes between judged its text: where
/// that string ends is a guess, so it does not hide the value written
/// inside it. Cut inside the fenced value's quotes (a stream's every other
/// prefix), the value is the fenced object, not the prose as a string. A
/// string with no quote judged inside still covers the brackets in it.
/// Found by the `stream_typed` fuzz target (a reply opening with `“term”`).
#[test]
fn a_string_with_inner_quotes_does_not_hide_the_value_in_it() {
    for (reply, want) in [
        (
            "\"term\": a definition.\n\n```json\n{\"key\": \"value\"\n",
            json!({"key": "value"}),
        ),
        (
            "“term”: a definition.\n\n```json\n{\"key\": \"value\"\n",
            json!({"key": "value"}),
        ),
        (
            "\"Hello\" is a greeting. Here:\n```json\n{\"greeting\": \"Hello\"",
            json!({"greeting": "Hello"}),
        ),
        (
            "\"Hello\" is a greeting. Here: {\"greeting\": \"Hello\"\n",
            json!({"greeting": "Hello"}),
        ),
        (
            "\"term\": a definition.\n\n```json\n{\"key\": \"value\"}\n```\n",
            json!({"key": "value"}),
        ),
        ("\"He said \"hi\" to me\"", json!("He said \"hi\" to me")),
        ("\"{x}[1]", json!("{x}[1]")),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        // The view of the text so far is of the same kind (the value a
        // cut member is part of, not the prose); a string cut at the root
        // is not shown (nor the citation after its `{x}`, `[1]`).
        let view = serde_llm::from_llm_str_partial::<Value>(reply)
            .unwrap_or_else(|e| panic!("{reply:?}: {e:#}"));
        match view {
            Some(view) => assert_eq!(view.is_object(), want.is_object(), "{reply:?}: {view:?}"),
            None => assert!(want.is_string(), "{reply:?}: no view"),
        }
    }
}

/// A reply cut off just after the quote that opens the value's first key
/// (every streamed reply passes through this): the words before that quote
/// are no string missing its opening quote.
#[test]
fn words_up_to_a_quote_are_no_string() {
    for (reply, want) in [
        ("Here is the value: {\"", json!({})),
        ("Here {name} is the value: {\"", json!({})),
        ("Here is: [\"", json!([])),
    ] {
        let (v, report) = Decoder::new()
            .decode_with_report::<Value>(reply)
            .unwrap_or_else(|e| panic!("{reply:?}: {e}"));
        assert_eq!(v, want, "{reply:?}");
        assert!(report.truncated, "{reply:?}");
    }
    for prose in ["Hello there\"", "The answer is \""] {
        assert_no_json(&error::<Value>(prose), prose);
    }
}

#[test]
fn heavily_repaired_object_beats_prose() {
    let reply = "Here: {name: Ada Lovelace, langs: [en, fr], note: wrote the first program}";
    let want =
        json!({"name": "Ada Lovelace", "langs": ["en", "fr"], "note": "wrote the first program"});
    assert_eq!(value(reply), want);
    assert_eq!(
        fixed(reply),
        r#"{"name":"Ada Lovelace","langs":["en","fr"],"note":"wrote the first program"}"#
    );
}

#[test]
fn prose_with_colons_is_not_an_object_around_the_value() {
    // The sentence before a colon is not a key.
    let reply = "Here is what I found: {\"a\": 1, \"b\": 2, \"c\": 3,}";
    assert_eq!(value(reply), json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(fixed(reply), r#"{"a":1,"b":2,"c":3}"#);
    let reply = "Result: [1, 2, 3,] as computed.";
    assert_eq!(value(reply), json!([1, 2, 3]));
    assert_eq!(fixed(reply), "[1,2,3]");
}

#[test]
fn fenced_value_beats_prose() {
    let reply = "Well, the answer, in short, is this:\n```\n[1, 2, 3,]\n```";
    assert_eq!(value(reply), json!([1, 2, 3]));
    assert_eq!(fixed(reply), "[1,2,3]");
}

// ----- 2. scalar targets ----------------------------------------------------

#[test]
fn string_target_json_string_whole_or_fenced() {
    assert_eq!(
        from_llm_str::<String>("\"Paris, France\"").unwrap(),
        "Paris, France"
    );
    assert_eq!(
        from_llm_str::<String>("```json\n\"Paris, France\"\n```").unwrap(),
        "Paris, France"
    );
}

#[test]
fn string_target_prose_is_the_whole_reply() {
    for (reply, want) in [
        (
            "Paris, the capital of France.",
            "Paris, the capital of France.",
        ),
        (
            "  Paris, the capital.\nIt has 2 million people.  ",
            "Paris, the capital.\nIt has 2 million people.",
        ),
        (
            "<think>The user wants a city, maybe Lyon, maybe Paris.</think>\n  Paris, the capital.\nIt has 2 million people.\n",
            "Paris, the capital.\nIt has 2 million people.",
        ),
        (
            "They want a city; Lyon, or Paris?</think>\nParis, France",
            "Paris, France",
        ),
        ("Yes, I think so: it works.", "Yes, I think so: it works."),
    ] {
        let (s, _) = decode::<String>(reply);
        assert_eq!(s, want, "{reply:?}");
    }
}

#[test]
fn bool_target_reads_short_prose() {
    for (reply, want) in [
        (
            "Verdict: false — the claim is not supported by the text.",
            false,
        ),
        ("The answer is **true**.", true),
        ("true", true),
        ("False. The statement is false.", false),
    ] {
        let (b, report) = decode::<bool>(reply);
        assert_eq!(b, want, "{reply:?}");
        if reply != "true" {
            assert!(!report.is_clean(), "{reply:?}: not recorded: {report:?}");
        }
    }
}

#[test]
fn bool_target_two_values_is_ambiguous() {
    let reply = "It could be true or false, depending on the context.";
    assert_ambiguous(&error::<bool>(reply), reply, &["true", "false"]);
}

#[test]
fn number_targets_read_short_prose() {
    let (n, report) = decode::<u32>("ANSWER: 42.");
    assert_eq!(n, 42);
    assert!(!report.is_clean(), "{report:?}");
    assert_eq!(from_llm_str::<i64>("ANSWER: 42.").unwrap(), 42);
    assert_eq!(from_llm_str::<f64>("ANSWER: 42.").unwrap(), 42.0);
    assert_eq!(
        from_llm_str::<u32>("The total is 12, roughly.").unwrap(),
        12
    );
    assert_eq!(from_llm_str::<f64>("It costs 4.5.").unwrap(), 4.5);
    assert_eq!(from_llm_str::<i32>("The result is -7.").unwrap(), -7);
}

/// A scale word after a number is part of it (`3.5 million` is 3,500,000,
/// never 3.5: that would be a number made up); a fraction's word, or a
/// scale word cut off at the end, is no number a decode can read.
#[test]
fn number_targets_read_scale_words() {
    assert_eq!(
        from_llm_str::<f64>("Approximately 3.5 million.").unwrap(),
        3_500_000.0
    );
    assert_eq!(
        from_llm_str::<u32>("Approximately 3.5 million.").unwrap(),
        3_500_000
    );
    assert_eq!(
        from_llm_str::<u64>("It has 2 million people.").unwrap(),
        2_000_000
    );
    assert_eq!(
        from_llm_str::<u32>("About 1.1 Billion").unwrap(),
        1_100_000_000
    );
    assert_eq!(from_llm_str::<i64>("-12 thousands").unwrap(), -12_000);
    assert_eq!(from_llm_str::<f64>("3.5 miles").unwrap(), 3.5);
    assert_eq!(from_llm_str::<u32>("7 millimeters").unwrap(), 7);
    // The same number written twice is one value.
    assert_eq!(
        from_llm_str::<u32>("3 million (3,000,000)").unwrap(),
        3_000_000
    );
    for reply in [
        "4 thousandths of an inch",
        "Between 2 and 3.5 mil",
        "It is 3.5 mill",
        "5 trillion",
        "3 million, or 3.5 million",
    ] {
        let e = from_llm_str::<u32>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
    }
    let e = from_llm_str::<f64>("Between 2 and 3.5 mil").unwrap_err();
    assert!(e.to_string().contains("3.5 mil"), "{e}");
}

#[test]
fn number_target_two_values_is_ambiguous() {
    let reply = "Somewhere between 3 and 5.";
    assert_ambiguous(&error::<u32>(reply), reply, &["3", "5"]);
}

#[test]
fn unit_enum_target_reads_short_prose() {
    for (reply, want) in [
        ("The answer is **B**.", Choice::B),
        (
            "B: because the other options contradict the premise.",
            Choice::B,
        ),
        ("D", Choice::D),
    ] {
        let (c, report) = decode::<Choice>(reply);
        assert_eq!(c, want, "{reply:?}");
        if reply != "D" {
            assert!(!report.is_clean(), "{reply:?}: not recorded: {report:?}");
        }
    }
    assert_eq!(
        from_llm_str::<Sentiment>("Sentiment: Negative. The reviewer complains about the battery.")
            .unwrap(),
        Sentiment::Negative
    );
}

#[test]
fn unit_enum_target_two_values_is_ambiguous() {
    let reply = "It's either B or D.";
    assert_ambiguous(&error::<Choice>(reply), reply, &["B", "D"]);
    let reply = "Mostly Positive, with some Negative remarks.";
    assert_ambiguous(&error::<Sentiment>(reply), reply, &["Positive", "Negative"]);
}

// ----- 3. ranking -----------------------------------------------------------

#[test]
fn stray_braces_in_prose_lose_to_a_repaired_object() {
    let reply = "Use { and } for blocks, like { this. Result: {'a': 1, 'b': 2, 'c': 3,}";
    assert_eq!(value(reply), json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(fixed(reply), r#"{"a":1,"b":2,"c":3}"#);
    assert_eq!(
        from_llm_str::<Abc>(reply).unwrap(),
        Abc { a: 1, b: 2, c: 3 }
    );
}

#[test]
fn no_count_of_candidates_skips_the_real_value() {
    for reply in [
        format!(
            "{}{{\"a\": 1, \"b\": 2, \"c\": 3}}",
            "Fill in {name} and {date}. ".repeat(1024)
        ),
        format!(
            "{}{{\"a\": 1, \"b\": 2, \"c\": 3}}",
            "a { b [ c ".repeat(1000)
        ),
        format!(
            "{}```json\n{{\"a\": 1, \"b\": 2, \"c\": 3}}\n```",
            "Template: %{name}. ".repeat(2000)
        ),
    ] {
        assert_eq!(
            from_llm_str::<Abc>(&reply).unwrap(),
            Abc { a: 1, b: 2, c: 3 },
            "{:.60}",
            reply
        );
        assert_eq!(
            value(&reply),
            json!({"a": 1, "b": 2, "c": 3}),
            "{:.60}",
            reply
        );
        assert_eq!(fixed(&reply), r#"{"a":1,"b":2,"c":3}"#, "{:.60}", reply);
    }
}

// ----- 4. numbers -----------------------------------------------------------

#[test]
fn digit_groups_are_one_number_in_object_members() {
    for (reply, want) in [
        (
            r#"{"total": 4,250, "currency": "EUR"}"#,
            json!({"total": 4250, "currency": "EUR"}),
        ),
        (r#"{"n": 1,234,567.89}"#, json!({"n": 1234567.89})),
        (
            r#"{"delta": -2,000.00, "ok": true}"#,
            json!({"delta": -2000.0, "ok": true}),
        ),
        (r#"{"a": 4,250}"#, json!({"a": 4250})),
        (r#"{"a": 1,234, "b": 5}"#, json!({"a": 1234, "b": 5})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct N {
        n: f64,
    }
    assert_eq!(
        from_llm_str::<N>(r#"{"n": 1,234,567.89}"#).unwrap(),
        N { n: 1234567.89 }
    );
    assert_eq!(
        from_llm_str::<N>(r#"{"n": -2,000.00}"#).unwrap(),
        N { n: -2000.0 }
    );
}

#[test]
fn valid_json_stands_in_arrays_and_members() {
    assert_eq!(value("[4,250]"), json!([4, 250]));
    assert_eq!(fixed("[4,250]"), "[4,250]");
    assert_eq!(value(r#"{"a": 4,"b": 250}"#), json!({"a": 4, "b": 250}));
    assert_eq!(from_llm_str::<Vec<u32>>("[4,250]").unwrap(), [4, 250]);
}

// ----- 5. fences and strings ------------------------------------------------

#[test]
fn fence_markers_inside_strings_are_content() {
    let reply = "Here:\n```json\n{\"md\": \"wrap it in ```json and ``` markers\", \"n\": 1}\n```";
    let want = json!({"md": "wrap it in ```json and ``` markers", "n": 1});
    assert_eq!(value(reply), want);
    assert_eq!(fixed_value(reply), want);
    let bare = r#"{"md": "a ``` b", "n": 1}"#;
    assert_eq!(value(bare), json!({"md": "a ``` b", "n": 1}));
    assert_eq!(fixed(bare), r#"{"md":"a ``` b","n":1}"#);
    // In prose, in a single-quoted string, before a brace (found by the
    // proptest `value_in_prose_decodes_to_the_value`: a fence was read
    // there, `{}` and a made-up key were given).
    for (reply, want) in [
        (
            "Sure! Here's the JSON: [{\"id\":null,\"score\":' ```json{'}] Let me know!",
            json!([{"id": null, "score": " ```json{"}]),
        ),
        (
            "Result: {'tip': 'open with ```json{', 'n': 2} ok",
            json!({"tip": "open with ```json{", "n": 2}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }
}

#[test]
fn a_string_cut_at_the_end_keeps_every_character() {
    for (reply, want) in [
        (r#"{"a": "x, y"#, json!({"a": "x, y"})),
        // Nothing but its own object's closer follows: a missing quote
        // before `}` (the model wrote the closer), not a cut-off `one}`.
        (r#"{"a": "one}"#, json!({"a": "one"})),
        (r#"{"a": "one}, two"#, json!({"a": "one}, two"})),
        (r#"["a,[x]"#, json!(["a,[x]"])),
        (
            r#"{"note": "see [1], {2}: done"#,
            json!({"note": "see [1], {2}: done"}),
        ),
        (
            r#"{"a": "b", "c": "d e: f,"#,
            json!({"a": "b", "c": "d e: f,"}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }
}

// ----- 6. what models write -------------------------------------------------

#[test]
fn triple_quoted_strings_are_kept_whole() {
    let reply = "{\"lang\": \"python\", \"code\": \"\"\"def f(x):\n    return {\"a\": x, 'b': [1, 2]}\n\"\"\"}";
    let want = json!({"lang": "python", "code": "def f(x):\n    return {\"a\": x, 'b': [1, 2]}"});
    assert_eq!(value(reply), want);
    assert_eq!(fixed_value(reply), want);
    let (c, _) = decode::<Code>(reply);
    assert_eq!(c.code, "def f(x):\n    return {\"a\": x, 'b': [1, 2]}");
}

#[test]
fn fenced_blocks_as_values_are_kept_whole() {
    let reply = "{\"lang\": \"python\", \"code\": ```python\nprint(\"hi, {x}\")\n```}";
    let v = value(reply);
    assert_eq!(v["lang"], "python", "{v}");
    assert_eq!(
        v["code"].as_str().map(str::trim),
        Some("print(\"hi, {x}\")"),
        "{v}"
    );
    assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
    let (c, _) = decode::<Code>(reply);
    assert_eq!(c.code.trim(), "print(\"hi, {x}\")");
}

#[test]
fn unquoted_values_run_across_commas_and_lines_to_the_next_key() {
    for (reply, want) in [
        (
            "{name: Smith, John, age: 42}",
            json!({"name": "Smith, John", "age": 42}),
        ),
        (
            "{address: 12 Main St, Springfield, zip: 12345}",
            json!({"address": "12 Main St, Springfield", "zip": 12345}),
        ),
        (
            "{note: first line\nsecond, still the note, city: Paris}",
            json!({"note": "first line\nsecond, still the note", "city": "Paris"}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Person {
        name: String,
        age: u32,
    }
    assert_eq!(
        from_llm_str::<Person>("{name: Smith, John, age: 42}").unwrap(),
        Person {
            name: "Smith, John".into(),
            age: 42
        }
    );
}

#[test]
fn full_width_separators() {
    let reply = "{\"a\"：1，\"b\"：[2，3]}";
    assert_eq!(value(reply), json!({"a": 1, "b": [2, 3]}));
    assert_eq!(fixed(reply), r#"{"a":1,"b":[2,3]}"#);
    assert_eq!(
        from_llm_str::<Ab>("{\"a\"：\"x\"，\"b\"：[2，3]}").unwrap(),
        Ab {
            a: "x".into(),
            b: vec![2, 3]
        }
    );
}

/// gpt-oss's raw replies (OpenAI's Harmony format) think in an analysis
/// channel before the final one: a value there is no answer
/// (`<|channel|>analysis<|message|>Think {"x": 0}<|end|>…` gave `{"x": 0}`,
/// and `[{"x": 0}, {"a": 1}]` as a list). `<|end|>` alone ends a message,
/// not a block opened in the prompt.
#[test]
fn a_harmony_analysis_channel_is_reasoning() {
    let final_after = "<|channel|>analysis<|message|>Think {\"x\": 0} or [1].<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 1}<|return|>";
    assert_eq!(value(final_after), json!({"a": 1}));
    assert_eq!(
        from_llm_str::<Vec<Value>>(final_after).unwrap(),
        [json!({"a": 1})]
    );
    let started = format!("<|start|>assistant{final_after}");
    assert_eq!(value(&started), json!({"a": 1}));
    let call = "<|channel|>analysis<|message|>Need the weather {city}.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>";
    assert_eq!(value(call), json!({"city": "Paris"}));
    // Nothing but thinking: no answer (the final read falls back to an
    // unclosed block's content, as for `<think>`).
    let only = "<|channel|>analysis<|message|>Maybe [1]<|end|>";
    assert_eq!(
        from_llm_str::<Value>(only).unwrap_err().kind(),
        ErrorKind::NoJson
    );
    let open = "<|channel|>analysis<|message|>Maybe {\"x\": 1}";
    assert_eq!(
        serde_llm::from_llm_str_partial::<Value>(open).unwrap(),
        None
    );
    // `<|end|>` after an answer ends the message.
    assert_eq!(value("Sure: {\"a\": 1}<|end|>"), json!({"a": 1}));
    assert_eq!(value("{\"a\": 1}<|end|>"), json!({"a": 1}));
}

#[test]
fn a_reasoning_tag_named_in_prose_opens_no_block() {
    // A reasoning tag named in prose (in inline code, or followed by
    // `tags`, `block`) opens no block; the reply after it was swallowed as
    // thinking (no JSON found).
    for reply in [
        "The prompt asks me to use <think> tags, which I will skip.\n\n{\"a\": 1}",
        "Use `<think>` for reasoning.\n```json\n{\"a\": 1}\n```",
        "I will not wrap this in <thinking> tags: {\"a\": 1}",
    ] {
        assert_eq!(value(reply), json!({"a": 1}), "{reply:?}");
    }
    // A block that opens its line, or a tag in a code fence, is one
    // (found by the review).
    for reply in [
        "Sure!\n<think> Tags to extract: {\"a\": 1}</think>\n{\"a\": 2}",
        "```<think>draft {\"a\": 1}</think>```\n{\"a\": 2}",
    ] {
        assert_eq!(value(reply), json!({"a": 2}), "{reply:?}");
    }
    // Written to open one, it is one, open: nothing in it is the answer.
    let e = error::<Value>("Sure.\n<think>\nthe user wants {\"a\": 1}");
    assert_eq!(e.kind(), ErrorKind::NoJson);
    assert_eq!(
        value("Sure.\n<think>\nmaybe {\"a\": 0}\n</think>\n{\"a\": 1}"),
        json!({"a": 1})
    );
}

#[test]
fn only_a_closing_think_tag() {
    let reply = "The user wants JSON. I'll output {\"a\": 0} or so. Wait, a is 1.</think>\n{\"a\": 1, \"b\": 2, \"c\": 3}";
    assert_eq!(value(reply), json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(fixed(reply), r#"{"a":1,"b":2,"c":3}"#);
    assert_eq!(
        from_llm_str::<Abc>(reply).unwrap(),
        Abc { a: 1, b: 2, c: 3 }
    );
    let reply = "Reasoning: maybe [1, 2].</think>\n\"done\"";
    assert_eq!(value(reply), json!("done"));
}

/// Found by a sweep: a closing tag inside a string value, the reply not
/// opening like JSON, was taken for the end of a block opened in the
/// prompt, and all before it dropped. A draft the tag cuts is still the
/// model's thinking.
#[test]
fn a_closing_think_tag_inside_a_string_is_the_string_s() {
    let reply = "Here:\n```json\n{\"a\": 1, \"b\": \"</think>\", \"c\": [\"x\"]}\n```";
    assert_eq!(value(reply), json!({"a": 1, "b": "</think>", "c": ["x"]}));
    let reply = "Sure:\n{\"a\": 1, \"b\": \"Close it with </think> and go\"}";
    assert_eq!(
        value(reply),
        json!({"a": 1, "b": "Close it with </think> and go"})
    );
    for reply in [
        "I could answer {\"a\": 0, \"b\": \"a draft</think>\n{\"a\": 1, \"b\": \"final\"}",
        "Thinking: {\"a\": 0, \"b\": \"abc</think>{\"a\": 1, \"b\": \"final\"}",
    ] {
        assert_eq!(value(reply), json!({"a": 1, "b": "final"}), "{reply:?}");
    }
}

/// Found by a sweep: a bracket the prose names in quotes or backticks
/// (`Use '{' to open`) was taken for where a value opens, and the value
/// after it read as that one's cut content (`{}`, `[":\n[1, 2]"]`).
#[test]
fn a_quoted_bracket_in_prose_is_a_mention() {
    for (reply, want) in [
        ("Use '{' to open:\n{\"id\": 1}", json!({"id": 1})),
        ("Type '[':\n[1, 2]", json!([1, 2])),
        ("Type \"[\" then the list: [1, 2]", json!([1, 2])),
        (
            "An object opens with `{` like so: {\"id\": 1}",
            json!({"id": 1}),
        ),
        ("Close with '}' after '{': {'id': 1}", json!({"id": 1})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }
    // A quoted bracket that is a value's content stays its content.
    assert_eq!(value("['{', '[']"), json!(["{", "["]));
    assert_eq!(value("{\"open\": \"{\"}"), json!({"open": "{"}));
}

/// Found by a sweep: a citation after a repaired value (`{'id': 4} [1]`)
/// beat it (it needed no repair), or was gathered with it as a second
/// value (an invented element).
#[test]
fn a_citation_after_a_value_is_no_value() {
    for (reply, want) in [
        ("Here: {'id': 4} [1]", json!({"id": 4})),
        ("{id: 4, tool: 't'} [1]", json!({"id": 4, "tool": "t"})),
        ("{\"a\": 1} [2]", json!({"a": 1})),
        ("Result: [1, 2] [^3]", json!([1, 2])),
        ("{\"a\": 1} [1][2]", json!({"a": 1})),
        ("{\"a\": 1} [^1], [^2]", json!({"a": 1})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    // On a line of its own, or after another such list, it is a value.
    assert_eq!(value("{\"a\": 1}\n[2]"), json!([{"a": 1}, [2]]));
    assert_eq!(value("[1] [2]"), json!([[1], [2]]));
    assert_eq!(
        value("{\"a\": 1} [2] {\"b\": 2}"),
        json!([{"a": 1}, {"b": 2}])
    );
    // A list target takes the object as its one element: the citation is
    // no list, nor a second element.
    for (reply, want) in [
        ("Here: {'id': 4} [1]", json!([{"id": 4}])),
        ("{\"a\": 1} [1][2]", json!([{"a": 1}])),
        ("{\"a\": 1} [1] [2]", json!([{"a": 1}])),
        ("{\"a\": 1} [1]\n{\"b\": 2}", json!([{"a": 1}, {"b": 2}])),
        ("{\"a\": 1}\n[2]", json!([{"a": 1}, [2]])),
    ] {
        let got = from_llm_str::<Vec<Value>>(reply).unwrap();
        assert_eq!(Value::Array(got), want, "{reply:?}");
    }
}

/// Found by a sweep: a placeholder in prose (`Hello {name}!`) was the
/// whole `String`, the prose around it dropped.
#[test]
fn a_placeholder_in_prose_is_words_of_a_string() {
    for reply in ["Hello {name}!", "Dear {first name}, see {link} today."] {
        assert_eq!(from_llm_str::<String>(reply).unwrap(), reply);
    }
    // JSON in the prose is no placeholder: the prose is no string.
    for reply in ["Value is {a: 1} ok", "Hello {name"] {
        assert_ne!(from_llm_str::<String>(reply).ok().as_deref(), Some(reply));
    }
    assert_eq!(
        from_llm_str::<String>("The value: {\"a\": 1}").unwrap(),
        "{\"a\": 1}"
    );
}

/// Found by a sweep: an empty list or object the prose names in quotes or
/// inline code (``Return `[]` if empty``) was the answer, the value after
/// it dropped. Named so, it gives way to any value that is not; given as
/// the answer, or alone, it is the answer. The byte after it (the closing
/// quote) says so: the stream follows at every split.
#[test]
fn an_empty_value_the_prose_quotes_gives_way() {
    for (reply, want) in [
        ("Return `[]` if empty. Result:\n[1, 2, 3]", json!([1, 2, 3])),
        ("Use '{}' for none.\n{\"a\": 1}", json!({"a": 1})),
        ("Use \"{}\" for none.\n{\"a\": 1}", json!({"a": 1})),
        ("Return '[ ]' when empty. Here: [1, 2]", json!([1, 2])),
        (
            "Reply '[]' if none match.\n```json\n[\"x\"]\n```",
            json!(["x"]),
        ),
        ("The answer is `[]`.", json!([])),
        ("The answer is `[]` as nothing matched.", json!([])),
        ("Use `{}` or `[]`.", json!({})),
        ("{'a': 1} `[]` x", json!({"a": 1})),
        // Not quoted: the first value, as before.
        (
            "Result: [] (nothing matched). Other lists: [1, 2]",
            json!([]),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    assert_eq!(
        from_llm_str::<Vec<u32>>("Return `[]` if empty. Result:\n[1, 2, 3]").unwrap(),
        [1, 2, 3]
    );
    // Nor is it an element of the objects in the prose gathered as a list.
    for reply in [
        "Use '{}' for none.\n{\"a\": \"x\"}",
        "Use `{}` for none. Answer: {\"a\": \"x\"} and more text here",
    ] {
        let got = from_llm_str::<Vec<Value>>(reply).unwrap();
        assert_eq!(Value::Array(got), json!([{"a": "x"}]), "{reply:?}");
    }
}

/// Found by a sweep: an empty list or object the prose names without
/// quotes (`Use {} when there is nothing.`) was the answer, the value
/// after it dropped. Named in an instruction (a verb that says what to
/// give before it, a word that makes it a case after it), it gives way to
/// the next value of its shape when that one is introduced as the answer
/// (a label ending in a colon, or none on a line of its own, and no word
/// that makes it an illustration); given, or alone, it is the answer. The
/// review found the forms where it is the answer and an example follows.
#[test]
fn an_empty_value_the_prose_names_gives_way() {
    for (reply, want) in [
        (
            "Use {} when there is nothing. Here: {\"a\": 1}",
            json!({"a": 1}),
        ),
        ("Return [] if none. Result: [1, 2]", json!([1, 2])),
        (
            "You asked me to return [] if no entities are found. Here is the result:\n[{\"name\": \"Paris\"}]",
            json!([{"name": "Paris"}]),
        ),
        ("Per the prompt, return [] if none.\n\n**Final answer:**\n[1]", json!([1])),
        (
            "Instructions: Output {} when the field is missing.\n\nResult:\n{\"name\": \"Bob\"}",
            json!({"name": "Bob"}),
        ),
        ("Return [] in case of doubt. Answer: [1]", json!([1])),
        // Alone, it is the answer.
        ("Return [] if none.", json!([])),
        // Given, not named: the first value, as before.
        ("Result: [] (nothing matched). Other lists: [1, 2]", json!([])),
        ("The answer is [] as nothing matched. Other lists: [1, 2]", json!([])),
        ("Use {} or [] for none. {\"a\": 1}", json!({})),
        ("Return []. Later: [1]", json!([])),
        ("Returned [] if none. [1]", json!([])),
        ("Use {} iffy. [1]", json!({})),
        ("Use\n{} if none. {\"a\": 1}", json!({})),
        ("I return [] as instructed. Format: [1, 2]", json!([])),
        ("Return [] for this input. Another input: [1]", json!([])),
        ("Use {} instead. {\"a\": 1}", json!({})),
        // Named, but what follows is an example, not the answer (found by
        // the review): the empty value.
        (
            "Per your instructions (return [] if none, otherwise a list like [\"x\", \"y\"]), the result is:\n\n[]",
            json!([]),
        ),
        (
            "Use {} when empty, else {\"key\": \"value\"}.\n\n{}",
            json!({}),
        ),
        (
            "There are no dates here. I output [] when no dates are present; had it said \"March 3\", I would output [\"2024-03-03\"].",
            json!([]),
        ),
        (
            "I return [] when no tags apply, which is the case here.\n\nSchema reminder: [{\"tag\": \"string\"}]",
            json!([]),
        ),
        (
            "Rule: return [] if no entities.\nExample: Input: \"Bob went home\" Output: [{\"name\": \"Bob\"}]\n\nYour text has no entities.",
            json!([]),
        ),
        ("I return [] if none. As noted in [1, 2], this is standard.", json!([])),
        (
            "Nothing to extract - I respond with [] when the input has no products. Example of a non-empty response: [{\"sku\": \"A1\"}]",
            json!([]),
        ),
        (
            "Output {} on error, otherwise:\n{\"ok\": true}",
            json!({}),
        ),
        // Nor to a value a label names otherwise, nor to one with none
        // (found by the second review).
        ("You should respond with [] for no match.\n[\"x\"]", json!([])),
        ("Return {} if none.\n\n{\"name\": \"<string>\"}", json!({})),
        (
            "No label fits, so I return [] when no label fits.\nLabel set:\n[\"positive\", \"negative\"]",
            json!([]),
        ),
        (
            "There are none, so I return [] if none. If there had been any:\n[{\"id\": 1}]",
            json!([]),
        ),
        (
            "Thought: nothing relevant. I answer [] if nothing is relevant.\nObservation:\n[\"doc1\"]\nFinal Answer: []",
            json!([]),
        ),
        (
            "No changes, so I return {} when nothing changes.\nCurrent config:\n{\"timeout\": 30}",
            json!({}),
        ),
        // Nor to one a sentence between introduces (found by the third
        // review).
        (
            "I return [] when nothing is found, which is the case here.\n\nFor a text mentioning Paris, you would get:\nOutput:\n[{\"name\": \"Paris\"}]",
            json!([]),
        ),
        (
            "No matches. I return [] when there are none.\n\nHad there been matches, I'd have answered as follows.\nAnswer:\n[\"Alice\"]",
            json!([]),
        ),
        (
            "There are no dates. Per the instructions, return [] if none are found.\n\nInput: \"Lunch on March 3\"\nOutput: [\"2024-03-03\"]",
            json!([]),
        ),
        (
            "I answer [] when there are no errors. The log has no errors.\n\nThe previous run (for reference):\nResult: [{\"line\": 3}]",
            json!([]),
        ),
        (
            "Return [] if none.\n\nThe user's expected output:\nOutput: [\"a\"]",
            json!([]),
        ),
        (
            "I output [] if nothing is found. With a match it'd look different. Result: [\"x\"]",
            json!([]),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    assert_eq!(
        from_llm_str::<Vec<u32>>("Return [] if none. Result: [1, 2]").unwrap(),
        [1, 2]
    );
    // A cut candidate ending inside a character is no empty value (its
    // last byte was sliced before it was looked at: a panic the proptests
    // found).
    for reply in [
        "[<|\"k\": +10{{},250 2501\"\"\"```0-\u{ff1a}",
        "{} then [1, \u{ff1a}",
        "{\"a\": 1} {\u{ff1a}",
        "[1] [\u{e9}",
    ] {
        let _ = from_llm_str::<Value>(reply);
        let _ = from_llm_str::<Vec<Value>>(reply);
    }
}

/// Found by a sweep: a comment holding a closer, in a value found in
/// prose, ended the value there, and a piece of it was the answer.
#[test]
fn a_comment_holding_a_closer_in_prose_is_the_comment_s() {
    let reply = "Say hi: {\"a\": 1, \"b\": /* } */ 2, \"d\": {\"e\": \"x\"}}";
    assert_eq!(value(reply), json!({"a": 1, "b": 2, "d": {"e": "x"}}));
    let reply = "List: [1, /* ] */ 2]";
    assert_eq!(value(reply), json!([1, 2]));
    // A glob is no comment, nor is an opener that never closes.
    for (reply, want) in [
        ("[a/*] {\"a\": 1}", json!({"a": 1})),
        ("Paths: [src/*.rs]. Result: [1, 2]", json!([1, 2])),
        ("Checked [lib/*.py] files.\n{\"n\": 3}", json!({"n": 3})),
        ("Say [x, /* y] then {\"n\": 3}", json!({"n": 3})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// Found by a sweep: a `<json>` inside a single-quoted string was read as
/// a tag opening, and the text after it as the tag's content (`"} x"`).
#[test]
fn a_tag_inside_a_single_quoted_string_is_its_text() {
    assert_eq!(value("{'text': '<json>'} x"), json!({"text": "<json>"}));
    assert_eq!(
        value("{'text': '<json>', 'b': 'it's </json>'} x"),
        json!({"text": "<json>", "b": "it's </json>"})
    );
    assert_eq!(value("I'll say: <json>{\"b\": 2}</json>"), json!({"b": 2}));
    assert_eq!(value("{'a': 'x'} <json>{\"b\": 2}</json>"), json!({"b": 2}));
}

/// A bare value that starts with `/` is a path unless it is a regex
/// (`/ab+c/i` then the end of the value): `route: /` dropped the `/` and
/// read the member as `null`, a value the model never wrote, and
/// `/post/[id]` erred (found in BAML's suite, unquoted values).
#[test]
fn a_bare_path_is_its_text() {
    for (reply, want) in [
        ("{route: /, b: 1}", json!({"route": "/", "b": 1})),
        (
            "{route: /post/[id], b: 1}",
            json!({"route": "/post/[id]", "b": 1}),
        ),
        (
            "{\"p\": /usr/bin/env python}",
            json!({"p": "/usr/bin/env python"}),
        ),
        ("[/, 1]", json!(["/", 1])),
        // Regexes stay regexes, flags and all; a comment after one ends it.
        (
            "{\"re\": /ab+c/i, \"n\": 1}",
            json!({"re": "/ab+c/i", "n": 1}),
        ),
        ("{\"re\": /a/ // the a\n}", json!({"re": "/a/"})),
        ("[/a/, /b/ ]", json!(["/a/", "/b/"])),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// A `<json>` tag's closing tag inside a string of the value in it is the
/// string's text: the tag closes at the first one outside its strings
/// (`<json>{'a': '</json>'}</json>` gave `{"a": ""}`, the string cut at the
/// first). When every one is inside a string (a string left open), the
/// first closes the tag, as before.
#[test]
fn a_closing_json_tag_inside_a_string_is_its_text() {
    for (reply, want) in [
        ("<json>{'a': '</json>'}</json>", json!({"a": "</json>"})),
        (
            "Here: <json>{\"a\": \"use </JSON> to close\", \"b\": [1, 2]}</json> done",
            json!({"a": "use </JSON> to close", "b": [1, 2]}),
        ),
        ("<json>[\"</json>\", \"x\"]</json>", json!(["</json>", "x"])),
        ("<json>{\"a\": \"x</json>", json!({"a": "x"})),
        ("<json>{\"a\": \"x</json> then", json!({"a": "x"})),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

#[test]
fn markers_are_not_values() {
    let reply = r#"[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]"#;
    let want = json!([{"name": "get_weather", "arguments": {"city": "Paris"}}]);
    assert_eq!(value(reply), want);
    assert_eq!(
        fixed(reply),
        r#"[{"name":"get_weather","arguments":{"city":"Paris"}}]"#
    );

    #[derive(Debug, PartialEq, Deserialize)]
    struct Call {
        name: String,
        arguments: Value,
    }
    assert_eq!(
        from_llm_str::<Vec<Call>>(reply).unwrap(),
        vec![Call {
            name: "get_weather".into(),
            arguments: json!({"city": "Paris"})
        }]
    );
    let reply = r#"[TOOL_CALLS]{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let want = json!({"name": "get_weather", "arguments": {"city": "Paris"}});
    assert_eq!(value(reply), want);
    assert_eq!(
        fixed(reply),
        r#"{"name":"get_weather","arguments":{"city":"Paris"}}"#
    );
}

#[test]
fn js_assignment_gives_the_object() {
    for reply in [
        "const config = {\"a\": 1, \"b\": 2, \"c\": 3};",
        "const config = {a: 1, b: 2, c: 3};",
        "```js\nconst x = {\"a\": 1, \"b\": 2, \"c\": 3};\n```",
    ] {
        assert_eq!(value(reply), json!({"a": 1, "b": 2, "c": 3}), "{reply:?}");
        assert_eq!(fixed(reply), r#"{"a":1,"b":2,"c":3}"#, "{reply:?}");
        assert_eq!(
            from_llm_str::<Abc>(reply).unwrap(),
            Abc { a: 1, b: 2, c: 3 }
        );
    }
}

#[test]
fn control_bytes_between_tokens_are_dropped() {
    for (reply, want) in [
        ("{\"a\":1,\u{1}\"b\":2}", json!({"a": 1, "b": 2})),
        ("[1,\u{0}2]", json!([1, 2])),
        ("{\"a\"\u{0}:\u{7}\"x\"}", json!({"a": "x"})),
        ("\u{0}{\"a\": 1}\u{0}", json!({"a": 1})),
        ("[\"x\"\u{1b},\u{0}\"y\"]", json!(["x", "y"])),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
        assert_eq!(fixed_value(reply), want, "{reply:?}");
    }
    assert_eq!(
        from_llm_str::<Abc>("{\"a\":1,\u{1}\"b\":2,\u{0}\"c\":\u{7}3}").unwrap(),
        Abc { a: 1, b: 2, c: 3 }
    );
}

// ----- 7. a wrapped list ------------------------------------------------------

#[test]
fn a_wrapped_list_gives_its_array() {
    let reply = r#"{"contacts": [{"name": "Ada", "email": "ada@example.com"}, {"name": "Bob", "email": "bob@example.com"}]}"#;
    let (contacts, report) = decode::<Vec<Contact>>(reply);
    assert_eq!(
        contacts,
        vec![
            Contact {
                name: "Ada".into(),
                email: "ada@example.com".into()
            },
            Contact {
                name: "Bob".into(),
                email: "bob@example.com".into()
            },
        ]
    );
    assert_eq!(report.coercions.len(), 1, "{report:?}");
}

#[test]
fn another_object_for_a_list_names_its_keys() {
    let reply = r#"{"contacts": [{"name": "Ada", "email": "ada@example.com"}], "total": 1}"#;
    let e = error::<Vec<Contact>>(reply);
    let message = e.to_string();
    assert!(
        message.contains("expected a list, got an object with keys"),
        "{message}"
    );
    assert!(
        message.contains("contacts") && message.contains("total"),
        "{message}"
    );
    assert!(!message.contains("missing field"), "{message}");
    assert!(!e.path().starts_with("$[0]"), "{}", e.path());
}

// ----- 8. bytes ---------------------------------------------------------------

#[test]
fn incomplete_utf8_at_the_end_is_truncation() {
    assert_eq!(
        from_llm_slice::<Value>(b"{\"a\": \"caf\xc3").unwrap(),
        json!({"a": "caf"})
    );
    // A string cut before any whole character: nothing written yet, so it
    // is left out, as `["` is.
    assert_eq!(from_llm_slice::<Value>(b"[\"\xe2\x82").unwrap(), json!([]));
    assert_eq!(
        from_llm_slice::<Value>(b"{\"a\": [1, 2]}\xf0\x9f\x8e").unwrap(),
        json!({"a": [1, 2]})
    );
    #[derive(Debug, PartialEq, Deserialize)]
    struct A {
        #[serde(default, with = "serde_llm::partial")]
        a: Option<String>,
    }
    assert_eq!(
        from_llm_slice::<A>(b"{\"a\": \"caf\xc3").unwrap(),
        A {
            a: Some("caf".into())
        }
    );
}

#[test]
fn invalid_utf8_elsewhere_is_an_error() {
    let e = from_llm_slice::<Value>(b"[\"a\xffb\"]").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(3));
    // An incomplete sequence that is not at the very end.
    let e = from_llm_slice::<Value>(b"[\"caf\xc3\", 1]").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), Some(5));
}

// =============================================================================
// 3. Properties
// =============================================================================

/// What models write before the value.
const INTROS: &[&str] = &[
    "Sure! Here's the JSON you asked for:",
    "Here is the result, formatted as JSON:",
    "Certainly. Below is the extracted data:",
    "Of course! I've extracted the fields from the document [1]:",
    "Based on the text you provided, here's the structured output:",
    "Here you go:",
    "I've analyzed the review. The result, as requested, is:",
    "**Result:**",
    "Great question! Let me break it down. First, the data:",
    "Here's the object (note: `id` is a string, not a number):",
    "As described in the API docs [2], the response looks like this:",
    "The template uses %{name} and %{count}; filled in, it becomes:",
    "Okay, so the user wants {name}, {age} and {email}. Here's what I found:",
    "Sure thing! Here's the payload for the `create_user` call:",
    "Absolutely! Here's a summary in JSON format, with all fields filled in:",
    "I'm happy to help with that. Here is the output:",
    "Thanks for the details. Here's my answer, in the format you specified:",
    "## Extracted entities",
    "Step 1: parse the input. Step 2: build the object. Result:",
    "Here's the JSON. I wasn't sure about the date, so I left it as-is:",
    "Note: values in [brackets] are estimates. Output:",
    "The endpoint is /users/{id}/orders; for user 42 it returns:",
    "I couldn't find a phone number, but here's everything else:",
    "According to the invoice [3], the totals are:",
    "Here's the updated version with your changes applied:",
    "Let's see... the answer is:",
    "Below is the classification result (confidence scores from 0 to 1):",
    "Here is the data, as you requested; let me know if it's missing anything:",
    "Parsed output ->",
    "This is what the tool call should look like:",
    "Sure, I can do that! Here it is:",
    "I've converted the CSV rows (name, age, city) into JSON:",
    "Here's a JSON representation of the recipe:",
    "Answer:",
    "The model's prediction, with *all* keys present, is:",
    "Here's what I came up with. Feel free to tweak it:",
    "Hi! Here's the information in a structured form:",
    "Following the schema you gave me (type: object), here it is:",
    "Your request (summarize the ticket) produced:",
    "I hope I understood correctly; here's my best attempt:",
    "Here's the response body for GET /users/{id}:",
    "Okay! Here's the final answer:",
];

/// What models write after the value.
const OUTROS: &[&str] = &[
    "Let me know if you need anything else!",
    "Hope this helps.",
    "Let me know if you'd like me to change anything.",
    "Note: the `id` field is optional.",
    "Feel free to ask if you have any questions.",
    "I've left the `email` field empty since it wasn't in the source [1].",
    "Sources: [1] the product page, [2] the user manual.",
    "If you need it in a different format (CSV, YAML), just say so.",
    "**Note:** all prices are in EUR.",
    "Is there anything else I can help you with?",
    "Let me know if any of the values look off, and I'll fix them.",
    "This should work with your parser; if not, tell me the error.",
    "The `tags` array can be empty; `null` means unknown.",
    "Hope that's what you were looking for! 😊",
    "Cheers!",
    "You can plug this into your template as %{payload}.",
    "Each key maps to one field of the form.",
    "Tip: validate it with `jq .` before using it.",
    "I wasn't 100% sure about the second entry, so please double-check it.",
    "Here's a quick explanation: the first field is the id, the second is the name.",
    "Let me know if I should add more examples.",
    "That's everything I could extract from the document.",
    "(Confidence: high.)",
    "Want me to also generate the TypeScript types for this?",
    "Happy coding!",
    "Note that dates are in ISO 8601 format, e.g. 2024-01-31.",
    "Let me know if you'd like the output pretty-printed or minified.",
    "I've followed the schema exactly; no extra fields were added.",
    "If anything is unclear, I'm happy to walk you through it step by step.",
    "References: [1], [2], [3].",
    "P.S. The original text had a typo in the name, which I've kept.",
    "Would you like me to explain how I got these numbers?",
    "Done! Anything else?",
    "Remember to escape quotes if you paste this into a string.",
    "Let me know if you want me to translate the values, too.",
    "Generated from your input; some fields may need review.",
    "In short: it's valid JSON, and it matches what you asked for.",
    "Thanks, and good luck with your project!",
    "Note: I rounded the scores to two decimals.",
    "If you'd like, I can also return this as a list of key: value pairs.",
    "Let me know if this works for you.",
];

/// Pieces of generated strings: commas, braces, brackets, colons, quotes,
/// backticks, fences, placeholders, unicode, control characters.
const FRAGMENTS: &[&str] = &[
    "hello",
    "Ada Lovelace",
    "a, b",
    "x: y",
    "{x}",
    "{",
    "}",
    "[1]",
    "[",
    "]",
    "\"quoted\"",
    "it's",
    "`code`",
    "```",
    "}```",
    "```json",
    "naïve café",
    "日本語",
    "🎉",
    "50%",
    "%{name}",
    "C:\\temp",
    "a\nb",
    "\t",
    " ",
    ",",
    ":",
    "\u{1}",
    "// not a comment",
    "# heading",
    "https://example.com/a?b=1&c=2",
    "true",
    "null",
    "42",
    "1,234",
];

/// Keys models use, and sometimes any text.
const KEYS: &[&str] = &[
    "id",
    "name",
    "title",
    "tags",
    "score",
    "email",
    "items",
    "city",
    "note",
    "a",
    "b",
    "is_active",
    "created_at",
    "count",
    "data",
];

fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..4).prop_map(|parts| parts.concat())
}

fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(str::to_owned),
        1 => arb_text(),
    ]
}

fn arb_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..1000).prop_map(Value::from),
        // Quarters are exact in f64 and print without an exponent.
        (-10_000i64..10_000).prop_map(|n| Value::from(n as f64 / 4.0)),
        arb_text().prop_map(Value::String),
    ]
}

fn arb_container(inner: impl Strategy<Value = Value> + Clone) -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
        prop::collection::vec((arb_key(), inner), 0..6)
            .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
    ]
}

/// Any JSON value.
fn arb_value() -> impl Strategy<Value = Value> + Clone {
    arb_leaf().prop_recursive(4, 32, 6, arb_container)
}

/// An object or an array (what a reply wraps in prose without a fence).
fn arb_top() -> impl Strategy<Value = Value> {
    arb_container(arb_value())
}

/// One repair inside the value's text.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    None,
    /// A comma after the last element of a non-empty container.
    TrailingComma(usize),
    /// An identifier key written without quotes.
    UnquotedKey(usize),
    /// A string value written in single quotes.
    SingleQuotes(usize),
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::None),
        any::<usize>().prop_map(Mutation::TrailingComma),
        any::<usize>().prop_map(Mutation::UnquotedKey),
        any::<usize>().prop_map(Mutation::SingleQuotes),
    ]
}

/// The strings (start, end, is a key) and the insertion points of trailing
/// commas (after the last element of each non-empty container) in JSON text
/// written by serde_json.
fn sites(text: &str) -> (Vec<(usize, usize, bool)>, Vec<usize>) {
    let b = text.as_bytes();
    let (mut strings, mut commas) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let mut j = i + 1;
                while b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j + 1;
                let next = text[end..].trim_start().as_bytes().first().copied();
                strings.push((i, end, next == Some(b':')));
                i = end;
            }
            b'}' | b']' => {
                let before = text[..i].trim_end();
                if !before.ends_with(['{', '[']) {
                    commas.push(before.len());
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (strings, commas)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && ![
            "true",
            "false",
            "null",
            "True",
            "False",
            "None",
            "NaN",
            "Infinity",
            "undefined",
        ]
        .contains(&s)
}

/// `text` with `mutation` applied at one of its sites (unchanged when the
/// text has none of that kind).
fn mutate(text: &str, mutation: Mutation) -> String {
    let (strings, commas) = sites(text);
    let pick = |n: usize, k: usize| (n > 0).then(|| k % n);
    match mutation {
        Mutation::None => text.to_owned(),
        Mutation::TrailingComma(k) => match pick(commas.len(), k) {
            Some(i) => format!("{},{}", &text[..commas[i]], &text[commas[i]..]),
            None => text.to_owned(),
        },
        Mutation::UnquotedKey(k) => {
            let keys: Vec<_> = strings
                .iter()
                .filter(|&&(s, e, key)| key && is_identifier(&text[s + 1..e - 1]))
                .collect();
            match pick(keys.len(), k) {
                Some(i) => {
                    let (s, e, _) = *keys[i];
                    format!("{}{}{}", &text[..s], &text[s + 1..e - 1], &text[e..])
                }
                None => text.to_owned(),
            }
        }
        Mutation::SingleQuotes(k) => {
            let values: Vec<_> = strings
                .iter()
                .filter(|&&(s, e, key)| !key && !text[s + 1..e - 1].contains(['\'', '\\']))
                .collect();
            match pick(values.len(), k) {
                Some(i) => {
                    let (s, e, _) = *values[i];
                    format!("{}'{}'{}", &text[..s], &text[s + 1..e - 1], &text[e..])
                }
                None => text.to_owned(),
            }
        }
    }
}

/// `text` decodes to `want` as a `Value` and through `repair()`.
fn check_decodes(text: &str, want: &Value) -> Result<(), TestCaseError> {
    let got =
        from_llm_str::<Value>(text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e:#}")))?;
    prop_assert_eq!(&got, want, "Value of {:?}", text);
    let repaired =
        repair(text).map_err(|e| TestCaseError::fail(format!("repair({text:?}): {e:#}")))?;
    let back: Value = serde_json::from_str(&repaired)
        .map_err(|e| TestCaseError::fail(format!("repair({text:?}) = {repaired:?}: {e}")))?;
    prop_assert_eq!(&back, want, "repair({:?}) = {:?}", text, repaired);
    Ok(())
}

/// The value's text, compact or pretty, with the mutation applied.
fn written(v: &Value, pretty: bool, mutation: Mutation) -> String {
    let text = if pretty {
        serde_json::to_string_pretty(v).unwrap()
    } else {
        serde_json::to_string(v).unwrap()
    };
    mutate(&text, mutation)
}

const SEPARATORS: &[&str] = &[" ", "\n", "\n\n"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// `intro + v + outro`: an object, or an array where the prose holds no
    /// brackets (a `[1]` citation next to `[3]` is ambiguous to a reader too)
    /// and that does not follow a word on its line (`entities [0]` reads as
    /// a citation).
    #[test]
    fn value_in_prose_decodes_to_the_value(
        v in arb_top(),
        intro in prop::sample::select(INTROS),
        outro in prop::sample::select(OUTROS),
        before in prop::sample::select(SEPARATORS),
        after in prop::sample::select(SEPARATORS),
        pretty in any::<bool>(),
        mutation in arb_mutation(),
    ) {
        let after_word = before == " " && !intro.ends_with(':');
        let v = if v.is_array() && (intro.contains('[') || outro.contains('[') || after_word) {
            json!({ "items": v })
        } else {
            v
        };
        let reply = format!("{intro}{before}{}{after}{outro}", written(&v, pretty, mutation));
        check_decodes(&reply, &v)?;
    }

    /// `intro + fence(v) + outro`, with ```json and bare ``` fences; `v` any value.
    #[test]
    fn fenced_value_in_prose_decodes_to_the_value(
        v in arb_value(),
        intro in prop::sample::select(INTROS),
        outro in prop::sample::select(OUTROS),
        fence in prop::sample::select(&["```json\n", "```\n", "```JSON\n"][..]),
        pretty in any::<bool>(),
        mutation in arb_mutation(),
    ) {
        let reply = format!(
            "{intro}\n{fence}{}\n```\n{outro}",
            written(&v, pretty, mutation)
        );
        check_decodes(&reply, &v)?;
    }

    /// Prose alone (intro + outro) is `NoJson` for `Value` and `repair()`.
    #[test]
    fn prose_alone_is_no_json_for_value(
        intro in prop::sample::select(INTROS),
        outro in prop::sample::select(OUTROS),
        sep in prop::sample::select(SEPARATORS),
    ) {
        let reply = format!("{intro}{sep}{outro}");
        match from_llm_str::<Value>(&reply) {
            Ok(v) => prop_assert!(false, "{:?} decoded to {}", reply, v),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::NoJson, "{:?}: {:#}", reply, e),
        }
        match repair(&reply) {
            Ok(s) => prop_assert!(false, "repair({:?}) = {}", reply, s),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::NoJson, "{:?}: {:#}", reply, e),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every prefix of valid JSON gives a value consistent with the whole.
    #[test]
    fn prefixes_give_values_consistent_with_the_whole(v in arb_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        let cuts = text
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(text.len()))
            .enumerate()
            .filter(|&(n, i)| i < 300 || n % 11 == 0 || i == text.len())
            .map(|(_, i)| i);
        for cut in cuts {
            let prefix = &text[..cut];
            if prefix.trim().is_empty() || prefix.trim() == "-" {
                continue;
            }
            let got = from_llm_str::<Value>(prefix)
                .map_err(|e| TestCaseError::fail(format!("{prefix:?} (of {text:?}): {e:#}")))?;
            prop_assert!(consistent(&got, &v), "{:?} gave {}, not consistent with {}", prefix, got, v);
            let repaired = repair(prefix)
                .map_err(|e| TestCaseError::fail(format!("repair({prefix:?}): {e:#}")))?;
            let back: Value = serde_json::from_str(&repaired)
                .map_err(|e| TestCaseError::fail(format!("repair({prefix:?}) = {repaired:?}: {e}")))?;
            prop_assert!(consistent(&back, &v), "repair({:?}) = {}, not consistent with {}", prefix, repaired, v);
        }
    }
}

// ----- the property helpers themselves --------------------------------------

#[test]
fn mutations_are_one_repair_and_keep_the_value() {
    let text = r#"{"id":1,"tags":["a, b","x"],"note":"it's"}"#;
    assert_eq!(
        mutate(text, Mutation::TrailingComma(0)),
        r#"{"id":1,"tags":["a, b","x",],"note":"it's"}"#
    );
    assert_eq!(
        mutate(text, Mutation::TrailingComma(1)),
        r#"{"id":1,"tags":["a, b","x"],"note":"it's",}"#
    );
    assert_eq!(
        mutate(text, Mutation::UnquotedKey(1)),
        r#"{"id":1,tags:["a, b","x"],"note":"it's"}"#
    );
    assert_eq!(
        mutate(text, Mutation::SingleQuotes(0)),
        r#"{"id":1,"tags":['a, b',"x"],"note":"it's"}"#
    );
    assert_eq!(mutate("[]", Mutation::TrailingComma(3)), "[]");
    assert!(consistent(
        &json!({"a": [1, "x"]}),
        &json!({"a": [1, "xy"], "b": 2})
    ));
    assert!(!consistent(&json!({"a": null}), &json!({"a": 1})));
    assert!(!consistent(&json!(["a", ["x"]]), &json!(["a,[x]"])));
    assert!(INTROS.len() >= 40 && OUTROS.len() >= 40);
}

/// Bare words up to a colon are one key: no word of it is silently lost
/// (`{first name: …}` once became `{"name": …}`).
#[test]
fn a_bare_key_of_several_words_is_kept_whole() {
    assert_eq!(
        value(r#"{first name: "Ada", last name: "Lovelace"}"#),
        json!({"first name": "Ada", "last name": "Lovelace"})
    );
    // A stray word before a quoted key is still a stray word.
    assert_eq!(value(r#"{COMMENT "key": 1}"#), json!({"key": 1}));
}

/// Bare words that are neither a key (no colon follows them) nor stray
/// words before a quoted key are no member: skipping the first word once
/// made `{this is "open"}` the member `{"is": "open"}`, losing "this".
#[test]
fn words_that_are_no_key_are_an_error_not_a_member() {
    for text in [
        r#"{this is "open"}"#,
        "Here:\n```json\n{this is \"open\" and \"quoted\" text}\n```",
        r#"Say {this is "open"} and go."#,
    ] {
        let e = error::<Value>(text);
        assert!(
            e.kind() == ErrorKind::Syntax || e.kind() == ErrorKind::NoJson,
            "{text:?}: {e:#}"
        );
        repair_error(text);
    }
    // Stray words before a quoted key and its colon are still skipped
    // (json_repair's test_parse_object), one by one.
    assert_eq!(
        value(r#"{"lorem": sic tamet. "ipsum": sic tamet, quick brown fox. "sic": ipsum}"#),
        json!({"lorem": "sic tamet.", "ipsum": "sic tamet", "sic": "ipsum"})
    );
    // Cut off among the words: not decided, so nothing of them shows.
    let partial = serde_llm::from_llm_str_partial::<Value>(r#"{"a": 1, this is wh"#).unwrap();
    assert_eq!(partial, Some(json!({"a": 1})));
    let partial = serde_llm::from_llm_str_partial::<Value>(r#"{"a": 1, note that "b"#).unwrap();
    assert_eq!(partial, Some(json!({"a": 1})));
    // And once the quoted key's colon arrives, the words were stray.
    assert_eq!(
        value(r#"{"a": 1, note that "b": 2}"#),
        json!({"a": 1, "b": 2})
    );
}

/// An elision in prose (`[...]`, `{…}`) stands for a value left out: it is
/// no value, never an empty list. A reply that is only `[...]` is still
/// read as jsonrepair reads it.
#[test]
fn an_elision_in_prose_is_no_value() {
    for text in [
        "See [...] for details.",
        "The list [ … ] is long.",
        "Use {...} here.",
    ] {
        assert_no_json(&error::<Value>(text), text);
        assert_no_json(&error::<Vec<u32>>(text), text);
    }
    assert_eq!(
        from_llm_str::<Vec<u32>>("Steps [...] are below: [1, 2]").unwrap(),
        [1, 2]
    );
    assert_eq!(value("[...]"), json!([]));
    assert_eq!(value("[1, 2, ...]"), json!([1, 2]));
    // A list of numbers in prose still starts like one.
    assert_eq!(
        from_llm_str::<Vec<f64>>("Try [.5, -1] now.").unwrap(),
        [0.5, -1.0]
    );
}

/// A bare scalar followed by words is a sentence: a list or struct target
/// does not take its first word as one element (`1 and 2` was `[1]`, `true
/// and false` was `["true"]`: the rest of the sentence dropped). A scalar
/// target still reads its one plausible value from short prose.
#[test]
fn a_sentence_is_no_list_of_its_first_word() {
    for text in [
        "1 and 2",
        "true and false",
        "42 is the answer",
        "NaN is not a number",
    ] {
        error::<Vec<u32>>(text);
        error::<Vec<String>>(text);
        error::<Vec<Value>>(text);
    }
    assert_eq!(from_llm_str::<u32>("42 is the answer").unwrap(), 42);
    // A bare value alone, or values one after another, still make a list.
    assert_eq!(from_llm_str::<Vec<u32>>("42").unwrap(), [42]);
    assert_eq!(from_llm_str::<Vec<u32>>("1, 2, 3").unwrap(), [1, 2, 3]);
    assert_eq!(from_llm_str::<Vec<u32>>("[1, 2] and more").unwrap(), [1, 2]);
}

/// A call is a name written right before its `(`, with one argument: the
/// value. With several (`f(1, 2)`, `set(1, 2)`) which one is meant is not
/// known, so it is an error (the first one alone was taken, dropping the
/// rest); a word, a space and a parenthesis is prose (`Sure (1, 2)` was
/// `1`).
#[test]
fn a_call_with_several_arguments_is_no_value() {
    for text in ["f(1, 2)", "set(1, 2)", "Sure (1, 2)", "Sure (1)"] {
        error::<Value>(text);
        error::<Vec<u32>>(text);
        repair_error(text);
    }
    assert_eq!(value(r#"ObjectId("5f")"#), json!("5f"));
    assert_eq!(
        value(r#"callback({"a": 1, "b": 2});"#),
        json!({"a": 1, "b": 2})
    );
    assert_eq!(value(r#"{"id": ObjectId("5f")}"#), json!({"id": "5f"}));
}

/// JavaScript's `new Date(...)` is the call `Date(...)`: one argument is
/// its value, several are no value (`new Date(2020, 1, 2)` was the string
/// `"new Date(2020"`, cut at the first comma). `new` alone is a word.
#[test]
fn a_constructor_call_is_read_as_its_call() {
    assert_eq!(
        value(r#"{"d": new Date("2020-01-02")}"#),
        json!({"d": "2020-01-02"})
    );
    for text in [
        r#"{"d": new Date(2020, 1, 2)}"#,
        r#"{"d": new Date(2020, 1, 2), "e": 1}"#,
        "[new Date(2020, 1, 2)]",
    ] {
        error::<Value>(text);
        repair_error(text);
    }
    assert_eq!(value(r#"{"news": new}"#), json!({"news": "new"}));
    assert_eq!(
        value(r#"{"note": new ideas, "n": 1}"#),
        json!({"note": "new ideas", "n": 1})
    );
}

/// A quoted key followed by a bare word that no literal spells is prose in
/// braces (`{ "open" and "quoted" phrase }` was two invented members,
/// `{"open": "and", "quoted": "phrase"}`). A literal or a number after the
/// key is a member missing its colon, as json_repair and jsonrepair read it.
#[test]
fn a_quoted_key_then_a_word_is_no_member() {
    for text in [
        r#"{ "open" and "quoted" phrase }"#,
        "```json\n{ \"open\" and \"quoted\" phrase }\n```",
        r#"{"name" John, "age": 3}"#,
        r#"{"a" hel"#,
    ] {
        error::<Value>(text);
        repair_error(text);
    }
    assert_eq!(value(r#"{"a" true}"#), json!({"a": true}));
    assert_eq!(value(r#"{"a" None, "b" 2}"#), json!({"a": null, "b": 2}));
    assert_eq!(value(r#"{"a" "b"}"#), json!({"a": "b"}));
    assert_eq!(value(r#"{"a" tr"#), json!({"a": true}));
}

/// An unquoted value, a trailing comma and the object's closer, then a
/// quote later on: the value ends at the comma. It was read as a string
/// missing its opening quote, up to that quote, swallowing the closer and
/// the next member (`{a: {a: a,},aa: {a: ",",},}` was
/// `{"a": {"a": "a,},aa: {a:"}}`; found by `suites.rs`'s models' printer).
#[test]
fn a_trailing_comma_ends_an_unquoted_value() {
    assert_eq!(
        value(r#"{a: {a: a,},aa: {a: ",",},}"#),
        json!({"a": {"a": "a"}, "aa": {"a": ","}})
    );
    assert_eq!(
        value(r#"{a: {b: x y,}, c: "d"}"#),
        json!({"a": {"b": "x y"}, "c": "d"})
    );
}

/// A number directly followed by a colon and digits is a time or a ratio,
/// read as its text: `[10:30, 11:45]` was `[10, 30, 11, 45]` (two numbers
/// invented), `{"t": 10:30:15}` was `{"t": 10, "30": 15}` (a key invented)
/// and `{"time": 10:30}` was `{"time": 10}` (the minutes dropped).
#[test]
fn a_time_or_a_ratio_is_its_text() {
    assert_eq!(
        value(r#"{"time": 10:30, "n": 1}"#),
        json!({"time": "10:30", "n": 1})
    );
    assert_eq!(value("[10:30, 11:45]"), json!(["10:30", "11:45"]));
    assert_eq!(value(r#"{"t": 10:30:15}"#), json!({"t": "10:30:15"}));
    assert_eq!(value(r#"{"ratio": 16:9}"#), json!({"ratio": "16:9"}));
    // A number as an unquoted key keeps its colon.
    assert_eq!(value(r#"{1:"a", 2: "b"}"#), json!({"1": "a", "2": "b"}));
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Slot {
        time: String,
    }
    assert_eq!(
        serde_llm::from_llm_str::<Slot>(r#"{"time": 10:30}"#).unwrap(),
        Slot {
            time: "10:30".into()
        }
    );
}

/// After a member's value, with no comma, another value where a key goes
/// is no member: `{"a": [1, 2] [3, 4]}` was `{"a": [1, 2]}` (its opener
/// skipped, its numbers dropped as keys with no value), `{"a": {"x": 1}
/// {"y": 2}}` moved `y` out of the value it was written in, and `{"a": "x"
/// 2}` dropped the 2. A quoted key with no value is still dropped, as
/// json_repair does; in an object that is a list's element, an opener
/// still closes the object the model left open.
#[test]
fn a_value_where_a_key_goes_is_no_member() {
    for text in [
        r#"{"a": [1, 2] [3, 4]}"#,
        r#"{"a": [1, 2] [3, 4], "b": 1}"#,
        r#"{"a": {"x": 1} {"y": 2}}"#,
        r#"{"a": "x" 2}"#,
        r#"{"a": 1, 2}"#,
    ] {
        error::<Value>(text);
        repair_error(text);
    }
    assert_eq!(value(r#"{"a": 1, "b"}"#), json!({"a": 1}));
    assert_eq!(value(r#"[{"a": 1 {"a": 2}]"#), json!([{"a": 1}, {"a": 2}]));
    assert_eq!(value(r#"{1: 2}"#), json!({"1": 2}));
}

/// Separators models borrow from other languages: `=` and `=>` between a
/// key and its value (`{a=1, b=2}` was the list `["a=1", "b=2"]`, `{"a" =
/// 1}` was `{}`), and `;` between members (`{"a": "x"; "b": "y"}` was
/// `{"a": "x\"; \"b"}`, with "y" dropped).
#[test]
fn other_languages_separators() {
    assert_eq!(value("{a=1, b=2}"), json!({"a": 1, "b": 2}));
    assert_eq!(
        value(r#"{a = "x", b = true}"#),
        json!({"a": "x", "b": true})
    );
    assert_eq!(value(r#"{"a" = 1}"#), json!({"a": 1}));
    assert_eq!(
        value(r#"{"a" => 1, "b" => [2]}"#),
        json!({"a": 1, "b": [2]})
    );
    assert_eq!(
        value(r#"{"a": "x"; "b": "y"}"#),
        json!({"a": "x", "b": "y"})
    );
    // Inside values and keys, `=` and `;` are text.
    assert_eq!(value(r#"{"eq": "a=b; c"}"#), json!({"eq": "a=b; c"}));
    assert_eq!(value(r#"{a: x=y}"#), json!({"a": "x=y"}));
    assert_eq!(value(r#"{"x == y": 1}"#), json!({"x == y": 1}));
}

/// In an object, a quote inside a string followed by words and another
/// quote is inside the string: `{"a": "5" tall", "b": 2}` was
/// `{"a": "5", "tall": "", "b": 2}` (a key invented, the value cut).
#[test]
fn words_between_two_quotes_stay_in_the_string() {
    assert_eq!(
        value(r#"{"a": "5" tall", "b": 2}"#),
        json!({"a": "5\" tall", "b": 2})
    );
    assert_eq!(value(r#"{"a": "x" y z"}"#), json!({"a": "x\" y z"}));
    // In a list, the quote closes the string and the words are the next
    // element, as before.
    assert_eq!(value(r#"["a" b", "c"]"#), json!(["a", "b", "c"]));
}

/// What the error for a list wanted says was found: a bulleted list is
/// prose, not a number.
#[test]
fn a_bulleted_list_is_named_prose() {
    let e = serde_llm::from_llm_str::<Vec<String>>("- apples\n- pears").unwrap_err();
    assert_eq!(
        e.message(),
        "expected a JSON array, found prose (looked for a bare value, ```json fences, <json> tags, and […] spans)"
    );
    let e = serde_llm::from_llm_str::<Vec<u32>>("-1.5x").unwrap_err();
    assert!(e.message().contains("found a number"), "{}", e.message());
}

/// A minus, a space, then digits inside a container is the negative
/// number: `{"a": - 5}` was `{"a": 5}` and `[1, - 2]` was `[1, 2]` (the sign
/// skipped as a stray one). At the top level `- 5` is a bullet, as before.
#[test]
fn a_spaced_minus_stays_with_its_number() {
    assert_eq!(value(r#"{"a": - 5}"#), json!({"a": -5}));
    assert_eq!(value("[1, - 2, -  3.5]"), json!([1, -2, -3.5]));
    assert_eq!(value(r#"{"a": -, "b": 1}"#), json!({"a": null, "b": 1}));
    assert_eq!(
        serde_llm::from_llm_str::<Vec<u32>>("- 1\n- 2").unwrap(),
        [1, 2]
    );
    assert_eq!(serde_llm::repair(r#"{"a": - 5}"#).unwrap(), r#"{"a":-5}"#);
}

/// A placeholder in braces (`{name}`, `{ user_id }`) beside real values
/// carries nothing, as an empty object does: `{"a": 1} {x}` was
/// `[{"a": 1}, {}]`, an empty object invented from the placeholder.
#[test]
fn a_placeholder_beside_values_carries_nothing() {
    assert_eq!(value(r#"{"a": 1} {x}"#), json!({"a": 1}));
    assert_eq!(value(r#"{"a": 1} { user_id }"#), json!({"a": 1}));
    assert_eq!(
        value(r#"{x} {x} {"a": 1} {"b": 2}"#),
        json!([{"a": 1}, {"b": 2}])
    );
}

/// A list in prose is no struct: serde's derive reads a sequence into a
/// struct in field order, so a bracketed aside would fill its fields (found
/// by the `stream_typed` fuzz target: the `[^'"]` of a regex in the intro
/// gave a partial view titled `^'`). Marked as the answer (a fence, the
/// whole reply), a list still fills a struct in order.
#[test]
fn a_list_in_prose_is_no_struct() {
    #[derive(Debug, Deserialize, Partial, PartialEq)]
    struct Titled {
        #[llm(partial)]
        title: String,
        n: Option<u32>,
    }
    for reply in [
        "The pattern [^'\"]+ matches what is not a quote.",
        "Use [\"a\", 2] as the pair, as [1] says.",
        "Here is the tuple: [\"T\", 2] and that is all.",
    ] {
        let e = from_llm_str::<Titled>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
        assert_eq!(
            serde_llm::from_llm_str_partial::<Titled>(reply).unwrap(),
            None,
            "{reply}"
        );
    }
    let titled = Titled {
        title: "T".into(),
        n: Some(2),
    };
    assert_eq!(from_llm_str::<Titled>("[\"T\", 2]").unwrap(), titled);
    assert_eq!(
        from_llm_str::<Titled>("Here:\n```json\n[\"T\", 2]\n```").unwrap(),
        titled
    );
    // An object in the same prose is the value.
    assert_eq!(
        from_llm_str::<Titled>("As [1] says: {\"title\": \"T\", \"n\": 2}.").unwrap(),
        titled
    );
}

/// Brackets in prose around marks no JSON value starts with (a regex's
/// class, a footnote mark, a handle) are no list for any target: read as
/// JSON they became strings made by repairs (`["^'"]`).
#[test]
fn marks_in_brackets_are_no_list() {
    for reply in [
        "The regex [^'\"]+ matches what is not a quote.",
        "Split on [\\s,]+ and trim each part.",
        "See the note [*] below.",
        "Ask [@maria] about it.",
    ] {
        let e = from_llm_str::<Value>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
        let e = from_llm_str::<Vec<String>>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
    }
    // The list after such an aside is read.
    assert_eq!(
        from_llm_str::<Vec<String>>("Matched by [^a-z]: [\"A\", \"B\"]").unwrap(),
        ["A", "B"]
    );
}

/// A code block written as a member's value ends with a marker that the
/// value goes on after (```` ```, ````): that marker opens no fence, and the
/// brackets in the block are its text (found in BAML's suite: the marker was
/// read as a fence opening over the rest of the reply, whose `"type":
/// "code"` came out as the string `type": "code`; then, its `}}}` closing
/// the object early, the other member was lost).
#[test]
fn a_code_block_value_closed_before_a_comma_opens_no_fence() {
    for (reply, want) in [
        (
            "Here:\n{\"code\": ```\n}}]\n```,\n\"n\": 1}",
            json!({"code": "}}]", "n": 1}),
        ),
        (
            "Here:\n{\"a\": ```\nx\n```, \"b\": \"y\"}",
            json!({"a": "x", "b": "y"}),
        ),
        (
            "Intro\n```json\n{\"a\": ```\n}\n```,\n\"b\": 2}\n```\nbye",
            json!({"a": "}", "b": 2}),
        ),
        (
            "See:\n{\"a\": ```sh\nls ]\n```\n}\nDone.",
            json!({"a": "ls ]"}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// A fence inside a value that opens the reply (a call with a fenced code
/// argument) is part of that value: the reply is read whole first, not the
/// fence's body alone (found by review: `print(1)` read as the call `1`).
#[test]
fn a_fence_inside_the_opening_value_is_part_of_it() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Run {
        code: String,
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Doc {
        name: String,
        age: u32,
    }
    let reply = "run_code({\"code\":\n```python\nprint(1)\n```\n})";
    assert_eq!(
        from_llm_str::<Run>(reply).unwrap(),
        Run {
            code: "print(1)".into()
        }
    );
    assert_eq!(
        from_llm_str::<Value>(reply).unwrap(),
        json!({"code": "print(1)"})
    );
    let reply = "callback({\"name\": \"A\", \"age\": 3, \"code\":\n```\n[1, 2]\n```\n})";
    assert_eq!(
        from_llm_str::<Doc>(reply).unwrap(),
        Doc {
            name: "A".into(),
            age: 3
        }
    );
    // A sentence before the fence: the fence is the value.
    let reply = "Sure! Here it is:\n```json\n{name: 'A', age: 3,}\n```\nAnything else?";
    assert_eq!(
        from_llm_str::<Doc>(reply).unwrap(),
        Doc {
            name: "A".into(),
            age: 3
        }
    );
}

/// Brackets inside a quoted phrase of the prose are words of that phrase,
/// not a value (found by the generated-documents property test: `The answer
/// is "1[]…"` read as `[]`). Quotes before a value that close before it
/// leave it a value.
#[test]
fn brackets_in_a_quoted_phrase_are_no_value() {
    for reply in [
        "The answer is \"see [] here\"",
        "The answer is \"a {} b\"",
        "The answer is \"1[]\u{a0}}\\u0000e \u{a0}te\u{feff}\"",
    ] {
        let e = from_llm_str::<Value>(reply).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply}: {e}");
    }
    for (reply, want) in [
        ("Here is \"the data\": {\"a\": 1}", json!({"a": 1})),
        ("The key \"a\" maps to [1, 2]", json!([1, 2])),
        (
            "He said \"use [1, 2]\" and left. Then {\"b\": 2}",
            json!({"b": 2}),
        ),
        ("Escaped \"a \\\" b\" then [3, 4] and \"c\"", json!([3, 4])),
    ] {
        assert_eq!(from_llm_str::<Value>(reply).unwrap(), want, "{reply}");
    }
}

/// A list of `Option`s cut inside its last element: that element is left
/// out, as any cut element not marked partial is, never `None` (`[1, null,
/// 3` cut at `3` is no `null`), and a `null` is shown once it is complete,
/// as `true` is.
/// A map of `Option`s leaves its cut member out the same way. A view of
/// such a list reads the `null`s too (it failed on them: a `null` is no
/// `u32`).
#[test]
fn a_cut_element_of_a_list_of_options_is_no_null() {
    use std::collections::BTreeMap;
    assert_eq!(
        from_llm_str::<Vec<Option<u32>>>("[1, null, 3").unwrap(),
        [Some(1), None]
    );
    assert_eq!(
        from_llm_str::<Vec<Option<u32>>>("[1, null, 3]").unwrap(),
        [Some(1), None, Some(3)]
    );
    assert_eq!(
        from_llm_str::<Vec<Option<u32>>>("[1, nul").unwrap(),
        [Some(1)]
    );
    assert_eq!(
        from_llm_str::<Vec<Option<String>>>(r#"["a", null, "b"#).unwrap(),
        [Some("a".to_owned()), None]
    );
    let map =
        from_llm_str::<BTreeMap<String, Option<u32>>>(r#"{"a": 1, "b": null, "c": 3"#).unwrap();
    assert_eq!(
        map,
        BTreeMap::from([("a".to_owned(), Some(1)), ("b".to_owned(), None)])
    );
    for (cut, want) in [
        ("[null, 1]", vec![None, Some(1)]),
        ("[1, null, 3", vec![Some(1), None]),
        // A literal at the very end may go on, as `true` may: shown once
        // what follows says it is complete.
        ("[1, null", vec![Some(1)]),
        ("[1, null ", vec![Some(1), None]),
        ("[1, nu", vec![Some(1)]),
        ("[null", vec![]),
    ] {
        let view = serde_llm::from_llm_str_partial::<Vec<Option<u32>>>(cut).unwrap();
        assert_eq!(view, Some(want), "{cut}");
    }
    let nested =
        serde_llm::from_llm_str_partial::<Vec<Option<Vec<Option<u32>>>>>("[null, [1, null, 2")
            .unwrap();
    assert_eq!(nested, Some(vec![None, Some(vec![Some(1), None])]));
}
/// A value its clause negates is not the answer (`Not true.` gave
/// `true`, `Definitely not A` gave `A`); nor is a bound (`at least 3`) or
/// one letter of `N/A`. A negated mention is passed over when another
/// value is named (`Not B, but C.`); alone it is an error that names it.
#[test]
fn negated_and_bounded_mentions_are_no_values() {
    #[derive(Debug, Deserialize, PartialEq)]
    enum Choice {
        A,
        B,
        C,
    }
    for reply in [
        "Not true.",
        "That is not true.",
        "I can't say yes.",
        "That isn't false",
    ] {
        let e = from_llm_str::<bool>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
        assert!(e.to_string().contains("negates"), "{reply}: {e}");
    }
    for reply in ["Not B.", "Definitely not A", "It is never C"] {
        let e = from_llm_str::<Choice>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
    }
    assert_eq!(from_llm_str::<Choice>("Not B, but C.").unwrap(), Choice::C);
    assert_eq!(
        from_llm_str::<Choice>("The answer is B (not A).").unwrap(),
        Choice::B
    );
    assert_eq!(
        from_llm_str::<Choice>("B. Not A; not C.").unwrap(),
        Choice::B
    );
    assert!(from_llm_str::<bool>("Yes, not a doubt.").unwrap());
    assert!(!from_llm_str::<bool>("False, not true.").unwrap());
    let e = from_llm_str::<Choice>("N/A").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoJson, "{e}");
    for reply in [
        "less than 5",
        "at least 3 items",
        "Over 100.",
        "10+ years",
        "x <= 4",
        "Fewer than 7",
    ] {
        let e = from_llm_str::<u32>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
        assert!(e.to_string().contains("a bound"), "{reply}: {e}");
    }
    assert_eq!(from_llm_str::<u32>("About 7.").unwrap(), 7);
    assert_eq!(from_llm_str::<u32>("Moreover, 7.").unwrap(), 7);
}
/// A `...` between a list's elements stands for elements the reply leaves
/// out: `[2, 3, 5, ..., 29]` gave `Ok([2, 3, 5, 29])`, a list the model did
/// not mean. A typed decode refuses it (a `Data` error at the `...`, with
/// its path); `repair()` removes it, as json_repair does; a `...` at a
/// list's end is what is written so far, as in a list cut off.
#[test]
fn an_elision_between_elements_is_refused() {
    #[derive(Debug, Deserialize)]
    struct Primes {
        #[allow(dead_code)]
        primes: Vec<u32>,
    }
    for reply in [
        "[2, 3, 5, ..., 29]",
        "Here are the primes: [2, 3, 5, ..., 29]",
        "```json\n[2, 3, 5, ...,\n 29]\n```",
        "[..., 29]",
    ] {
        let e = from_llm_str::<Vec<u32>>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
        assert!(e.to_string().contains("between elements"), "{reply}: {e}");
        let e = from_llm_str::<Value>(reply).expect_err(reply);
        assert_eq!(e.kind(), ErrorKind::Data, "{reply}: {e}");
    }
    let e = from_llm_str::<Value>("(1, ..., 3)").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    let e = from_llm_str::<Primes>(r#"{"primes": [2, 3, ..., 29]}"#).unwrap_err();
    assert_eq!(
        (e.kind(), e.path().as_str()),
        (ErrorKind::Data, "$.primes"),
        "{e}"
    );
    // At the end: the elements so far, as a list cut off gives.
    assert_eq!(from_llm_str::<Vec<u32>>("[1, 2, ...]").unwrap(), [1, 2]);
    assert_eq!(
        from_llm_str::<Vec<u32>>("[\n  1,\n  2,\n  ...\n]").unwrap(),
        [1, 2]
    );
    // repair() removes it, as the peers' suites expect.
    assert_eq!(repair("[1, 2, ..., 10]").unwrap(), "[1,2,10]");
    assert_eq!(repair("[1, 2, ... , 3]").unwrap(), "[1,2,3]");
    // Allowed, a typed decode removes it too; denied with every
    // ellipsis, it is that repair that is denied.
    let allowed = Decoder::new().allow(serde_llm::RepairKind::Elision);
    assert_eq!(allowed.decode::<Vec<u32>>("[1, ..., 3]").unwrap(), [1, 3]);
    let e = Decoder::strict().repair("[1, ..., 3]").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Denied, "{e}");
    let (_, report) = serde_llm::Decoder::new()
        .repair_with_report("[1, ..., 3]")
        .unwrap();
    assert_eq!(report.repairs[0].kind, serde_llm::RepairKind::Elision);
}

/// Found by a sweep: a fence in a language of code before the value
/// (`print('{')` in a Python fence) was the answer: the string `"{"`, the
/// object after it dropped. A scalar in such a fence is code; a container
/// in one may be the answer, and a reply that is the fence alone is read
/// as it was.
#[test]
fn a_scalar_in_a_code_fence_is_code() {
    for (reply, want) in [
        (
            "Here:\n```python\nprint('{')\n```\n{title: 'x', n: [1]}",
            json!({"title": "x", "n": [1]}),
        ),
        (
            "Here:\n```python\n'hi'\n```\n{\"title\": \"x\"}",
            json!({"title": "x"}),
        ),
        ("Run:\n```bash\necho 1\n```\nThen: [1, 2]", json!([1, 2])),
        (
            "```js\nfoo(1)\n```\n```json\n{\"a\": 1}\n```",
            json!({"a": 1}),
        ),
        // A container in a code fence, and a scalar in a data fence.
        ("```python\n{'a': True}\n```", json!({"a": true})),
        ("```javascript\n{a: 1}\n```\nok", json!({"a": 1})),
        ("```json\n\"hi\"\n```\n{x} ok", json!("hi")),
        ("```python\n42\n```", json!(42)),
        // A reply that opens with a block of code: its code is not read as
        // values (the whole reply read as JSON took `'{'` from it).
        ("```python\nprint(1)\n```\n{\"b\": 2}", json!({"b": 2})),
        ("```python\nx = 1\n```\n[1, 2]", json!([1, 2])),
    ] {
        assert_eq!(from_llm_str::<Value>(reply).unwrap(), want, "{reply:?}");
    }
    assert!(from_llm_str::<Value>("```python\nprint(42)\n```\nok").is_err());
    // Found by a sweep: `["{", "x"]`, an element made of code.
    let reply = "```python\nprint('{')\n```\n\"x\"";
    assert!(from_llm_str::<Value>(reply).is_err());
    assert!(from_llm_str::<Vec<Value>>(reply).is_err());
    let e = from_llm_str::<Value>(reply).unwrap_err();
    assert_eq!(e.kind(), serde_llm::ErrorKind::NoJson, "{e}");
}

/// Found by a sweep: a value written in JSON5 or Python's spelling
/// (single quotes, bare keys, comments) lost to a plain JSON value the
/// prose after it mentions (`use {"n": 2} next time`), since its
/// spelling counted as repairs. A dialect bends nothing: the earlier
/// value is the answer. A value with real damage (a comma missing) still
/// gives way to a later one read cleanly.
#[test]
fn a_value_in_a_dialect_does_not_give_way_to_a_later_mention() {
    for (reply, want) in [
        (
            "{title: 'x', n: [1]}\n\nNote: use {\"n\": 2} next time.",
            json!({"title": "x", "n": [1]}),
        ),
        ("{\"a\": 1 /* [ */}\nuse {\"n\": 2}", json!({"a": 1})),
        (
            "Result: {'ok': True, 'items': ['a', 'b',]}\nThe schema was {\"ok\": \"bool\"}.",
            json!({"ok": true, "items": ["a", "b"]}),
        ),
        (
            "```json\n{'a': 1, 'b': [1, 2, 3]}\n```\n\n```json\n{\"c\": [1, 2",
            json!({"a": 1, "b": [1, 2, 3]}),
        ),
        // Damage, then a clean value: the clean one.
        (
            "{\"a\": 1 \"b\": 2}\nFixed: {\"a\": 3, \"b\": 4}",
            json!({"a": 3, "b": 4}),
        ),
        // Prose read as a bare key, and words in single quotes that are
        // the whole value, are no dialect: they weigh as guesses.
        ("A { brace. Here it is: {\"a\": 1} }", json!({"a": 1})),
        (
            "Wrap in '<json>' and '</json>': <json>{\"a\": 1}</json>",
            json!({"a": 1}),
        ),
    ] {
        assert_eq!(from_llm_str::<Value>(reply).unwrap(), want, "{reply:?}");
    }
}

/// A reply that takes its value back and writes it again
/// (`{"a": 1}⏎⏎Wait, I made a mistake. Here is the corrected version:⏎{"a": 2}`)
/// means the value after the correction: words that say the value was
/// wrong (after it, or in its label), then prose that introduces the next
/// value as the correction (a clause naming it, ending with a colon), of
/// the same shape. The one before is then tried only when nothing after it
/// decodes, and it is never gathered into a list. Anything less (a note
/// about the input, an addition, an example, a list of options, a cue
/// negated, made a condition or asked) leaves the first value the answer.
#[test]
fn a_value_the_prose_takes_back_gives_way_to_the_one_after() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct A {
        a: u32,
    }
    for (reply, a) in [
        (
            "{\"a\": 1}\n\nWait, I made a mistake. Here is the corrected version:\n{\"a\": 2}",
            2,
        ),
        ("Note {a: 1} is wrong; correct:\n{\"a\": 2}", 2),
        ("Wrong: {\"a\": 1}\nCorrect: {\"a\": 2}", 2),
        (
            "```json\n{\"a\": 1}\n```\nOops, typo. Fixed:\n```json\n{\"a\": 2}\n```",
            2,
        ),
        (
            "{\"a\": 1}\n\nSorry, my error. The correct count:\n\n{\"a\": 2}",
            2,
        ),
        (
            "{\"a\": 1}\n\nActually, let me redo that with the right count:\n{'a': 2,}",
            2,
        ),
        ("First: {\"a\": 1}\nSecond: {\"a\": 2}", 1),
        (
            "{\"a\": 1}\n\nIf this is wrong, try the corrected one: {\"a\": 2}",
            1,
        ),
        (
            "{\"a\": 1}\n\nThere are no mistakes. Corrected schema: {\"a\": 2}",
            1,
        ),
        // A label that names the value a correction introduces it so,
        // whatever came before (a question, words about the input).
        (
            "{\"a\": 1}\n\nIs this wrong? The corrected one: {\"a\": 2}",
            2,
        ),
        ("{\"a\": 1}\n\nI apologize for the confusion. {\"a\": 2}", 1),
        // Found by the sweep: a value meant instead.
        (
            "```json\n{\"a\": 1}\n```\nSorry, I meant:\n```json\n{\"a\": 2}\n```",
            2,
        ),
        ("The answer is {\"a\": 1}. Sorry, I meant {\"a\": 2}.", 2),
        ("{\"a\": 1}\nThat is wrong; use this instead:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n\nI meant what I said. {\"a\": 2}", 1),
        // Found by the review: words about the input, or that no fix is
        // needed, take nothing back.
        (
            "{\"a\": 1}\n\nCorrection: none needed.\n\nHere is a second example instead:\n{\"a\": 5}",
            1,
        ),
        (
            "{\"a\": 1}\n\nYour JSON is invalid. Fixed version:\n{\"a\": 2}",
            2,
        ),
        (
            "Option 1 (correct): {\"a\": 1}\nOption 2 (wrong): {\"a\": 2}",
            1,
        ),
        ("{\"a\": 1}\n\nWait, there is one more: {\"a\": 2}", 1),
        // Found by the review: an interjection of surprise, and the idiom.
        ("{\"a\": 1}\nOh, my mistake.\n{\"a\": 2}", 2),
        ("{\"a\": 1} Scratch that. {\"a\": 2}", 2),
        ("```json\n{\"a\": 1}\n```\nStrike that!\n```json\n{\"a\": 2}\n```", 2),
        ("{\"a\": 1}\nOh, nice. {\"a\": 2}", 1),
        ("{\"a\": 1}\nOh, no mistakes. {\"a\": 2}", 1),
        ("{\"a\": 1}\nScratch that idea. Also: {\"a\": 2}", 1),
        ("Start from scratch. {\"a\": 1} then {\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, scratch that.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nActually, scratch that:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nScratch that, my mistake.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n(Scratch that.)\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n*Scratch that.*\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nForget that. {\"a\": 2}", 2),
        ("{\"a\": 1}\nNever mind.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOh dear, my mistake.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nAh, wrong one.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n**Oh, my mistake.**\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nScratch that:\n{\"a\": 2}", 2),
        // A `no` that stands alone, and what was wrong named.
        ("{\"a\": 1}\nWait, no, that is wrong.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nHmm, no, my mistake!\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, wrong key.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nSorry, wrong format!\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nWait, no, that is the answer.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, no key is wrong.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, no wrong keys.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWrong key? {\"a\": 2}", 1),
        // Found by the review: a `no` among words that confirm the first,
        // `error` that adds a case; a dash after a space.
        ("{\"a\": 1}\nWait, no, that is my answer.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nHmm, no, that is it.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nActually, no, that number is it.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nActually, error value.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, no \u{2014} wrong value.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, no - wrong number.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOh, nope.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, my error.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, wrong city.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOk, scratch that.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nNevermind.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nNevermind the format. {\"a\": 2}", 1),
        ("{\"a\": 1}\nNever mind the format. {\"a\": 2}", 1),
        // A sentence ending in a colon may point at the value after it
        // (found by the second review): the first.
        ("{\"a\": 1}\nOh, my mistake:\n{\"a\": 2}", 1),
        ("Correct version:\n{\"a\": 1}\nOh, this is wrong:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, this is wrong: {\"a\": 2}", 1),
        ("Correct:\n{\"a\": 1}\nMy typo:\n{\"a\": 3}", 1),
        ("{\"a\": 1}\nIgnore that field if empty. {\"a\": 2}", 1),
        ("{\"a\": 1}\nNever mind the order. {\"a\": 2}", 1),
        ("{\"a\": 1}\nDon't forget that one: {\"a\": 2}", 1),
        ("{\"a\": 1}\nThe one: {\"a\": 2}", 1),
        // A sentence of nothing but words that take back, right before the
        // value; or one that opens so, then a sentence introducing it.
        ("{\"a\": 1}\n\nWait, no. {\"a\": 2}", 2),
        ("{\"a\": 1}\n\nSorry, my mistake! {\"a\": 2}", 2),
        ("{\"a\": 1}\n\nOops.\n\n{\"a\": 2}", 2),
        ("The answer is {\"a\": 1}. Wait, no. {\"a\": 2}", 2),
        // Found by the review: words about the user's input, a question
        // answered, a case, a `no` that negates.
        (
            "{\"a\": 1}\n\nThat is because the email is wrong. Here is what a valid one looks like:\n{\"a\": 2}",
            1,
        ),
        (
            "{\"a\": 1}\n\nThat answer is wrong. The student wrote:\n{\"a\": 5}",
            1,
        ),
        (
            "{\"a\": 1}\n\nActually, this is the wrong approach for large inputs. The streaming variant uses:\n{\"a\": 2}",
            1,
        ),
        (
            "{\"a\": 1}\n\nShould I add a b field? Hmm, no. {\"a\": 2} would break the schema.",
            1,
        ),
        ("{\"a\": 1}\n\nWait, no mistakes. {\"a\": 2}", 1),
        // Found by the second review: a sentence that takes back, then one
        // that names what follows, is no correction (what follows is the
        // user's input, an addition, an explanation).
        (
            "{\"a\": 1}\n\nSorry, your JSON is wrong. The offending part:\n{\"a\": 2}",
            1,
        ),
        ("{\"a\": 1}\n\nOops, I forgot a field. Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\n\nActually, that is it.\n\n{\"a\": 2}", 1),
        ("{\"a\": 1}\n\nWait!\n\n{\"a\": 2}", 1),
        (
            "{\"a\": 1}\nWait, I meant: {\"a\": 2}\nHmm, no. Correct: {\"a\": 3}",
            3,
        ),
        (
            "{\"a\": 1}\n\nNote: the wrong format is shown below. Example:\n{\"a\": 2}",
            1,
        ),
        ("{\"a\": 1}\nThat is all. Wait, here is another: {\"a\": 2}", 1),
        ("{\"a\": 1}\n\nWait, that is wrong. Example:\n{\"a\": 2}", 1),
        (
            "{\"a\": 1}\nThe answer above is correct: it matches {\"a\": 2}",
            1,
        ),
        // A sentence that takes back, then one that only presents what
        // follows: the correction. One that presents something else (the
        // input, a schema), or follows no interjection, is none.
        ("{\"a\": 1}\nWait, that is wrong. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, my mistake. Let me fix it:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nWait, no. Try this:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nSorry, that was wrong. Here you go:\n{\"a\": 2}", 2),
        (
            "{\"a\": 1}\nOops, I made a mistake. Here is the JSON again:\n```json\n{\"a\": 2}\n```",
            2,
        ),
        ("{\"a\": 1}\nOops, my mistake! It should be:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nHold on, that is wrong. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nHold on, that is wrong.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, my mistake. Here is your input:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, my mistake. The schema:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nGreat. Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nHold on. Here it is:\n{\"a\": 2}", 1),
        // Found by the review: a sentence or two that name the mistake in
        // other words, before one that only presents the value; blank
        // lines, tags, `Here's`.
        ("{\"a\": 1}\nOops, I used the wrong key. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nI made a mistake. Here you go!\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nThat is wrong. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n\nOops, my mistake!\n\nHere you go:\n\n{\"a\": 2}", 2),
        (
            "<json>{\"a\": 1}</json>\nOops, typo. Here it is:\n<json>{\"a\": 2}</json>",
            2,
        ),
        ("{\"a\": 1}\nOops! My mistake. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nWait, that is wrong. Here's the JSON:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nHold on, no. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOh, your original had a typo. Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOh, the typo. Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, my mistake. Here is one more:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, is that wrong? Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, if that is wrong, here it is:\n{\"a\": 2}", 1),
        (
            "{\"a\": 1}\nIs it done? Oops, my mistake. Here it is:\n{\"a\": 2}",
            1,
        ),
        // A label that names the value a correction (`Corrected:`, `Fixed
        // JSON:`, `Here is the correct one:`), right before it; one
        // sentence of both parts (`Oops, wrong key, here it is:`); `not
        // right`, an apology for what came before, `messed up`, a pause.
        ("{\"a\": 1}\nCorrection:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nCorrected:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nCorrected version:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n\n**Fixed JSON:**\n```json\n{\"a\": 2}\n```", 2),
        ("{\"a\": 1}\n\nUpdated JSON:\n<json>{\"a\": 2}</json>", 2),
        ("Here is the JSON: {\"a\": 1}\n\nCorrection: {\"a\": 2}", 2),
        ("{\"a\": 1}\n\nHere is the correct one: {\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, wrong key, here it is:\n{\"a\": 2}", 2),
        (
            "{\"a\": 1}\nOops, that has a mistake, here is the fix:\n{\"a\": 2}",
            2,
        ),
        ("{\"a\": 1}\nWait, that's not right.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nSorry, I messed up. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nSorry about that! Here it is:\n{\"a\": 2}", 2),
        (
            "{\"a\": 1}\nSorry for the confusion. Here is the correct JSON:\n{\"a\": 2}",
            2,
        ),
        ("{\"a\": 1}\nHold on a second, that is wrong.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n\nSorry for the delay! Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, that is right. Here it is:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nThat is not wrong. Here it is again:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nThe correct JSON is the one above: {\"a\": 2}", 1),
        ("{\"a\": 1}\nCorrected input:\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nThe correct value is 2, as in {\"a\": 2}", 1),
        // Words that take back in what reads as a comment between values
        // one after another: prose, not a comment (not JSON lines).
        ("{\"a\": 1}\n\n## Final answer\n\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n# Wait, that is wrong. Here it is:\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n// Final answer\n{\"a\": 2}", 2),
        ("{\"a\": 1}\n/* Final answer */\n{\"a\": 2}", 2),
        // A label on the line before that says the value is wrong (found
        // by the review).
        ("Incorrect:\n{\"a\": 1}\nCorrect:\n{\"a\": 2}", 2),
        (
            "**Wrong:**\n```json\n{\"a\": 1}\n```\n**Right:**\n```json\n{\"a\": 2}\n```",
            2,
        ),
        ("Incorrect:\n{\"a\": 1}\nHere is more:\n{\"a\": 2}", 1),
        // A clause that names the mistake, then why, and the value right
        // after with no colon.
        ("{\"a\": 1}\nWait, that's not right \u{2014} 1 is odd.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, wrong unit. The API wants meters.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nOops, that's incorrect - a must be even.\n{\"a\": 2}", 2),
        ("{\"a\": 1}\nSorry, that is wrong; it needs to be even.\n\n{\"a\": 2}", 2),
        // (A clause that names a mistake in other words may name one in
        // the data, a grade, an example: found by the review.)
        ("{\"a\": 1}\nThat's incorrect - a must be even.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, wrong key. Anyway, here's another one.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nThat reading is wrong \u{2014} the sensor was offline.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops, the customer ordered the wrong size. They exchanged it.\n{\"a\": 2}", 1),
        ("Numbers must not be quoted:\n{\"a\": 1}\nIt's a common mistake to quote them \u{2014} the API rejects it.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWrong answers are common here. Most say 2.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nThat is wrong. Here is your input again.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nWait, that is wrong \u{2014} the schema is\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nOops! I forgot to say the times are UTC.\n{\"a\": 2}", 1),
        ("{\"a\": 1}\nIs that wrong? It may be.\n{\"a\": 2}", 1),
    ] {
        assert_eq!(from_llm_str::<A>(reply).unwrap(), A { a }, "{reply:?}");
        assert_eq!(value(reply), json!({"a": a}), "{reply:?}");
        let list: Vec<A> = from_llm_str(reply).unwrap();
        assert_eq!(list.first(), Some(&A { a }), "{reply:?}");
    }
    // Found by the review: notes about the input, asides, examples.
    for (reply, want) in [
        (
            "{\"name\": \"Alice\", \"age\": 30}\n\nYour input had a typo in the key: {\"nmae\": \"Alice\"}",
            json!({"name": "Alice", "age": 30}),
        ),
        (
            "{\"total\": 3}\n\nCorrection applied to items [2, 3].",
            json!({"total": 3}),
        ),
        (
            "{\"status\": \"ok\"}\n\nNote: the field \"date\" was in the wrong format; it should look like {\"date\": \"2024-01-01\"}",
            json!({"status": "ok"}),
        ),
        (
            "{\"a\": 1}\n\nActually, you could also write it as an array: [1]",
            json!({"a": 1}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    let reply = "{\"id\": 1}\n{\"id\": 2} - spelling corrected\n{\"id\": 3}";
    assert_eq!(
        from_llm_str::<Vec<Value>>(reply).unwrap(),
        [json!({"id": 1}), json!({"id": 2}), json!({"id": 3})]
    );
    // The value after the cue does not fit the target: the one before
    // stands.
    let reply = "{\"a\": 1}\n\nOops, typo. Corrected: {\"b\": \"x\"}";
    assert_eq!(from_llm_str::<A>(reply).unwrap(), A { a: 1 });
    // Never gathered with the value after it.
    let reply = "{\"a\": 1}\n\nOops, wrong count. Corrected:\n{\"a\": 2}";
    assert_eq!(from_llm_str::<Vec<A>>(reply).unwrap(), [A { a: 2 }]);
    // The correction is cut off: it is the value, cut, whether the value
    // taken back opens the reply (read whole first, with text after it) or
    // follows words.
    for reply in [
        "{\"a\": 1}\nOops, typo. Corrected: {\"a\": 2",
        "  {\"a\": 1}\nOops, typo. Corrected: {\"a\": 2",
        "Here: {\"a\": 1}\nOops, typo. Corrected: {\"a\": 2",
    ] {
        let (v, report) = decode::<Value>(reply);
        assert_eq!((v, report.truncated), (json!({"a": 2}), true), "{reply:?}");
    }
    // A cue inside a value's string says nothing of the value before it.
    let reply = "{\"a\": 1}\n\n{\"a\": 2, \"note\": \"wrong turn\"}";
    assert_eq!(
        value(reply),
        json!([{"a": 1}, {"a": 2, "note": "wrong turn"}])
    );
}

/// Comment lines between values one after another that take no value back,
/// or more than two values: JSON lines, every value kept (found by the
/// review of the comment rule: data dropped).
#[test]
fn comment_lines_that_correct_nothing_keep_json_lines() {
    for (reply, want) in [
        (
            "{\"level\": \"info\"}\n# the next line is wrong on purpose\n{\"level\": \"error\"}",
            json!([{"level": "info"}, {"level": "error"}]),
        ),
        (
            "{\"id\": 1}\n{\"id\": 2}\n// incorrect entries removed\n{\"id\": 3}",
            json!([{"id": 1}, {"id": 2}, {"id": 3}]),
        ),
        (
            "## Step 1\n{\"a\": 1}\n\n## Step 2\n{\"a\": 2}",
            json!([{"a": 1}, {"a": 2}]),
        ),
        ("[1, 2]\n# Final answer\n[3]", json!([3])),
        (
            "{\"id\": 1}\n{\"id\": 2}\n# wrong\n{\"id\": 3}\n{\"id\": 4}",
            json!([{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]),
        ),
        (
            "# valid\n{\"a\": 1}\n# invalid: wrong type\n{\"a\": \"x\"}",
            json!([{"a": 1}, {"a": "x"}]),
        ),
        (
            "{\"id\": 1, \"email\": \"a@b.c\"}\n# next row is not valid (missing email), kept for testing\n{\"id\": 2}",
            json!([{"id": 1, "email": "a@b.c"}, {"id": 2}]),
        ),
        (
            "# Training data for the mistake detector\n{\"text\": \"teh\", \"label\": \"typo\"}\n{\"text\": \"the\", \"label\": \"ok\"}",
            json!([{"text": "teh", "label": "typo"}, {"text": "the", "label": "ok"}]),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// `Fixed:`, `Updated:` alone name a status, a plan, an event or a section
/// of release notes, not a correction (found by the review: `Fixed JSON:`
/// and `Corrected:` do).
#[test]
fn fixed_or_updated_alone_labels_no_correction() {
    for (reply, want) in [
        (
            "Here are example payloads for each event type.\n\nCreated:\n```json\n{\"event\": \"created\", \"id\": 1}\n```\nUpdated:\n```json\n{\"event\": \"updated\", \"id\": 1}\n```",
            json!({"event": "created", "id": 1}),
        ),
        (
            "Tickets by status:\nOpen: [101, 102]\nFixed: [99, 100]\nWontfix: [98]",
            json!([101, 102]),
        ),
        (
            "Two configs, pick one.\nDynamic: {\"dhcp\": true}\nFixed: {\"dhcp\": false, \"ip\": \"10.0.0.5\"}",
            json!({"dhcp": true}),
        ),
        (
            "{\"package\": \"serde\", \"latest\": \"1.0.200\"}\nLast updated version: {\"package\": \"serde\", \"latest\": \"1.0.199\"}",
            json!({"package": "serde", "latest": "1.0.200"}),
        ),
        (
            "```json\n{\"name\": \"Alice\", \"age\": 30}\n```\n\n**Fixed JSON:**\n```json\n{\"name\": \"Alice\", \"age\": 31}\n```",
            json!({"name": "Alice", "age": 31}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// A value the sentence right after it takes back, with no value after
/// that sentence, is not the answer: the decode says the reply gave none in
/// its place (`{"a": 1}⏎Oops, my mistake.`). An apology (it may be for a
/// turn before), a question, a sentence that says more or has not ended,
/// or a value after it (a correction, judged as above) leave the value the
/// answer.
/// A later value introduced as the final one (`Final answer:`, `So the
/// final answer is:`, `Final JSON:`) is the answer in place of the one
/// before it, of its shape; `final` in a case, a question or prose that
/// introduces nothing changes nothing. A value given as the correction of
/// part of the one before (its keys a few of that one's) is no value in
/// its place: taking it would drop the rest.
#[test]
fn a_value_before_the_final_one_gives_way() {
    for (reply, want) in [
        (
            "{\"answer\": 41}\n\nFinal answer:\n{\"answer\": 42}",
            json!({"answer": 42}),
        ),
        (
            "{\"answer\": 41}\n\nLet me double-check: 6 * 7 = 42. So the final answer is:\n{\"answer\": 42}",
            json!({"answer": 42}),
        ),
        (
            "{\"a\": 1}\n\nFinal JSON:\n```json\n{\"a\": 2}\n```",
            json!({"a": 2}),
        ),
        (
            "**Final answer:** {\"answer\": 42}\n\nExplanation: the previous draft had {\"answer\": 41}.",
            json!({"answer": 42}),
        ),
        (
            "{\"a\": 1}\nIf you want a final answer, use: {\"a\": 2}",
            json!({"a": 1}),
        ),
        (
            "The final answer depends on you. {\"a\": 1} Use:\n{\"a\": 2}",
            json!({"a": 1}),
        ),
        ("{\"a\": 1}\n\nFinal answer:\n[2]", json!({"a": 1})),
        (
            "{\"name\": \"Ann\", \"city\": \"Pariss\"}\nOops, typo. Corrected: {\"name\": \"Ann\", \"city\": \"Paris\"}",
            json!({"name": "Ann", "city": "Paris"}),
        ),
        // Found by the review: a correction that keeps a member as it was
        // drops the others on purpose; a final answer after several
        // values, or after an agent's steps.
        (
            "{\"a\": 1, \"b\": 2, \"debug\": true}\n\nWait, the debug field should not be there. Corrected:\n{\"a\": 1, \"b\": 2}",
            json!({"a": 1, "b": 2}),
        ),
        (
            "{\"a\": 1, \"b\": 2}\n\nFinal answer:\n{\"b\": 2}",
            json!({"b": 2}),
        ),
        (
            "{\"v\": 1}\n{\"v\": 2}\n\nFinal answer:\n{\"v\": 3}",
            json!({"v": 3}),
        ),
        (
            "Thought: I need the weather.\nAction: weather_api\nAction Input: {\"city\": \"Paris\"}\nObservation: {\"temp\": 18}\nThought: I now know the final answer\nFinal Answer: {\"city\": \"Paris\", \"temp_c\": 18}",
            json!({"city": "Paris", "temp_c": 18}),
        ),
        (
            "{\"score\": 7}\n\nSo the final answer is {\"score\": 8}.",
            json!({"score": 8}),
        ),
        (
            "{\"a\": [1]}\n\nThe final list:\n{\"a\": [1, 2]}",
            json!({"a": [1, 2]}),
        ),
        // `final` in other senses, or quoted.
        (
            "{\"price\": 10}\n\nThe final price is {\"price\": 12}",
            json!({"price": 10}),
        ),
        (
            "{\"a\": 1} is not the final answer {\"a\": 2}",
            json!({"a": 1}),
        ),
        (
            "{\"id\": 7}\n\nFor reference, the final version of the schema we agreed on:\n{\"type\": \"object\"}",
            json!({"id": 7}),
        ),
        (
            "{\"id\": 7}\n\nThe final JSON schema you provided was:\n{\"type\": \"object\"}",
            json!({"id": 7}),
        ),
        (
            "{\"a\": [1, 2, 3]}\n\nThe final result of running your script was:\n{\"a\": [1, 2]}",
            json!({"a": [1, 2, 3]}),
        ),
        (
            "{\"grade\": \"B\"}\n\nWhat the student wrote as their final answer:\n{\"grade\": \"A\"}",
            json!({"grade": "B"}),
        ),
        (
            "{\"a\": 1}\n\n> Final answer: {\"a\": 2}\n\nThat is what the forum post claimed.",
            json!({"a": 1}),
        ),
        (
            "{\"status\": \"draft\"}\n\nTo publish, set it to final: {\"status\": \"final\"}",
            json!({"status": "draft"}),
        ),
        (
            "{\"winner\": \"Spain\"}\n\nScore in the final: {\"home\": 1, \"away\": 0}",
            json!({"winner": "Spain"}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

/// A value taken back, then a correction that gives only the members it
/// changes (each one it had, with another value): neither value is the one
/// the reply means (the first holds what it takes back, the patch alone
/// drops the rest), so a decode errs rather than give either, unless a
/// whole value follows. A correction that keeps a member as it was, or
/// renames or restructures them, is the whole value; after words that only
/// say something was left out, a value with more members is the whole
/// value, and one with no more is what was left out (the first stands).
#[test]
fn a_correction_of_some_members_is_no_whole_value() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Person {
        name: String,
        city: String,
    }
    for reply in [
        "{\"name\": \"Ann\", \"age\": 30, \"city\": \"Pariss\"}\nOops, typo. It should be:\n{\"city\": \"Paris\"}",
        "{\"name\": \"Ann\", \"city\": \"Pariss\"}\nWait, that is wrong. Here it is:\n{\"city\": \"Paris\"}",
        "{\"a\": 1, \"c\": 3}\nOops, wrong value. Here it is:\n{\"a\": 2}",
        "```json\n{\"name\": \"Ann\", \"city\": \"Pariss\"}\n```\nSorry, typo. Corrected:\n```json\n{ \"city\" : \"Paris\" }\n```",
    ] {
        let e = match from_llm_str::<Value>(reply) {
            Ok(v) => panic!("{reply:?} gave {v}"),
            Err(e) => e,
        };
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply:?}");
        assert!(e.to_string().contains("members it changes"), "{reply:?}: {e}");
        assert!(from_llm_str::<Person>(reply).is_err(), "{reply:?}");
        assert!(from_llm_str::<Vec<Value>>(reply).is_err(), "{reply:?}");
        assert!(serde_llm::repair(reply).is_err(), "{reply:?}");
    }
    assert_eq!(
        from_llm_str::<Value>("{\"name\": \"Ann\", \"city\": \"Pariss\"}\nOops, typo. It should be:\n{\"city\": \"Paris\"}")
            .unwrap_err()
            .to_string(),
        "no JSON value found: the reply takes back its value, then gives only the 1 of its 2 members it changes, no whole value in its place (looked for the whole value after the correction) (line 3, column 1)"
    );
    for (reply, want) in [
        // A whole value after the patch.
        (
            "{\"name\": \"Ann\", \"city\": \"Pariss\"}\nOops, typo. It should be:\n{\"city\": \"Paris\"}\nSo the full object is:\n{\"name\": \"Ann\", \"city\": \"Paris\"}",
            json!({"name": "Ann", "city": "Paris"}),
        ),
        // A member kept as it was (spaces aside): the others dropped on
        // purpose.
        (
            "{\"a\": {\"x\": 1}, \"debug\": true}\nWait, no debug field. Corrected:\n{\"a\": {\n  \"x\": 1\n}}",
            json!({"a": {"x": 1}}),
        ),
        // Renamed or restructured: whole.
        (
            "{\"nmae\": \"Ann\", \"age\": 30}\nOops, wrong key. Corrected: {\"name\": \"Ann\"}",
            json!({"name": "Ann"}),
        ),
        (
            "{\"function\": \"get_weather\", \"city\": \"Paris\"}\nOops, wrong format. Corrected:\n{\"get_weather\": {\"city\": \"Paris\"}}",
            json!({"get_weather": {"city": "Paris"}}),
        ),
        // Something left out: a fuller value is the whole one.
        (
            "Here you go:\n{\"a\": 1, \"b\": 2}\nOops, forgot one! Here it is:\n{\"a\": 1, \"b\": 2, \"c\": 3}",
            json!({"a": 1, "b": 2, "c": 3}),
        ),
        (
            "{\"a\": 1}\nI missed a field. Here it is:\n{\"a\": 1, \"b\": 2}",
            json!({"a": 1, "b": 2}),
        ),
        (
            "{\"a\": 1}\nOops, I omitted b. Here is the full JSON:\n{\"a\": 1, \"b\": 2}",
            json!({"a": 1, "b": 2}),
        ),
        // One with no more members is what was left out, or a value of
        // its own.
        (
            "{\"name\": \"Ann\", \"city\": \"Paris\"}\nOops, I forgot a field. Here it is:\n{\"age\": 30}",
            json!({"name": "Ann", "city": "Paris"}),
        ),
        (
            "{\"step\": 1, \"action\": \"search\"}\nOops, I missed a step. Here it is:\n{\"step\": 2, \"action\": \"open\"}",
            json!({"step": 1, "action": "search"}),
        ),
        (
            "Here is the record:\n{\"id\": 1, \"name\": \"Ann\"}\nOops, I forgot to attach the schema. Here it is:\n{\"type\": \"object\", \"required\": [\"id\"]}",
            json!({"id": 1, "name": "Ann"}),
        ),
        // With other words that take it back, the correction is whole.
        (
            "{\"high\": 86, \"low\": 68}\nMy mistake, I forgot to convert to Celsius. Corrected:\n{\"high\": 30, \"low\": 20}",
            json!({"high": 30, "low": 20}),
        ),
        // Words that add to the value, not to what it holds.
        (
            "{\"a\": 1}\nOh, I forgot to mention the other one. Here it is:\n{\"b\": 2}",
            json!({"a": 1}),
        ),
        (
            "{\"a\": 1}\nOops, I forgot to say: a is the count.",
            json!({"a": 1}),
        ),
        // A labelled pair: the user may have asked for the changes alone.
        (
            "Original:\n{\"name\": \"Jhon\", \"city\": \"Pariss\", \"zip\": \"75001\"}\nCorrected:\n{\"name\": \"John\", \"city\": \"Paris\"}",
            json!({"name": "John", "city": "Paris"}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
}

#[test]
fn a_value_taken_back_with_none_after_is_no_answer() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct A {
        a: u32,
    }
    for reply in [
        "{\"a\": 1}\nOops, my mistake.",
        "{\"a\": 1}\nWait, no, that is wrong.",
        "{\"a\": 1}\nWait, no, that is wrong. Let me recount.",
        "The answer is {\"a\": 1}. Oops.",
        "```json\n{\"a\": 1}\n```\nScratch that.\nI need to check the docs.",
        "<json>{\"a\": 1}</json>\nHmm, no.",
        "{\"a\": 1}\n\n**Oops, wrong number!**",
        "{'a': 1,}\nNever mind.",
        "{\"a\": 1}\nOops!",
        "{\"a\": 1}\n\nHmm, no.\n",
        "{\"a\": 1}\nOops, wrong key. It should say b.",
        "Return [] if none.\nResult: [\"x\"]\nWait, no, that is wrong.",
        "{\"a\": 1}\nHold on, that is wrong.",
        "{\"a\": 1}\nWait, that's not right.",
        "{\"a\": 1}\nHold on a second, that is not correct.",
    ] {
        let e = match from_llm_str::<Value>(reply) {
            Ok(v) => panic!("{reply:?} gave {v}"),
            Err(e) => e,
        };
        assert_eq!(e.kind(), ErrorKind::NoJson, "{reply:?}");
        assert!(
            e.to_string().contains("takes back its value"),
            "{reply:?}: {e}"
        );
        assert!(from_llm_str::<A>(reply).is_err(), "{reply:?}");
        assert!(from_llm_str::<Vec<Value>>(reply).is_err(), "{reply:?}");
        assert!(serde_llm::repair(reply).is_err(), "{reply:?}");
    }
    let e = from_llm_str::<Value>("{\"a\": 1}\nWait, no, that is wrong.").unwrap_err();
    assert_eq!(
        e.to_string(),
        "no JSON value found: the reply takes back its value (\"Wait, no, that is wrong\") and gives none in its place (looked for a value after those words) (line 2, column 1)"
    );
    for (reply, want) in [
        ("{\"a\": 1}\nSorry, my mistake.", json!({"a": 1})),
        ("{\"a\": 1}\nMy bad.", json!({"a": 1})),
        ("{\"a\": 1}\nSorry about that.", json!({"a": 1})),
        ("{\"a\": 1}\nWait, that is not wrong.", json!({"a": 1})),
        ("{\"a\": 1}\nWait, that's right.", json!({"a": 1})),
        // Found by the review: words that only exclaim, then words that
        // keep the value.
        (
            "{\"start\": \"09:00\"}\n\nOops! I almost forgot to mention that the times are in UTC.",
            json!({"start": "09:00"}),
        ),
        (
            "```json\n{\"total\": 42}\n```\n\nOops. I should mention the total includes tax.",
            json!({"total": 42}),
        ),
        ("{\"a\": 1}\n\nHmm, no. That is correct.", json!({"a": 1})),
        ("{\"a\": 1}\n\nWhoops, that's it!", json!({"a": 1})),
        (
            "{\"answer\": 7}\n\nOops, that's my answer.",
            json!({"answer": 7}),
        ),
        ("{\"passed\": false}\n\nOh no!", json!({"passed": false})),
        (
            "{\"count\": 12}\n\nHmm, no.\n\nActually, yes: 12 is right, I counted twice.",
            json!({"count": 12}),
        ),
        (
            "{\"a\": 1}\nWait, no\n\u{2014} that is fine, keep it.",
            json!({"a": 1}),
        ),
        // (The text's end ends no sentence: a reply cut there may go on.)
        ("{\"a\": 1}\nOops", json!({"a": 1})),
        ("{\"a\": 1}\nWait, no?", json!({"a": 1})),
        ("{\"a\": 1}\nHmm, no, that is it.", json!({"a": 1})),
        ("{\"a\": 1}\nWait, no mistakes.", json!({"a": 1})),
        (
            "{\"a\": 1}\nOops, I forgot to say: a is the count.",
            json!({"a": 1}),
        ),
        ("{\"a\": 1}\nNo mistakes.", json!({"a": 1})),
        ("{\"a\": 1}\nThat is wrong? No.", json!({"a": 1})),
        (
            "{\"a\": 1}\nOops, typo. Corrected: {\"a\": 2}",
            json!({"a": 2}),
        ),
        // A value after it is judged as before (an example stands aside).
        (
            "{\"a\": 1}\nOops, typo. Example: {\"a\": 2}",
            json!({"a": 1}),
        ),
        // The value the sentence follows is not the answer: the answer
        // stands.
        (
            "{\"a\": 1}\nAn example of a wrong one: [2]\nOops.",
            json!({"a": 1}),
        ),
    ] {
        assert_eq!(from_llm_str::<Value>(reply).unwrap(), want, "{reply:?}");
    }
    // The text may go on: a partial decode takes the value back only once
    // the sentence has ended, and a value after it may still replace it.
    let partial = |t: &str| serde_llm::from_llm_str_partial::<Value>(t).unwrap();
    assert_eq!(
        partial("{\"a\": 1}\nOops, my mistake"),
        Some(json!({"a": 1}))
    );
    assert_eq!(partial("{\"a\": 1}\nOops, my mistake."), None);
    assert_eq!(
        partial("{\"a\": 1}\nOops, my mistake. Corrected: {\"a\": 2, \"b\": [3"),
        Some(json!({"a": 2}))
    );
}

/// A value whose label names it no answer gives way to the next value of
/// its shape whose label names that one the answer in its place, as a
/// value taken back does: `Input:` then `Output:`, `Before:` then
/// `After:`, `Original:` or `Draft:` then `Updated:` or `Final:`,
/// `Example:` then `Here is the answer:`. The label is the words before the
/// value on its line, or the line before it that ends in a colon, is a
/// heading or is bold (past a fence's opening line and blank lines), and
/// it is a name and nothing else. A label that names both (`Example
/// output:`), or more than a name, or labels of no such pair leave the
/// first value the answer.
#[test]
fn a_value_labelled_no_answer_gives_way_to_the_answer() {
    for (reply, want) in [
        ("Input: {\"q\": \"2+2\"}\nOutput: {\"a\": 4}", json!({"a": 4})),
        (
            "Example:\n{\"name\": \"...\"}\n\nHere is the answer:\n{\"name\": \"Ada\"}",
            json!({"name": "Ada"}),
        ),
        ("Draft: {\"v\": 1}\nFinal: {\"v\": 2}", json!({"v": 2})),
        // A label of two words names the answer of each pair it is of; an
        // example of an output is an example; examples numbered, and
        // several before the answer.
        (
            "Draft: {\"v\": 1}\n\nFinal answer: {\"v\": 2}",
            json!({"v": 2}),
        ),
        (
            "Example input: {\"x\": 1}\nExample output: {\"y\": 2}\n\nAnswer: {\"y\": 5}",
            json!({"y": 5}),
        ),
        (
            "**Example input:**\n```json\n{\"t\": \"I love it\"}\n```\n**Example output:**\n```json\n{\"s\": \"positive\"}\n```\n\n**Answer:**\n```json\n{\"s\": \"negative\"}\n```",
            json!({"s": "negative"}),
        ),
        (
            "Example 1:\n{\"x\": 1}\nExample 2:\n{\"x\": 2}\nAnswer:\n{\"x\": 3}",
            json!({"x": 3}),
        ),
        (
            "Example output: {\"y\": 2}\nOutput: {\"y\": 5}",
            json!({"y": 5}),
        ),
        // An earlier form of the answer (found by the review).
        (
            "Old answer: {\"total\": 10}\nNew answer: {\"total\": 12}",
            json!({"total": 12}),
        ),
        (
            "Previous output: {\"v\": 1}\nExample output: {\"v\": 9}\nNew output: {\"v\": 2}",
            json!({"v": 2}),
        ),
        (
            "Before: {\"v\": 1}\nAfter: {\"v\": 2}\nDone.",
            json!({"v": 2}),
        ),
        ("Input: [1, 2]\nOutput: [3]", json!([3])),
        (
            "Original:\n```json\n{\"a\": 1}\n```\n\nUpdated:\n```json\n{\"a\": 1, \"b\": 2}\n```",
            json!({"a": 1, "b": 2}),
        ),
        // Markdown around the labels.
        (
            "**Input:**\n```json\n{\"q\": 1}\n```\n\n**Output:**\n```json\n{\"a\": 2}\n```",
            json!({"a": 2}),
        ),
        (
            "**Example**\n\n{\"a\": 1}\n\n**Answer**\n\n{\"a\": 2}",
            json!({"a": 2}),
        ),
        (
            "### Before\n```json\n{\"v\": 1}\n```\n### After\n```json\n{\"v\": 2}\n```",
            json!({"v": 2}),
        ),
        // The answer's value cut off: it is the value, cut.
        ("Input: {\"q\": 1}\nOutput: {\"a\": [1, 2", json!({"a": [1, 2]})),
        // Labels that name both, or that say how the answer is written.
        (
            "Example input: {\"x\": 1}\nExample output: {\"y\": 2}",
            json!({"x": 1}),
        ),
        (
            "Here is the data in JSON format: {\"a\": 1}. The result: {\"b\": 2}",
            json!({"a": 1}),
        ),
        (
            "Here is the answer: {\"a\": 1}\nExample: {\"a\": 2}",
            json!({"a": 1}),
        ),
        // A value before the label on its line is no part of it.
        ("{\"q\": 1} Output: {\"a\": 2}", json!({"q": 1})),
        // A line before the value that ends in no colon labels nothing.
        (
            "Input:\n{\"q\": 1}\nThat was the request.\n{\"a\": 2}",
            json!({"q": 1}),
        ),
        // Not of its shape.
        ("Input: {\"q\": 1}\nOutput: [2]", json!({"q": 1})),
        // Found by the review: a sentence is no label, nor is a case or a
        // likeness (the first value is the answer, the second explains).
        (
            "Here is the JSON following the schema:\n{\"items\": [1, 2, 3], \"total\": 3}\n\nThe expected output for an empty list would be:\n{\"items\": [], \"total\": 0}",
            json!({"items": [1, 2, 3], "total": 3}),
        ),
        (
            "Here is the data in the format you asked for:\n{\"name\": \"Ada\"}\n\nIf the person is not found, the response should be:\n{\"na",
            json!({"name": "Ada"}),
        ),
        (
            "I will call the search tool with this input:\n{\"query\": \"weather Paris\"}\n\nThe tool will return a result like:\n{\"temp\": 21}",
            json!({"query": "weather Paris"}),
        ),
        (
            "Following the required format:\n{\"answer\": \"Paris\"}\n\nResponse time: {\"ms\": 120}",
            json!({"answer": "Paris"}),
        ),
        (
            "With this input:\n{\"q\": 1}\n\nA successful response looks like:\n{\"ok\": true}",
            json!({"q": 1}),
        ),
        (
            "Given the input {\"x\": 1}, the output is {\"y\": 2}.",
            json!({"x": 1}),
        ),
        // Found by the second review: labels of no pair, or with more in
        // them, say nothing (a schema asked for, a tool call before its
        // result, a draft before the reply's status, a time).
        (
            "Schema:\n```json\n{\"type\": \"object\"}\n```\n\nResponse:\n```json\n{\"a\": 4}\n```",
            json!({"type": "object"}),
        ),
        (
            "Action: search\nAction Input: {\"query\": \"x\"}\nTool output: {\"temp\": 21}",
            json!({"query": "x"}),
        ),
        (
            "Before noon: {\"slots\": [2]}\nAfter noon: {\"slots\": [3]}",
            json!({"slots": [2]}),
        ),
        (
            "Before:\n{\"a\": 1, \"b\": 2}\n\nAfter (diff):\n{\"b\": 5}",
            json!({"a": 1, "b": 2}),
        ),
    ] {
        assert_eq!(value(reply), want, "{reply:?}");
    }
    // The answer does not fit the target: the value before it stands.
    #[derive(Debug, Deserialize, PartialEq)]
    struct A {
        a: u32,
    }
    let reply = "Example: {\"a\": 1}\nAnswer: {\"b\": 2}";
    assert_eq!(from_llm_str::<A>(reply).unwrap(), A { a: 1 });
    // Never gathered with the answer.
    let reply = "Input: {\"a\": 1}\nOutput: {\"a\": 2}";
    assert_eq!(from_llm_str::<Vec<A>>(reply).unwrap(), [A { a: 2 }]);
}

/// Python's string prefixes (`u'Ada'`, `b'abc'`, `f"x"`) are no part of
/// the string: `{"a": u"text"}` lost "text", and `u'Ada'` kept its prefix
/// and quotes. A raw string (`r"C:\new"`, `rb'…'`) holds its backslashes as
/// written (read as escapes, `\n` would be a line break; it gave `"r"`). A
/// word that is no prefix stays a word.
#[test]
fn python_string_prefixes() {
    assert_eq!(value("{\"a\": u\"text\"}"), json!({"a": "text"}));
    // Cut off inside the string: the string, cut (it gave `{"a": "u"}`).
    let (v, report) = decode::<Value>("{\"a\": 1, \"b\": u\"te");
    assert_eq!(v, json!({"a": 1, "b": "te"}));
    assert!(report.truncated);
    assert_eq!(value("{\"a\": u\"hello, wor"), json!({"a": "hello, wor"}));
    // A letter with a stray quote, no string (found by the review).
    assert_eq!(value("{\"answer\": b\""), json!({"answer": "b"}));
    assert_eq!(
        value("{\"grades\": [A\", B\""),
        json!({"grades": ["A", "B"]})
    );
    assert_eq!(value("{u'k': u'v"), json!({"k": "v"}));
    assert_eq!(
        value("{u'name': u'Ada', u'age': 3}"),
        json!({"name": "Ada", "age": 3})
    );
    assert_eq!(
        value("[u'a', U\"b\", b'c', f\"d\"]"),
        json!(["a", "b", "c", "d"])
    );
    assert_eq!(
        value("{'data': b'abc', 'n': 1}"),
        json!({"data": "abc", "n": 1})
    );
    assert_eq!(
        value("{\"path\": r\"C:\\new\\table\"}"),
        json!({"path": "C:\\new\\table"})
    );
    assert_eq!(
        value("{'re': r'\\bcat\\b', 'raw': Rb'\\x00', 'n': 1}"),
        json!({"re": "\\bcat\\b", "raw": "\\x00", "n": 1})
    );
    assert_eq!(value("[up, \"x\"]"), json!(["up", "x"]));
    assert_eq!(value(r#"["a" b", "c"]"#), json!(["a", "b", "c"]));
    // A set's numbers stay numbers (`{1, 2}` gave `["1", 2]`), and an empty
    // collection's constructor is that collection (`set()` gave null).
    assert_eq!(value("{'s': {1, 2}}"), json!({"s": [1, 2]}));
    assert_eq!(value("{-1.5, 'a'}"), json!([-1.5, "a"]));
    // And its literals literals (`{True, False}` gave `["True", false]`).
    assert_eq!(value("{True, False}"), json!([true, false]));
    assert_eq!(
        value("{'s': {None, 1, true}}"),
        json!({"s": [null, 1, true]})
    );
    assert_eq!(value("{Truth, False}"), json!(["Truth", false]));
    assert_eq!(
        value("{'a': {True}, 'b': {None}}"),
        json!({"a": [true], "b": [null]})
    );
    assert_eq!(value("[{false}, {NaN}]"), json!([[false], [null]]));
    assert_eq!(value("{True}"), json!([true]));
    assert_eq!(value("{'a': {Truth}}"), json!({"a": {}}));
    assert_eq!(
        value("{'s': set(), 'l': list(), 't': tuple( ), 'n': 1}"),
        json!({"s": [], "l": [], "t": [], "n": 1})
    );
    // A set of one string as Python writes it, inside a container, is a
    // list of it (`{'tags': {'python'}}` gave `{"tags": {}}`, the string
    // dropped as a key with no value). Double-quoted, or the whole reply,
    // it stays a key with no value (json_repair's `{"dangling"}`).
    assert_eq!(
        value("{'tags': {'python'}, 'n': 1}"),
        json!({"tags": ["python"], "n": 1})
    );
    assert_eq!(value("[{'a'}, {'b', 'c'}]"), json!([["a"], ["b", "c"]]));
    assert_eq!(value("{\"dangling\"}"), json!({}));
    assert_eq!(value("{\"x\": {\"dangling\"}}"), json!({"x": {}}));
}

/// A fence closed while its value is cut off (found by a sweep of
/// dirty-json's and best-effort-json-parser's suites and replies written as
/// models write them): the bare marker on its own line is the fence's
/// closer, not a code block opening as the member's value, so the words
/// after it are no value (`"w":⏎```⏎Done.` gave `"w": "Done."`); one or two
/// backticks alone on the last line of a cut reply are that closer being
/// written, not a string (`[1, 2, 3⏎``` gave `[1, 2, 3, ""]`).
#[test]
fn a_fence_closed_on_a_cut_value_ends_it() {
    for (reply, want) in [
        ("```json\n{\"v\": 1, \"w\":\n```\nDone.", json!({"v": 1})),
        (
            "Text:\n```json\n{\"a\": {\"w\":\n```\n\nExplanation: foo",
            json!({"a": {}}),
        ),
        ("```json\n[1, 2, 3\n``", json!([1, 2, 3])),
        ("```json\n[1, 2, 3\n`", json!([1, 2, 3])),
        ("Here:\n```json\n{\"a\": [1,\n  ``", json!({"a": [1]})),
    ] {
        let (v, report) = decode::<Value>(reply);
        assert_eq!((v, report.truncated), (want, true), "{reply:?}");
    }
    // The same reply again, whole: the second fence is the value.
    let reply = "```json\n{\"v\": 1, \"w\":\n```\nThat got cut off, here it is again:\n```json\n{\"v\": 1, \"w\": 2}\n```";
    assert_eq!(value(reply), json!({"v": 1, "w": 2}));
    // A code block as a member's value still reads as one, closed.
    for reply in [
        "```json\n{\"code\":\n```\nprint(1)\n```\n}\n```",
        "```json\n{\"code\": ```python\nprint(1)\n```}\n```",
        "{\"code\": ```\nprint(1)\n```}",
        "```json\n{\"code\":\n```\nprint(1)\n```",
    ] {
        assert_eq!(value(reply), json!({"code": "print(1)"}), "{reply:?}");
    }
}

/// Found in LangChain's suite (`tests/fixtures/langchain/`): a string that
/// quotes JSON with its quotes not escaped holds all its members
/// (`"action_input": "{"foo": "bar", "bar": "foo"}"` invented the key
/// `bar`); a reply in inline code (`` `{"a": 1}` ``, `` `json⏎{…}⏎` ``) is
/// the value inside it, and its first backticks alone are no string; a
/// capital letter cut off at the start (`T` of `Thought:`) is no literal
/// yet. Inside a value, a cut `T` is still `True`'s.
#[test]
fn quoted_json_inline_code_and_a_sentence_starting() {
    assert_eq!(
        value("{\"a\": \"x\", \"b\": \"{\"c\": \"d\", \"e\": \"f\"}\", \"g\": 1}"),
        json!({"a": "x", "b": "{\"c\": \"d\", \"e\": \"f\"}", "g": 1})
    );
    assert_eq!(
        value("{\"a\": \"[1, \"b\", 2]\", \"c\": 3}"),
        json!({"a": "[1, \"b\", 2]", "c": 3})
    );
    // Not when the bracket it opens with does not close before a quote.
    assert_eq!(
        value("{\"q\": \"{\"x\": 1\", \"r\": 2}"),
        json!({"q": "{\"x\": 1\"", "r": 2})
    );
    assert_eq!(value("`{\"a\": 1}`"), json!({"a": 1}));
    assert_eq!(value("`json\n{\"a\": [1]}\n`"), json!({"a": [1]}));
    assert_eq!(value("`hello`"), json!("hello"));
    for cut in ["`", "``", "`json", "T", "N", "No\n", "F", "Tr", "I"] {
        assert_eq!(
            from_llm_str::<Value>(cut).unwrap_err().kind(),
            ErrorKind::NoJson,
            "{cut:?}"
        );
        assert_eq!(serde_llm::from_llm_str_partial::<Value>(cut).unwrap(), None);
    }
    assert_eq!(value("True"), json!(true));
    assert_eq!(value("tr"), json!(true));
    assert_eq!(value("{\"a\": T"), json!({"a": true}));
    assert_eq!(value("[N"), json!([null]));
}
