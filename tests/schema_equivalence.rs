//! The schema path and the typed path agree (cargo feature `schema`): for
//! generated values of a few types, written the ways models write them
//! (keys in other styles, numbers and bools as text, single values for
//! lists, variants in other cases, broken syntax, prose and fences around,
//! cut off anywhere), `SchemaDecoder::of::<T>()` gives the value and the
//! report `from_llm_str::<T>` gives, and its partial view is the typed
//! view at every prefix.
//!
//! The types use what both paths read by the decoder itself (structs,
//! `Option`, `Vec`, maps, unit enums, numbers of each width): where serde
//! reads from its own buffer (internally tagged and untagged enums,
//! `flatten`) the schema path coerces and the typed path does not, on
//! purpose (`Decoder::decode_aligned`, tested in `tests/schema_aligned.rs`).

#![cfg(feature = "schema")]

use std::collections::BTreeMap;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use serde_llm::{Decoder, Partial, SchemaDecoder};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "snake_case")]
enum Status {
    Open,
    InProgress,
    Done,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Customer {
    user_name: String,
    email: Option<String>,
    vip: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Item {
    name: String,
    qty: u32,
    price: f64,
    tags: Vec<String>,
    note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Order {
    #[llm(required)]
    #[schemars(extend("x-required-for-view" = true))]
    order_id: u64,
    status: Status,
    customer: Customer,
    /// Grows in a view (`#[llm(partial)]`) and in a decode of a reply cut
    /// off (`serde_llm::partial`).
    #[llm(partial)]
    #[serde(with = "serde_llm::partial")]
    #[schemars(with = "Vec<Item>", extend("x-partial" = true))]
    items: Vec<Item>,
    discount: Option<f64>,
    flags: BTreeMap<String, bool>,
    level: i8,
    #[llm(partial)]
    #[serde(with = "serde_llm::partial")]
    #[schemars(with = "String", extend("x-partial" = true))]
    summary: String,
}

// ----- values ---------------------------------------------------------------------

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "ada",
        "b",
        "lovelace",
        "x y",
        "with \"quotes\"",
        "tab\there",
        "é",
        "",
        "N/A",
        "12",
    ])
    .prop_map(str::to_owned)
}

fn item() -> impl Strategy<Value = Item> {
    (
        word(),
        0u32..5000,
        prop::sample::select(vec![0.0, 1.5, -2.25, 1e10, 0.1, 3.0]),
        prop::collection::vec(word(), 0..3),
        prop::option::of(word()),
    )
        .prop_map(|(name, qty, price, tags, note)| Item {
            name,
            qty,
            price,
            tags,
            note,
        })
}

fn order() -> impl Strategy<Value = Order> {
    (
        (0u64..u64::MAX, 0usize..3),
        (word(), prop::option::of(word()), any::<bool>()),
        prop::collection::vec(item(), 0..4),
        prop::option::of(prop::sample::select(vec![0.5, 10.0, 0.0])),
        prop::collection::btree_map(word(), any::<bool>(), 0..3),
        any::<i8>(),
        word(),
    )
        .prop_map(
            |((order_id, s), (user_name, email, vip), items, discount, flags, level, summary)| {
                Order {
                    order_id,
                    status: [Status::Open, Status::InProgress, Status::Done][s],
                    customer: Customer {
                        user_name,
                        email,
                        vip,
                    },
                    items,
                    discount,
                    flags,
                    level,
                    summary,
                }
            },
        )
}

// ----- writing a value the ways models do ------------------------------------------

/// A small deterministic generator of choices.
struct Choices(u64);

impl Choices {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.next() % n == 0
    }
}

/// `value` as a model might write it. `map`: the object is a map (its keys
/// are data, never restyled).
fn write(value: &Value, c: &mut Choices, out: &mut String, map: bool) {
    match value {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(if c.one_in(8) { " , " } else { ", " });
                }
                let key = if !map && c.one_in(4) {
                    camel(k)
                } else {
                    k.clone()
                };
                let bare = key
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                    && !key.is_empty();
                if bare && c.one_in(5) {
                    out.push_str(&key);
                } else if c.one_in(6) && !key.contains(['\'', '\\', '"']) {
                    out.push_str(&format!("'{key}'"));
                } else {
                    out.push_str(&serde_json::to_string(&key).unwrap());
                }
                out.push_str(": ");
                write(v, c, out, k == "flags");
            }
            if c.one_in(6) {
                out.push(',');
            }
            out.push('}');
        }
        Value::Array(a) => {
            if a.len() == 1 && c.one_in(3) {
                // One value for a list.
                return write(&a[0], c, out, false);
            }
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(v, c, out, false);
            }
            if c.one_in(6) && !a.is_empty() {
                out.push(',');
            }
            out.push(']');
        }
        Value::String(s) => {
            let variant = ["in_progress", "open", "done"].contains(&s.as_str());
            if variant && c.one_in(2) {
                let styled = match s.as_str() {
                    "in_progress" => "In Progress",
                    "open" => "OPEN",
                    _ => "Done",
                };
                out.push_str(&serde_json::to_string(styled).unwrap());
            } else if c.one_in(6) && !s.contains(['\'', '\\', '\n', '\t']) {
                out.push_str(&format!("'{s}'"));
            } else {
                out.push_str(&serde_json::to_string(s).unwrap());
            }
        }
        Value::Number(n) => match c.next() % 6 {
            0 => out.push_str(&format!("\"{n}\"")),
            1 if n.is_u64() => out.push_str(&format!("{n}.0")),
            _ => out.push_str(&n.to_string()),
        },
        Value::Bool(b) => match c.next() % 5 {
            0 => out.push_str(if *b { "\"yes\"" } else { "\"no\"" }),
            1 => out.push_str(if *b { "True" } else { "False" }),
            _ => out.push_str(&b.to_string()),
        },
        Value::Null => out.push_str(if c.one_in(3) { "None" } else { "null" }),
    }
}

fn camel(k: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for ch in k.chars() {
        if ch == '_' {
            up = true;
        } else if up {
            out.extend(ch.to_uppercase());
            up = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// The reply: the value written, maybe in prose and a fence, maybe cut.
fn reply(order: &Order, seed: u64, cut: Option<f64>) -> String {
    let mut c = Choices(seed | 1);
    let mut body = String::new();
    let value = serde_json::to_value(order).unwrap();
    // A member left out where its type allows (an `Option` that is `None`).
    let value = match value {
        Value::Object(m) if c.one_in(2) => Value::Object(
            m.into_iter()
                .filter(|(k, v)| !(v.is_null() && k == "discount"))
                .collect::<Map<String, Value>>(),
        ),
        v => v,
    };
    write(&value, &mut c, &mut body, false);
    let mut text = match c.next() % 3 {
        0 => body,
        1 => format!("Here is the order:\n```json\n{body}\n```\nAnything else?"),
        _ => format!("Sure! {body}"),
    };
    if let Some(f) = cut {
        let mut at = ((text.len() as f64) * f) as usize;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

// ----- the property ---------------------------------------------------------------

fn schema_decoder() -> &'static SchemaDecoder {
    static D: std::sync::OnceLock<SchemaDecoder> = std::sync::OnceLock::new();
    D.get_or_init(|| SchemaDecoder::of::<Order>().expect("Order's schema compiles"))
}

/// Both paths on `text`: the same value and report, or both an error of the
/// same kind.
fn agree(text: &str) -> Result<(), TestCaseError> {
    let typed = Decoder::new().decode_with_report::<Order>(text);
    let schema = schema_decoder().decode_with_report(text);
    match (typed, schema) {
        (Ok((t, tr)), Ok((v, sr))) => {
            let read =
                Order::deserialize(&v).map_err(|e| TestCaseError::fail(format!("{e}: {v}")))?;
            prop_assert_eq!(&read, &t, "{}", text);
            prop_assert_eq!(&sr, &tr, "{}", text);
        }
        (Err(t), Err(s)) => prop_assert_eq!(s.kind(), t.kind(), "{}: {} / {}", text, t, s),
        (t, s) => prop_assert!(false, "{text}\n typed: {t:?}\n schema: {s:?}"),
    }
    Ok(())
}

/// Both views of `text`: the schema's view read as `Order`'s view is the
/// typed view.
fn views_agree(text: &str) -> Result<(), TestCaseError> {
    let typed = Decoder::new().decode_partial::<Order>(text);
    let schema = schema_decoder().decode_partial(text);
    match (typed, schema) {
        (Ok(t), Ok(s)) => {
            let read = match &s {
                Some(v) => Some(
                    <Order as Partial>::View::deserialize(v)
                        .map_err(|e| TestCaseError::fail(format!("{e}: {v}")))?,
                ),
                None => None,
            };
            prop_assert_eq!(read, t, "{}: {:?}", text, s);
        }
        (Err(t), Err(s)) => prop_assert_eq!(s.kind(), t.kind(), "{}: {} / {}", text, t, s),
        (t, s) => prop_assert!(false, "{text}\n typed: {t:?}\n schema: {s:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_schema_path_gives_the_typed_paths_value_and_report(o in order(), seed in any::<u64>()) {
        agree(&reply(&o, seed, None))?;
        let valid = serde_json::to_string(&o).unwrap();
        agree(&valid)?;
        agree(&serde_json::to_string_pretty(&o).unwrap())?;
    }

    #[test]
    fn cut_off_replies_agree_too(o in order(), seed in any::<u64>(), f in 0.0f64..1.0) {
        agree(&reply(&o, seed, Some(f)))?;
    }

}

proptest! {
    // Every prefix of each reply: fewer replies.
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    #[test]
    fn the_views_agree_at_every_prefix(o in order(), seed in any::<u64>()) {
        let text = reply(&o, seed, None);
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            views_agree(&text[..end])?;
        }
    }
}

#[test]
fn a_known_reply_agrees() {
    let text = r#"Sure! {orderId: "42", status: 'In Progress', customer: {"userName": "ada", vip: "yes"},
        items: {"name": "flour", "qty": 2.0, "price": "1.5", tags: "baking"}, flags: {"rush": True},
        level: -3, summary: "ok",}"#;
    agree(text).unwrap();
    let (v, report) = schema_decoder().decode_with_report(text).unwrap();
    assert_eq!(v["items"][0]["tags"], serde_json::json!(["baking"]));
    let kinds: Vec<String> = report
        .coercions
        .iter()
        .map(|c| format!("{} {}", c.path, c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            "$.orderId field_name",
            "$.orderId string_to_number",
            "$.status enum_variant",
            "$.customer.userName field_name",
            "$.customer.vip to_bool",
            "$.items one_to_sequence",
            "$.items.qty float_to_integer",
            "$.items.price string_to_number",
            "$.items.tags one_to_sequence",
        ]
    );
}
