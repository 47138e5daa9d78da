//! Generic views: type parameters, lifetimes, bounds, defaults, where
//! clauses; the view's std impls bound on the views, not the parameters.
#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::fmt::Display;

use serde_llm::{Partial, View};

/// Undocumented private fields: the view's `pub` fields get docs anyway.
#[derive(serde::Deserialize, Partial)]
pub struct Answer<'a, T: Display, U = u32>
where
    U: Copy,
{
    #[llm(required)]
    id: U,
    #[llm(partial)]
    items: Vec<T>,
    name: &'a str,
    by_key: BTreeMap<String, Option<T>>,
    next: Option<Box<Self>>,
}

/// Has neither `Debug` nor `Clone`; its view has both.
#[derive(serde::Deserialize, Partial)]
pub struct Opaque {
    /// A number.
    pub n: u8,
}

impl Display for Opaque {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.n)
    }
}

fn needs<V: std::fmt::Debug + Clone + PartialEq + Default + View>() {}

/// Reads replies into the views above (called by `tests/derive.rs`).
pub fn run() {
    needs::<AnswerView<'static, String>>();
    needs::<AnswerView<'static, Opaque, u8>>();
    let text = r#"{"id": 1, "items": [{"n": 2}, {"n": 3"#;
    let view = serde_llm::from_llm_str_partial::<Answer<Opaque>>(text)
        .unwrap()
        .unwrap();
    assert_eq!(view.id, Some(1));
    assert_eq!(view.items.map(|i| i.len()), Some(2));
}
