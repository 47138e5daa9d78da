//! The partial policy on replies cut off at every possible point.
//!
//! Views here are written by hand (plain `#[derive(Deserialize)]` with
//! `#[serde(default, with = "serde_llm::partial")]` on the fields that may
//! grow), so this file tests the policy without the derive. For every byte
//! prefix of real-shaped documents: no error, no panic; nothing shown is later
//! contradicted (a complete field never changes, a partial string only grows,
//! a partial array never loses an element); the whole document's view equals
//! the full decode.

use serde::Deserialize;
use serde_json::{json, Value};
use serde_llm::{Allow, Decoder, ErrorKind, Partial, View};

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
struct RecipeView {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default, with = "serde_llm::partial")]
    intro: Option<String>,
    #[serde(default)]
    servings: Option<u32>,
    #[serde(default)]
    vegan: Option<bool>,
    #[serde(default)]
    rating: Option<f64>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default, with = "serde_llm::partial")]
    steps: Option<Vec<StepView>>,
    #[serde(default)]
    source: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
struct StepView {
    #[serde(default)]
    n: Option<u32>,
    #[serde(default, with = "serde_llm::partial")]
    text: Option<String>,
    #[serde(default)]
    minutes: Option<f64>,
}

/// A stand-in for a derived type whose view is `RecipeView`.
struct Recipe;

impl Partial for Recipe {
    type View = RecipeView;
}
impl View for RecipeView {}

const RECIPE: &str = r#"Here is the recipe you asked for:
```json
{
  "id": 1042,
  "title": "Crème brûlée — \"classic\"",
  "intro": "A custard with a burnt-sugar top.\nServe cold; café au lait on the side ☕. 焦糖布丁!",
  "servings": 6,
  "vegan": false,
  "rating": -4.5e-1,
  "tags": ["dessert", "French", "égal"],
  "steps": [
    {"n": 1, "text": "Heat the cream to 80 \u00b0C.", "minutes": 10},
    {"n": 2, "text": "Whisk yolks \u0026 sugar: \"pale\" not foamy 😀.", "minutes": 3.5},
    {"n": 3, "text": "Bake in a bain-marie.", "minutes": 40}
  ],
  "source": {"book": null, "url": "https://example.com/brûlée", "verified": true}
}
```
Enjoy!"#;

const LIST: &str = r#"{"steps": [{"n": 10, "text": "a\tb", "minutes": 0.25}, {"n": 11, "text": "", "minutes": 1e2}, {"n": 12, "text": "\\ and \/ and \ud83d\ude00"}], "title": "x"}"#;

/// Every prefix of `text` at a char boundary (every byte prefix, where the
/// text is ASCII).
fn prefixes(text: &str) -> impl Iterator<Item = &str> {
    (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .map(|i| &text[..i])
}

fn grows(prev: &Option<String>, next: &Option<String>) -> bool {
    match (prev, next) {
        (None, _) => true,
        (Some(p), Some(n)) => n.starts_with(p.as_str()),
        (Some(_), None) => false,
    }
}

fn stays<T: PartialEq>(prev: &Option<T>, next: &Option<T>) -> bool {
    prev.is_none() || prev == next
}

fn step_consistent(prev: &StepView, next: &StepView) -> bool {
    stays(&prev.n, &next.n) && stays(&prev.minutes, &next.minutes) && grows(&prev.text, &next.text)
}

/// Nothing `prev` showed is contradicted by `next`.
fn consistent(prev: &RecipeView, next: &RecipeView) -> Result<(), String> {
    let checks = [
        ("id", stays(&prev.id, &next.id)),
        ("title", stays(&prev.title, &next.title)),
        ("intro", grows(&prev.intro, &next.intro)),
        ("servings", stays(&prev.servings, &next.servings)),
        ("vegan", stays(&prev.vegan, &next.vegan)),
        ("rating", stays(&prev.rating, &next.rating)),
        ("tags", stays(&prev.tags, &next.tags)),
        ("source", stays(&prev.source, &next.source)),
        (
            "steps",
            match (&prev.steps, &next.steps) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(p), Some(n)) => {
                    n.len() >= p.len()
                        && p.iter().zip(n).enumerate().all(|(i, (a, b))| {
                            // Earlier elements are complete: fixed. The last
                            // one may still be growing.
                            if i + 1 < p.len() {
                                a == b
                            } else {
                                step_consistent(a, b)
                            }
                        })
                }
            },
        ),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        Some((field, _)) => Err(format!("{field} changed: {prev:?} -> {next:?}")),
        None => Ok(()),
    }
}

/// The view of every prefix of `doc`, each consistent with the one
/// before: the last one, and how many times the view changed.
fn views_grow(doc: &str) -> (RecipeView, usize) {
    let mut prev = RecipeView::default();
    let mut shown = 0;
    for prefix in prefixes(doc) {
        let view = serde_llm::from_llm_str_partial::<Recipe>(prefix)
            .unwrap_or_else(|e| panic!("prefix {prefix:?}: {e}"))
            .unwrap_or_default();
        if let Err(e) = consistent(&prev, &view) {
            panic!("at prefix {prefix:?}: {e}");
        }
        shown += usize::from(view != prev);
        prev = view;
    }
    (prev, shown)
}

fn every_prefix_is_consistent(doc: &str) {
    let (prev, shown) = views_grow(doc);
    // The whole document's view is the full decode (serde_json reads the
    // same view type from the JSON alone).
    let json = &doc[doc.find('{').unwrap()..=doc.rfind('}').unwrap()];
    assert_eq!(prev, serde_json::from_str::<RecipeView>(json).unwrap());
    assert!(shown > 10, "the view grew {shown} times");
}

#[test]
fn recipe_every_prefix() {
    every_prefix_is_consistent(RECIPE);
}

#[test]
fn steps_with_escapes_every_prefix() {
    every_prefix_is_consistent(LIST);
}

/// Commas missing at the ends of lines (after strings, numbers, lists), as
/// models drop them: at every prefix the view only grows. While the next
/// key has not arrived with its colon, the string before it is as cut as it
/// is at its quote (read as an inner quote, its text would be taken back
/// once the colon came).
#[test]
fn missing_commas_every_prefix() {
    let doc = r#"{
  "id": 7
  "title": "Bread"
  "intro": "Mix \"well\""
  "tags": ["a", "b"]
  "steps": [
    {"n": 1, "text": "Knead" "minutes": 10}
    {"n": 2, "text": "Bake"}
  ]
  "source": {"book": "Home"}
}"#;
    let (prev, _) = views_grow(doc);
    let commas = doc
        .replace("7\n", "7,\n")
        .replace("\"\n  \"", "\",\n  \"")
        .replace("]\n  \"", "],\n  \"")
        .replace("\" \"min", "\", \"min")
        .replace("}\n    {", "},\n    {");
    assert_eq!(prev, serde_json::from_str::<RecipeView>(&commas).unwrap());
    assert_eq!(prev.intro.as_deref(), Some("Mix \"well\""));
    assert_eq!(prev.steps.as_ref().map(Vec::len), Some(2));
}

#[test]
fn what_a_cut_reply_shows() {
    let cut = |at: &str| {
        let end = RECIPE.find(at).unwrap() + at.len();
        serde_llm::from_llm_str_partial::<Recipe>(&RECIPE[..end])
            .unwrap()
            .unwrap()
    };
    // A title cut mid-string is not shown (it is not marked partial) ...
    assert_eq!(cut(r#""title": "Crème br"#).title, None);
    // ... the intro is (it is), without the cut escape.
    let v = cut(r#"burnt-sugar top.\n"#);
    assert_eq!(
        v.intro.as_deref(),
        Some("A custard with a burnt-sugar top.\n")
    );
    let v = cut(r#"burnt-sugar top.\"#);
    assert_eq!(
        v.intro.as_deref(),
        Some("A custard with a burnt-sugar top.")
    );
    // A number touching the end may go on: not shown until a delimiter.
    assert_eq!(cut(r#""servings": 6"#).servings, None);
    // A comma right after it at the end: digit groups may follow (`6,000`).
    assert_eq!(cut(r#""servings": 6,"#).servings, None);
    assert_eq!(cut("\"servings\": 6,\n").servings, Some(6));
    assert_eq!(cut(r#""vegan": fal"#).vegan, None);
    assert_eq!(cut(r#""rating": -4.5e-"#).rating, None);
    // A non-partial array appears only once complete.
    assert_eq!(cut(r#""French", "ég"#).tags, None);
    // The steps so far; the one being written shows its complete fields and
    // the text so far.
    let v = cut(r#"{"n": 2, "text": "Whisk yolks"#);
    let steps = v.steps.unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].minutes, Some(10.0));
    assert_eq!(
        steps[1],
        StepView {
            n: Some(2),
            text: Some("Whisk yolks".into()),
            minutes: None
        }
    );
}

/// The three cases partial-json-parser users report most.
#[test]
fn cut_unicode_escape_number_and_key() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Doc {
        #[serde(default, with = "serde_llm::partial")]
        text: Option<String>,
        #[serde(default, with = "serde_llm::partial")]
        values: Option<Vec<u32>>,
        a: Option<u32>,
        b: Option<u32>,
    }
    let doc = |text: &str| serde_llm::from_llm_str::<Doc>(text).unwrap();
    // A cut \uXXXX escape is dropped, never garbled.
    for cut in [
        r#"{"text": "caf\"#,
        r#"{"text": "caf\u"#,
        r#"{"text": "caf\u00e"#,
    ] {
        assert_eq!(doc(cut).text.as_deref(), Some("caf"), "{cut}");
    }
    assert_eq!(doc(r#"{"text": "caf\u00e9"#).text.as_deref(), Some("café"));
    // A number cut at the end of an array is not an element yet.
    assert_eq!(doc(r#"{"values": [1, 2, 3"#).values, Some(vec![1, 2]));
    assert_eq!(doc(r#"{"values": [1, 2, 3 "#).values, Some(vec![1, 2, 3]));
    assert_eq!(doc(r#"{"values": [1, 2, 3,"#).values, Some(vec![1, 2, 3]));
    // A key with no value yet is not a member yet.
    for cut in [
        r#"{"a": 1, "b"#,
        r#"{"a": 1, "b""#,
        r#"{"a": 1, "b":"#,
        r#"{"a": 1, "b": "#,
    ] {
        let d = doc(cut);
        assert_eq!((d.a, d.b), (Some(1), None), "{cut}");
    }
    // The same through the untyped path, with numbers not allowed to be cut.
    let strict = Decoder::new().allow_partial(Allow::ALL.without(Allow::NUM));
    let value = |text: &str| strict.decode::<Value>(text).unwrap();
    assert_eq!(value(r#"{"text": "caf\u00"#), json!({"text": "caf"}));
    assert_eq!(value("[1, 2, 3"), json!([1, 2]));
    assert_eq!(value(r#"{"a": 1, "b":"#), json!({"a": 1}));
}

/// Without a view, a required field cut off is an error naming it; an
/// `Option` field cut off is `None`.
#[test]
fn required_field_cut_off_is_a_truncated_error() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        id: u64,
        title: String,
        steps: Vec<StepView>,
    }
    let err = serde_llm::from_llm_str::<Strict>(r#"{"id": 1, "title": "Crè"#).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.path(), "$.title");
    let err = serde_llm::from_llm_str::<Strict>(r#"{"id": 1, "title": "x", "steps": [{"n": 1}"#)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.path(), "$.steps");
    // Cut off before a required field: the cut's doing (the model may have
    // been about to write it), not a field the model forgot.
    let err = serde_llm::from_llm_str::<Strict>(r#"{"id": 1, "title": "x""#).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(
        err.message(),
        "the reply was cut off before the required field `steps`"
    );
    assert!(err.report().is_some_and(|r| r.truncated));
    // Complete without it: the model's.
    let err = serde_llm::from_llm_str::<Strict>(r#"{"id": 1, "title": "x"}"#).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data);
    assert_eq!(err.message(), "missing field `steps`");
}

/// Untyped values: with every kind allowed, the reply is completed; with
/// fewer kinds, what is shown is never contradicted later.
#[test]
fn untyped_every_prefix() {
    fn grows(prev: &Value, next: &Value) -> bool {
        match (prev, next) {
            (Value::String(p), Value::String(n)) => n.starts_with(p.as_str()),
            (Value::Array(p), Value::Array(n)) => {
                n.len() >= p.len()
                    && p.iter().zip(n).enumerate().all(|(i, (a, b))| {
                        if i + 1 < p.len() {
                            a == b
                        } else {
                            grows(a, b)
                        }
                    })
            }
            (Value::Object(p), Value::Object(n)) => {
                p.iter().all(|(k, v)| n.get(k).is_some_and(|w| grows(v, w)))
            }
            _ => prev == next,
        }
    }
    let json = &RECIPE[RECIPE.find('{').unwrap()..=RECIPE.rfind('}').unwrap()];
    let decoder = Decoder::new().allow_partial(Allow::STR | Allow::ARR | Allow::OBJ);
    let mut prev: Option<Value> = None;
    for prefix in prefixes(json) {
        match decoder.decode::<Value>(prefix) {
            Ok(value) => {
                if let Some(p) = &prev {
                    assert!(grows(p, &value), "{prefix:?}: {p} -> {value}");
                }
                prev = Some(value);
            }
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::NoJson | ErrorKind::Truncated),
                "{prefix:?}: {e}"
            ),
        }
        // Every kind allowed: the reply is always completed to something.
        if !prefix.trim().is_empty() {
            Decoder::new()
                .decode::<Value>(prefix)
                .unwrap_or_else(|e| panic!("{prefix:?}: {e}"));
        }
    }
    assert_eq!(prev, Some(serde_json::from_str::<Value>(json).unwrap()));
}

/// Tool calls: an internally tagged enum, which serde reads from content it
/// buffers, without the decoder's markers. Partial fields say so with
/// `serde_llm::partial`; the others (`lang`, `amount`) must be complete.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(tag = "name", rename_all = "snake_case")]
enum Call {
    Search {
        #[serde(default, with = "serde_llm::partial")]
        query: String,
        limit: Option<u32>,
        lang: String,
    },
    Refund {
        amount: String,
        #[serde(default, with = "serde_llm::partial")]
        reason: String,
        #[serde(default, with = "serde_llm::partial")]
        tags: Vec<String>,
        note: Option<String>,
    },
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Calls {
    #[serde(default, with = "serde_llm::partial")]
    calls: Vec<Call>,
}

const CALLS: &str = r#"{"calls": [{"name": "search", "query": "rust serde", "limit": 25, "lang": "en"},
  {"name": "refund", "amount": "12.50 EUR", "reason": "late \"express\" delivery", "tags": ["late", "eu"], "note": "ok"},
  {"name": "search", "lang": "fr", "limit": 3, "query": "crêpes"}]}"#;

/// Whether `cut`, a call the reply was cut inside, agrees with `full`: its
/// partial fields are prefixes (a list's elements complete but the last),
/// every other field is as written or, for an `Option`, missing.
fn call_agrees(cut: &Call, full: &Call) -> bool {
    fn opt<T: PartialEq>(cut: &Option<T>, full: &Option<T>) -> bool {
        cut.is_none() || cut == full
    }
    let prefix = |cut: &str, full: &str| full.starts_with(cut);
    match (cut, full) {
        (
            Call::Search { query, limit, lang },
            Call::Search {
                query: q,
                limit: l,
                lang: g,
            },
        ) => prefix(query, q) && opt(limit, l) && lang == g,
        (
            Call::Refund {
                amount,
                reason,
                tags,
                note,
            },
            Call::Refund {
                amount: a,
                reason: r,
                tags: t,
                note: n,
            },
        ) => {
            let tags_agree = tags.len() <= t.len()
                && tags.iter().zip(t).enumerate().all(|(i, (cut, full))| {
                    cut == full || (i + 1 == tags.len() && prefix(cut, full))
                });
            amount == a && prefix(reason, r) && tags_agree && opt(note, n)
        }
        _ => false,
    }
}

/// For every prefix of a reply with tool calls in a list marked partial,
/// the typed decode is a value the reply agrees with: the complete calls as
/// written, and the cut last call only if its fields not marked partial
/// are complete (`amount` cut at `"12.5` is never `12.5`, `limit` cut at
/// `2` is never 2). Before this held, the last call took every cut string.
#[test]
fn tool_calls_in_a_list_marked_partial_every_prefix() {
    calls_every_prefix(CALLS);
}

/// [`tool_calls_in_a_list_marked_partial_every_prefix`] for `doc`.
fn calls_every_prefix(doc: &str) {
    let full: Calls = serde_llm::from_llm_str(doc).unwrap();
    let total = full.calls.len();
    let mut shown = 0;
    for end in (doc.find('[').unwrap() + 1..=doc.len()).filter(|&i| doc.is_char_boundary(i)) {
        let text = &doc[..end];
        let got: Calls = match serde_llm::from_llm_str(text) {
            Ok(got) => got,
            // Cut inside a string after closers that close every container
            // (`{"a": "b}`): that also reads as a complete reply missing one
            // quote, so neither the string nor the call around it is known
            // complete: an error, not a guess.
            Err(e) if text.trim_end().ends_with(['}', ']']) => {
                assert!(
                    matches!(e.kind(), ErrorKind::Truncated | ErrorKind::Data),
                    "{text:?}: {e}"
                );
                continue;
            }
            Err(e) => panic!("{text:?}: {e}"),
        };
        let n = got.calls.len();
        assert!(
            n <= total && n + 1 >= shown,
            "{text:?}: {n} calls after {shown}"
        );
        for (i, call) in got.calls.iter().enumerate() {
            match i + 1 < n {
                true => assert_eq!(call, &full.calls[i], "{text:?}"),
                false => assert!(call_agrees(call, &full.calls[i]), "{text:?}: {call:?}"),
            }
        }
        shown = n;
    }
    assert_eq!(shown, total);
}

fn call() -> impl proptest::strategy::Strategy<Value = Call> {
    use proptest::prelude::*;
    // Text with what breaks a scanner: quotes, backslashes, commas and
    // brackets, a multi-byte character.
    let text = || "[a-z \"\\\\,\\]{}é]{0,12}";
    prop_oneof![
        (text(), proptest::option::of(0u32..100_000), text())
            .prop_map(|(query, limit, lang)| { Call::Search { query, limit, lang } }),
        (
            text(),
            text(),
            proptest::collection::vec(text(), 0..4),
            proptest::option::of(text())
        )
            .prop_map(|(amount, reason, tags, note)| Call::Refund {
                amount,
                reason,
                tags,
                note
            }),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48),
        ..Default::default()
    })]

    /// Generated lists of tool calls, written compact and pretty: every
    /// prefix agrees with the whole.
    #[test]
    fn generated_tool_calls_every_prefix(
        calls in proptest::collection::vec(call(), 1..4),
        pretty in proptest::bool::ANY,
    ) {
        let doc = Calls { calls };
        let text = match pretty {
            true => serde_json::to_string_pretty(&doc).unwrap(),
            false => serde_json::to_string(&doc).unwrap(),
        };
        calls_every_prefix(&text);
    }
}

/// Cut inside a call's field that is not partial: the call is left out of
/// the list (its other calls kept); a call at the root is an error.
#[test]
fn a_tool_call_cut_in_a_field_not_marked_partial() {
    let text = r#"{"calls": [{"name": "search", "query": "a", "lang": "en"}, {"name": "refund", "amount": "12.5"#;
    let got: Calls = serde_llm::from_llm_str(text).unwrap();
    assert_eq!(
        got.calls,
        vec![Call::Search {
            query: "a".into(),
            limit: None,
            lang: "en".into()
        }]
    );
    // `note` is an `Option`, but a cut note is not a note.
    let text = r#"{"calls": [{"name": "refund", "amount": "1 EUR", "note": "not refunda"#;
    let got: Calls = serde_llm::from_llm_str(text).unwrap();
    assert_eq!(got.calls, vec![]);
    // At the root, serde reads a call from its buffer all the same: a cut
    // field there is missing (an `Option`) or, required, a `Truncated`
    // error naming it, never a value.
    let e = serde_llm::from_llm_str::<Call>(r#"{"name": "refund", "amount": "12.5"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    assert!(
        e.to_string()
            .starts_with("the reply was cut off before the required field `amount`"),
        "{e}"
    );
    let got: Call =
        serde_llm::from_llm_str(r#"{"name": "search", "lang": "en", "limit": 2"#).unwrap();
    assert_eq!(
        got,
        Call::Search {
            query: String::new(),
            limit: None,
            lang: "en".into()
        }
    );
}

/// `{"a": "b}` is a reply missing one quote or one cut off inside the
/// string after `}`: `repair()` and an untyped decode take the first
/// reading; a typed field not marked partial does not take a string whose
/// end is a guess, and a call around it is left out of its list.
#[test]
fn a_string_ended_at_a_closer_is_not_known_complete() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct A {
        a: String,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct P {
        #[serde(default, with = "serde_llm::partial")]
        a: String,
    }
    let text = r#"{"a": "b}"#;
    assert_eq!(serde_llm::repair(text).unwrap(), r#"{"a":"b"}"#);
    assert_eq!(
        serde_llm::from_llm_str::<Value>(text).unwrap(),
        json!({"a": "b"})
    );
    let e = serde_llm::from_llm_str::<A>(text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    assert_eq!(
        serde_llm::from_llm_str::<P>(text).unwrap(),
        P { a: "b".into() }
    );
    let cut = r#"{"calls": [{"name": "refund", "amount": "12.50}]}"#;
    assert_eq!(
        serde_llm::from_llm_str::<Calls>(cut).unwrap(),
        Calls { calls: vec![] }
    );
}
