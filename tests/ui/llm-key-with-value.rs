use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[llm(partial = true)]
    body: String,
}

fn main() {}
