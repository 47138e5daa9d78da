use serde_llm::Partial;

/// A type from another crate, as the derive sees one: `Deserialize` but no
/// `Partial`.
#[derive(serde::Deserialize)]
struct Money(String);

// One error for each field of a type with no view, at its type: not one
// more for each impl the derive or serde's derive writes for the view.
#[derive(serde::Deserialize, Partial)]
struct Invoice {
    id: u32,
    total: Money,
    #[llm(partial)]
    note: String,
}

#[derive(serde::Deserialize, Partial)]
#[serde(tag = "kind")]
enum Entry {
    Charge { amount: Money },
    Note { #[llm(partial)] text: String },
}

fn main() {}
