//! Conformance with the test suites of established repair tools.
//!
//! Every `repair` and `throws` case of `tests/corpus/json_repair.jsonl`
//! (mangiucugna/json_repair, Python) and `tests/corpus/jsonrepair_js.jsonl`
//! (josdejong/jsonrepair, JS) runs through [`serde_llm::repair`] and is compared
//! with the peer's expected value as parsed JSON. Cases where we answer
//! differently on purpose are listed, with the reason, in
//! `tests/corpus/differences.txt`; this test fails when a listed case starts to
//! agree or an unlisted case disagrees. Cases with a JSON Schema (`kind:
//! schema`, and `throws` cases that pass a schema) are typed: they belong with
//! the coercion tests.

mod common;

use serde_json::Value;

struct Case {
    id: String,
    typed: bool,
    /// `strict: true`: the peer's strict mode, ours is `Decoder::strict()`.
    strict: bool,
    kind: String,
    input: String,
    expected: Option<Value>,
    assertion: Option<String>,
}

fn load(name: &str) -> Vec<Case> {
    common::corpus(name)
        .into_iter()
        .map(|v| Case {
            id: v["id"].as_str().unwrap().to_owned(),
            typed: v["options"].get("schema").is_some()
                || v["options"].get("schema_repair_mode").is_some(),
            strict: v["options"]["strict"] == Value::Bool(true),
            kind: v["kind"].as_str().unwrap().to_owned(),
            input: v["input"].as_str().unwrap().to_owned(),
            expected: v.get("expected_value").cloned(),
            assertion: v
                .get("assertion")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .collect()
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Whether our answer agrees with the peer's, and what our answer was.
fn run(case: &Case) -> (bool, String) {
    let ours = if case.strict {
        serde_llm::Decoder::strict().repair(&case.input)
    } else {
        serde_llm::repair(&case.input)
    };
    let shown = match &ours {
        Ok(s) => s.clone(),
        Err(e) => format!("error: {e}"),
    };
    let value = ours
        .as_ref()
        .ok()
        .map(|s| serde_json::from_str::<Value>(s).expect("repair() returns valid JSON"));
    let agree = match (
        case.kind.as_str(),
        case.assertion.as_deref(),
        &case.expected,
    ) {
        ("throws", _, _) => value.is_none(),
        (_, Some("truthy"), _) => value.as_ref().is_some_and(truthy),
        (_, Some("falsy"), _) => !value.as_ref().is_some_and(truthy),
        (_, Some("is_none"), _) => value == Some(Value::Null),
        (_, _, Some(expected)) => value.as_ref().is_some_and(|v| common::same(v, expected)),
        // No expected value: the peer gives up (returns "").
        (_, _, None) => value.is_none(),
    };
    (agree, shown)
}

fn conformance(file: &str, target_percent: usize) {
    let listed = common::differences("differences.txt");
    let cases: Vec<Case> = load(file)
        .into_iter()
        .filter(|c| (c.kind == "repair" || c.kind == "throws") && !c.typed)
        .collect();
    let mut unexpected = Vec::new();
    let (mut agreed, mut repair_cases, mut repair_agreed) = (0, 0, 0);
    for case in &cases {
        let (agree, shown) = run(case);
        agreed += usize::from(agree);
        if case.kind == "repair" {
            repair_cases += 1;
            repair_agreed += usize::from(agree);
        }
        unexpected.extend(common::unexpected(
            &listed,
            "differences.txt",
            &case.id,
            agree,
            || {
                format!(
                    "    input:    {:?}\n    expected: {}\n    ours:     {}",
                    case.input,
                    case.expected
                        .as_ref()
                        .map_or_else(|| format!("({})", case.kind), Value::to_string),
                    shown
                )
            },
        ));
    }
    println!(
        "{file}: {agreed}/{} cases agree; repair cases {repair_agreed}/{repair_cases} ({:.1}%)",
        cases.len(),
        100.0 * repair_agreed as f64 / repair_cases as f64
    );
    common::assert_none_unexpected(&unexpected);
    assert!(
        repair_agreed * 100 >= repair_cases * target_percent,
        "{file}: {repair_agreed}/{repair_cases} repair cases agree, below {target_percent}%"
    );
}

#[test]
fn json_repair_python() {
    // 88, not 90: json_repair ends a string cut off at the end of the input at
    // a comma (`{"a": "first, b: 1}`), which invents a member; we keep the
    // string whole (the five cases are listed in differences.txt).
    conformance("json_repair.jsonl", 88);
}

#[test]
fn jsonrepair_js() {
    conformance("jsonrepair_js.jsonl", 90);
}

/// The flags a partial-json-parser case allows, as `Allow`.
fn allow_of(options: &Value) -> serde_llm::Allow {
    use serde_llm::Allow;
    let mut allow = Allow::NONE;
    let Some(list) = options["allow"].as_array() else {
        return Allow::ALL;
    };
    for flag in list {
        allow = allow
            | match flag.as_str().unwrap() {
                "STR" => Allow::STR,
                "NUM" => Allow::NUM,
                "ARR" => Allow::ARR,
                "OBJ" => Allow::OBJ,
                "NULL" => Allow::NULL,
                "BOOL" => Allow::BOOL,
                "NAN" => Allow::NAN,
                "INFINITY" => Allow::INFINITY,
                "_INFINITY" => Allow::NEG_INFINITY,
                other => panic!("unknown flag {other}"),
            };
    }
    allow
}

/// A number read untyped (`deserialize_any`), so NaN and the infinities,
/// which `serde_json::Value` cannot hold, can be compared.
struct AnyNumber(f64);

impl<'de> serde::Deserialize<'de> for AnyNumber {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = AnyNumber;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, v: f64) -> Result<AnyNumber, E> {
                Ok(AnyNumber(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// partial-json-parser's `parse_json`, `fix` and `fix_fast` cases, through the
/// untyped decode with the case's Allow flags (`fix` returns completed text:
/// compared by value too).
#[test]
fn partial_json_parser() {
    let listed = common::differences("differences.txt");
    let mut unexpected = Vec::new();
    let (mut agreed, mut total) = (0, 0);
    for case in common::corpus("partial_json_parser.jsonl") {
        let id = case["id"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let decoder = serde_llm::Decoder::new().allow_partial(allow_of(&case["options"]));
        let (agree, ours) = match (case["kind"].as_str().unwrap(), case.get("expected_value")) {
            ("throws", _) => {
                let ours = decoder.decode::<Value>(input);
                (ours.is_err(), format!("{ours:?}"))
            }
            (_, Some(expected)) => {
                let ours = decoder.decode::<Value>(input);
                let agree = ours.as_ref().is_ok_and(|v| common::same(v, expected));
                (agree, format!("{ours:?}"))
            }
            (_, None) => {
                // `Infinity`, `-Infinity`, `NaN`.
                let ours = decoder.decode::<AnyNumber>(input).map(|n| n.0);
                let agree = match (case["expected"].as_str().unwrap(), &ours) {
                    ("Infinity", Ok(v)) => *v == f64::INFINITY,
                    ("-Infinity", Ok(v)) => *v == f64::NEG_INFINITY,
                    ("NaN", Ok(v)) => v.is_nan(),
                    _ => false,
                };
                (agree, format!("{ours:?}"))
            }
        };
        total += 1;
        agreed += usize::from(agree);
        unexpected.extend(common::unexpected(
            &listed,
            "differences.txt",
            id,
            agree,
            || {
                format!(
                "    input:    {input:?}\n    options:  {}\n    expected: {}\n    ours:     {ours}",
                case["options"]["allow"], case["expected"]
            )
            },
        ));
    }
    println!("partial_json_parser.jsonl: {agreed}/{total} cases agree");
    common::assert_none_unexpected(&unexpected);
}
