//! Decodes a few recorded model replies into typed structs and prints each
//! reply beside its value and the report of what was repaired and coerced
//! (`Report::display`: each repair with its line, column and a snippet).
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

/// Prints the reply, then the value decoded from it (or the error) and the
/// report of what was done, its positions given as lines and columns of
/// the reply.
fn show<T: std::fmt::Debug>(name: &str, reply: &str, result: serde_llm::Result<(T, Report)>) {
    println!("== {name}");
    println!("-- the reply");
    println!("{}", reply.trim_end());
    match result {
        Ok((value, report)) => {
            println!("-- the value");
            println!("{value:#?}");
            println!("-- the report");
            print!("{}", report.display(reply));
        }
        Err(e) => println!("-- error: {e:#}"),
    }
    println!();
}

fn main() {
    let decoder = Decoder::new();
    let replies = [
        (
            "a fenced reply with JS-style mistakes",
            include_str!("replies/verdict_fenced.txt"),
        ),
        (
            "a reasoning block, then Python literals",
            include_str!("replies/verdict_python.txt"),
        ),
        (
            "values of the wrong type, as models write them",
            include_str!("replies/verdict_coerced.txt"),
        ),
    ];
    for (name, reply) in replies {
        show(name, reply, decoder.decode_with_report::<Verdict>(reply));
    }
    let invoice = include_str!("replies/invoice_truncated.txt");
    show(
        "an invoice cut off mid-stream",
        invoice,
        decoder.decode_with_report::<Invoice>(invoice),
    );
    let tasks = include_str!("replies/tasks_ndjson.txt");
    show(
        "one object per line, gathered into a Vec",
        tasks,
        decoder.decode_with_report::<Vec<Task>>(tasks),
    );
    println!("== the same invoice as plain JSON");
    match serde_llm::repair(invoice) {
        Ok(json) => println!("{json}"),
        Err(e) => println!("error: {e:#}"),
    }
}
