use serde_llm::Partial;

fn upper<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s: String = serde::Deserialize::deserialize(d)?;
    Ok(s.to_uppercase())
}

#[derive(serde::Deserialize, Partial)]
struct Answer {
    #[serde(deserialize_with = "upper")]
    title: String,
}

fn main() {}
