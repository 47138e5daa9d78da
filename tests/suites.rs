//! No silent data loss on what other tools' suites try: bare words inside
//! brackets that are the whole reply, doubled quotes, every kind of line
//! end, comments around a scalar, a sign cut off before its digits, JSON5,
//! and scalars and one-level wrappers read the way schema-aligned parsers
//! read them. Each case is a wrong `Ok` (data lost, a key invented, a number
//! made up) or a refusal that other tools' suites caught; each rule is
//! tested by its general shape, not only by the case that found it.

mod common;

use serde::Deserialize;
use serde_json::{json, Value};
use serde_llm::{from_llm_str, repair, CoercionKind, Decoder, ErrorKind, RepairKind};

/// `(reply, repair()'s exact answer)`.
fn repairs(rows: &[(&str, &str)]) {
    for (reply, want) in rows {
        assert_eq!(repair(reply).unwrap(), *want, "{reply:?}");
    }
}

/// The kinds of repair `reply` needed, in order.
fn kinds(reply: &str) -> Vec<RepairKind> {
    let (_, report) = Decoder::new().repair_with_report(reply).unwrap();
    report.repairs.iter().map(|r| r.kind).collect()
}

#[test]
fn the_rows_of_the_issue() {
    repairs(&[
        (
            "[dog,[cat,cow,],[pig,],]",
            r#"["dog",["cat","cow"],["pig"]]"#,
        ),
        ("{we#ird: [x&y, z]}", r#"{"we#ird":["x&y","z"]}"#),
        (
            r#"{"msg": ""hi" she said"}"#,
            r#"{"msg":"\"hi\" she said"}"#,
        ),
        ("{\r  // c\r  a: 1,\r  b: 2\r}", r#"{"a":1,"b":2}"#),
        (r#"{"n": 3, "m": -"#, r#"{"n":3}"#),
        ("7 // seven", "7"),
        ("{port: 0x1F90}", r#"{"port":8080}"#),
    ]);
}

#[test]
fn the_rows_typed() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Port {
        port: u16,
    }
    assert_eq!(
        from_llm_str::<Port>("{port: 0x1F90}").unwrap(),
        Port { port: 8080 }
    );
    #[derive(Debug, Deserialize, PartialEq)]
    struct Nm {
        n: u32,
        m: Option<i32>,
    }
    assert_eq!(
        from_llm_str::<Nm>(r#"{"n": 3, "m": -"#).unwrap(),
        Nm { n: 3, m: None }
    );
    #[derive(Debug, Deserialize, PartialEq)]
    struct Msg {
        msg: String,
    }
    assert_eq!(
        from_llm_str::<Msg>(r#"{"msg": ""hi" she said"}"#)
            .unwrap()
            .msg,
        r#""hi" she said"#
    );
    assert_eq!(from_llm_str::<u32>("7 // seven").unwrap(), 7);
    let nested: Vec<Value> = from_llm_str("[dog,[cat,cow,],[pig,],]").unwrap();
    assert_eq!(
        nested,
        [json!("dog"), json!(["cat", "cow"]), json!(["pig"])]
    );
    let weird: Value = from_llm_str("{we#ird: [x&y, z]}").unwrap();
    assert_eq!(weird, json!({"we#ird": ["x&y", "z"]}));
}

/// Rule 1: a value that is the whole reply (or fence, or tag) is no prose;
/// unquoted keys take any character that is not structure.
#[test]
fn a_whole_value_is_not_prose() {
    repairs(&[
        ("[a, [b, c], d]", r#"["a",["b","c"],"d"]"#),
        ("[[x,],[y,],]", r#"[["x"],["y"]]"#),
        ("```json\n[one,[two,],]\n```", r#"["one",["two"]]"#),
        ("<json>[one,[two,],]</json>", r#"["one",["two"]]"#),
        (
            "{a!: 1, b&c: 2, @d: 3, $e: 4, f.g: 5, h-i: 6, j#k: [l]}",
            r#"{"a!":1,"b&c":2,"@d":3,"$e":4,"f.g":5,"h-i":6,"j#k":["l"]}"#,
        ),
        ("{café: 1, naïve: [x]}", r#"{"café":1,"naïve":["x"]}"#),
    ]);
    // A stray opener swallowing a sentence still loses to the real value
    // inside it: that reading made structure out of prose.
    repairs(&[(r#"{ for blocks. {"a": 1}"#, r#"{"a":1}"#)]);
}

/// Rule 2: a doubled quote opening a string is content when what follows
/// cannot close it; `""` before a delimiter stays the empty string.
#[test]
fn doubled_quotes() {
    repairs(&[
        (
            r#"{"msg": ""hi" she said"}"#,
            r#"{"msg":"\"hi\" she said"}"#,
        ),
        (r#"["" ok" then", "x"]"#, r#"["\" ok\" then","x"]"#),
        (r#"{"a": ""text""}"#, r#"{"a":"text"}"#),
        (r#"{"a": "", "b": ""}"#, r#"{"a":"","b":""}"#),
        (r#"["", "", ""]"#, r#"["","",""]"#),
        (r#"{"a": ""}"#, r#"{"a":""}"#),
    ]);
    // Never a key made of the words after the quoted word.
    let v: Value = from_llm_str(r#"{"msg": ""no" is the answer", "n": 1}"#).unwrap();
    assert_eq!(v, json!({"msg": "\"no\" is the answer", "n": 1}));
}

/// Rule 3: every line end ends a comment and counts for line numbers.
#[test]
fn every_line_end() {
    for nl in ["\n", "\r\n", "\r", "\u{2028}", "\u{2029}"] {
        let reply = format!("{{{nl}  // c{nl}  a: 1, # d{nl}  b: 2{nl}}}");
        assert_eq!(repair(&reply).unwrap(), r#"{"a":1,"b":2}"#, "{reply:?}");
        let cut = format!("[1,{nl}2,{nl}x");
        assert_eq!(repair(&cut).unwrap(), r#"[1,2,"x"]"#, "{cut:?}");
        // The error is on line 3.
        let err = from_llm_str::<Vec<u32>>(&format!("[1,{nl}2,{nl}\"x\"]")).unwrap_err();
        assert_eq!((err.line(), err.column()), (3, 1), "{nl:?}: {err}");
    }
}

/// Rule 4: comments are whitespace everywhere, around a top-level scalar
/// too.
#[test]
fn comments_around_a_scalar() {
    repairs(&[
        ("7 // seven", "7"),
        ("\"done\" /* status */", "\"done\""),
        ("false\n# x", "false"),
        ("// the answer\n42", "42"),
        ("/* a */ null /* b */", "null"),
        ("true # yes", "true"),
    ]);
    assert_eq!(
        from_llm_str::<String>("\"done\" /* status */").unwrap(),
        "done"
    );
    assert!(!from_llm_str::<bool>("false\n# x").unwrap());
    assert_eq!(
        from_llm_str::<f64>("/* half */ 2.5 // exactly").unwrap(),
        2.5
    );
    // Words after a scalar are still prose.
    assert_eq!(
        from_llm_str::<Value>("7 seven").unwrap_err().kind(),
        ErrorKind::NoJson
    );
}

/// Rule 5: a sign alone at the end is a cut number, dropped as any cut
/// value; a stray sign before the end stands for nothing (never `0`).
#[test]
fn a_sign_alone_is_no_number() {
    repairs(&[
        (r#"{"n": 3, "m": -"#, r#"{"n":3}"#),
        (r#"{"n": 3, "m": +"#, r#"{"n":3}"#),
        (r#"{"n": 3, "m": -."#, r#"{"n":3}"#),
        (r#"{"n": 3, m: ."#, r#"{"n":3}"#),
        ("[1, 2, -", "[1,2]"),
        ("[1, 2, -.", "[1,2]"),
        (r#"{"a": [1, -"#, r#"{"a":[1]}"#),
        (r#"{"a": +, "b": 1}"#, r#"{"a":null,"b":1}"#),
        ("[1, -, 2]", "[1,2]"),
    ]);
    for sign in ["-", "+", "-.", "."] {
        assert!(repair(sign).is_err(), "{sign}");
    }
    // Where numbers may be partial, still never as 0.
    let d = Decoder::new().allow_partial(serde_llm::Allow::ALL);
    assert_eq!(
        d.decode::<Value>(r#"{"n": 3, "m": -"#).unwrap(),
        json!({"n": 3})
    );
    let (_, report) = Decoder::new()
        .repair_with_report(r#"{"n": 3, "m": -"#)
        .unwrap();
    assert!(report.truncated);
    assert!(report
        .repairs
        .iter()
        .any(|r| r.kind == RepairKind::TruncatedValue));
    // Typed: a cut number is missing, as `12` of `123` is.
    #[derive(Debug, Deserialize, PartialEq)]
    struct Scores {
        a: Option<i32>,
        list: Option<Vec<i32>>,
    }
    // (A list cut off in a field not marked partial is missing as a whole;
    // at the root, its complete elements stand.)
    assert_eq!(
        from_llm_str::<Scores>(r#"{"list": [1, 2, -"#).unwrap(),
        Scores {
            a: None,
            list: None
        }
    );
    assert_eq!(from_llm_str::<Vec<i32>>("[1, 2, -").unwrap(), [1, 2]);
    assert_eq!(
        from_llm_str::<Scores>(r#"{"list": [1], "a": -"#).unwrap(),
        Scores {
            a: None,
            list: Some(vec![1])
        }
    );
}

/// Rule 6: JSON5, each feature recorded as a repair of its own kind.
#[test]
fn json5_features() {
    let rows: &[(&str, &str, RepairKind)] = &[
        (
            "[0x1F, 0XfF, -0x10, +0x1]",
            "[31,255,-16,1]",
            RepairKind::HexNumber,
        ),
        (
            "[5.e3, .5, +1, 1.]",
            "[5e3,0.5,1,1]",
            RepairKind::NumberFormat,
        ),
        ("['a\\\nb']", r#"["ab"]"#, RepairKind::LineContinuation),
        ("['a\\\r\nb']", r#"["ab"]"#, RepairKind::LineContinuation),
        (
            "['a\\\u{2028}b']",
            r#"["ab"]"#,
            RepairKind::LineContinuation,
        ),
        (r#"["\x41\x7a"]"#, r#"["Az"]"#, RepairKind::Json5Escape),
        (r#"["a\0b"]"#, r#"["a\u0000b"]"#, RepairKind::Json5Escape),
        (r#"["\v"]"#, r#"["\u000b"]"#, RepairKind::Json5Escape),
        ("{\\u0061b: 1}", r#"{"ab":1}"#, RepairKind::UnquotedKey),
        (
            "{ünïcödé: 1, $_x: 2}",
            r#"{"ünïcödé":1,"$_x":2}"#,
            RepairKind::UnquotedKey,
        ),
        (
            "[Infinity, -Infinity, +Infinity, NaN, -NaN]",
            "[null,null,null,null,null]",
            RepairKind::NonFiniteNumber,
        ),
    ];
    for (reply, want, kind) in rows {
        assert_eq!(repair(reply).unwrap(), *want, "{reply:?}");
        assert!(kinds(reply).contains(kind), "{reply:?}: {:?}", kinds(reply));
    }
    // Non-finite numbers go to f64 fields as themselves.
    let v: Vec<f64> = from_llm_str("[Infinity, -Infinity, +Infinity]").unwrap();
    assert_eq!(v, [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY]);
    assert!(from_llm_str::<f64>("-NaN").unwrap().is_nan());
    // Hex digits beyond u64 read exactly as far as i128 goes.
    assert_eq!(
        from_llm_str::<u128>("0xFFFFFFFFFFFFFFFFFF").unwrap(),
        0x00FF_FFFF_FFFF_FFFF_FFFF
    );
    // Not hex: `0x` alone, a letter that is no hex digit.
    repairs(&[("[0x, 0x1G]", r#"["0x","0x1G"]"#)]);
    // Strict mode refuses each.
    for reply in ["[0x1F]", "['a\\\nb']", r#"["\x41"]"#] {
        assert_eq!(
            Decoder::strict().decode::<Value>(reply).unwrap_err().kind(),
            ErrorKind::Denied,
            "{reply:?}"
        );
    }
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
enum Priority {
    Low,
    Medium,
    High,
}

/// Rule 7: scalars and one-level wrappers, as schema-aligned parsers read
/// them. Each is a coercion in the report, refused by `strict()` and by
/// `deny(kind)`.
#[test]
fn enums_with_a_description() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Ticket {
        priority: Priority,
    }
    for written in [
        "HIGH: urgent",
        "HIGH - urgent",
        "**HIGH**, because it breaks checkout",
        "HIGH!",
        "high — the site is down",
    ] {
        // As the whole reply (prose) and as a value inside JSON.
        assert_eq!(
            from_llm_str::<Priority>(written).unwrap(),
            Priority::High,
            "{written}"
        );
        let reply = json!({ "priority": written }).to_string();
        let (t, report) = Decoder::new().decode_with_report::<Ticket>(&reply).unwrap();
        assert_eq!(t.priority, Priority::High, "{written}");
        assert_eq!(report.coercions[0].kind, CoercionKind::EnumVariant);
        assert!(Decoder::strict().decode::<Ticket>(&reply).is_err());
        assert!(Decoder::new()
            .deny(CoercionKind::EnumVariant)
            .decode::<Ticket>(&reply)
            .is_err());
    }
    // Another variant named: an error, never a guess.
    for written in ["HIGH or LOW", "HIGH, not low", "not high"] {
        let reply = json!({ "priority": written }).to_string();
        assert!(from_llm_str::<Ticket>(&reply).is_err(), "{written}");
    }
    assert!(from_llm_str::<Priority>("HIGH or LOW").is_err());
}

#[test]
fn a_list_of_one_for_one_value() {
    let one = |reply: &str| {
        let (p, report) = Decoder::new()
            .decode_with_report::<Priority>(reply)
            .unwrap();
        assert_eq!(report.coercions[0].kind, CoercionKind::SequenceToOne);
        p
    };
    assert_eq!(one(r#"["HIGH"]"#), Priority::High);
    assert_eq!(one(r#"[ "low" ]"#), Priority::Low);
    assert!(from_llm_str::<bool>("[true]").unwrap());
    assert_eq!(from_llm_str::<u32>("[42]").unwrap(), 42);
    assert_eq!(from_llm_str::<String>(r#"["x"]"#).unwrap(), "x");
    #[derive(Debug, Deserialize, PartialEq)]
    struct Row {
        done: bool,
        n: u8,
        label: String,
    }
    let (row, report) = Decoder::new()
        .decode_with_report::<Row>(r#"{"done": [true], "n": [7], "label": ["a"]}"#)
        .unwrap();
    assert_eq!(
        row,
        Row {
            done: true,
            n: 7,
            label: "a".into()
        }
    );
    let paths: Vec<&str> = report.coercions.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["$.done", "$.n", "$.label"]);
    // Two elements are no one value.
    assert!(from_llm_str::<u32>("[1, 2]").is_err());
    assert!(from_llm_str::<bool>("[]").is_err());
    for d in [
        Decoder::strict(),
        Decoder::new().deny(CoercionKind::SequenceToOne),
    ] {
        assert!(d.decode::<u32>("[42]").is_err());
    }
}

#[test]
fn a_bare_value_for_a_struct_of_one_field() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Id {
        id: u64,
    }
    let (id, report) = Decoder::new().decode_with_report::<Id>("1214").unwrap();
    assert_eq!(id, Id { id: 1214 });
    assert_eq!(report.coercions[0].kind, CoercionKind::ValueToStruct);
    assert_eq!(report.coercions[0].written, "1214");
    assert_eq!(report.coercions[0].used, r#"{"id": 1214}"#);
    assert_eq!(from_llm_str::<Id>(r#"{"id": 5}"#).unwrap(), Id { id: 5 });
    // The field's own coercions apply too.
    assert_eq!(from_llm_str::<Id>(r#""77""#).unwrap(), Id { id: 77 });
    #[derive(Debug, Deserialize, PartialEq)]
    struct Wrapped {
        inner: Id,
        name: String,
    }
    assert_eq!(
        from_llm_str::<Wrapped>(r#"{"inner": 9, "name": "x"}"#).unwrap(),
        Wrapped {
            inner: Id { id: 9 },
            name: "x".into()
        }
    );
    // A struct of two fields takes no bare value.
    assert!(from_llm_str::<Wrapped>("9").is_err());
    // A value of another type is the field's error.
    assert!(from_llm_str::<Id>(r#""abc""#).is_err());
    for d in [
        Decoder::strict(),
        Decoder::new().deny(CoercionKind::ValueToStruct),
    ] {
        assert!(d.decode::<Id>("1214").is_err());
    }
}

#[test]
fn an_object_or_list_as_a_string() {
    let (s, report) = Decoder::new()
        .decode_with_report::<String>(r#"{"a":  1, b: [2]}"#)
        .unwrap();
    // The text as the reply wrote it, repairs and spacing included.
    assert_eq!(s, r#"{"a":  1, b: [2]}"#);
    assert_eq!(report.coercions[0].kind, CoercionKind::JsonToString);
    assert_eq!(from_llm_str::<String>("[1, 2]").unwrap(), "[1, 2]");
    #[derive(Debug, Deserialize, PartialEq)]
    struct Note {
        body: String,
    }
    assert_eq!(
        from_llm_str::<Note>(r#"{"body": {"k": "v"}}"#)
            .unwrap()
            .body,
        r#"{"k": "v"}"#
    );
    // Cut off, it is no text the reply finished writing.
    assert!(from_llm_str::<Note>(r#"{"body": {"k": "v"#).is_err());
    for d in [
        Decoder::strict(),
        Decoder::new().deny(CoercionKind::JsonToString),
    ] {
        assert!(d.decode::<String>("[1, 2]").is_err());
    }
}

mod printed_as_models_write {
    //! For generated values printed the ways models print them (bare words
    //! for strings that are plain words, every kind of line end and
    //! comment between tokens, doubled-quote strings, JSON5's spellings),
    //! the decode gives the value back.

    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use crate::common;

    type Doc = (Value, String);

    /// Words a bare word must not be: they read as literals.
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "nan",
        "inf",
        "infinity",
    ];

    fn word() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9_]{0,7}".prop_filter("not a literal", |w| !RESERVED.contains(&w.as_str()))
    }

    /// Between tokens: spaces, every line end, comments of every kind
    /// (each ended by a line end of any kind).
    fn gap() -> impl Strategy<Value = String> {
        let nl = prop_oneof![
            Just("\n"),
            Just("\r\n"),
            Just("\r"),
            Just("\u{2028}"),
            Just("\u{2029}")
        ];
        prop::collection::vec(
            prop_oneof![
                Just(" ".to_owned()),
                nl.clone().prop_map(str::to_owned),
                ("[a-z ]{0,8}", nl.clone()).prop_map(|(c, nl)| format!(" // {c}{nl}")),
                ("[a-z ]{0,8}", nl).prop_map(|(c, nl)| format!(" # {c}{nl}")),
                "[a-z ]{0,8}".prop_map(|c| format!(" /* {c} */ ")),
            ],
            0..2,
        )
        .prop_map(|g| g.concat())
    }

    fn string() -> impl Strategy<Value = Doc> {
        prop_oneof![
            // A plain word, bare.
            word().prop_map(|w| (Value::String(w.clone()), w)),
            // A sentence in doubled quotes: `""two words""`.
            (word(), word()).prop_map(|(a, b)| {
                let v = format!("{a} {b}");
                (Value::String(v.clone()), format!("\"\"{v}\"\""))
            }),
            // A quoted word opening the text: `""hi" she said"`.
            (word(), word(), word()).prop_map(|(a, b, c)| {
                let v = format!("\"{a}\" {b} {c}");
                (Value::String(v.clone()), format!("\"{v}\""))
            }),
            // Single quotes, a JSON5 line continuation inside.
            (word(), word())
                .prop_map(|(a, b)| { (Value::String(format!("{a}{b}")), format!("'{a}\\\n{b}'")) }),
            // Plain JSON.
            "[a-zA-Z0-9 .,!?-]{0,12}".prop_map(|s| (Value::String(s.clone()), format!("{s:?}"))),
        ]
    }

    fn number() -> impl Strategy<Value = Doc> {
        prop_oneof![
            (0u32..1_000_000).prop_map(|n| (Value::from(n), n.to_string())),
            (0u32..1_000_000).prop_map(|n| (Value::from(n), format!("{n:#x}"))),
            (1u32..1000).prop_map(|n| (Value::from(-i64::from(n)), format!("-0x{n:X}"))),
            (0u32..1000).prop_map(|n| (Value::from(n), format!("+{n}"))),
            (1u32..1000).prop_map(|f| {
                let text = format!(".{f}");
                (Value::from(text.parse::<f64>().unwrap()), text)
            }),
            (1u32..100, 0i32..4).prop_map(|(i, e)| {
                let v: f64 = format!("{i}e{e}").parse().unwrap();
                (Value::from(v), format!("{i}.e{e}"))
            }),
        ]
    }

    fn leaf() -> impl Strategy<Value = Doc> {
        prop_oneof![
            Just((Value::Null, "None".to_owned())),
            Just((Value::Bool(true), "True".to_owned())),
            Just((Value::Bool(false), "false".to_owned())),
            number(),
            string(),
        ]
    }

    fn document() -> impl Strategy<Value = Doc> {
        let tree = leaf().prop_recursive(3, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec((inner.clone(), gap()), 0..5).prop_map(|items| {
                    let mut text = String::from("[");
                    let mut values = Vec::new();
                    for (i, ((v, t), g)) in items.into_iter().enumerate() {
                        if i > 0 {
                            text.push(',');
                        }
                        text.push_str(&g);
                        text.push_str(&t);
                        text.push_str(&g);
                        values.push(v);
                    }
                    text.push_str(",]");
                    (Value::Array(values), text)
                }),
                prop::collection::vec((word(), inner, gap()), 0..5).prop_map(|members| {
                    let mut text = String::from("{");
                    let mut map = Map::new();
                    for (k, (v, t), g) in members {
                        if map.contains_key(&k) {
                            continue;
                        }
                        text.push_str(&g);
                        text.push_str(&k);
                        text.push_str(": ");
                        text.push_str(&t);
                        text.push_str(&g);
                        text.push(',');
                        map.insert(k, v);
                    }
                    text.push('}');
                    (Value::Object(map), text)
                }),
            ]
        });
        // The root is an object or an array, as replies are.
        tree.prop_filter("a container at the root", |(v, _)| {
            v.is_array() || v.is_object()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512),
            ..ProptestConfig::default()
        })]

        #[test]
        fn the_decode_gives_the_value_back((meant, text) in document(), before in gap()) {
            let text = format!("{before}{text}");
            let ours: Value = serde_llm::from_llm_str(&text)
                .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            prop_assert!(common::same(&ours, &meant), "{text:?}: got {ours}, meant {meant}");
            let repaired: Value = serde_json::from_str(&serde_llm::repair(&text).unwrap()).unwrap();
            prop_assert!(common::same(&repaired, &meant), "{text:?}: repair() gave {repaired}");
        }
    }
}
