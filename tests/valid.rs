//! Valid JSON decodes exactly as `serde_json` decodes it.
//!
//! A hand-written table of JSONTestSuite-style `y_` documents, generated
//! documents (compact and pretty), and random `f64` spellings all go through
//! [`serde_llm::from_llm_str`] and [`serde_llm::repair`] and are compared with
//! `serde_json` bit for bit: a `u64` is not an `f64`, `-0.0` is not `0.0`.
//! Valid input must also come back with a clean report (nothing repaired).
//!
//! The default decoder may hand a reply that is one valid JSON value straight
//! to `serde_json` (its fast lane); every check here also runs through
//! [`tolerant`], which the fast lane skips, so the repairing scanner itself is
//! held to the same standard.

use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};
use serde_llm::Decoder;

/// The decoders every check runs through: the default one, and one that
/// always takes the tolerant scanner. (The fast lane only runs at the default
/// depth limit of 128 or more, so a limit of 127 turns it off; every document
/// here nests far less deeply.)
fn decoders() -> [(&'static str, Decoder); 2] {
    [("default", Decoder::new()), ("tolerant", tolerant())]
}

fn tolerant() -> Decoder {
    Decoder::new().max_depth(127)
}

/// `y_` cases: (name, document). Every document is valid JSON.
const Y_CASES: &[(&str, &str)] = &[
    // Arrays.
    ("array_empty", "[]"),
    ("array_empty_ws", "[ ]"),
    ("array_arrays_empty", "[[]   ]"),
    ("array_nested_empty", "[[[[]]]]"),
    ("array_one", "[1]"),
    ("array_heterogeneous", r#"[null, 1, "1", {}]"#),
    ("array_false", "[false]"),
    ("array_null", "[null]"),
    ("array_empty_string", r#"[""]"#),
    ("array_ending_with_newline", "[\"a\"]\n"),
    ("array_leading_ws_all_kinds", " \r\n\t[1]"),
    ("array_crlf_inside", "[1,\r\n2,\r\n3]"),
    ("array_tabs_inside", "[\t1\t,\t2\t]"),
    ("array_with_trailing_space", "[2] "),
    ("array_with_several_null", "[1,null,null,null,2]"),
    ("array_1_and_newline", "[1\n]"),
    ("array_ws_before_comma", "[1 ,2 , 3]"),
    ("array_nested_mixed", r#"[[1, [2, [3]]], {"a": [4, {"b": []}]}]"#),
    // Numbers.
    ("number_zero", "[0]"),
    ("number_minus_zero", "[-0]"),
    ("number_minus_zero_float", "[-0.0]"),
    ("number_zero_float", "[0.0]"),
    ("number_simple_int", "[123]"),
    ("number_negative_int", "[-123]"),
    ("number_negative_one", "[-1]"),
    ("number_simple_real", "[123.456789]"),
    ("number_0_1", "[0.1]"),
    ("number_real_exponent", "[123e45]"),
    ("number_123e65", "[123e65]"),
    ("number_1e22", "[1E22]"),
    ("number_1e23", "[1e23]"),
    ("number_capital_e_pos", "[1E+2]"),
    ("number_capital_e_neg", "[1E-2]"),
    ("number_small_e_neg", "[1e-2]"),
    ("number_real_pos_exponent", "[1e+2]"),
    ("number_real_fraction_exponent", "[123.456e78]"),
    ("number_0e1", "[0e1]"),
    ("number_0e_plus_1", "[0e+1]"),
    ("number_int_with_exp", "[20e1]"),
    ("number_after_space", "[ 4]"),
    ("number_underflow", "[1e-400]"),
    ("number_neg_underflow", "[-1e-400]"),
    ("number_i64_min", "[-9223372036854775808]"),
    ("number_below_i64_min", "[-9223372036854775809]"),
    ("number_i64_max", "[9223372036854775807]"),
    ("number_u64_max", "[18446744073709551615]"),
    ("number_beyond_u64", "[18446744073709551616]"),
    (
        "number_very_big_int",
        "[100000000000000000000000000000000000000000000000000]",
    ),
    ("number_f64_max", "[1.7976931348623157e308]"),
    ("number_f64_min_subnormal", "[4.9e-324]"),
    ("number_f64_min_positive", "[2.2250738585072014e-308]"),
    ("number_0_3_sum", "[0.30000000000000004]"),
    ("number_2_pow_53_plus_1", "[9007199254740993]"),
    (
        "number_long_fraction",
        "[3.141592653589793238462643383279502884197169399375105820974944]",
    ),
    (
        "number_many_zeros_fraction",
        "[0.000000000000000000000000000000000000000000001]",
    ),
    ("number_trailing_zeros", "[1.50000000000000000000000000000]"),
    ("number_close_to_zero", "[-0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001]"),
    ("number_halfway_1", "[2.00000000000000011102230246251565404236316680908203125]"),
    ("number_halfway_2", "[9007199254740993.0]"),
    // Objects.
    ("object_empty", "{}"),
    ("object_empty_ws", "{ \r\n\t}"),
    ("object_basic", r#"{"asd":"sdf"}"#),
    ("object_empty_key", r#"{"":0}"#),
    ("object_duplicated_key", r#"{"a":"b","a":"c"}"#),
    ("object_duplicated_key_and_value", r#"{"a":"b","a":"b"}"#),
    ("object_duplicated_nested", r#"{"a":{"x":1},"a":[2]}"#),
    ("object_long_strings", r#"{"x":[{"id": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}], "id": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#),
    ("object_simple", r#"{"a":[]}"#),
    ("object_nested", r#"{"a":{"b":{"c":{"d":null}}}}"#),
    ("object_with_newlines", "{\n\"a\": \"b\"\n}"),
    ("object_crlf", "{\r\n  \"a\": 1,\r\n  \"b\": [true, false]\r\n}\r\n"),
    ("object_escaped_null_in_key", r#"{"foo\u0000bar": 42}"#),
    ("object_unicode_key", r#"{"clé": 1, "ключ": 2, "鍵": 3, "🔑": 4}"#),
    ("object_escaped_key", r#"{"\u00e9\n\"": "v"}"#),
    ("object_key_looks_like_number", r#"{"1": 1, "-2": 2, "true": 3, "null": 4}"#),
    ("object_many_members", r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}"#),
    // Strings.
    ("string_all_escapes", r#"["\"\\\/\b\f\n\r\t"]"#),
    ("string_backslash_and_u_escaped_zero", r#"["\\u0000"]"#),
    ("string_u0000", r#"["\u0000"]"#),
    ("string_u001f", r#"["\u001f"]"#),
    ("string_u00e9", r#"["\u00e9"]"#),
    ("string_uppercase_hex", r#"["\u00E9\u00C9"]"#),
    ("string_surrogate_pair", r#"["\ud83d\ude00"]"#),
    ("string_surrogate_pair_upper", r#"["\uD834\uDD1E"]"#),
    ("string_two_surrogate_pairs", r#"["\ud83d\ude39\ud83d\udc8d"]"#),
    ("string_u2028_u2029_escaped", r#"["\u2028\u2029"]"#),
    ("string_u2028_u2029_raw", "[\"\u{2028}\u{2029}\"]"),
    ("string_ufffe_escaped", r#"["\uFFFE"]"#),
    ("string_nonchar_raw", "[\"\u{fdd0}\u{10ffff}\"]"),
    ("string_raw_utf8", r#"["€𝄞 ça ñ 中文 🎉"]"#),
    ("string_del_raw", "[\"a\u{7f}b\"]"),
    ("string_escaped_slash", r#"["http:\/\/example.com\/"]"#),
    ("string_unescaped_slash", r#"["/"]"#),
    ("string_comments_inside", r#"["a/*b*/c/*d//e"]"#),
    ("string_quote_in_middle", r#"["a\"b"]"#),
    ("string_double_escape_a", r#"["\\a"]"#),
    ("string_double_escape_n", r#"["\\n"]"#),
    ("string_escaped_control_char", r#"["\u0012"]"#),
    ("string_pi", r#"["π"]"#),
    ("string_space", r#"" ""#),
    ("string_in_array_with_ws", r#"[ "asd"]"#),
    ("string_with_braces", r#"["{not: an object}", "[1, 2"]"#),
    ("string_backticks", r#"["```json\n{}\n```"]"#),
    ("string_null_escape_then_text", r#"["\u0000\u0000abc"]"#),
    ("string_accepted_surrogate_and_bmp", r#"["\uD801\udc37 \u0041"]"#),
    // Strings that look like things the repairing scanner fixes.
    ("string_escaped_json_top_level", r#""{\"a\": 1, \"b\": [true]}""#),
    ("string_escaped_json_in_array", r#"["{\"a\":1}", "[\"x\"]"]"#),
    ("string_ellipsis", r#"[1, "...", 2, "a...b"]"#),
    ("string_literal_spellings", r#"["NaN", "Infinity", "-Infinity", "None", "True", "undefined"]"#),
    ("string_regex_like", r#"{"re": "/ab+c/i", "path": "/usr/bin"}"#),
    ("string_apostrophes", r#"["it's", "'quoted'", "`ticks`", "“curly”"]"#),
    ("string_key_value_inside", r#"["\"a\": 1", "k: v, x: y"]"#),
    ("string_plus_inside", r#"["a" , "b", "\"a\" + \"b\""]"#),
    ("string_escaped_backslash_quote", r#"["\\\"", "\\\\", "\\"]"#),
    ("string_quote_as_unicode_escape", r#"["\u0022\u005c"]"#),
    ("string_raw_special_spaces", "[\"\u{a0}a\u{200b}b\u{feff}c\u{3000}\"]"),
    ("string_think_tags", r#"["<think>x</think>", "<json>{}</json>"]"#),
    ("string_trailing_comma_inside", r#"["a,", "b,]", "{,}"]"#),
    ("string_hash_and_comment", r##"{"#": "# not a comment", "//": "// nor this"}"##),
    ("object_spaced_colons", "{ \"a\" : \"b\" , \"c\" :\n[ ] }"),
    ("array_of_empties", "[{},{},[],[[]],{\"\":{}}]"),
    ("object_key_with_escapes", r#"{"a\"b": 1, "c\\": 2, "\/": 3}"#),
    ("number_exponent_zero", "[1.0e+0, -0e-0, 0.0e0, 1E-0]"),
    ("number_in_object_with_ws", "{\"n\" :\t-12.5e-3 }"),
    // Top-level scalars.
    ("structure_lonely_true", "true"),
    ("structure_lonely_false", "false"),
    ("structure_lonely_null", "null"),
    ("structure_lonely_int", "42"),
    ("structure_lonely_negative_real", "-0.1"),
    ("structure_lonely_big", "1e308"),
    ("structure_lonely_string", r#""asd""#),
    ("structure_lonely_empty_string", r#""""#),
    ("structure_trailing_newline", "[\"a\"]\n"),
    ("structure_whitespace_array", " [] "),
    ("structure_true_in_array", "[true]"),
    ("structure_string_empty", r#""""#),
];

/// Numbers must agree in kind (`u64`, `i64`, `f64`) and, for `f64`, in bits.
fn same_number(a: &Number, b: &Number) -> bool {
    (a.is_u64(), a.is_i64(), a.is_f64()) == (b.is_u64(), b.is_i64(), b.is_f64())
        && a.as_u64() == b.as_u64()
        && a.as_i64() == b.as_i64()
        && a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits)
}

/// Exact equality: numbers by kind and bits, objects with their member order.
/// Returns the JSON path of the first difference.
fn diff(a: &Value, b: &Value, path: &str) -> Option<String> {
    let differs = match (a, b) {
        (Value::Null, Value::Null) => false,
        (Value::Bool(x), Value::Bool(y)) => x != y,
        (Value::String(x), Value::String(y)) => x != y,
        (Value::Number(x), Value::Number(y)) => !same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                true
            } else {
                return x
                    .iter()
                    .zip(y)
                    .enumerate()
                    .find_map(|(i, (a, b))| diff(a, b, &format!("{path}[{i}]")));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            if !x.keys().eq(y.keys()) {
                true
            } else {
                return x
                    .iter()
                    .zip(y.values())
                    .find_map(|((k, a), b)| diff(a, b, &format!("{path}.{k:?}")));
            }
        }
        _ => true,
    };
    differs.then(|| format!("{path}: {a:?} != {b:?}"))
}

#[test]
fn the_comparer_sees_number_kinds_and_signs() {
    let d = |a: Value, b: Value| diff(&a, &b, "$");
    assert!(d(Value::from(1u64), Value::from(1.0)).is_some());
    assert!(d(Value::from(-1i64), Value::from(-1.0)).is_some());
    assert!(d(Value::from(0.0), Value::from(-0.0)).is_some());
    assert!(d(Value::from(0.1), Value::from(0.1f32 as f64)).is_some());
    assert!(d(
        serde_json::json!([1, {"a": [2]}]),
        serde_json::json!([1, {"a": [2.0]}])
    )
    .is_some());
    assert!(d(serde_json::json!({"a": 1}), serde_json::json!({"b": 1})).is_some());
    assert!(d(Value::from(u64::MAX), Value::from(u64::MAX)).is_none());
    assert!(d(Value::from(-0.0), Value::from(-0.0)).is_none());
    assert!(d(
        serde_json::json!({"a": [1.5, null, "x"]}),
        serde_json::json!({"a": [1.5, null, "x"]})
    )
    .is_none());
}

#[track_caller]
fn assert_exact(ours: &Value, theirs: &Value, what: &str) {
    if let Some(d) = diff(ours, theirs, "$") {
        panic!("{what}: differs from serde_json at {d}");
    }
}

/// The whole contract for one valid document.
fn check_valid(name: &str, s: &str) {
    let theirs: Value =
        serde_json::from_str(s).unwrap_or_else(|e| panic!("{name}: not valid JSON: {e}"));

    for (how, decoder) in decoders() {
        let ours: Value = decoder
            .decode(s)
            .unwrap_or_else(|e| panic!("{name}: {how} decode failed on {s:?}: {e:?}"));
        assert_exact(&ours, &theirs, &format!("{name}: {how} decode({s:?})"));

        let ours_slice: Value = decoder
            .decode_slice(s.as_bytes())
            .unwrap_or_else(|e| panic!("{name}: {how} decode_slice failed on {s:?}: {e:?}"));
        assert_exact(&ours_slice, &theirs, &format!("{name}: {how} decode_slice"));

        let (_, report) = decoder
            .decode_with_report::<Value>(s)
            .unwrap_or_else(|e| panic!("{name}: {how} decode_with_report failed: {e:?}"));
        assert!(
            report.is_clean(),
            "{name}: valid JSON {s:?} reported repairs ({how}): {report:?}"
        );

        let (repaired, report) = decoder
            .repair_with_report(s)
            .unwrap_or_else(|e| panic!("{name}: {how} repair failed on {s:?}: {e:?}"));
        let reparsed: Value = serde_json::from_str(&repaired)
            .unwrap_or_else(|e| panic!("{name}: repair gave invalid JSON {repaired:?}: {e}"));
        assert_exact(
            &reparsed,
            &theirs,
            &format!("{name}: repair({s:?}) = {repaired:?}"),
        );
        assert!(
            report.is_clean(),
            "{name}: valid JSON {s:?} reported repairs when repaired ({how}): {report:?}"
        );
    }
    let ours: Value = serde_llm::from_llm_str(s).unwrap();
    assert_exact(&ours, &theirs, &format!("{name}: from_llm_str({s:?})"));
    let ours: Value = serde_llm::from_llm_slice(s.as_bytes()).unwrap();
    assert_exact(&ours, &theirs, &format!("{name}: from_llm_slice({s:?})"));
    let repaired = serde_llm::repair(s).unwrap();
    let reparsed: Value = serde_json::from_str(&repaired).unwrap();
    assert_exact(&reparsed, &theirs, &format!("{name}: repair({s:?})"));
}

/// The shapes models wrap a value in: a fence with prose around it, a
/// `<json>` tag, a sentence before it, and the value then a sentence.
fn wrappings(s: &str) -> [String; 4] {
    [
        format!("Here is the JSON:\n\n```json\n{s}\n```\n\nAnything else?"),
        format!("<json>{s}</json>"),
        format!("The answer is {s}"),
        format!("{s}\n\nThat is all."),
    ]
}

/// A valid document wrapped as models wrap it reads the same, with the same
/// report, whether the candidate's clean span goes to serde_json (the
/// default decoder) or through the tolerant scanner; and, when the default
/// decoder finds it, as serde_json reads it alone.
fn check_wrapped<T>(name: &str, s: &str)
where
    T: DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let theirs = serde_json::from_str::<T>(s);
    for reply in wrappings(s) {
        let fast = Decoder::new().decode_with_report::<T>(&reply);
        let slow = tolerant().decode_with_report::<T>(&reply);
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: {reply:?}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}: {reply:?}"),
            _ => panic!("{name}: {reply:?}: default {fast:?}, tolerant {slow:?}"),
        }
        if let (Ok((ours, report)), Ok(theirs)) = (&fast, &theirs) {
            if report.is_clean() {
                assert_eq!(ours, theirs, "{name}: {reply:?}");
            }
        }
    }
}

#[test]
fn y_cases_decode_like_serde_json() {
    let mut names = std::collections::HashSet::new();
    for &(name, s) in Y_CASES {
        assert!(names.insert(name), "duplicate case name {name}");
        check_valid(name, s);
        check_wrapped::<Value>(name, s);
    }
    assert!(Y_CASES.len() >= 80, "{} cases", Y_CASES.len());
}

#[test]
fn y_cases_in_an_array_and_an_object() {
    // Every case also decodes the same as a member of a larger document.
    for &(name, s) in Y_CASES {
        check_valid(name, &format!("[{s}, {s}]"));
        check_valid(name, &format!("{{\"k\": {s}, \"z\":\n{s}}}"));
    }
}

#[test]
fn deep_nesting_100_levels() {
    let arrays = format!("{}{}", "[".repeat(100), "]".repeat(100));
    check_valid("100 arrays", &arrays);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(100), "}".repeat(100));
    check_valid("100 objects", &objects);
    let mixed = format!("{}0{}", r#"[{"k":"#.repeat(50), "}]".repeat(50));
    check_valid("50 arrays of objects", &mixed);
}

#[test]
fn very_long_string() {
    let body: String = (0..100_000)
        .map(|i| match i % 7 {
            0 => 'a',
            1 => 'é',
            2 => ' ',
            3 => '中',
            4 => '🎉',
            5 => 'z',
            _ => '9',
        })
        .collect();
    check_valid("long raw string", &format!("[\"{body}\"]"));
    let escaped = r#"\n\u00e9\"\\\ud83d\ude00"#.repeat(10_000);
    check_valid("long escaped string", &format!("\"{escaped}\""));
}

#[test]
fn every_ascii_and_escape() {
    // Every character 0x00..=0x7f, escaped the way serde_json escapes it.
    let all: String = (0u8..=0x7f).map(char::from).collect();
    let s = serde_json::to_string(&all).unwrap();
    check_valid("all ascii", &s);
    // And each one spelled as a \u escape.
    let spelled: String = (0u32..=0x7f).map(|c| format!("\\u{c:04x}")).collect();
    check_valid("all ascii as \\u", &format!("\"{spelled}\""));
}

/// Typed decoding of a scalar agrees with `serde_json`'s: the same value, or
/// both fail. With coercion on, we may also take what serde_json refuses
/// (`42.0` for an `i64`), but only with the coercion in the report; in
/// strict mode (also read by the tolerant path), exactly what serde_json does.
fn check_typed<T>(s: &str)
where
    T: DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let theirs = serde_json::from_str::<T>(s);
    let strict = ("strict", Decoder::strict());
    let strict_tolerant = ("strict tolerant", Decoder::strict().max_depth(127));
    check_wrapped::<T>(std::any::type_name::<T>(), s);
    for (how, decoder) in decoders().into_iter().chain([strict, strict_tolerant]) {
        let ours = decoder.decode_with_report::<T>(s);
        match (&ours, &theirs) {
            (Ok((a, _)), Ok(b)) => {
                assert_eq!(a, b, "{s:?} as {} ({how})", std::any::type_name::<T>())
            }
            (Err(_), Err(_)) => {}
            (Ok((_, report)), Err(_)) if !how.starts_with("strict") => assert!(
                !report.coercions.is_empty(),
                "{s:?} as {} ({how}): taken without a coercion, serde_json {theirs:?}",
                std::any::type_name::<T>()
            ),
            _ => panic!(
                "{s:?} as {} ({how}): ours {ours:?}, serde_json {theirs:?}",
                std::any::type_name::<T>()
            ),
        }
    }
}

/// A number read as `f64` has serde_json's bits: alone (through both
/// decoders), and inside a document that needed a repair (a trailing comma),
/// where only the tolerant scanner can read it.
fn check_f64_bits(s: &str) {
    let theirs = serde_json::from_str::<f64>(s).map(f64::to_bits);
    let repaired_doc = format!("[{s},]");
    let cases = [
        (
            "default",
            serde_llm::from_llm_str::<f64>(s).map(f64::to_bits),
        ),
        ("tolerant", tolerant().decode::<f64>(s).map(f64::to_bits)),
        (
            "in a repaired array",
            serde_llm::from_llm_str::<[f64; 1]>(&repaired_doc).map(|[f]| f.to_bits()),
        ),
    ];
    for (how, ours) in cases {
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(
                a,
                b,
                "{s:?} as f64 ({how}): {} vs {}",
                f64::from_bits(*a),
                f64::from_bits(*b)
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("{s:?} as f64 ({how}): ours {ours:?}, serde_json {theirs:?}"),
        }
    }
}

#[test]
fn typed_scalars_like_serde_json() {
    let numbers = [
        "0",
        "-0",
        "-0.0",
        "1",
        "-1",
        "1E22",
        "1e23",
        "1e-400",
        "123e65",
        "1E+2",
        "1e-2",
        "0.1",
        "1.7976931348623157e308",
        "4.9e-324",
        "2.4703282292062328e-324",
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "3.141592653589793238462643383279502884197169399375105820974944",
        "2.00000000000000011102230246251565404236316680908203125",
        "9007199254740993",
        "1.5",
        "10.0",
    ];
    for s in numbers {
        check_f64_bits(s);
        check_typed::<i64>(s);
        check_typed::<u64>(s);
        check_typed::<i32>(s);
        check_typed::<u8>(s);
        check_typed::<Value>(s);
    }
    for s in [
        r#""""#,
        r#""asd""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u0000""#,
        r#""\ud83d\ude00""#,
        r#""€𝄞""#,
        "\"a\u{7f}b\"",
    ] {
        check_typed::<String>(s);
        check_typed::<Value>(s);
    }
    check_typed::<bool>("true");
    check_typed::<bool>("false");
    check_typed::<Option<u8>>("null");
    check_typed::<()>("null");
    check_typed::<Vec<f64>>("[1, -0.0, 1e-400, 18446744073709551616, 4.9e-324]");
    check_typed::<Vec<i64>>("[1, -9223372036854775808, 9223372036854775807]");
    check_typed::<Vec<u64>>("[0, 18446744073709551615]");
    check_typed::<(String, f64, bool)>(r#"["\u00e9", 0.1, true]"#);
}

#[test]
fn i128_u128_at_the_extremes() {
    let i128s = [
        i128::MIN,
        i128::MIN + 1,
        i64::MIN as i128 - 1,
        i64::MIN as i128,
        -1,
        0,
        1,
        u64::MAX as i128,
        u64::MAX as i128 + 1,
        i128::MAX - 1,
        i128::MAX,
    ];
    for v in i128s {
        let s = v.to_string();
        assert_eq!(serde_llm::from_llm_str::<i128>(&s).unwrap(), v, "{s}");
        assert_eq!(tolerant().decode::<i128>(&s).unwrap(), v, "{s}");
        check_typed::<i128>(&s);
        check_typed::<u128>(&s);
    }
    let u128s = [
        0,
        1,
        u64::MAX as u128,
        u64::MAX as u128 + 1,
        i128::MAX as u128 + 1,
        u128::MAX - 1,
        u128::MAX,
    ];
    for v in u128s {
        let s = v.to_string();
        assert_eq!(serde_llm::from_llm_str::<u128>(&s).unwrap(), v, "{s}");
        assert_eq!(tolerant().decode::<u128>(&s).unwrap(), v, "{s}");
        check_typed::<u128>(&s);
        check_typed::<i128>(&s);
    }
    // One past each end is out of range for both.
    for s in [
        "-170141183460469231731687303715884105729",
        "340282366920938463463374607431768211456",
    ] {
        check_typed::<i128>(s);
        check_typed::<u128>(s);
    }
    // In an array and a struct field too.
    let s = format!("[{}, {}]", i128::MIN, u128::MAX);
    for (_, decoder) in decoders() {
        assert_eq!(
            decoder.decode::<(i128, u128)>(&s).unwrap(),
            (i128::MIN, u128::MAX)
        );
    }
    // In a document that needed a repair (so the tolerant path reads it).
    let s = format!("{{i: {}, u: {},}}", i128::MIN, u128::MAX);
    #[derive(serde::Deserialize)]
    struct Wide {
        i: i128,
        u: u128,
    }
    let w: Wide = serde_llm::from_llm_str(&s).unwrap();
    assert_eq!((w.i, w.u), (i128::MIN, u128::MAX));
}

// ---------------------------------------------------------------------------
// Generated documents.

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        // Any char at all, controls and astral planes included.
        prop::collection::vec(any::<char>(), 0..12).prop_map(|v| v.into_iter().collect()),
        // Characters that matter to the scanner.
        prop::collection::vec(
            prop::sample::select(vec![
                '"', '\\', '/', '\'', '`', '{', '}', '[', ']', ':', ',', ' ', '\n', '\t', '\r',
                '#', '*', 'a', 'n', 't', 'f', '0', '1', '.', 'e', '-', '\u{0}', '\u{7f}', '\u{a0}',
                '\u{200b}', '\u{feff}', '\u{2028}', 'é', '😀',
            ]),
            0..16,
        )
        .prop_map(|v| v.into_iter().collect()),
        "[a-z]{0,8}",
    ]
}

fn arb_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        any::<f64>(),
        (-1000i32..1000).prop_map(|i| i as f64 / 8.0),
        Just(-0.0),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
    ]
    .prop_filter("finite", |f| f.is_finite())
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        arb_f64().prop_map(Value::from),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((arb_string(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn check_generated(text: &str) -> Result<(), TestCaseError> {
    let theirs: Value = serde_json::from_str(text).expect("serde_json reads its own output");
    for (how, decoder) in decoders() {
        let (ours, report) = decoder
            .decode_with_report::<Value>(text)
            .map_err(|e| TestCaseError::fail(format!("{how} decode({text:?}): {e:?}")))?;
        if let Some(d) = diff(&ours, &theirs, "$") {
            return Err(TestCaseError::fail(format!(
                "{how} decode({text:?}) differs at {d}"
            )));
        }
        prop_assert!(report.is_clean(), "{} {:?}: {:?}", how, text, report);
        let (repaired, report) = decoder
            .repair_with_report(text)
            .map_err(|e| TestCaseError::fail(format!("repair({text:?}): {e:?}")))?;
        let reparsed: Value = serde_json::from_str(&repaired)
            .map_err(|e| TestCaseError::fail(format!("repair({text:?}) = {repaired:?}: {e}")))?;
        if let Some(d) = diff(&reparsed, &theirs, "$") {
            return Err(TestCaseError::fail(format!(
                "repair({text:?}) = {repaired:?} differs at {d}"
            )));
        }
        prop_assert!(report.is_clean(), "repair {:?}: {:?}", text, report);
    }
    check_wrapped::<Value>("generated", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_decode_like_serde_json(v in arb_value()) {
        check_generated(&serde_json::to_string(&v).unwrap())?;
        check_generated(&serde_json::to_string_pretty(&v).unwrap())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prefixes_of_documents_never_panic(v in arb_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        // Long documents: every prefix of the first 600 bytes, then a sample.
        let cuts: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(text.len()))
            .enumerate()
            .filter(|&(n, i)| i < 600 || n % 17 == 0 || i == text.len())
            .map(|(_, i)| i)
            .collect();
        for cut in cuts {
            let prefix = &text[..cut];
            let _ = serde_llm::from_llm_str::<Value>(prefix);
            let _ = tolerant().decode::<Value>(prefix);
            let _ = serde_llm::repair(prefix);
        }
    }
}

// ---------------------------------------------------------------------------
// f64 exactness.

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn f64_spellings_parse_to_serde_json_bits(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        prop_assume!(f.is_finite());
        check_f64_bits(&format!("{f}"));
        check_f64_bits(&format!("{f:e}"));
        check_f64_bits(&format!("{f:E}"));
        check_f64_bits(&serde_json::to_string(&f).unwrap());
        check_f64_bits(&format!("{f:.3}"));
        check_f64_bits(&format!("{f:.20e}"));
    }

    #[test]
    fn decimal_spellings_parse_to_serde_json_bits(
        neg in any::<bool>(),
        int in "[1-9][0-9]{0,24}|0",
        frac in proptest::option::of("[0-9]{1,25}"),
        exp in proptest::option::of((prop::sample::select(vec!["e", "E", "e+", "e-", "E-"]), 0u32..400)),
    ) {
        let mut s = String::new();
        if neg {
            s.push('-');
        }
        s.push_str(&int);
        if let Some(frac) = &frac {
            s.push('.');
            s.push_str(frac);
        }
        if let Some((e, n)) = &exp {
            s.push_str(e);
            s.push_str(&n.to_string());
        }
        check_f64_bits(&s);
        check_typed::<Value>(&s);
        let theirs: Value = match serde_json::from_str(&s) {
            Ok(v) => v,
            Err(_) => return Ok(()),
        };
        for (how, decoder) in decoders() {
            let ours: Value = decoder.decode(&s).unwrap();
            prop_assert!(diff(&ours, &theirs, "$").is_none(), "{} ({}): {:?} vs {:?}", s, how, ours, theirs);
        }
    }

    #[test]
    fn f64_in_documents_keep_their_bits(bits in prop::collection::vec(any::<u64>(), 1..8)) {
        let floats: Vec<f64> = bits
            .into_iter()
            .map(f64::from_bits)
            .filter(|f| f.is_finite())
            .collect();
        let text = serde_json::to_string(&floats).unwrap();
        let theirs: Vec<f64> = serde_json::from_str(&text).unwrap();
        // Pretty-printed with a trailing comma: a repair, so the scanner reads it.
        let repaired_doc = format!("{},]", serde_json::to_string_pretty(&floats).unwrap().trim_end_matches(']'));
        for ours in [
            serde_llm::from_llm_str::<Vec<f64>>(&text).unwrap(),
            tolerant().decode::<Vec<f64>>(&text).unwrap(),
            serde_llm::from_llm_str::<Vec<f64>>(&repaired_doc).unwrap(),
        ] {
            prop_assert_eq!(
                ours.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                theirs.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                "{}", text
            );
        }
    }

    #[test]
    fn integers_round_trip(i in any::<i64>(), u in any::<u64>(), w in any::<i128>(), x in any::<u128>()) {
        prop_assert_eq!(serde_llm::from_llm_str::<i64>(&i.to_string()).unwrap(), i);
        prop_assert_eq!(serde_llm::from_llm_str::<u64>(&u.to_string()).unwrap(), u);
        prop_assert_eq!(serde_llm::from_llm_str::<i128>(&w.to_string()).unwrap(), w);
        prop_assert_eq!(serde_llm::from_llm_str::<u128>(&x.to_string()).unwrap(), x);
        prop_assert_eq!(tolerant().decode::<i64>(&i.to_string()).unwrap(), i);
        prop_assert_eq!(tolerant().decode::<u64>(&u.to_string()).unwrap(), u);
        prop_assert_eq!(tolerant().decode::<i128>(&w.to_string()).unwrap(), w);
        prop_assert_eq!(tolerant().decode::<u128>(&x.to_string()).unwrap(), x);
        check_typed::<Value>(&i.to_string());
        check_typed::<Value>(&u.to_string());
        check_typed::<Value>(&w.to_string());
        check_typed::<Value>(&x.to_string());
    }
}
