use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[llm(partial, required)]
    title: String,
    #[llm(partial, atomic)]
    body: String,
    #[llm(atomic)]
    #[serde(default, with = "serde_llm::partial")]
    note: Option<String>,
}

fn main() {}
