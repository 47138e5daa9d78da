use serde_llm::Partial;

#[derive(serde::Deserialize, Partial)]
enum Event {
    #[llm(required)]
    Text {
        body: String,
    },
    Stop,
}

fn main() {}
