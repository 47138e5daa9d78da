//! What models write that the scanner must read as they meant it: numbers in
//! digit groups, strings cut off at the end, control bytes between tokens,
//! code blocks as values, unquoted values across commas, full-width
//! punctuation. An `Ok` is the value the model meant; where that is unclear,
//! an error.

mod common;

use common::consistent;
use proptest::prelude::*;
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
        ("{\"n\": 4,250\n\"m\": 1}", json!({"n": 4250, "m": 1})),
        (r#"{"n": 4,250 "m": 1}"#, json!({"n": 4250, "m": 1})),
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
/// nor groups of three make the number unclear. The token is text as
/// written (as `1/3` is), so a typed number wanted is an error.
#[test]
fn unclear_digits_after_a_comma_are_text() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Price {
        price: f64,
    }
    let cases = [
        (r#"{"price": 4,25}"#, json!({"price": "4,25"})),
        (
            r#"{"price": 4,2500, "b": 1}"#,
            json!({"price": "4,2500", "b": 1}),
        ),
        (r#"{"price": 12345,678}"#, json!({"price": "12345,678"})),
        (r#"{"price": 0,250}"#, json!({"price": "0,250"})),
        (r#"{"price": 4,250,12}"#, json!({"price": "4,250,12"})),
        (r#"{"price": 4.250,00}"#, json!({"price": "4.250,00"})),
        (
            r#"{"price": 1.5,25, "b": 1}"#,
            json!({"price": "1.5,25", "b": 1}),
        ),
        (r#"{"price": 1e3,250}"#, json!({"price": "1e3,250"})),
        (r#"{"price": 4,250 USD}"#, json!({"price": "4,250 USD"})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(
            repairs(input).contains(&RepairKind::NumberAsString),
            "{input}"
        );
        assert!(serde_llm::from_llm_str::<Price>(input).is_err(), "{input}");
    }
}

#[test]
fn digit_groups_cut_off_at_the_end() {
    assert_eq!(repaired(r#"{"n": 4,250"#), json!({"n": 4250}));
    assert_eq!(repaired(r#"{"n": 1,234."#), json!({"n": 1234}));
    assert_eq!(repaired(r#"{"n": 1,234.5"#), json!({"n": 1234.5}));
}

// ----- strings cut off at the end ---------------------------------------------

#[test]
fn a_string_cut_off_keeps_every_character() {
    let cases = [
        (
            r#"{"code": "if (x) { return 1; }"#,
            json!({"code": "if (x) { return 1; }"}),
        ),
        (
            r#"{"id":1,"tags":["a,[x]"#,
            json!({"id": 1, "tags": ["a,[x]"]}),
        ),
        (r#"["hello, world]"#, json!(["hello, world"])),
        (r#"{"a": "first, b: 1}"#, json!({"a": "first, b: 1"})),
        (r#"[["][,"#, json!([["][,"]])),
        // The `]` closes the inner list but not the outer: the reply is cut
        // off all the same, inside the string as far as anyone can tell.
        (r#"[["++]"#, json!([["++]"]])),
        (
            r#"{"calls": [{"lang": "}"#,
            json!({"calls": [{"lang": "}"}]}),
        ),
        (
            "{\"code\": \"fn main() {\n    run();\n}\n",
            json!({"code": "fn main() {\n    run();\n}"}),
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
    }
}

/// A closer that closes the string's container, with only closers after it,
/// ends the string: what is left is still a start of the string.
#[test]
fn a_cut_string_may_end_at_its_containers_closer() {
    assert_eq!(repaired(r#"{"a": "b}"#), json!({"a": "b"}));
    assert_eq!(repaired(r#"[["++]]"#), json!([["++"]]));
    assert_eq!(repaired(r#"{"key": ["value]}"#), json!({"key": ["value"]}));
    assert_eq!(repaired("[\"abc  ]\n"), json!(["abc"]));
}

/// A key cut off is dropped, never split into an invented member.
#[test]
fn a_cut_key_is_dropped() {
    assert_eq!(repaired(r#"{"key:value}"#), json!({}));
    assert_eq!(repaired(r#"{"a": 1, "b,c"#), json!({"a": 1}));
}

// ----- any prefix of valid JSON ------------------------------------------------

/// Characters that make string ends hard to judge: delimiters, quotes,
/// escapes, comment starts, and non-ASCII text. (Not a ``` run: extraction
/// takes it for a fence around the reply, which is extraction's to fix.)
fn tricky_string() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        ",", "[", "]", "{", "}", "\"", "\\", ":", " ", "\n", "\t", "'", "`", "/", "*", "#", "+",
        "é", "日本", "😀", "\u{0}", "a", "b", "x y", "1", "true", "\": \"", "\", \"", "\u{FF0C}",
        "\u{FF1A}", "\u{A0}",
    ]);
    prop::collection::vec(piece, 0..8).prop_map(|v| {
        let mut s = v.concat();
        while s.contains("```") {
            s = s.replace("```", "``");
        }
        s
    })
}

/// A JSON value with tricky strings and keys in sorted order (so that a
/// parsed `Value`'s member order is the text's).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
        tricky_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(tricky_string(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A reply's value: an object or an array of values.
fn document() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::collection::vec(json_value(), 1..6).prop_map(Value::Array),
        prop::collection::btree_map(tricky_string(), json_value(), 1..6)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
    ]
}

/// Reads every char-boundary prefix of `text` (the text of `whole`) and
/// checks it against `whole`.
fn check_prefixes(text: &str, whole: &Value) -> Result<(), TestCaseError> {
    for (cut, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
        let prefix = &text[..cut];
        let out = serde_llm::repair(prefix)
            .map_err(|e| TestCaseError::fail(format!("{prefix:?}: {e}")))?;
        let part: Value = serde_json::from_str(&out).expect("repair gives JSON");
        prop_assert!(
            consistent(&part, whole),
            "prefix {prefix:?}\n gave {out}\n of   {text}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_prefix_of_a_document_is_consistent(v in document()) {
        // The value as serde_json reads the text (its float parsing may be
        // one ulp off the value written).
        let compact = serde_json::to_string(&v).unwrap();
        let whole: Value = serde_json::from_str(&compact).unwrap();
        prop_assert_eq!(&repaired(&compact), &whole);
        check_prefixes(&compact, &whole)?;
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        check_prefixes(&pretty, &whole)?;
    }
}

// ----- control bytes between tokens ------------------------------------------

#[test]
fn control_bytes_between_tokens_are_dropped() {
    let cases = [
        ("{\"a\":\u{0}\"x\"}", json!({"a": "x"})),
        (
            "{\"a\": 1\u{0}, \"b\":\u{1} true\u{0}}",
            json!({"a": 1, "b": true}),
        ),
        ("[\u{0} 1,\u{1f} 2 ]\u{0}", json!([1, 2])),
        ("\u{0}{\"a\"\u{0}:\u{7}[\u{0}]}", json!({"a": []})),
        ("{a\u{0}: b\u{0}}", json!({"a": "b"})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input:?}");
        assert!(
            repairs(input).contains(&RepairKind::SpecialWhitespace),
            "{input:?}"
        );
    }
}

/// Inside a string, a control character is content (escaped on output).
#[test]
fn control_bytes_inside_strings_are_kept() {
    assert_eq!(repaired("{\"a\": \"x\u{0}y\"}"), json!({"a": "x\u{0}y"}));
}

// ----- full-width punctuation -------------------------------------------------

#[test]
fn full_width_colon_and_comma_between_tokens() {
    let cases = [
        ("{\"a\"：\"x\"，\"b\"：1}", json!({"a": "x", "b": 1})),
        (
            "{a：x，b：true，c：[1，2]}",
            json!({"a": "x", "b": true, "c": [1, 2]}),
        ),
        ("[\"x\"，\"y\"]", json!(["x", "y"])),
        ("{\"a\"：，\"b\"：1}", json!({"a": null, "b": 1})),
        ("{\"n\"：1.5，\"m\"：null}", json!({"n": 1.5, "m": null})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(
            repairs(input).contains(&RepairKind::FullWidthPunctuation),
            "{input}"
        );
    }
}

/// Inside a string, full-width punctuation is text.
#[test]
fn full_width_punctuation_inside_strings_is_text() {
    assert_eq!(
        repaired("{\"a\": \"中文，文本：是\"}"),
        json!({"a": "中文，文本：是"})
    );
    assert_eq!(repaired("{\"a\"：\"x，y\"}"), json!({"a": "x，y"}));
    assert!(repairs("{\"a\": \"中文，文本\"}").is_empty());
}

// ----- unquoted values across commas and lines --------------------------------

#[test]
fn an_unquoted_value_goes_on_to_the_next_member() {
    let cases = [
        (
            "{name: Smith, John, age: 3}",
            json!({"name": "Smith, John", "age": 3}),
        ),
        (
            "{note: first line\nsecond line, ok: true}",
            json!({"note": "first line\nsecond line", "ok": true}),
        ),
        (
            "{name: Smith, John, \"age\": 3}",
            json!({"name": "Smith, John", "age": 3}),
        ),
        ("{a: 中文，文本}", json!({"a": "中文，文本"})),
        ("{name: Smith, John", json!({"name": "Smith, John"})),
        ("{city: Paris, France\n}", json!({"city": "Paris, France"})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
    }
}

/// A key, a quoted string, a number or a container after the comma or line
/// end ends the value; in an array, every comma separates elements.
#[test]
fn an_unquoted_value_stops_before_what_is_no_text() {
    let cases = [
        ("{\n a: x\n b: y\n}", json!({"a": "x", "b": "y"})),
        ("{a: x, \"b\": 1}", json!({"a": "x", "b": 1})),
        ("{名前: 太郎, 年齢: 3}", json!({"名前": "太郎", "年齢": 3})),
        ("{a: x, b: [1]}", json!({"a": "x", "b": [1]})),
        ("{a: x,}", json!({"a": "x"})),
        ("[Smith, John]", json!(["Smith", "John"])),
        ("{a: [Smith, John]}", json!({"a": ["Smith", "John"]})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
    }
}

/// Many commas in one unquoted value stay linear.
#[test]
fn a_long_unquoted_value_with_many_commas() {
    let body = "word, ".repeat(20_000);
    let input = format!("{{a: {body}end, b: 1}}");
    let v = repaired(&input);
    assert_eq!(v["b"], json!(1));
    assert_eq!(v["a"].as_str().unwrap().len(), body.len() + 3);
}

// ----- triple-quoted strings and code blocks as values ------------------------

#[test]
fn a_triple_quoted_value_is_one_string() {
    let cases = [
        (
            "{\"code\": \"\"\"def f():\n    return \"x\"\n\"\"\"}",
            json!({"code": "def f():\n    return \"x\""}),
        ),
        (
            "{\"c\": '''it's {x}''', \"d\": 1}",
            json!({"c": "it's {x}", "d": 1}),
        ),
        ("[\"\"\"a, b\"\"\", \"c\"]", json!(["a, b", "c"])),
        (
            "{\"d\": \"\"\"say \"hi\"\"\"\"}",
            json!({"d": "say \"hi\""}),
        ),
        // Cut off: every character so far.
        (
            "{\"code\": \"\"\"def f(x):\n    if x, {",
            json!({"code": "def f(x):\n    if x, {"}),
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(repairs(input).contains(&RepairKind::CodeBlock), "{input}");
    }
    // The empty string stays the empty string.
    assert_eq!(repaired(r#"{"a": "", "b": ""}"#), json!({"a": "", "b": ""}));
}

#[test]
fn a_code_block_as_a_member_value_is_one_string() {
    let cases = [
        (
            "{\"code\": ```python\nprint(\"}\")\n```}",
            json!({"code": "print(\"}\")"}),
        ),
        (
            "{\"code\": ```\nlet a = [1, 2];\n```, \"lang\": \"rust\"}",
            json!({"code": "let a = [1, 2];", "lang": "rust"}),
        ),
        ("{\"cmd\": ```ls -la```}", json!({"cmd": "ls -la"})),
        (
            "{\"code\": ```py\nx = {\"a\": 1",
            json!({"code": "x = {\"a\": 1"}),
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(repairs(input).contains(&RepairKind::CodeBlock), "{input}");
    }
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Answer {
        lang: String,
        code: String,
    }
    let a: Answer =
        serde_llm::from_llm_str("{\"lang\": \"python\", \"code\": ```python\nprint(\"}\")\n```}")
            .unwrap();
    assert_eq!(a.code, "print(\"}\")");
    assert_eq!(a.lang, "python");
}

/// BAML's cases for code written as a member's value
/// (`tests/fixtures/baml/code.jsonl`, from BAML's `test_code.rs`): the value
/// BAML's parser gives, as a `Value` and as a struct; a closed block holds
/// its lines (not the info string, the line break before the closing
/// marker, or the indentation of its first line). Every prefix's view
/// keeps what the one before showed.
#[test]
fn code_values_as_bamls_suite_reads_them() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Test {
        #[serde(rename = "type")]
        kind: String,
        code: String,
    }
    let path = format!(
        "{}/tests/fixtures/baml/code.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let cases = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut n = 0;
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let (id, input, want) = (
            &case["id"],
            case["input"].as_str().expect("input"),
            &case["expected"],
        );
        assert_eq!(&repaired(input), want, "{id}");
        let t: Test = serde_llm::from_llm_str(input).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(
            (t.kind.as_str(), t.code.as_str()),
            ("code", want["code"].as_str().expect("code")),
            "{id}"
        );
        let mut shown: Option<Value> = None;
        for end in (0..=input.len()).filter(|&e| input.is_char_boundary(e)) {
            let view = serde_llm::from_llm_str_partial::<Value>(&input[..end]).unwrap_or(None);
            if let (Some(before), Some(now)) = (&shown, &view) {
                assert!(
                    consistent(before, now),
                    "{id} at {end}: {before} then {now}"
                );
            }
            shown = view.or(shown);
        }
        n += 1;
    }
    assert_eq!(n, 22);
}

/// LangChain's markdown cases (`tests/fixtures/langchain/markdown.jsonl`,
/// see its README): a fenced or bare object with text before or after, a
/// fence left open, code and markup inside strings, nested JSON written in
/// a string. Each decodes to the value LangChain's parser gives, and every
/// prefix's view keeps what the one before showed: the first backticks of a
/// fence are no string, and the first letter of `Thought:` no literal.
#[test]
fn markdown_replies_as_langchains_suite_reads_them() {
    let path = format!(
        "{}/tests/fixtures/langchain/markdown.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let cases = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut n = 0;
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let (name, reply, want) = (
            &case["name"],
            case["reply"].as_str().expect("reply"),
            &case["value"],
        );
        assert_eq!(&repaired(reply), want, "{name}");
        let mut shown: Option<Value> = None;
        for end in (0..=reply.len()).filter(|&e| reply.is_char_boundary(e)) {
            let view = serde_llm::from_llm_str_partial::<Value>(&reply[..end]).unwrap_or(None);
            if let (Some(before), Some(now)) = (&shown, &view) {
                assert!(
                    consistent(before, now),
                    "{name} at {end}: {before} then {now}"
                );
            }
            shown = view.or(shown);
        }
        n += 1;
    }
    assert_eq!(n, 21);
}

/// A block's layout: its info string, the line break before its closing
/// marker and the first line's indentation are no part of its text; a
/// block on one line keeps all it holds; a block cut off shows no line
/// that may be its closing one.
#[test]
fn a_code_block_value_drops_its_layout() {
    let cases = [
        ("{\"c\": ```python\nx = 1\n```}", json!({"c": "x = 1"})),
        ("{\"c\": ```ts main.ts\nx\n```}", json!({"c": "x"})),
        ("{\"c\": ```\n```}", json!({"c": ""})),
        ("{\"c\": ```ls -la```}", json!({"c": "ls -la"})),
        // Less indented than the first line: all of its spaces go.
        (
            "{\"c\": ```\n    a\n  b\n      c\n```}",
            json!({"c": "a\nb\n  c"}),
        ),
        (
            "{\"c\": \"\"\"\n  a\n  \n  b\n  \"\"\"}",
            json!({"c": "a\n\nb"}),
        ),
        ("{\"c\": \"\"\"  a\n  b\"\"\"}", json!({"c": "  a\n  b"})),
    ];
    for (input, want) in cases {
        assert_eq!(repaired(input), want, "{input:?}");
    }
    let view = |t: &str| {
        serde_llm::from_llm_str_partial::<Value>(t)
            .unwrap()
            .unwrap()
    };
    let partial = |t: &str| {
        Decoder::new()
            .allow_partial(serde_llm::Allow::STR | serde_llm::Allow::OBJ)
            .decode::<Value>(t)
            .unwrap()
    };
    assert_eq!(
        partial("{\"c\": ```py\n  a\n  b\n  ``"),
        json!({"c": "a\nb"})
    );
    assert_eq!(partial("{\"c\": ```py\n  a\n"), json!({"c": "a"}));
    assert_eq!(partial("{\"c\": ```py ma"), json!({"c": ""}));
    // Quotes at the end of a view may be inside the string.
    assert_eq!(view("{\"c\": \"\"\"print(\"\"\""), json!({}));
}

// ----- chat-template special tokens -------------------------------------------

#[test]
fn special_tokens_between_tokens_are_skipped() {
    let cases = [
        ("{\"a\": <|python_tag|>{\"b\": 1}}", json!({"a": {"b": 1}})),
        ("{\"a\": 1<|eot_id|>}", json!({"a": 1})),
        ("[1, <|x|> 2]", json!([1, 2])),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
        assert!(
            repairs(input).contains(&RepairKind::SpecialToken),
            "{input}"
        );
    }
    // Inside a string it is text.
    assert_eq!(
        repaired("{\"a\": \"<|eot_id|>\"}"),
        json!({"a": "<|eot_id|>"})
    );
}

// ----- words after a number or literal ----------------------------------------

/// A number or literal with words after it, up to the member's end, is that
/// text: never the number with the words dropped.
#[test]
fn words_after_a_number_make_the_value_text() {
    let cases = [
        (
            r#"{"addr": 12 Main St, "zip": 1}"#,
            json!({"addr": "12 Main St", "zip": 1}),
        ),
        (r#"{"weight": 5 kg}"#, json!({"weight": "5 kg"})),
        (
            r#"{"a": true story, "b": 1}"#,
            json!({"a": "true story", "b": 1}),
        ),
        (r#"{"price": $4,250}"#, json!({"price": "$4,250"})),
        ("{\"a\": 1 2 3\n}", json!({"a": "1 2 3"})),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
    }
    // Typed, the text is no number: an error, not 5.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Parcel {
        weight: f64,
    }
    assert!(serde_llm::from_llm_str::<Parcel>(r#"{"weight": 5 kg}"#).is_err());
}

/// A key after the number is a member with its comma missing.
#[test]
fn a_key_after_a_number_is_the_next_member() {
    let cases = [
        (r#"{"a": 5 "b": 6}"#, json!({"a": 5, "b": 6})),
        (r#"{"a": 5 b: 6}"#, json!({"a": 5, "b": 6})),
        ("{\"a\": 1 \n \"b\": 2}", json!({"a": 1, "b": 2})),
        ("{\"a\": 5 // note\n}", json!({"a": 5})),
        (r#"{"a": 1 }"#, json!({"a": 1})),
        ("[12 apples]", json!([12, "apples"])),
    ];
    for (input, expected) in cases {
        assert_eq!(repaired(input), expected, "{input}");
    }
}

/// Streaming, a number followed by a comma at the end may still grow digit
/// groups: it is not shown as complete until what follows is known.
#[test]
fn a_number_before_a_comma_at_the_end_is_not_complete_yet() {
    #[derive(Debug, PartialEq, serde::Deserialize, serde_llm::Partial)]
    struct Invoice {
        total: u64,
        currency: String,
    }
    let view = |text: &str| {
        serde_llm::from_llm_str_partial::<Invoice>(text)
            .unwrap()
            .and_then(|v| v.total)
    };
    assert_eq!(view(r#"{"total": 4,"#), None);
    assert_eq!(view(r#"{"total": 4,2"#), None);
    assert_eq!(view(r#"{"total": 4,250,"#), None);
    assert_eq!(view(r#"{"total": 4,250, "#), Some(4250));
    assert_eq!(view(r#"{"total": 4, "#), Some(4));
    assert_eq!(view(r#"{"total": 4,250, "currency": "EU"#), Some(4250));
}

/// A typed decode of a reply cut right after `"n": 1,` does not use the 1:
/// it may have been the start of `1,250`.
#[test]
fn a_typed_number_before_a_comma_at_the_end_is_not_used() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Rec {
        n: Option<u64>,
        ok: Option<bool>,
    }
    let r: Rec = serde_llm::from_llm_str(r#"{"n": 1,"#).unwrap();
    assert_eq!(r, Rec { n: None, ok: None });
    let r: Rec = serde_llm::from_llm_str(r#"{"n": 1, "ok": true,"#).unwrap();
    assert_eq!(
        r,
        Rec {
            n: Some(1),
            ok: Some(true)
        }
    );
    // repair() completes what it can.
    assert_eq!(repaired(r#"{"n": 1,"#), json!({"n": 1}));
}

// ----- linear on long inputs ----------------------------------------------------

/// Long inputs that exercise each new rule's look-ahead: each must stay
/// linear (a quadratic scan of these would take minutes).
#[test]
fn new_rules_stay_linear_on_long_inputs() {
    let n = 50_000;
    let same = |v: &Value, want: &str| v.as_str() == Some(want);
    // A cut string full of commas, closers and braces.
    let body = "a, b] c} {d, ".repeat(n / 10);
    let v = repaired(&format!("{{\"a\": [\"{body}"));
    assert!(same(&v["a"][0], body.trim_end()));
    // Closers at depth below zero everywhere in a cut string.
    let body = "}]".repeat(n);
    let v = repaired(&format!("{{\"a\": \"x{body}y"));
    assert_eq!(v["a"].as_str().map(str::len), Some(2 * n + 2));
    // Many members with digit groups and words after numbers.
    let members: Vec<String> = (0..n / 10)
        .map(|i| format!("\"k{i}\": 1,234, \"w{i}\": 5 kg"))
        .collect();
    let v = repaired(&format!("{{{}}}", members.join(", ")));
    assert_eq!(v["k7"], json!(1234));
    assert_eq!(v["w7"], json!("5 kg"));
    // An unquoted value over many lines.
    let lines = "more text\n".repeat(n / 5);
    let v = repaired(&format!("{{note: {lines}end, ok: true}}"));
    assert_eq!(v["ok"], json!(true));
    // Many control bytes and special tokens between tokens.
    let junk = "\u{0}<|eot_id|>".repeat(n / 10);
    assert_eq!(repaired(&format!("[1,{junk}2]")), json!([1, 2]));
    // A triple-quoted string and a code block that never close.
    let code = "x = \"\" + ``;\n".repeat(n / 10);
    let v = repaired(&format!("{{\"a\": \"\"\"{code}"));
    assert!(same(&v["a"], code.trim_end()));
    let v = repaired(&format!("{{\"a\": ```py\n{code}"));
    assert!(same(&v["a"], code.trim_end()));
}

// ----- the new repairs are repairs like any other -------------------------------

#[test]
fn each_new_repair_can_be_denied() {
    let cases = [
        (RepairKind::DigitGroups, r#"{"a": 4,250}"#),
        (RepairKind::FullWidthPunctuation, "{\"a\"：1}"),
        (RepairKind::CodeBlock, "{\"a\": \"\"\"x\"\"\"}"),
        (RepairKind::SpecialToken, "{\"a\": <|eot_id|>1}"),
        (RepairKind::SpecialWhitespace, "{\"a\":\u{0}1}"),
    ];
    for (kind, input) in cases {
        assert!(serde_llm::repair(input).is_ok(), "{input}");
        let err = Decoder::new().deny(kind).repair(input).unwrap_err();
        assert_eq!(err.kind(), serde_llm::ErrorKind::Denied, "{input}");
        assert_eq!(err.repair().map(|r| r.kind), Some(kind), "{input}");
        assert!(Decoder::strict().repair(input).is_err(), "{input}");
    }
}

// ----- digit groups, generated ----------------------------------------------------

/// `n` written with commas between groups of three digits.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A grouped number anywhere among an object's members is the number,
    /// to the digit; the members around it are untouched.
    #[test]
    fn grouped_numbers_are_read_whole(
        n in 1_000u64..1_000_000_000_000_000,
        cents in prop::option::of(0u32..100),
        neg in any::<bool>(),
        before in prop::collection::vec(any::<i32>(), 0..3),
        after in prop::collection::vec(any::<i32>(), 0..3),
        pretty in any::<bool>(),
    ) {
        let sign = if neg { "-" } else { "" };
        let text = match cents {
            Some(c) => format!("{sign}{}.{c:02}", grouped(n)),
            None => format!("{sign}{}", grouped(n)),
        };
        let plain = text.replace(',', "");
        let sep = if pretty { ",\n  " } else { "," };
        let mut members: Vec<String> =
            before.iter().enumerate().map(|(i, v)| format!("\"b{i}\": {v}")).collect();
        members.push(format!("\"n\": {text}"));
        members.extend(after.iter().enumerate().map(|(i, v)| format!("\"c{i}\": {v}")));
        let input = format!("{{{}}}", members.join(sep));
        let mut expected = serde_json::Map::new();
        for (i, v) in before.iter().enumerate() {
            expected.insert(format!("b{i}"), json!(v));
        }
        expected.insert("n".into(), serde_json::from_str(&plain).unwrap());
        for (i, v) in after.iter().enumerate() {
            expected.insert(format!("c{i}"), json!(v));
        }
        prop_assert_eq!(repaired(&input), Value::Object(expected), "{}", input);
        // In an array, the same text is JSON: numbers between the commas.
        let array = format!("[{text}]");
        let want: Value =
            serde_json::from_str(&array).unwrap_or_else(|_| repaired(&array));
        prop_assert_eq!(repaired(&array), want);
    }
}

// ----- model-like token soup --------------------------------------------------

/// Token soup from what the new rules look at.
fn modelish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            " ",
            "\n",
            "a",
            "key",
            "1",
            "4",
            "250",
            ",250",
            "0",
            "-",
            ".",
            "5 kg",
            "true",
            "\"\"\"",
            "'''",
            "```",
            "```py\n",
            "\u{0}",
            "\u{7}",
            "<|eot_id|>",
            "<|",
            "|>",
            "\u{FF1A}",
            "\u{FF0C}",
            "Smith, John",
            "\"k\": ",
            "é",
            "+",
            "\\",
            "\\\"",
        ]),
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the soup: no panic, `repair` gives JSON, and it agrees with
    /// decoding into `Value`; a typed and a partial decode do not panic.
    #[test]
    fn modelish_soup_is_handled(text in modelish()) {
        let value = serde_llm::from_llm_str::<Value>(&text);
        let out = serde_llm::repair(&text);
        match (&value, &out) {
            (Ok(v), Ok(r)) => {
                let parsed: Value = serde_json::from_str(r).expect("repair gives JSON");
                prop_assert_eq!(&parsed, v, "{:?}", text);
            }
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{:?}: value {:?} but repair {:?}", text, value, out),
        }
        #[derive(Debug, serde::Deserialize, serde_llm::Partial)]
        #[allow(dead_code)]
        struct Rec {
            key: Option<String>,
            a: Option<f64>,
        }
        let _ = serde_llm::from_llm_str::<Rec>(&text);
        let _ = serde_llm::from_llm_str_partial::<Rec>(&text);
    }
}

/// Streaming a code block or triple-quoted value: a partial field shows the
/// content so far; a plain field waits until the block is closed.
#[test]
fn code_blocks_stream_as_partial_strings() {
    #[derive(Debug, serde::Deserialize, serde_llm::Partial)]
    #[allow(dead_code)]
    struct Answer {
        #[llm(partial)]
        code: String,
        lang: String,
    }
    let view = |t: &str| {
        serde_llm::from_llm_str_partial::<Answer>(t)
            .unwrap()
            .unwrap()
    };
    let v = view("{\"code\": ```py\nprint(1)\nprint(");
    assert_eq!(v.code.as_deref(), Some("print(1)\nprint("));
    let v = view("{\"code\": \"\"\"def f():\n    return {");
    assert_eq!(v.code.as_deref(), Some("def f():\n    return {"));
    let v = view("{\"lang\": ```py\nprint(1)");
    assert_eq!(v.lang, None);
    let v = view("{\"lang\": \"\"\"python\"\"\", \"code\": ```py\nx\n```}");
    assert_eq!(v.lang.as_deref(), Some("python"));
    assert_eq!(v.code.as_deref(), Some("x"));
}

/// A reply that is only a grouped number is that number; grouped numbers in
/// prose stay in the prose.
#[test]
fn digit_groups_at_the_top_level() {
    assert_eq!(serde_llm::from_llm_str::<u64>("4,250").unwrap(), 4250);
    assert_eq!(
        serde_llm::from_llm_str::<f64>("-1,234,567.89").unwrap(),
        -1234567.89
    );
    assert_eq!(serde_llm::from_llm_str::<u64>("4,250.").unwrap(), 4250);
    assert_eq!(repaired("4,250\n5,000"), json!([4250, 5000]));
    assert_eq!(
        serde_llm::from_llm_str::<Vec<u64>>("4,250\n5,000").unwrap(),
        [4250, 5000]
    );
    // Prose is no value for an untyped target; a number target reads the
    // one number the prose holds.
    assert!(serde_llm::repair("Total: 4,250").is_err());
    assert!(serde_llm::repair("4,250 apples").is_err());
    assert_eq!(
        serde_llm::from_llm_str::<u64>("Total: 4,250").unwrap(),
        4250
    );
    assert_eq!(
        serde_llm::from_llm_str::<u64>("4,250 apples").unwrap(),
        4250
    );
    // Top-level values separated by commas stay values.
    assert_eq!(repaired("1, 2"), json!([1, 2]));
    assert_eq!(repaired("[4,250]"), json!([4, 250]));
}
