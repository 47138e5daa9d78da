//! Every enum representation, unit-only enums, and enum views in generic
//! positions.
#![deny(missing_docs)]

use serde_llm::{Partial, View};

/// Unit-only: its own view.
#[derive(serde::Deserialize, Partial, Debug, Clone, PartialEq)]
pub enum Mood {
    /// Happy.
    Happy,
    /// Sad.
    Sad,
}

/// Unit-only, and neither `Clone` nor `Debug`: a view holding it still
/// compiles, only without those impls.
#[derive(serde::Deserialize, Partial)]
pub enum Plain {
    /// A.
    A,
}

/// Holds a `Plain`.
#[derive(serde::Deserialize, Partial)]
pub struct HoldsPlain {
    /// The plain enum.
    pub plain: Plain,
}

/// Externally tagged.
#[derive(serde::Deserialize, Partial)]
pub enum External<T> {
    /// A unit variant.
    Unit,
    /// A newtype variant.
    Newtype(T),
    /// A tuple variant.
    Tuple(u8, #[llm(partial)] String),
    /// A struct variant.
    Struct {
        /// Required.
        #[llm(required)]
        id: u32,
        /// Partial.
        #[llm(partial)]
        text: String,
        /// Skipped: no view needed.
        #[serde(skip)]
        cache: std::cell::Cell<u8>,
    },
    /// Skipped: not in the view.
    #[serde(skip)]
    Skipped(std::time::Instant),
}

/// Internally tagged.
#[derive(serde::Deserialize, Partial)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Internal {
    /// Unit.
    Unit,
    /// Struct.
    Struct {
        /// A mood.
        mood: Mood,
    },
    /// Newtype over a struct.
    Newtype(Inner),
    /// Any other tag.
    #[serde(other)]
    Other,
}

/// A struct.
#[derive(serde::Deserialize, Partial)]
pub struct Inner {
    /// A flattened enum.
    #[serde(flatten)]
    pub kind: Adjacent,
}

/// Adjacently tagged.
#[derive(serde::Deserialize, Partial)]
#[serde(tag = "t", content = "c", rename_all_fields = "camelCase")]
pub enum Adjacent {
    /// Unit.
    Unit,
    /// Struct.
    Struct {
        /// Renamed by `rename_all_fields`.
        long_name: String,
    },
}

/// Untagged.
#[derive(serde::Deserialize, Partial)]
#[serde(untagged)]
pub enum Untagged<'a> {
    /// Borrowed.
    Borrowed(&'a str),
    /// A struct.
    Struct {
        /// Tells this variant apart.
        #[llm(required)]
        key: String,
    },
}

fn needs<V: std::fmt::Debug + Clone + PartialEq + View>() {}

/// Reads replies into the views above (called by `tests/derive.rs`).
pub fn run() {
    needs::<Mood>();
    needs::<ExternalView<Mood>>();
    needs::<InternalView>();
    needs::<AdjacentView>();
    needs::<UntaggedView<'static>>();
    let view = serde_llm::from_llm_str_partial::<Internal>(r#"{"type": "chart"}"#)
        .unwrap()
        .unwrap();
    assert_eq!(view, InternalView::Other);
    let view = serde_llm::from_llm_str_partial::<HoldsPlain>(r#"{"plain": "A"}"#)
        .unwrap()
        .unwrap();
    assert!(matches!(view.plain, Some(Plain::A)));
    let view = serde_llm::from_llm_str_partial::<External<Mood>>(r#"{"Newtype": "Sad"}"#)
        .unwrap()
        .unwrap();
    assert_eq!(view, ExternalView::Newtype(Some(Mood::Sad)));
    let view =
        serde_llm::from_llm_str_partial::<Inner>(r#"{"t": "Struct", "c": {"longName": "x"}}"#)
            .unwrap()
            .unwrap();
    assert_eq!(
        view.kind,
        Some(AdjacentView::Struct {
            long_name: Some("x".into())
        })
    );
}
