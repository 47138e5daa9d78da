use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[llm(partial)]
    #[llm(partial)]
    body: String,
}

fn main() {}
