use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[llm(partial, required)]
    title: String,
}

fn main() {}
