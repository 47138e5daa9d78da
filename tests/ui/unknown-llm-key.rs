use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[llm(foo)]
    title: String,
}

fn main() {}
