//! The type is the prompt: the format instructions are built from the Rust
//! type the reply decodes into, the reply is decoded (with what had to be
//! repaired), checked against a contract, and what fails is sent back as
//! the retry turn. The "model" is two recorded replies, no network.
//!
//! ```text
//! cargo run --example typed_agent --features schema
//! ```

use schemars::JsonSchema;
use serde::Deserialize;
use serde_llm::{Contract, Decoder, Violations};

/// What to do with one customer email.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through Debug
struct Triage {
    /// Which team takes it.
    category: Category,
    /// 1 (urgent) to 5.
    priority: u8,
    /// One sentence for the ticket list.
    summary: String,
    tags: Vec<String>,
    /// What to do first.
    action: Action,
    /// A reply to send the customer now, if one is needed.
    reply: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Category {
    Billing,
    Shipping,
    Technical,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)] // read through Debug
enum Action {
    /// Give money back.
    Refund { amount: f64 },
    /// Hand over to a person.
    Escalate { team: String },
    /// The reply is enough.
    Answer,
}

/// What the type cannot say.
impl Contract for Triage {
    fn check(&self) -> Result<(), Violations> {
        let mut v = Violations::new();
        v.expect(
            (1..=5).contains(&self.priority),
            "$.priority",
            "a priority from 1 (urgent) to 5",
            &self.priority,
        );
        v.expect(
            !self.tags.is_empty(),
            "$.tags",
            "at least one tag",
            &self.tags,
        );
        if let Action::Refund { amount } = self.action {
            v.expect(
                amount > 0.0,
                "$.action.amount",
                "a positive amount",
                &amount,
            );
        }
        v.into_result()
    }
}

const EMAIL: &str = "My parcel says delivered but it never came. I paid 34.90 for it \
                     and I want my money back.";

/// The first reply, as models write it: a sentence, a fence, single quotes,
/// a trailing comma, the priority as a string, and a priority of 0 (which
/// the type accepts and the contract does not).
const FIRST_REPLY: &str = r#"Here is the triage for this email:

```json
{
  "category": "shipping",
  "priority": "0",
  "summary": "Parcel marked delivered but never received; customer asks for a refund.",
  "tags": ['lost parcel', 'refund'],
  "action": {"type": "refund", "amount": 34.90},
  "reply": "Sorry about your parcel! We have started a refund of 34.90.",
}
```

Let me know if you need anything else."#;

/// The second reply, after the feedback.
const SECOND_REPLY: &str = r#"```json
{"category": "shipping", "priority": 2, "summary": "Parcel marked delivered but never received; customer asks for a refund.", "tags": ["lost parcel", "refund"], "action": {"type": "refund", "amount": 34.90}, "reply": "Sorry about your parcel! We have started a refund of 34.90."}
```"#;

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    // The prompt: the task, then the format instructions built from the type.
    let prompt = format!(
        "Triage this customer email.\n\n{EMAIL}\n\n{}",
        serde_llm::prompt::<Triage>()
    );
    println!("--> user:\n{}\n", indent(&prompt));

    println!("<-- model:\n{}\n", indent(FIRST_REPLY));
    let decoder = Decoder::new().max_repairs(8);
    let (triage, report) = decoder
        .decode_with_report::<Triage>(FIRST_REPLY)
        .expect("the first reply decodes");
    println!("decoded ({:?}): {triage:#?}", report.strategy);
    for r in &report.repairs {
        println!("  repaired {:?} at byte {}", r.kind, r.offset);
    }
    for c in &report.coercions {
        println!(
            "  coerced {:?} at {}: {} -> {}",
            c.kind, c.path, c.written, c.used
        );
    }

    // The type is satisfied; the contract is not.
    let violations = triage.check().expect_err("priority 0 breaks the contract");
    let err = serde_llm::Error::from(violations);
    let feedback = err.feedback();
    assert_eq!(
        feedback,
        "$.priority: expected a priority from 1 (urgent) to 5, got 0"
    );
    println!("\nrejected: {err}\n");

    // The retry turn.
    let retry =
        format!("Your reply could not be used:\n{feedback}\nReply again with the corrected JSON.");
    println!("--> user:\n{}\n", indent(&retry));

    println!("<-- model:\n{}\n", indent(SECOND_REPLY));
    let (triage, report) = decoder
        .decode_checked_with_report::<Triage>(SECOND_REPLY)
        .expect("the second reply passes");
    println!(
        "accepted ({:?}, clean: {}): {triage:#?}",
        report.strategy,
        report.is_clean()
    );
    assert_eq!(triage.priority, 2);
    assert!(matches!(triage.action, Action::Refund { amount } if amount == 34.9));
}
