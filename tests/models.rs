//! What models write that the scanner must read as they meant it: numbers in
//! digit groups, strings cut off at the end, control bytes between tokens,
//! code blocks as values, unquoted values across commas, full-width
//! punctuation. An `Ok` is the value the model meant; where that is unclear,
//! an error.

use serde_json::{json, Value};
use serde_llm::{Decoder, RepairKind};

/// `repair(input)` parsed as a value.
fn repaired(input: &str) -> Value {
    let out = serde_llm::repair(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{input:?} gave {out:?}: {e}"))
}

/// The kinds of the repairs made for `input`.
fn repairs(input: &str) -> Vec<RepairKind> {
    let (_, report) = Decoder::new()
        .repair_with_report(input)
        .unwrap_or_else(|e| panic!("{input:?}: {e}"));
    report.repairs.iter().map(|r| r.kind).collect()
}

// ----- digit groups ----------------------------------------------------------

#[test]
fn digit_groups_in_an_object_value_are_one_number() {
    let cases = [
        (
            r#"{"total": 4,250, "currency": "EUR"}"#,
            json!({"total": 4250, "currency": "EUR"}),
        ),
        (r#"{"total": 4,250}"#, json!({"total": 4250})),
        (r#"{"n": 1,234,567.89}"#, json!({"n": 1234567.89})),
        (
            r#"{"n": -2,000.00, "ok": true}"#,
            json!({"n": -2000.0, "ok": true}),
        ),
        (r#"{"n": 12,345,678,}"#, json!({"n": 12345678})),
        ("{\"n\": 1,000\n, \"m\": 2}", json!({"n": 1000, "m": 2})),
        (r#"{n: 7,500, unit: kg}"#, json!({"n": 7500, "unit": "kg"})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(repairs(input).contains(&RepairKind::DigitGroups), "{input}");
    }
}

#[test]
fn digit_groups_decode_into_typed_fields() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Invoice {
        total: u64,
        tax: f64,
        currency: String,
    }
    let v: Invoice =
        serde_llm::from_llm_str(r#"{"total": 4,250, "tax": 1,062.50, "currency": "EUR"}"#).unwrap();
    assert_eq!(
        v,
        Invoice {
            total: 4250,
            tax: 1062.5,
            currency: "EUR".into()
        }
    );
}

#[test]
fn inside_an_array_json_stands() {
    assert_eq!(repaired("[4,250]"), json!([4, 250]));
    assert_eq!(repaired("[1,234,567]"), json!([1, 234, 567]));
    assert_eq!(repaired(r#"{"a": [4,250]}"#), json!({"a": [4, 250]}));
    assert_eq!(repaired(r#"{"a":1,"b":2}"#), json!({"a": 1, "b": 2}));
}

#[test]
fn digits_that_are_a_key_stay_a_key() {
    assert_eq!(repaired("{a: 1,2: 3}"), json!({"a": 1, "2": 3}));
    assert_eq!(repaired("{a: 4,250: 3}"), json!({"a": 4, "250": 3}));
}

/// Never a shortened number: digits after the comma that are neither a key
/// nor groups of three make the number unclear.
#[test]
fn unclear_digits_after_a_comma_are_an_error() {
    for input in [
        r#"{"price": 4,25}"#,
        r#"{"price": 4,2500, "b": 1}"#,
        r#"{"price": 12345,678}"#,
        r#"{"price": 0,250}"#,
        r#"{"price": 4,250,12}"#,
        r#"{"price": 4,250 "b": 1}"#,
    ] {
        assert!(serde_llm::repair(input).is_err(), "{input}");
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Price {
            price: f64,
        }
        assert!(serde_llm::from_llm_str::<Price>(input).is_err(), "{input}");
    }
}

#[test]
fn digit_groups_cut_off_at_the_end() {
    assert_eq!(repaired(r#"{"n": 4,250"#), json!({"n": 4250}));
    assert_eq!(repaired(r#"{"n": 1,234."#), json!({"n": 1234}));
    assert_eq!(repaired(r#"{"n": 1,234.5"#), json!({"n": 1234.5}));
}
