use serde_llm::Partial;

#[derive(Partial)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
