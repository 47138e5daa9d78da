use serde_llm::Partial;

/// A type from another crate, as the derive sees one: `Deserialize` but no
/// `Partial`.
#[derive(serde::Deserialize)]
struct Money(String);

#[derive(serde::Deserialize, Partial)]
struct Invoice {
    total: Money,
}

fn main() {}
