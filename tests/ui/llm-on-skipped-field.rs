use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    body: String,
    #[serde(skip)]
    #[llm(partial)]
    draft: String,
}

fn main() {}
