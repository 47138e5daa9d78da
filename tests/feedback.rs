//! `Error::feedback()`: the text sent back to the model in a retry turn, on
//! real-shaped failures. Each assertion is the exact text.

use serde::Deserialize;
use serde_llm::{from_llm_str, Contract, Decoder, Violations};

fn feedback<'de, T: Deserialize<'de> + std::fmt::Debug>(text: &'de str) -> String {
    match from_llm_str::<T>(text) {
        Ok(v) => panic!("accepted {text:?} as {v:?}"),
        Err(e) => e.feedback(),
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Verdict {
    label: String,
    score: f64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Status {
    Open,
    Closed,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Ticket {
    id: u32,
    status: Status,
    rating: u8,
    tags: Vec<String>,
    assignee: Option<Person>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Person {
    name: String,
    email: String,
}

#[test]
fn wrong_types_name_what_was_expected_and_what_came() {
    assert_eq!(
        feedback::<Verdict>(r#"{"label": "spam", "score": "high"}"#),
        r#"$.score: expected a number, got "high""#
    );
    assert_eq!(
        feedback::<Verdict>(r#"{"label": null, "score": 1}"#),
        "$.label: expected a string, got null"
    );
    // (By default an object where a string is wanted is its text: a
    // coercion, `JsonToString`. Denied, it is an error.)
    let denied = serde_llm::Decoder::new().deny(serde_llm::CoercionKind::JsonToString);
    assert_eq!(
        denied
            .decode::<Verdict>(r#"{"label": {"text": "spam"}, "score": 1}"#)
            .unwrap_err()
            .feedback(),
        "$.label: expected a string, got an object"
    );
    assert_eq!(
        feedback::<Vec<bool>>(r#"[true, "perhaps"]"#),
        r#"$[1]: expected true or false, got "perhaps""#
    );
}

/// A long string where it does not belong (a whole answer where a number
/// is wanted) is quoted by its start and its length: the error holds no
/// copy of it, and the model is not sent its own text back whole. Its path
/// is found as for a short one, inside serde's buffered content too.
#[test]
fn a_long_string_is_quoted_by_its_start() {
    let long = "The score is high because ".repeat(40);
    let text = format!(r#"{{"label": "spam", "score": "{long}"}}"#);
    let start: String = long.chars().take(100).collect();
    assert_eq!(
        feedback::<Verdict>(&text),
        format!("$.score: expected a number, got \"{start}\"… (1040 bytes)")
    );
    let e = from_llm_str::<Verdict>(&text).unwrap_err();
    assert_eq!(
        e.message(),
        format!("invalid type: string \"{start}\"… (1040 bytes), expected f64")
    );
    // Inside an internally tagged enum, which serde buffers.
    #[derive(Debug, Deserialize)]
    #[serde(tag = "tool")]
    #[allow(dead_code)]
    enum Call {
        Rate { label: String, score: f64 },
    }
    let text = format!(r#"{{"tool": "Rate", "label": "spam", "score": "{long}"}}"#);
    let e = from_llm_str::<Call>(&text).unwrap_err();
    assert_eq!(e.path(), "$.score");
    // 200 bytes and less are quoted whole.
    let short = "x".repeat(200);
    let text = format!(r#"{{"label": "spam", "score": "{short}"}}"#);
    assert_eq!(
        feedback::<Verdict>(&text),
        format!("$.score: expected a number, got \"{short}\"")
    );
}

#[test]
fn numbers_out_of_range_give_the_range() {
    let ticket = |id: &str, rating: &str| {
        format!(r#"{{"id": {id}, "status": "open", "rating": {rating}, "tags": []}}"#)
    };
    assert_eq!(
        feedback::<Ticket>(&ticket("1", "300")),
        "$.rating: expected an integer from 0 to 255, got 300"
    );
    assert_eq!(
        feedback::<Ticket>(&ticket("-4", "3")),
        "$.id: expected a non-negative integer, got -4"
    );
    assert_eq!(
        feedback::<Ticket>(&ticket("2.5", "3")),
        "$.id: expected a non-negative integer, got 2.5"
    );
}

#[test]
fn enums_list_the_allowed_values() {
    assert_eq!(
        feedback::<Ticket>(r#"{"id": 1, "status": "pending", "rating": 3, "tags": []}"#),
        r#"$.status: expected one of "open", "closed", got "pending""#
    );
}

#[test]
fn missing_unknown_and_duplicate_fields() {
    assert_eq!(
        feedback::<Verdict>(r#"{"score": 0.5}"#),
        r#"$: missing required field "label""#
    );
    assert_eq!(
        feedback::<Vec<Ticket>>(
            r#"[{"id": 1, "status": "open", "rating": 3, "tags": []}, {"id": 2, "status": "open", "tags": []}]"#
        ),
        r#"$[1]: missing required field "rating""#
    );
    assert_eq!(
        feedback::<Ticket>(
            r#"{"id": 1, "status": "open", "rating": 3, "tags": [], "assignee": {"name": "a", "email": "b", "phone": "c"}}"#
        ),
        r#"$.assignee.phone: unknown field "phone"; the fields are "name", "email""#
    );
    assert_eq!(
        feedback::<Verdict>(r#"{"label": "a", "label": "b", "score": 1}"#),
        r#"$: the field "label" appears twice"#
    );
}

#[test]
fn lists_of_the_wrong_length() {
    assert_eq!(
        feedback::<(f64, f64)>("[1]"),
        "$: expected a list of 2 values, got 1 value"
    );
    assert_eq!(
        feedback::<(f64, f64)>("[1, 2, 3]"),
        "$: the list has more values than expected"
    );
}

#[test]
fn a_reply_cut_off_or_without_json() {
    assert_eq!(
        feedback::<Verdict>(r#"{"score": 0.5, "label": "sp"#),
        "$.label: the reply is cut off here; send the complete JSON"
    );
    assert_eq!(
        feedback::<Verdict>("I cannot help with that."),
        "$: expected a JSON object, found prose (looked for a bare value, ```json fences, <json> tags, and {…} spans); reply with the JSON value only"
    );
}

#[test]
fn strict_mode_names_the_repair_it_refused() {
    let e = Decoder::strict()
        .decode::<Verdict>("{\"label\": \"a\",\n \"score\": 1,}")
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "line 2, column 12: a trailing comma is not valid JSON"
    );
    let e = Decoder::strict()
        .decode::<Ticket>(r#"{"id": 1, "status": "open", "rating": 3, "tags": ['a']}"#)
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "$.tags: a string not in double quotes is not valid JSON"
    );
}

#[test]
fn a_rejected_reply_lists_every_fix() {
    let e = Decoder::new()
        .max_repairs(0)
        .decode::<Verdict>("{\"label\": 'spam',\n \"score\": \"0.9\"}")
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "line 1, column 11: a string not in double quotes\n\
         $.score: a number written as a string (wrote \"0.9\", meant 0.9)"
    );
}

#[derive(Debug, Deserialize)]
struct Order {
    items: Vec<Line>,
    total: f64,
}

#[derive(Debug, Deserialize)]
struct Line {
    sku: String,
    qty: u32,
    price: f64,
}

impl Contract for Line {
    fn check(&self) -> Result<(), Violations> {
        let mut v = Violations::new();
        v.expect(self.qty > 0, "$.qty", "a quantity of at least 1", &self.qty);
        v.expect(!self.sku.is_empty(), "$.sku", "a non-empty SKU", &self.sku);
        v.into_result()
    }
}

impl Contract for Order {
    fn check(&self) -> Result<(), Violations> {
        let mut v = Violations::new();
        for (i, line) in self.items.iter().enumerate() {
            v.nest(format!("$.items[{i}]"), line.check());
        }
        let sum: f64 = self.items.iter().map(|l| l.price * f64::from(l.qty)).sum();
        v.expect(
            (sum - self.total).abs() < 0.005,
            "$.total",
            format_args!("the sum of the lines, {sum:.2}"),
            &self.total,
        );
        v.into_result()
    }
}

#[test]
fn contract_violations_one_per_line() {
    let reply = r#"```json
{"items": [{"sku": "A-1", "qty": 2, "price": 1.5}, {"sku": "", "qty": 0, "price": 4}], "total": 7}
```"#;
    let e = Decoder::new().decode_checked::<Order>(reply).unwrap_err();
    assert_eq!(e.kind(), serde_llm::ErrorKind::Contract);
    assert_eq!(e.violations().len(), 3);
    assert_eq!(
        e.feedback(),
        "$.items[1].qty: expected a quantity of at least 1, got 0\n\
         $.items[1].sku: expected a non-empty SKU, got \"\"\n\
         $.total: expected the sum of the lines, 3.00, got 7.0"
    );
}
