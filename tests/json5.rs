//! JSON5, differentially: generated JSON5 documents (every feature of the
//! grammar: comments, trailing commas, single quotes, unquoted and escaped
//! keys, hexadecimal and signed numbers, leading and trailing dots, JSON5's
//! escapes and line continuations, `Infinity` and `NaN`, every line
//! terminator) decode with `from_llm_str::<Value>` to what an established
//! JSON5 parser (the `json5` crate) gives, and to the value they were
//! generated from.
//!
//! The `json5` crate has limits of its own the generator stays inside: it
//! reads hexadecimal integers of at most eight digits and without a sign,
//! and no `+Infinity`. (serde_llm reads those too: `tests/suites.rs`.)
//!
//! One difference is on purpose and left out of the generator: a needless
//! escape of an ASCII letter (`"\d+"`) keeps its backslash, because models
//! write regexes and LaTeX in strings far more often than JSON5's `\c` for
//! `c` (`tests/corpus/differences.txt`, jsonrepair_js-170).

mod common;

use proptest::prelude::*;
use serde_json::{Map, Value};

/// A generated document: the value it means and its JSON5 text.
type Doc = (Value, String);

/// Whitespace, comments and line terminators between tokens.
fn gap() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just(" ".to_owned()),
            Just("\t".to_owned()),
            Just("\n".to_owned()),
            Just("\r\n".to_owned()),
            Just("\r".to_owned()),
            Just("\u{2028}".to_owned()),
            Just("\u{2029}".to_owned()),
            Just("\u{a0}".to_owned()),
            "[a-z ]{0,6}".prop_map(|c| format!("/*{c}*/")),
            (
                "[a-z ]{0,6}",
                prop_oneof![Just("\n"), Just("\r\n"), Just("\r"), Just("\u{2028}")]
            )
                .prop_map(|(c, nl)| format!("//{c}{nl}")),
        ],
        0..2,
    )
    .prop_map(|parts| parts.concat())
}

/// A number: its value and a JSON5 spelling of it.
fn number() -> impl Strategy<Value = Doc> {
    prop_oneof![
        (0u32..100_000).prop_map(|n| (Value::from(n), n.to_string())),
        (1u32..100_000).prop_map(|n| (Value::from(-i64::from(n)), format!("-{n}"))),
        (0u32..100_000).prop_map(|n| (Value::from(n), format!("+{n}"))),
        (0u32..u32::MAX, any::<bool>()).prop_map(|(n, upper)| {
            let text = match upper {
                true => format!("0X{n:X}"),
                false => format!("0x{n:x}"),
            };
            (Value::from(n), text)
        }),
        (0u32..1000, 1u32..1000).prop_map(|(i, f)| {
            let text = format!("{i}.{f}");
            (Value::from(text.parse::<f64>().unwrap()), text)
        }),
        (1u32..1000).prop_map(|f| {
            let text = format!(".{f}");
            (Value::from(text.parse::<f64>().unwrap()), text)
        }),
        (0u32..1000).prop_map(|i| (Value::from(f64::from(i)), format!("{i}."))),
        (1u32..100, -5i32..6).prop_map(|(i, e)| {
            let v = format!("{i}e{e}").parse::<f64>().unwrap();
            (Value::from(v), format!("{i}.e{e}"))
        }),
        (1u32..100, 0u32..5).prop_map(|(i, e)| {
            let v = format!("{i}e{e}").parse::<f64>().unwrap();
            (Value::from(v), format!("{i}E+{e}"))
        }),
        Just((Value::Null, "Infinity".to_owned())),
        Just((Value::Null, "-Infinity".to_owned())),
        Just((Value::Null, "NaN".to_owned())),
    ]
}

/// One character of a string's content.
fn content_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::char::range('a', 'z'),
        1 => Just(' '),
        1 => Just('\''),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('\0'),
        1 => Just('\u{b}'),
        1 => Just('é'),
        1 => Just('😀'),
        1 => Just('{'),
        1 => Just(']'),
    ]
}

/// A string: its content and a JSON5 spelling of it, in either quote, with
/// its characters escaped in JSON5's ways and line continuations between
/// them.
fn string() -> impl Strategy<Value = Doc> {
    (
        prop::collection::vec((content_char(), 0u8..8, 0u8..12), 0..8),
        any::<bool>(),
    )
        .prop_map(|(chars, single)| {
            let q = if single { '\'' } else { '"' };
            let mut text = String::new();
            let mut value = String::new();
            text.push(q);
            for (c, how, cont) in chars {
                value.push(c);
                let must = c == q || c == '\\' || c == '\n' || c == '\0';
                match (c, how) {
                    ('\0', _) => text.push_str("\\0"),
                    ('\n', _) => text.push_str("\\n"),
                    ('\u{b}', 0..=3) => text.push_str("\\v"),
                    (c, 0) if c.is_ascii() => text.push_str(&format!("\\x{:02X}", c as u32)),
                    (c, 1) if (c as u32) < 0x10000 => {
                        text.push_str(&format!("\\u{:04x}", c as u32))
                    }
                    (c, _) if must => {
                        text.push('\\');
                        text.push(c);
                    }
                    // An escape of a character that needs none (not of an
                    // ASCII letter: see the module's comment).
                    ('é' | '\'' | '"', 2) => {
                        text.push('\\');
                        text.push(c);
                    }
                    (c, _) => text.push(c),
                }
                // A line continuation: nothing in the value.
                match cont {
                    0 => text.push_str("\\\n"),
                    1 => text.push_str("\\\r\n"),
                    2 => text.push_str("\\\u{2028}"),
                    _ => {}
                }
            }
            text.push(q);
            (Value::String(value), text)
        })
}

/// An object key: an identifier (maybe with a `\u` escape for its first
/// letter, Unicode letters, `$` and `_`) or a string.
fn key() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[a-zA-Z$_][a-zA-Z0-9$_]{0,6}".prop_map(|k| (k.clone(), k)),
        "[a-z][a-z0-9]{0,4}".prop_map(|k| {
            let first = k.chars().next().unwrap();
            (k.clone(), format!("\\u{:04x}{}", first as u32, &k[1..]))
        }),
        "[a-z]{1,3}".prop_map(|k| (format!("é{k}"), format!("é{k}"))),
        string().prop_map(|(v, text)| (v.as_str().unwrap().to_owned(), text)),
    ]
}

fn leaf() -> impl Strategy<Value = Doc> {
    prop_oneof![
        Just((Value::Null, "null".to_owned())),
        Just((Value::Bool(true), "true".to_owned())),
        Just((Value::Bool(false), "false".to_owned())),
        number(),
        string(),
    ]
}

/// A JSON5 document, nested a few levels.
fn document() -> impl Strategy<Value = Doc> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            (
                prop::collection::vec((inner.clone(), gap(), gap()), 0..6),
                any::<bool>()
            )
                .prop_map(|(items, trailing)| {
                    let mut text = String::from("[");
                    let mut values = Vec::new();
                    for (i, ((v, t), g1, g2)) in items.iter().enumerate() {
                        if i > 0 {
                            text.push(',');
                        }
                        text.push_str(g1);
                        text.push_str(t);
                        text.push_str(g2);
                        values.push(v.clone());
                    }
                    if trailing && !items.is_empty() {
                        text.push(',');
                    }
                    text.push(']');
                    (Value::Array(values), text)
                }),
            (
                prop::collection::vec((key(), inner, gap(), gap()), 0..6),
                any::<bool>()
            )
                .prop_map(|(members, trailing)| {
                    let mut text = String::from("{");
                    let mut map = Map::new();
                    let mut n = 0;
                    for ((k, kt), (v, t), g1, g2) in members {
                        // A key given twice keeps its last value in both
                        // parsers; keep the documents simple instead.
                        if map.contains_key(&k) {
                            continue;
                        }
                        if n > 0 {
                            text.push(',');
                        }
                        n += 1;
                        text.push_str(&g1);
                        text.push_str(&kt);
                        text.push_str(&g2);
                        text.push(':');
                        text.push_str(&g1);
                        text.push_str(&t);
                        map.insert(k, v);
                    }
                    if trailing && n > 0 {
                        text.push(',');
                    }
                    text.push('}');
                    (Value::Object(map), text)
                }),
        ]
    })
}

proptest! {
    // 512 cases by default; `PROPTEST_CASES=n` for more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn json5_documents_decode_as_the_json5_crate_reads_them(
        (meant, text) in document(),
        before in gap(),
        after in gap(),
    ) {
        let text = format!("{before}{text}{after}");
        let theirs: Value = json5::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("json5 refused {text:?}: {e}")))?;
        prop_assert!(common::same(&theirs, &meant), "json5 read {text:?} as {theirs}, meant {meant}");
        let ours: Value = serde_llm::from_llm_str(&text)
            .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert!(common::same(&ours, &theirs), "{text:?}: ours {ours}, json5 {theirs}");
        // `repair()` writes the same value as JSON text.
        let repaired: Value = serde_json::from_str(&serde_llm::repair(&text).unwrap()).unwrap();
        prop_assert!(common::same(&repaired, &theirs), "{text:?}: repair() {repaired}");
    }
}

/// The JSON5 spec's own example, and the json5 crate's README's.
#[test]
fn the_specs_example() {
    let text = r#"// This file is written in JSON5 syntax, naturally, but npm needs a regular
// JSON file, so compile via `npm run build`. Be sure to keep both in sync!

{
  // comments
  unquoted: 'and you can quote me on that',
  singleQuotes: 'I can use "double quotes" here',
  lineBreaks: "Look, Mom! \
No \\n's!",
  hexadecimal: 0xdecaf,
  leadingDecimalPoint: .8675309, andTrailing: 8675309.,
  positiveSign: +1,
  trailingComma: 'in objects', andIn: ['arrays',],
  "backwardsCompatible": "with JSON",
}"#;
    let theirs: Value = json5::from_str(text).unwrap();
    let ours: Value = serde_llm::from_llm_str(text).unwrap();
    assert!(common::same(&ours, &theirs), "{ours} vs {theirs}");
    assert_eq!(ours["lineBreaks"], "Look, Mom! No \\n's!");
    assert_eq!(ours["hexadecimal"], 912_559);
}
