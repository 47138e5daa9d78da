//! Inputs found by fuzzing (`fuzz/`), kept with the exact answer they must
//! give now.

/// `repair` must always return valid JSON; each input once produced a key
/// with no value (`{"done":}`).
#[test]
fn implicit_object_closed_before_its_value() {
    let cases = [
        (r#"["t", "done":]"#, r#"["t",{"done":null}]"#),
        (r#"{"t", "done":] false}"#, r#"["t",{"done":null}]"#),
        (r#"["key": }"#, r#"[{"key":null}]"#),
        (r#"{"done": fals(}"#, r#"{"done":null}"#),
    ];
    for (input, expected) in cases {
        let out = serde_llm::repair(input).unwrap();
        serde_json::from_str::<serde_json::Value>(&out).expect("valid JSON");
        assert_eq!(out, expected, "{input:?}");
    }
}

/// A wrapper call with nothing in it is no value at all.
#[test]
fn empty_wrapper_is_no_value() {
    for input in ["tE(", "callback(", "f( /* nothing */", "t()"] {
        let err = serde_llm::repair(input).unwrap_err();
        assert_eq!(err.kind(), serde_llm::ErrorKind::NoJson, "{input:?}");
    }
}

/// After an empty wrapper the root value is still to come.
#[test]
fn value_after_an_empty_wrapper() {
    assert_eq!(serde_llm::repair("t() {\"a\": 1}").unwrap(), r#"{"a":1}"#);
}

// Found by review.

/// A fenced reply whose JSON string holds a ``` block: the fence candidate is
/// cut at the inner fence, so the whole object (a balanced span) wins.
#[test]
fn fence_inside_a_json_string() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Answer {
        answer: String,
        confidence: Option<f64>,
    }
    let reply = "Sure, here is the answer:\n```json\n{\"answer\": \"Run this:\n```bash\nls -la\n```\nThen check.\", \"confidence\": 0.9}\n```\n";
    let a: Answer = serde_llm::from_llm_str(reply).unwrap();
    assert_eq!(a.answer, "Run this:\n```bash\nls -la\n```\nThen check.");
    assert_eq!(a.confidence, Some(0.9));
    let fixed = serde_llm::repair(reply).unwrap();
    assert!(fixed.ends_with(r#""confidence":0.9}"#), "{fixed}");
}

/// Gathering a sequence never drops an element silently: objects in prose
/// that are no element are left out and reported; in JSON lines (objects
/// and nothing else), every object is a value the model wrote, and one
/// that is no element is an error, as it is in `[...]`.
#[test]
fn gathered_elements_left_out_are_reported() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct S {
        id: u32,
    }
    let (v, report) = serde_llm::Decoder::new()
        .decode_with_report::<Vec<S>>("One: {\"id\": 1}\nTwo: {\"id\": \"x\"}\nThree: {\"id\": 3}")
        .unwrap();
    assert_eq!(v, [S { id: 1 }, S { id: 3 }]);
    assert!(!report.is_clean());
    assert_eq!(report.repairs.len(), 1);
    assert_eq!(report.repairs[0].kind, serde_llm::RepairKind::Skipped);
    assert_eq!(report.repairs[0].offset, 20);
    for lines in [
        "{\"id\": 1}\n{\"id\": \"x\"}\n{\"id\": 3}",
        "{\"id\": 1}, {\"id\": \"x\"}, {\"id\": 3}",
        // A fence per value, nothing but the markers between them.
        "```json\n{\"id\": 1}\n```\n\n```json\n{\"id\": \"x\"}\n```\n```\n{\"id\": 3}\n```",
        "Here:\n```json\n{\"id\": 1}\n```\n```json\n{\"id\": 1.5}\n```\n```json\n{\"id\": 3}\n```\nDone.",
    ] {
        let err = serde_llm::from_llm_str::<Vec<S>>(lines).unwrap_err();
        assert_eq!(err.kind(), serde_llm::ErrorKind::Data, "{lines:?}");
        assert_eq!(err.path(), "$[1].id", "{lines:?}");
    }
    // Fences with prose between them may hold an example: left out, reported.
    let (v, report) = serde_llm::Decoder::new()
        .decode_with_report::<Vec<S>>(
            "For example:\n```json\n{\"id\": \"<number>\"}\n```\nThe items:\n```json\n{\"id\": 1}\n```\n```json\n{\"id\": 3}\n```",
        )
        .unwrap();
    assert_eq!(v, [S { id: 1 }, S { id: 3 }]);
    assert_eq!(report.repairs[0].kind, serde_llm::RepairKind::Skipped);
    // An empty object or a placeholder carries nothing: left out, reported.
    let (v, report) = serde_llm::Decoder::new()
        .decode_with_report::<Vec<S>>("{\"id\": 1}\n{}\n{\"id\": 3}")
        .unwrap();
    assert_eq!(v, [S { id: 1 }, S { id: 3 }]);
    assert_eq!(report.repairs[0].kind, serde_llm::RepairKind::Skipped);
}

/// One object for a list target, cut off, is read as it will be once
/// complete, not left out as a cut element (that read nothing: `Ok([])`).
#[test]
fn a_cut_object_for_a_list_is_not_read_as_nothing() {
    let decode = |text: &str| serde_llm::Decoder::new().decode_with_report::<Vec<u32>>(text);
    // A wrapped list, its closing brace (or more) cut off: its list.
    for (text, want) in [
        ("{\"items\": [1, 2, 3]", vec![1, 2, 3]),
        ("{\"items\": [1, 2, 3", vec![1, 2]),
        ("{\"items\": [1, 2, 3]}", vec![1, 2, 3]),
    ] {
        let (v, report) = decode(text).unwrap();
        assert_eq!(v, want, "{text:?}");
        assert_eq!(report.truncated, !text.ends_with('}'), "{text:?}");
    }
    // Its closing brace missing before its fence closes: its list (a
    // gathered read of the fence left it out as cut: nothing).
    for text in [
        "```json\n{\"items\": [1, 2, 3]\n```",
        "Here:\n```json\n{\"items\": [1, 2, 3]\n```\nDone.",
    ] {
        assert_eq!(decode(text).unwrap().0, [1, 2, 3], "{text:?}");
    }
    // No list however it goes on: the error it is once complete.
    for text in ["{\"a\": 3", "{\"a\": \"x\"", "{\"items\": [1, 2], \"n\": 2"] {
        let err = decode(text).unwrap_err();
        assert_eq!(err.kind(), serde_llm::ErrorKind::Data, "{text:?}");
        assert!(
            err.message()
                .starts_with("invalid type: expected a list, got an object with keys"),
            "{text:?}: {err}"
        );
        let whole = serde_llm::from_llm_str::<Vec<u32>>(&format!("{text}}}")).unwrap_err();
        assert_eq!(whole.kind(), serde_llm::ErrorKind::Data, "{text:?}");
    }
    // Still either: nothing yet.
    for text in ["{", "{\"", "{\"a\":", "{\"a\": ["] {
        assert_eq!(decode(text).unwrap().0, Vec::<u32>::new(), "{text:?}");
    }
}

/// JSON inside a reasoning block later in the reply is not a candidate.
#[test]
fn reasoning_block_after_the_start() {
    let v: serde_json::Value =
        serde_llm::from_llm_str("Okay.\n<think>\nMaybe {\"a\": 1}?\n</think>\n{\"a\": 2}").unwrap();
    assert_eq!(v, serde_json::json!({"a": 2}));
}

/// A trailing comma is recorded only where a comma stands.
#[test]
fn no_invented_trailing_comma() {
    let kinds = |text: &str| -> Vec<(serde_llm::RepairKind, usize)> {
        let (_, r) = serde_llm::Decoder::new().repair_with_report(text).unwrap();
        r.repairs.iter().map(|r| (r.kind, r.offset)).collect()
    };
    use serde_llm::RepairKind::*;
    assert!(!kinds("[:").iter().any(|(k, _)| *k == TrailingComma));
    assert!(!kinds(r#"{"x": [1,2], "y": [""#)
        .iter()
        .any(|(k, _)| *k == TrailingComma));
    assert!(kinds("[1, 2, ]").contains(&(TrailingComma, 5)));
    assert!(kinds("[1, 2, /* c */ ...]").contains(&(TrailingComma, 5)));
}

/// `„` opens a string like `“`.
#[test]
fn low_double_quote() {
    assert_eq!(serde_llm::repair("{„a“: 1}").unwrap(), r#"{"a":1}"#);
}

/// Out-of-range numbers: repair() and the untyped decode agree.
#[test]
fn number_beyond_f64() {
    let text = r#"Values: {"big": 1e999} or {"small": 1}"#;
    let value: serde_json::Value = serde_llm::from_llm_str(text).unwrap();
    assert_eq!(value, serde_json::json!({"small": 1}));
    assert_eq!(serde_llm::repair(text).unwrap(), r#"{"small":1}"#);
}

/// The depth limit is capped, so even a huge setting cannot overflow the
/// stack.
#[test]
fn huge_depth_limit_is_capped() {
    let deep = "[".repeat(100_000);
    let err = serde_llm::Decoder::new()
        .max_depth(usize::MAX)
        .decode::<serde_json::Value>(&deep)
        .unwrap_err();
    assert_eq!(err.kind(), serde_llm::ErrorKind::Depth);
    assert_eq!(err.message(), "nesting deeper than 256 levels");
}

/// Inputs that made look-aheads quadratic (seconds at these sizes); they
/// must finish, with these results.
#[test]
fn look_aheads_stay_linear() {
    let n = 100_000;
    let closers = format!("{{\"a\": \"{}\"x }}", "}".repeat(n));
    assert!(serde_llm::repair(&closers).is_ok());
    let hashes = format!("{{\"a\": \"{}}}", ", # ".repeat(n / 4));
    assert!(serde_llm::repair(&hashes).is_ok());
    let blocks = format!("{{\"a\": \"{}}}", ", /*".repeat(n / 4));
    assert!(serde_llm::repair(&blocks).is_ok());
    let ends = format!("{{\"a\": \"{}\"}}", "*/\"x".repeat(n / 4));
    assert!(serde_llm::repair(&ends).is_ok());
    let bare = format!("{{{}[\"]}}", "a: x, ".repeat(n / 4));
    let v: serde_json::Value = serde_llm::from_llm_str(&bare).unwrap();
    assert_eq!(v["a"], "x");
}

/// Found by `fuzz/decode`: a doubled pair of curly-and-straight quotes
/// (`’` then `'`) stepped past the end of the text (a panic).
#[test]
fn doubled_quotes_of_two_lengths_stay_in_the_text() {
    let text = "``{``Q\u{2019}'";
    assert!(serde_llm::repair(text).is_ok());
    let _ = serde_llm::from_llm_str::<serde_json::Value>(text);
    let _ = serde_llm::from_llm_str::<Vec<String>>(text);
}

/// Found by `fuzz/repair`: a full-width comma inside parentheses made a
/// wrapper hold two values, and `repair()` wrote invalid JSON.
#[test]
fn a_full_width_comma_in_parentheses_makes_a_tuple() {
    assert_eq!(
        serde_llm::repair("{v(a\u{ff0c}b)}").unwrap(),
        r#"{"v":["a","b"]}"#
    );
    let json = serde_llm::repair("{v(\u{fffd}\u{ff0c}\u{fffd}\"\"").unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "{json}"
    );
}

/// A string whose closing quote is judged missing after a first scan ran
/// into the end of the text (`'s'tags \`: the quote after `s` is taken for
/// an apostrophe, the scan meets a cut escape, and the string ends after
/// `s` after all) is not cut: what the first scan met there is no longer
/// in it. Read as cut, its repairs were forgiven as the cut's, and the
/// reading beat a value found later in the text only while the text ended
/// in a backslash: a partial decode flipped to the word and back.
#[test]
fn a_string_ended_before_a_cut_escape_is_not_cut() {
    let decoder = serde_llm::Decoder::new().allow_partial(serde_llm::Allow::ALL);
    for text in ["'s'tags \\", "'s'tags \\u26", "'s'tags \\ud83d"] {
        let (v, report) = decoder
            .decode_with_report::<serde_json::Value>(text)
            .unwrap();
        assert_eq!(v, "s", "{text:?}");
        assert!(!report.truncated, "{text:?}");
    }
    // The object after it is the reading, with or without the backslash.
    let object = serde_json::json!({"id": 3, "note": "a "});
    for text in [
        "'s'tags: [a]{\"id\": 3, \"note\": \"a ",
        "'s'tags: [a]{\"id\": 3, \"note\": \"a \\",
        "// c\n's'tags {\"id\": 3, \"note\": \"a \\",
    ] {
        let v = decoder.decode::<serde_json::Value>(text).unwrap();
        assert_eq!(v["id"], object["id"], "{text:?}");
        assert_eq!(v["note"].as_str().map(str::trim_end), Some("a"), "{text:?}");
    }
}

/// Values side by side that cannot be read together (`{"a": 1} {"b": 2},`
/// then prose or a fence) are no reading of the whole reply: the first of
/// them alone does not cover it, so a fence after them is weighed as
/// always. It took the first object (the rest left out as text after it)
/// while a read of the values together failed, and the fence while it held
/// (`{"id": 2}{"id": 1},` then `` ```[1 ``), so a partial decode flipped
/// as the fence's list grew.
#[test]
fn values_not_read_together_do_not_cover_the_reply() {
    let decoder = serde_llm::Decoder::new();
    let text = "{\"a\": 1} {\"b\": 2},\n```json\n[1, 2]\n```";
    let (v, report) = decoder
        .decode_with_report::<serde_json::Value>(text)
        .unwrap();
    assert_eq!(v, serde_json::json!([1, 2]));
    assert_eq!(report.strategy, serde_llm::Strategy::Fence);
    for (text, want) in [
        ("{\"id\": 2}{\"id\": 1},\n```[1", serde_json::json!([])),
        ("{\"id\": 2}{\"id\": 1},\n```[1,", serde_json::json!([1])),
        ("{\"id\": 2}{\"id\": 1},\n```[1, 2", serde_json::json!([1])),
    ] {
        let v = decoder.decode_partial::<serde_json::Value>(text).unwrap();
        assert_eq!(v, Some(want), "{text:?}");
    }
}
