//! The partial policy: which values cut off at the end of a reply may be used.
//!
//! A reply is only ever cut off at its end, so the values that can be
//! incomplete are those on the *spine*: the root and, inside it, the last
//! value of each container down to the last token. Everything before is
//! complete. By default a typed decode uses only complete values: an
//! incomplete one stands as missing (`None` in an `Option` field, a
//! [`Truncated`](crate::ErrorKind::Truncated) error for a required field),
//! except where the schema says it may grow:
//!
//! - the root object or array (its members or elements so far);
//! - a field marked partial with `#[serde(default, with = "serde_llm::partial")]`
//!   (a string's prefix, an array's elements so far, an object's members);
//! - inside an incomplete array: the last element when it is an object or an
//!   array itself (shown with its own parts so far); a cut scalar is dropped.
//!
//! A cut number, literal, enum variant or key is never shown: `12` may be the
//! start of `1234`. Untyped values (`serde_json::Value`, or anything read with
//! `deserialize_any`) follow [`Allow`], which
//! [`Decoder::allow_partial`](crate::Decoder::allow_partial) sets. Inside a
//! typed target, values serde buffers (untagged and internally tagged enums,
//! `flatten`) keep only cut containers: a marker cannot reach through the
//! buffer, so a cut string there stands as missing.
//!
//! ```
//! #[derive(Debug, PartialEq, serde::Deserialize)]
//! struct Answer {
//!     id: u32,
//!     title: Option<String>,
//!     #[serde(default, with = "serde_llm::partial")]
//!     body: Option<String>,
//! }
//!
//! let cut = r#"{"id": 7, "title": "Rust", "body": "Ser"#;
//! let a: Answer = serde_llm::from_llm_str(cut).unwrap();
//! assert_eq!(a, Answer { id: 7, title: Some("Rust".into()), body: Some("Ser".into()) });
//!
//! let cut = r#"{"id": 7, "title": "Ru"#;
//! let a: Answer = serde_llm::from_llm_str(cut).unwrap();
//! assert_eq!(a, Answer { id: 7, title: None, body: None });
//! ```

use std::fmt;
use std::marker::PhantomData;
use std::ops::BitOr;

use serde::de::{Deserialize, Deserializer, Visitor};

use crate::scan::{Event, NumValue};

/// The reserved newtype name the Deserializer recognises as "this value may
/// be incomplete" (the idea of serde_json's `RawValue`).
pub(crate) const TOKEN: &str = "$serde_llm::private::Partial";

/// Marks a field as allowed to hold an incomplete value:
/// `#[serde(default, with = "serde_llm::partial")]`. With any other
/// Deserializer it does nothing.
///
/// (`default` keeps a missing field `None`, since serde only does that by
/// itself for plain `Option` fields.)
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_newtype_struct(TOKEN, Marked(PhantomData))
}

struct Marked<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Marked<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value that may be cut off")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

/// Which kinds of incomplete value an untyped decode keeps (the flags of
/// partial-json-parser, and its default: all). An incomplete value of a kind
/// not allowed is left out of its array or object; at the root it is a
/// [`Truncated`](crate::ErrorKind::Truncated) error.
///
/// ```
/// use serde_llm::{Allow, Decoder};
/// use serde_json::json;
///
/// let cut = r#"["a", "b"#;
/// let all: serde_json::Value = Decoder::new().decode(cut).unwrap();
/// assert_eq!(all, json!(["a", "b"]));
/// let strict = Decoder::new().allow_partial(Allow::ARR | Allow::OBJ);
/// assert_eq!(strict.decode::<serde_json::Value>(cut).unwrap(), json!(["a"]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Allow(u16);

impl Allow {
    /// A string's prefix.
    pub const STR: Allow = Allow(1);
    /// A number cut off (`12` of `123`, `1.` of `1.5`).
    pub const NUM: Allow = Allow(2);
    /// An array's elements so far.
    pub const ARR: Allow = Allow(4);
    /// An object's members so far.
    pub const OBJ: Allow = Allow(8);
    /// `n`, `nu`, `nul` as `null`.
    pub const NULL: Allow = Allow(16);
    /// `t`, `tr`, … as `true`, `f`, … as `false`.
    pub const BOOL: Allow = Allow(32);
    /// `N`, `Na` as `NaN`.
    pub const NAN: Allow = Allow(64);
    /// `I`, `Inf`, … as `Infinity`.
    pub const INFINITY: Allow = Allow(128);
    /// `-I`, `-Inf`, … as `-Infinity`.
    pub const NEG_INFINITY: Allow = Allow(256);
    /// Every kind (the default).
    pub const ALL: Allow = Allow(511);
    /// No incomplete value at all.
    pub const NONE: Allow = Allow(0);

    /// Whether every kind in `other` is allowed.
    pub fn contains(self, other: Allow) -> bool {
        self.0 & other.0 == other.0
    }

    /// These kinds without those in `other`.
    pub fn without(self, other: Allow) -> Allow {
        Allow(self.0 & !other.0)
    }
}

impl Allow {
    /// The kind of the value an event starts (`None` for keys and ends).
    pub(crate) fn of(ev: &Event<'_>) -> Option<Allow> {
        Some(match ev {
            Event::Str(_) => Allow::STR,
            Event::StartArray => Allow::ARR,
            Event::StartObject => Allow::OBJ,
            Event::Null => Allow::NULL,
            Event::Bool(_) => Allow::BOOL,
            Event::Num(n) => match n.value {
                NumValue::NonFinite(v) if v.is_nan() => Allow::NAN,
                NumValue::NonFinite(v) if v > 0.0 => Allow::INFINITY,
                NumValue::NonFinite(_) => Allow::NEG_INFINITY,
                _ => Allow::NUM,
            },
            _ => return None,
        })
    }
}

impl BitOr for Allow {
    type Output = Allow;

    fn bitor(self, rhs: Allow) -> Allow {
        Allow(self.0 | rhs.0)
    }
}

impl Default for Allow {
    fn default() -> Self {
        Allow::ALL
    }
}

/// A type with a partial view: what it looks like while the reply that holds
/// it is still being written. `#[derive(Partial)]` implements it for your
/// structs and enums (every field becomes `Option<<F as Partial>::View>`);
/// std types and `serde_json::Value` have it here.
///
/// ```
/// use serde_llm::Partial;
///
/// #[derive(serde::Deserialize, Partial)]
/// struct Step {
///     n: u32,
///     #[llm(partial)]
///     text: String,
/// }
///
/// let view = serde_llm::from_llm_str_partial::<Step>(r#"{"n": 1, "text": "Mix the fl"#)
///     .unwrap()
///     .unwrap();
/// assert_eq!(view.n, Some(1));
/// assert_eq!(view.text.as_deref(), Some("Mix the fl"));
/// ```
pub trait Partial {
    /// The view type.
    type View;
}

/// A partial view. [`admitted`](View::admitted) is how a view with a field
/// marked `#[llm(required)]` stays hidden until that field is complete.
pub trait View: Sized {
    /// `self`, or `None` while a required part is missing; containers drop
    /// such elements.
    fn admitted(self) -> Option<Self> {
        Some(self)
    }
}

macro_rules! atomic {
    ($($ty:ty),*) => {
        $(
            impl Partial for $ty {
                type View = $ty;
            }
            impl View for $ty {}
        )*
    };
}

atomic! {
    bool, char, String, (), serde_json::Value,
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
}

impl<'a> Partial for &'a str {
    type View = &'a str;
}
impl View for &str {}

impl<'a> Partial for std::borrow::Cow<'a, str> {
    type View = std::borrow::Cow<'a, str>;
}
impl View for std::borrow::Cow<'_, str> {}

impl<T: Partial> Partial for Option<T> {
    type View = T::View;
}
impl<T: View> View for Option<T> {
    fn admitted(self) -> Option<Self> {
        Some(self.and_then(View::admitted))
    }
}

impl<T: Partial> Partial for Box<T> {
    type View = Box<T::View>;
}
impl<T: View> View for Box<T> {
    fn admitted(self) -> Option<Self> {
        (*self).admitted().map(Box::new)
    }
}

impl<T: Partial> Partial for Vec<T> {
    type View = Vec<T::View>;
}
impl<T: View> View for Vec<T> {
    fn admitted(self) -> Option<Self> {
        Some(self.into_iter().filter_map(View::admitted).collect())
    }
}

impl<K, V: Partial, S> Partial for std::collections::HashMap<K, V, S> {
    type View = std::collections::HashMap<K, V::View, S>;
}
impl<K: Eq + std::hash::Hash, V: View, S: std::hash::BuildHasher + Default> View
    for std::collections::HashMap<K, V, S>
{
    fn admitted(self) -> Option<Self> {
        Some(
            self.into_iter()
                .filter_map(|(k, v)| Some((k, v.admitted()?)))
                .collect(),
        )
    }
}

impl<K, V: Partial> Partial for std::collections::BTreeMap<K, V> {
    type View = std::collections::BTreeMap<K, V::View>;
}
impl<K: Ord, V: View> View for std::collections::BTreeMap<K, V> {
    fn admitted(self) -> Option<Self> {
        Some(
            self.into_iter()
                .filter_map(|(k, v)| Some((k, v.admitted()?)))
                .collect(),
        )
    }
}

/// Collections whose view is the same collection of views.
macro_rules! collections {
    ($($coll:ident<$t:ident $(: $bound:path)?>),*) => {
        $(
            impl<$t: Partial> Partial for $coll<$t> {
                type View = $coll<$t::View>;
            }
            impl<$t: View $(+ $bound)?> View for $coll<$t> {
                fn admitted(self) -> Option<Self> {
                    Some(self.into_iter().filter_map(View::admitted).collect())
                }
            }
        )*
    };
}

use std::collections::{BTreeSet, HashSet, VecDeque};

collections! {
    VecDeque<T>,
    BTreeSet<T: Ord>
}

impl<T: Partial> Partial for HashSet<T> {
    type View = HashSet<T::View>;
}
impl<T: View + Eq + std::hash::Hash> View for HashSet<T> {
    fn admitted(self) -> Option<Self> {
        Some(self.into_iter().filter_map(View::admitted).collect())
    }
}

impl<T: Partial> Partial for std::rc::Rc<T> {
    type View = T::View;
}

impl<T: Partial> Partial for std::sync::Arc<T> {
    type View = T::View;
}

impl<T: ?Sized> Partial for PhantomData<T> {
    type View = PhantomData<T>;
}
impl<T: ?Sized> View for PhantomData<T> {}

impl Partial for Box<str> {
    type View = Box<str>;
}
impl View for Box<str> {}

impl Partial for serde_json::Map<String, serde_json::Value> {
    type View = serde_json::Map<String, serde_json::Value>;
}
impl View for serde_json::Map<String, serde_json::Value> {}

macro_rules! tuples {
    ($(($($t:ident $v:ident),+))*) => {
        $(
            impl<$($t: Partial),+> Partial for ($($t,)+) {
                type View = ($($t::View,)+);
            }
            impl<$($t: View),+> View for ($($t,)+) {
                fn admitted(self) -> Option<Self> {
                    let ($($v,)+) = self;
                    Some(($($v.admitted()?,)+))
                }
            }
        )*
    };
}

tuples! {
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, D d)
    (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f)
}

/// What the code `#[derive(Partial)]` generates calls. Not a public API.
#[doc(hidden)]
pub mod private {
    use serde::de::{Deserialize, Deserializer};

    use super::View;

    /// A view field: the value if it is complete (the partial policy) and
    /// admitted.
    pub fn field<'de, D, V>(d: D) -> Result<Option<V>, D::Error>
    where
        D: Deserializer<'de>,
        V: Deserialize<'de> + View,
    {
        Ok(Option::<V>::deserialize(d)?.and_then(View::admitted))
    }

    /// A view field marked `#[llm(partial)]`: the value so far.
    pub fn partial_field<'de, D, V>(d: D) -> Result<Option<V>, D::Error>
    where
        D: Deserializer<'de>,
        V: Deserialize<'de> + View,
    {
        Ok(super::deserialize::<D, Option<V>>(d)?.and_then(View::admitted))
    }
}
