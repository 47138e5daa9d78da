//! Decodes a few recorded model replies into typed structs and prints each
//! value with the report of what was repaired and coerced.
//!
//! ```text
//! cargo run --example quickstart
//! ```

use serde::Deserialize;
use serde_llm::{Decoder, Report};

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // the fields are read through Debug
struct Verdict {
    label: String,
    score: f64,
    reasons: Vec<String>,
    #[serde(default)]
    escalate: bool,
    notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Invoice {
    invoice_no: String,
    customer: Customer,
    // May be cut off: the lines so far (a line cut off shows its complete
    // fields; a field cut off inside it is missing).
    #[serde(default, with = "serde_llm::partial")]
    lines: Vec<Line>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Customer {
    name: String,
    vat: String,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Line {
    sku: String,
    qty: u32,
    unit_price: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Task {
    id: u32,
    title: String,
    done: bool,
}

fn show<T: std::fmt::Debug>(name: &str, result: serde_llm::Result<(T, Report)>) {
    println!("== {name}");
    match result {
        Ok((value, report)) => {
            println!("{value:#?}");
            println!(
                "found by {:?} at bytes {}..{}, truncated: {}",
                report.strategy, report.span.start, report.span.end, report.truncated
            );
            for r in &report.repairs {
                println!("  repaired {:?} at byte {}", r.kind, r.offset);
            }
            for c in &report.coercions {
                println!(
                    "  coerced {:?} at {}: {} -> {}",
                    c.kind, c.path, c.written, c.used
                );
            }
        }
        Err(e) => println!("error: {e:#}"),
    }
    println!();
}

fn main() {
    let decoder = Decoder::new();
    show(
        "a fenced reply with JS-style mistakes",
        decoder.decode_with_report::<Verdict>(include_str!("replies/verdict_fenced.txt")),
    );
    show(
        "a reasoning block, then Python literals",
        decoder.decode_with_report::<Verdict>(include_str!("replies/verdict_python.txt")),
    );
    show(
        "values of the wrong type, as models write them",
        decoder.decode_with_report::<Verdict>(include_str!("replies/verdict_coerced.txt")),
    );
    show(
        "an invoice cut off mid-stream",
        decoder.decode_with_report::<Invoice>(include_str!("replies/invoice_truncated.txt")),
    );
    show(
        "one object per line, gathered into a Vec",
        decoder.decode_with_report::<Vec<Task>>(include_str!("replies/tasks_ndjson.txt")),
    );
    println!("== the same invoice as plain JSON");
    match serde_llm::repair(include_str!("replies/invoice_truncated.txt")) {
        Ok(json) => println!("{json}"),
        Err(e) => println!("error: {e:#}"),
    }
}
