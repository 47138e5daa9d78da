//! A retry loop with a contract: decode the model's reply, check it, and when
//! it fails send `Error::feedback()` back and ask again. The "model" here is
//! scripted: three recorded replies, no network.
//!
//! ```text
//! cargo run --example contract_retry
//! ```

use serde::Deserialize;
use serde_llm::{Contract, Decoder, Violations};

/// What we ask the model for.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read through Debug
struct Triage {
    category: Category,
    priority: u8,
    summary: String,
    tags: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Category {
    Billing,
    Technical,
    Account,
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
            !self.summary.is_empty() && self.summary.len() <= 200,
            "$.summary",
            "a summary of 1 to 200 characters",
            &self.summary,
        );
        v.expect(
            !self.tags.is_empty(),
            "$.tags",
            "at least one tag",
            &self.tags,
        );
        v.into_result()
    }
}

/// A stand-in for a chat model: answers each turn with the next recorded reply.
struct ScriptedModel {
    replies: Vec<&'static str>,
    turn: usize,
}

impl ScriptedModel {
    fn reply(&mut self, prompt: &str) -> &'static str {
        println!("--> user:\n{}\n", indent(prompt));
        let reply = self.replies[self.turn];
        self.turn += 1;
        println!("<-- model:\n{}\n", indent(reply));
        reply
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    let mut model = ScriptedModel {
        replies: vec![
            include_str!("replies/triage_1.txt"),
            include_str!("replies/triage_2.txt"),
            include_str!("replies/triage_3.txt"),
        ],
        turn: 0,
    };
    // Repairs and coercions are fine, within reason.
    let decoder = Decoder::new().max_repairs(8);
    let mut prompt = "Triage this ticket as JSON {category, priority, summary, tags}: \
                      \"My parcel says delivered but it never came. I want my money back.\""
        .to_owned();
    let mut accepted = None;
    for attempt in 1..=4 {
        let reply = model.reply(&prompt);
        match decoder.decode_checked_with_report::<Triage>(reply) {
            Ok((triage, report)) => {
                println!("accepted on attempt {attempt}: {triage:#?}");
                for c in &report.coercions {
                    println!(
                        "  coerced {:?} at {}: {} -> {}",
                        c.kind, c.path, c.written, c.used
                    );
                }
                for r in &report.repairs {
                    println!("  repaired {:?} at byte {}", r.kind, r.offset);
                }
                accepted = Some(triage);
                break;
            }
            Err(e) => {
                println!("rejected on attempt {attempt} ({:?}): {e}\n", e.kind());
                prompt = format!(
                    "Your reply could not be used:\n{}\nReply again with the corrected JSON.",
                    e.feedback()
                );
            }
        }
    }
    let triage = accepted.expect("the third reply passes");
    assert!(matches!(triage.category, Category::Billing));
    assert_eq!(triage.priority, 2);
}
