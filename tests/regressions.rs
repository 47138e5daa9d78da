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
