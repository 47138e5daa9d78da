//! What the test binaries share: reading a peer's corpus, the list of cases
//! we answer differently on purpose, value equality as the peers see it
//! (`tests/corpus.rs`, `tests/schema.rs`), what a prefix's value must be
//! to be consistent with the whole (`tests/trust.rs`, `tests/models.rs`), and
//! types without a partial view for atomic fields, and tool calls with
//! fields that may and may not be cut (`tests/derive.rs`, `tests/stream.rs`).
// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;

use serde_json::Value;

/// The records of `tests/corpus/{name}`, one JSON object per line.
pub fn corpus(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).expect("corpus line"))
        .collect()
}

/// `tests/corpus/{name}`: one case per line, its id then the reason we answer
/// differently; `#` starts a comment line. Every listed case needs a reason.
pub fn differences(name: &str) -> BTreeMap<String, String> {
    let path = format!("{}/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            assert!(
                !reason.trim().is_empty(),
                "{id}: a listed difference needs a reason"
            );
            (id.to_owned(), reason.trim().to_owned())
        })
        .collect()
}

/// Value equality as the peers' languages see it: numbers compare by value
/// (Python's `1 == 1.0`, JS has one number type).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// What a case's outcome says against the list `list` (its file name): a
/// listed case that now agrees, or an unlisted one that disagrees (with
/// `details`: the input, what was expected, what we gave), is unexpected.
pub fn unexpected(
    listed: &BTreeMap<String, String>,
    list: &str,
    id: &str,
    agree: bool,
    details: impl FnOnce() -> String,
) -> Option<String> {
    match (agree, listed.contains_key(id)) {
        (true, true) => Some(format!("{id} now agrees; remove it from {list}")),
        (false, false) => Some(format!("{id} disagrees\n{}", details())),
        _ => None,
    }
}

/// Fails with every unexpected outcome, one per paragraph.
pub fn assert_none_unexpected(unexpected: &[String]) {
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

/// Whether `part` (decoded from a prefix) is consistent with `whole`: equal,
/// or a prefix of it on the path to the cut (a string's prefix, a number's
/// digits so far, a container's complete members so far and one consistent
/// last one).
pub fn consistent(part: &Value, whole: &Value) -> bool {
    match (part, whole) {
        (Value::String(p), Value::String(w)) => w.starts_with(p.as_str()),
        (Value::Number(_), Value::Number(_)) => true,
        (Value::Array(p), Value::Array(w)) => {
            p.len() <= w.len()
                && p.iter().zip(w).enumerate().all(|(i, (a, b))| {
                    if i + 1 == p.len() {
                        consistent(a, b)
                    } else {
                        a == b
                    }
                })
        }
        (Value::Object(p), Value::Object(w)) => {
            let mut loose = 0;
            for (k, a) in p {
                match w.get(k) {
                    None => return false,
                    Some(b) if a == b => {}
                    Some(b) if consistent(a, b) => loose += 1,
                    Some(_) => return false,
                }
            }
            loose <= 1
        }
        (a, b) => a == b,
    }
}

/// A type from another crate, as `#[derive(Partial)]` sees one: `Deserialize` (by
/// hand, from a string such as `"12.50 EUR"`) but no `Partial`. A cut
/// string (`"12.5"`) does not parse: a view shows it only once complete.
#[derive(Debug, Clone, PartialEq)]
pub struct Money {
    pub cents: u64,
    pub currency: String,
}

impl<'de> serde::Deserialize<'de> for Money {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        let parse = || {
            let (amount, currency) = s.split_once(' ')?;
            let (units, cents) = amount.split_once('.')?;
            if cents.len() != 2 || currency.len() != 3 {
                return None;
            }
            let cents = units.parse::<u64>().ok()? * 100 + cents.parse::<u64>().ok()?;
            Some(Money {
                cents,
                currency: currency.to_owned(),
            })
        };
        parse().ok_or_else(|| serde::de::Error::custom(format!("not an amount: {s:?}")))
    }
}

pub fn eur(cents: u64) -> Money {
    Money {
        cents,
        currency: "EUR".into(),
    }
}

/// Another type without `Partial`, written as an object.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// Tool calls as models write them: an internally tagged enum with partial
/// fields (a string, a list of strings, a nested struct's field) beside
/// fields that must be complete (a string, a number, an atomic amount).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde_llm::Partial)]
#[serde(tag = "name", rename_all = "snake_case")]
pub enum Tool {
    Search {
        #[llm(partial)]
        query: String,
        limit: Option<u32>,
        lang: String,
        #[llm(partial)]
        filter: Filter,
    },
    Refund {
        #[llm(atomic)]
        amount: Money,
        #[llm(partial)]
        reason: String,
        #[llm(partial)]
        tags: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde_llm::Partial)]
pub struct Filter {
    #[llm(partial)]
    pub site: String,
    pub year: u32,
}

#[derive(Debug, PartialEq, serde::Deserialize, serde_llm::Partial)]
pub struct Tools {
    #[llm(partial)]
    pub calls: Vec<Tool>,
}

pub const TOOLS: &str = r#"{"calls": [{"name": "search", "query": "rust \"serde\"", "limit": 25, "lang": "en", "filter": {"site": "docs.rs", "year": 2024}},
  {"name": "refund", "amount": "12.50 EUR", "reason": "late delivery", "tags": ["late", "eu"]},
  {"name": "search", "lang": "fr", "filter": {"year": 2023, "site": "crates.io"}, "query": "crêpes"}]}"#;

/// `next` shows nothing that contradicts `prev`: what `prev` shows stays, a
/// partial string only grows, a partial list keeps its elements.
pub fn tool_grows(prev: &ToolView, next: &ToolView) -> bool {
    fn same<T: PartialEq>(prev: &Option<T>, next: &Option<T>) -> bool {
        prev.is_none() || prev == next
    }
    fn grows(prev: &Option<String>, next: &Option<String>) -> bool {
        match (prev, next) {
            (None, _) => true,
            (Some(p), Some(n)) => n.starts_with(p.as_str()),
            (Some(_), None) => false,
        }
    }
    fn list_grows(prev: &Option<Vec<String>>, next: &Option<Vec<String>>) -> bool {
        match (prev, next) {
            (None, _) => true,
            (Some(p), Some(n)) => {
                p.len() <= n.len()
                    && p.iter().zip(n).enumerate().all(|(i, (a, b))| {
                        a == b || (i + 1 == p.len() && b.starts_with(a.as_str()))
                    })
            }
            (Some(_), None) => false,
        }
    }
    match (prev, next) {
        (
            ToolView::Search {
                query,
                limit,
                lang,
                filter,
            },
            ToolView::Search {
                query: q,
                limit: l,
                lang: g,
                filter: f,
            },
        ) => {
            let filter = match (filter, f) {
                (None, _) => true,
                (Some(p), Some(n)) => grows(&p.site, &n.site) && same(&p.year, &n.year),
                (Some(_), None) => false,
            };
            grows(query, q) && same(limit, l) && same(lang, g) && filter
        }
        (
            ToolView::Refund {
                amount,
                reason,
                tags,
            },
            ToolView::Refund {
                amount: a,
                reason: r,
                tags: t,
            },
        ) => same(amount, a) && grows(reason, r) && list_grows(tags, t),
        _ => false,
    }
}
