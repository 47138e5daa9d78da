//! `#[llm(atomic)]` on types with no partial view (as a type from another
//! crate has none): in structs, variants, generic views, an `Option`.
#![deny(missing_docs)]

use serde_llm::{Partial, View};

/// Implements `Deserialize`, `Debug`, `Clone` and `PartialEq`, but not
/// `Partial`.
#[derive(serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Stamp(pub String);

/// Implements `Deserialize` only: a view holding it has no `Debug`.
#[derive(serde::Deserialize)]
pub struct Opaque {
    /// A number.
    pub n: u8,
}

/// Atomic fields beside the usual ones.
#[derive(serde::Deserialize, Partial)]
pub struct Event<T> {
    /// Required and atomic.
    #[llm(required, atomic)]
    pub at: Stamp,
    /// An `Option`: the view holds `Option<Stamp>`.
    #[llm(atomic)]
    pub until: Option<Stamp>,
    /// A type parameter, read whole: it need not implement `Partial`.
    #[llm(atomic)]
    pub extra: T,
    /// Partial.
    #[llm(partial)]
    pub text: String,
}

/// Atomic fields in variants.
#[derive(serde::Deserialize, Partial)]
#[serde(tag = "type")]
pub enum Change {
    /// A struct variant.
    Moved {
        /// Atomic.
        #[llm(atomic)]
        at: Stamp,
    },
    /// Another.
    Hidden {
        /// Holds a type with nothing but `Deserialize`.
        #[llm(atomic)]
        what: Opaque,
    },
}

/// A tuple variant.
#[derive(serde::Deserialize, Partial)]
pub enum Plain {
    /// Atomic.
    At(#[llm(atomic)] Stamp),
}

/// An atomic field of the type itself: the view holds the original, so it
/// has `Debug`, `Clone` and `PartialEq` where the original has them (here
/// none).
#[derive(serde::Deserialize, Partial)]
pub struct Chain {
    /// The next link, whole.
    #[llm(atomic)]
    pub next: Option<Box<Self>>,
}

/// A struct made by a macro: the field's type comes in a group.
macro_rules! made {
    ($ty:ty) => {
        /// Made by `made!`.
        #[derive(serde::Deserialize, Partial)]
        pub struct Made {
            /// The macro's type, an `Option`.
            #[llm(atomic)]
            pub at: $ty,
        }
    };
}

made!(Option<Stamp>);

fn needs<V: std::fmt::Debug + Clone + PartialEq + View>() {}

/// Reads replies into the views above (called by `tests/derive.rs`).
// The view's field types, spelled out: that is the check.
#[allow(clippy::type_complexity)]
pub fn run() {
    needs::<EventView<u32>>();
    needs::<PlainView>();
    let _: fn(ChainView) -> Option<Box<Chain>> = |v| v.next;
    let _: fn(MadeView) -> Option<Stamp> = |v| v.at;
    let _: fn(EventView<Opaque>) -> (Option<Stamp>, Option<Stamp>, Option<Opaque>) =
        |v| (v.at, v.until, v.extra);
    let text = r#"{"at": "noon", "until": null, "extra": 7, "text": "Lun"#;
    let view = serde_llm::from_llm_str_partial::<Event<u32>>(text)
        .unwrap()
        .unwrap();
    assert_eq!(view.at, Some(Stamp("noon".into())));
    assert_eq!((view.until, view.extra), (None, Some(7)));
    assert_eq!(view.text.as_deref(), Some("Lun"));
    let view = serde_llm::from_llm_str_partial::<Change>(r#"{"type": "Moved", "at": "noon"}"#)
        .unwrap()
        .unwrap();
    assert!(matches!(view, ChangeView::Moved { at: Some(Stamp(s)) } if s == "noon"));
}
