use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
#[llm(partial)]
struct Answer {
    body: String,
}

fn main() {}
