use serde_llm::Partial;

#[derive(serde::Deserialize)]
struct Raw {
    celsius: f64,
}

impl From<Raw> for Temperature {
    fn from(raw: Raw) -> Self {
        Temperature {
            kelvin: raw.celsius + 273.15,
        }
    }
}

#[derive(serde::Deserialize, Partial)]
#[serde(from = "Raw")]
struct Temperature {
    kelvin: f64,
}

fn main() {}
