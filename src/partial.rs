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
//! start of `1234`.
//!
//! A view of a reply still being written ([`Decoder::decode_partial`](crate::Decoder::decode_partial),
//! [`StreamDecoder`](crate::StreamDecoder)) shows nothing it may take back:
//! what only the next byte settles counts as cut. A member's or an
//! element's string whose closing quote ends the text is shown as a cut
//! string (its text so far, where the place takes one; else not yet): the
//! next byte may show the quote to be inside it (`"v"alue"`). A number or
//! literal at the top level that ends the text is not shown (`2` may
//! become `2.5`). A one-shot decode of a finished reply takes both as they
//! stand. Untyped values (`serde_json::Value`, or anything read with
//! `deserialize_any`) follow [`Allow`], which
//! [`Decoder::allow_partial`](crate::Decoder::allow_partial) sets.
//!
//! serde reads some values from content it buffers first, without the
//! decoder: internally tagged and untagged enums (a tool call), and a
//! struct with a `flatten`ed field. Their roots are typed targets all the
//! same (a tool call cut at `"limit": 5` is not a call with limit 5). serde's
//! buffer cannot say a value is cut: where such content stands in a place
//! marked partial (a list of tool calls marked partial), or is `flatten`ed,
//! a cut string or container in it is the cut's error, so the element is
//! left out of its list while it is cut; elsewhere (the root, a field not
//! marked partial) cut values in such content stand as missing. A view
//! leaves a cut member of a flattened part out (and shows the rest). A view of
//! an internally or adjacently tagged enum is read without serde's buffer
//! (the decoder finds the tag on its tape, wherever it is written), so its
//! partial fields grow as a struct's do.
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

use serde::de::{Deserialize, Deserializer};
use std::marker::PhantomData;

use crate::de::{FIELD, PARTS, TOKEN};
/// The kinds of incomplete value kept: a decoder's option, kept with the
/// others.
pub use crate::policy::Allow;

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
    crate::de::field::read(deserializer, TOKEN)
}

/// [`deserialize`] for a value read by a seed rather than a type (see
/// [`Decoder::decode_seed`](crate::Decoder::decode_seed)): the value the
/// seed reads may be incomplete, as a field marked partial may. With any
/// other Deserializer it is `seed.deserialize(deserializer)`.
///
/// ```
/// use serde::de::{DeserializeSeed, Deserializer};
///
/// /// Reads a string that may still be being written.
/// #[derive(Clone, Copy)]
/// struct Growing;
///
/// impl<'de> DeserializeSeed<'de> for Growing {
///     type Value = String;
///     fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
///         serde_llm::partial::deserialize_seed(d, std::marker::PhantomData::<String>)
///     }
/// }
///
/// let decoder = serde_llm::Decoder::new();
/// assert_eq!(decoder.decode_seed("\"Once upon a ti", Growing)?, "Once upon a ti");
/// # Ok::<(), serde_llm::Error>(())
/// ```
pub fn deserialize_seed<'de, D, S>(deserializer: D, seed: S) -> Result<S::Value, D::Error>
where
    D: Deserializer<'de>,
    S: serde::de::DeserializeSeed<'de>,
{
    crate::de::field::read_seed(deserializer, TOKEN, seed)
}

/// Writes a field marked partial as it is, so that `with =
/// "serde_llm::partial"` also serves a type that derives `Serialize`.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Answer {
///     #[serde(default, with = "serde_llm::partial")]
///     body: String,
/// }
///
/// let a: Answer = serde_llm::from_llm_str(r#"{"body": "Ser"#).unwrap();
/// assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"body":"Ser"}"#);
/// ```
pub fn serialize<S, T>(value: &T, serializer: S) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    T: serde::Serialize + ?Sized,
{
    value.serialize(serializer)
}

/// Reads a field marked partial as far as its view `T` may be cut
/// ([`View::__cut`]): as [`deserialize`] does; or only its elements or
/// members so far, each complete (a list of dates); or once complete, as a
/// field not marked partial is (a date). With whether it is judged by
/// admission (see `de::field::read_judged`).
fn deserialize_as<'de, D, T>(deserializer: D) -> Result<(T, bool), D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + View,
{
    let name = match T::__cut() {
        grow::Cut::Grows => TOKEN,
        grow::Cut::Parts => PARTS,
        grow::Cut::Whole => FIELD,
    };
    crate::de::field::read_judged(deserializer, name)
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
///
/// A type from another crate has no view unless that crate or this one
/// gives it one (the orphan rule keeps you from writing the impl). This
/// crate's optional features give one, the value itself shown once
/// complete, to chrono's `DateTime<Tz>`, `NaiveDate`, `NaiveDateTime` and
/// `NaiveTime` (feature `chrono`), time's `OffsetDateTime`, `Date`,
/// `PrimitiveDateTime` and `Time` (`time`: with its `serde` feature alone
/// they read time's arrays; a string takes time's `serde-human-readable`),
/// `uuid::Uuid` (`uuid`), `rust_decimal::Decimal` (`rust_decimal`) and
/// `url::Url` (`url`). Any other type that implements `Deserialize` can be
/// a field marked `#[llm(atomic)]`, whose view is the value itself, shown
/// once complete.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no partial view: it does not implement `serde_llm::Partial`",
    label = "no partial view",
    note = "for a field of a type from another crate, mark the field `#[llm(atomic)]`: \
            its view is then the value itself, shown once complete (it needs only `Deserialize`)",
    note = "for a type of your own, `#[derive(serde_llm::Partial)]` on it (or implement `Partial`)"
)]
pub trait Partial {
    /// The view type. Its [`View`] bound is implied wherever `T: Partial`
    /// is, so a generic helper needs no bound of its own on `T::View`.
    type View: View;
}

/// A partial view. [`admitted`](View::admitted) is how a view with a field
/// marked `#[llm(required)]` stays hidden until that field is complete.
pub trait View: Sized {
    /// `self`, or `None` while a required part is missing; containers drop
    /// such elements.
    fn admitted(self) -> Option<Self> {
        Some(self)
    }

    /// Streaming: puts the part of `from` on the path `levels[at..]` into
    /// `self` (see [`grow`]). By default a view cannot grow in place: it is
    /// replaced when it is the target, and rebuilt from its text otherwise.
    #[doc(hidden)]
    fn __place(&mut self, from: Self, levels: &[grow::Level], at: usize, out: &mut grow::Placed) {
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *self = from;
            }
        } else {
            out.rebuild = Some(at);
            out.fixed = true;
        }
    }

    /// Streaming: appends `text` to the string that `route` leads to;
    /// `false` if this view cannot (it is then decoded again).
    #[doc(hidden)]
    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        let _ = (route, text);
        false
    }

    /// Streaming: whether [`admitted`](View::admitted) would keep this view
    /// (checked without taking it apart).
    #[doc(hidden)]
    fn __shown(&self) -> bool {
        true
    }

    /// How far this view may be cut where a field marked partial holds it
    /// (see [`grow::Cut`]): a `String` grows, a date is shown whole, a list
    /// of dates by whole dates.
    #[doc(hidden)]
    fn __cut() -> grow::Cut {
        grow::Cut::Grows
    }

    /// Streaming: whether this is a struct view whose fields grow in place
    /// (the stream decoder counts those around a part it reads).
    #[doc(hidden)]
    fn __fields(&self) -> bool {
        false
    }

    /// Streaming: whether this view grows in place (else it is read again
    /// from its text on each change).
    #[doc(hidden)]
    fn __grows(&self) -> bool {
        false
    }

    /// Streaming: whether this is a map view that takes a complete member
    /// on its own ([`__put_member`](Self::__put_member)): a struct's
    /// flattened map, whose members are the struct's.
    #[doc(hidden)]
    fn __members(&self) -> bool {
        false
    }

    /// Streaming: puts the one member `from` holds (a map view read from a
    /// text holding that member alone) into this one, as
    /// [`__members`](Self::__members) says it can.
    #[doc(hidden)]
    fn __put_member(&mut self, from: Self, out: &mut grow::Placed) {
        let _ = from;
        out.rebuild = Some(0);
        out.fixed = true;
    }

    /// Streaming: reads a part into the node that `route` leads to, as that
    /// node's own type (see [`grow::Local`]); `false` if this view cannot
    /// (the part is then read as a part of the root).
    #[doc(hidden)]
    fn __local(&mut self, route: &[grow::Route], cx: &mut grow::Local<'_>) -> bool {
        let _ = (route, cx);
        false
    }

    /// Streaming: how a part of this view is read (see [`grow::Kind`]).
    #[doc(hidden)]
    fn __kind() -> grow::Kind {
        grow::Kind::Plain
    }

    /// Streaming: the [`__kind`](View::__kind) of the node that `route`
    /// leads to (the last step may be an element not in the list yet: its
    /// type says).
    #[doc(hidden)]
    fn __kind_at(&self, route: &[grow::Route]) -> grow::Kind {
        match route {
            [] => Self::__kind(),
            _ => grow::Kind::Plain,
        }
    }

    /// Streaming: [`__local`](View::__local) for a list of this view: reads
    /// the part as a `Vec<Self>` (`false` if this view cannot be read so).
    #[doc(hidden)]
    fn __local_list(list: &mut Vec<Self>, cx: &mut grow::Local<'_>) -> bool {
        let _ = (list, cx);
        false
    }
}

/// How a view grows in place while a reply streams. Not a public API: what
/// `#[derive(Partial)]` and the stream decoder use.
///
/// The stream decoder reads what changed (a member or element completed, a
/// container or string started, a string grew) as a small text of its own:
/// the openers and keys of the containers around it, then its text. That
/// decodes, through the one Deserializer, into a view of the root type that
/// holds only that part; [`View::__place`] walks the live view and that one
/// side by side down the path and puts the part in place. Where the live
/// view has no node on the path (a part not shown yet) or a node cannot grow
/// in place, the walk asks for that node to be rebuilt from its own text.
#[doc(hidden)]
pub mod grow {
    /// What a container on the path holds as its current part.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Level {
        /// An object's current member.
        Member,
        /// An adjacently tagged enum's object whose current member is its
        /// content (see [`Kind::Adjacent`]).
        Content,
        /// An array's current element; `has`: the view's list holds it as
        /// its last element.
        Element {
            /// The current element is shown.
            has: bool,
        },
    }

    /// How a live view's string is reached, one step per container.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Route {
        /// A struct view's field, by position.
        Field(u32),
        /// An untyped object's member.
        Key(String),
        /// A list's last element.
        Last,
        /// An adjacently tagged enum's content object, when its variant is
        /// a struct: the variant's fields are that object's members.
        Content,
    }

    /// How a part of a view is read while it streams.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Kind {
        /// On its own, inside the openers and keys around it.
        Plain,
        /// Not without the rest: serde buffers the view's content (an
        /// untagged enum, a tagged one with generics), so it is read whole.
        Buffered,
        /// Read whole, as [`Kind::Buffered`] is, but not from serde's
        /// buffer: an adjacently tagged enum that cannot grow in place (a
        /// tuple variant of several fields, generics), whose content serde
        /// reads as the variant's once its tag came (or the decoder does,
        /// through its twins), so a cut string in it grows as it arrives.
        Whole,
        /// An internally tagged enum with this tag (or an adjacently tagged
        /// one of newtype and unit variants, whose content member is the
        /// variant's field): a part is read with the tag member before it
        /// (when the tag is the first member; else the enum is read whole).
        Tagged(&'static str),
        /// An adjacently tagged enum with struct variants, its tag and its
        /// content's keys: as `Tagged`, its current member being the
        /// content is [`Level::Content`], and a struct variant's fields
        /// are the content object's members, a level below.
        Adjacent {
            /// The tag's key.
            tag: &'static str,
            /// The content's key.
            content: &'static str,
        },
    }

    /// How far a view may be cut where a field marked partial holds it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Cut {
        /// As far as it goes: a string's prefix, a list's elements so far
        /// with the last one as far as it goes.
        Grows,
        /// A container of values that are never cut: its elements or
        /// members so far, each complete (a list of dates).
        Parts,
        /// Never: shown once complete, as a field not marked partial is (a
        /// date, a number).
        Whole,
    }

    impl Cut {
        /// How a container of parts cut so is cut.
        pub fn of_parts(self) -> Cut {
            match self {
                Cut::Grows => Cut::Grows,
                Cut::Parts | Cut::Whole => Cut::Parts,
            }
        }
    }

    /// What a walk did.
    #[derive(Debug, Default)]
    pub struct Placed {
        /// Only find out whether the target would be shown; change nothing.
        pub probe: bool,
        /// Probing: judge the target's own admission too.
        pub admit: bool,
        /// The target is in the view (or, probing, would be).
        pub present: bool,
        /// The node at this depth must be rebuilt from its whole text.
        pub rebuild: Option<usize>,
        /// It must because it cannot grow in place (not for want of a part).
        pub fixed: bool,
        /// The way to the target, for appending to it later.
        pub route: Vec<Route>,
        /// The target is a struct view whose fields grow in place.
        pub fields: bool,
        /// The target was taken out of its list (no longer shown).
        pub removed: bool,
        /// The target is still being written (its value cut).
        pub cut: bool,
    }

    /// A list's current element on the path: `from` holds it alone (or
    /// nothing, when it is not shown).
    pub(crate) fn element<V: super::View>(
        live: &mut Vec<V>,
        from: Vec<V>,
        has: bool,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) {
        let has = has && !live.is_empty();
        let target = at + 1 == levels.len();
        let Some(part) = from.into_iter().next() else {
            // Not shown (a complete element without its required field).
            if target && has && !out.probe {
                live.pop();
                out.removed = true;
            }
            // A part of the element failed, so the cut last element is left
            // out (a wrong value in it): the element is read again.
            if !target && has {
                out.rebuild = Some(at + 1);
            }
            return;
        };
        out.route.push(Route::Last);
        if target {
            out.fields = part.__fields();
            if out.probe {
                out.present = !out.admit || part.admitted().is_some();
                return;
            }
            match (part.admitted(), has) {
                (Some(v), true) => {
                    *live.last_mut().expect("has") = v;
                    out.present = true;
                }
                (Some(v), false) => {
                    live.push(v);
                    out.present = true;
                }
                (None, true) => {
                    live.pop();
                    // The change is to the list.
                    out.route.pop();
                    out.removed = true;
                }
                (None, false) => {}
            }
        } else if has {
            live.last_mut()
                .expect("has")
                .__place(part, levels, at + 1, out);
        } else {
            out.rebuild = Some(at + 1);
        }
    }

    /// A part read as a part of a node inside the view rather than of the
    /// root: the node's own text (its opener and key, then the containers
    /// below it to the part) decoded as the node's type, then put in place
    /// from that node down. The containers above the node are not read
    /// again, so a deep part costs what its own text does.
    ///
    /// Exact by construction: the node's type reads the same events from its
    /// own text as from the root's, and admission counts only the struct
    /// fields below the node (as the root's read exempts those above it). A
    /// read that fails here is read from the root instead, which decides.
    pub struct Local<'a> {
        pub(crate) decoder: &'a crate::Decoder,
        /// The buffers the stream's part reads pass on.
        pub(crate) spare: &'a mut crate::scan::Spare,
        pub(crate) text: &'a crate::scan::part::PartText<'a>,
        pub(crate) around: usize,
        pub(crate) levels: &'a [Level],
        pub(crate) out: &'a mut Placed,
        /// The node was reached and its read tried.
        pub(crate) tried: bool,
        /// The node's place may be cut as a field marked partial may (the
        /// last struct field on the way there is marked so): it is read as
        /// such, as it is in the root's read.
        pub(crate) partial: bool,
    }

    impl Local<'_> {
        /// Reads the part as a `V` and puts it into `node`, a `V`.
        pub fn place<V: super::View + serde::de::DeserializeOwned>(
            &mut self,
            node: &mut V,
        ) -> bool {
            self.tried = true;
            let (decoder, text) = (self.decoder, self.text);
            let read = match self.partial {
                // The read as a partial field is itself a field's read: it
                // is exempt too, with every field on the path under it.
                true => decoder
                    .part::<AsPartial<V>>(text, self.around.saturating_add(1), self.spare)
                    .map(|p| p.0),
                false => decoder.part::<V>(text, self.around, self.spare),
            };
            match read {
                Ok(part) => {
                    node.__place(part, self.levels, 0, self.out);
                    true
                }
                Err(_) => false,
            }
        }
    }

    /// A struct view's field on a route (see [`super::View::__kind_at`]): an
    /// empty one asks the field's type.
    pub fn kind_at<V: super::View>(slot: &Option<V>, route: &[Route]) -> Kind {
        match (route, slot) {
            ([], _) => V::__kind(),
            (_, Some(v)) => v.__kind_at(route),
            (_, None) => Kind::Plain,
        }
    }

    /// A field whose type is a parameter: its kind is not known here.
    pub fn kind_none<V>(_: &Option<V>, _: &[Route]) -> Kind {
        Kind::Plain
    }

    /// A value read as a field marked partial is.
    struct AsPartial<V>(V);

    impl<'de, V: serde::Deserialize<'de> + super::View> serde::Deserialize<'de> for AsPartial<V> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            super::deserialize_as(d).map(|(v, _)| AsPartial(v))
        }
    }

    /// A struct view's field on the route to a [`Local`] read's node;
    /// `partial`: the field is marked partial.
    pub fn local<V: super::View>(
        slot: &mut Option<V>,
        route: &[Route],
        cx: &mut Local<'_>,
        partial: bool,
    ) -> bool {
        cx.partial = partial;
        slot.as_mut().is_some_and(|v| v.__local(route, cx))
    }

    /// A struct or enum view on the path at `at`: `from` taken whole if it
    /// is the target; a rebuild asked for if the level is not one of its
    /// members; else `from` back, for the walk to go on by member.
    pub fn member<V>(
        node: &mut V,
        from: V,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) -> Option<V> {
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *node = from;
            }
            return None;
        }
        if levels[at] != Level::Member {
            out.rebuild = Some(at);
            out.fixed = true;
            return None;
        }
        Some(from)
    }

    /// An adjacently tagged enum's view on the path (see [`Kind::Adjacent`]):
    /// itself, or, where its current member is its content, `from` to place
    /// the part into; a part of another member (its tag) places nothing.
    pub fn content<V>(
        node: &mut V,
        from: V,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) -> Option<V> {
        match levels.get(at) {
            None => {
                member(node, from, levels, at, out);
                None
            }
            Some(Level::Content) => Some(from),
            Some(Level::Member) => None,
            Some(Level::Element { .. }) => {
                out.rebuild = Some(at);
                out.fixed = true;
                None
            }
        }
    }

    /// A struct view's field on the path.
    pub fn place<V: super::View>(
        slot: &mut Option<V>,
        from: V,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) {
        if at == levels.len() {
            out.present = true;
            out.fields = from.__fields();
            if !out.probe {
                *slot = Some(from);
            }
            return;
        }
        match slot {
            Some(v) => v.__place(from, levels, at, out),
            None => out.rebuild = Some(at),
        }
    }

    /// A struct view's flattened field (the `index`th) on the path, when
    /// none of the struct's own fields took the part: its members are the
    /// struct's, at the same level, so the walk goes on into it at `at`.
    ///
    /// serde reads the flattened part from all the members no own field
    /// takes, and a part that fails to read (a member of another type) is
    /// `None` whatever else comes. So a part read as `None` (`from`) makes
    /// the view's `None`; once `None`, a part read as shown reads the
    /// struct again (the member that failed it may have been cut, and have
    /// read otherwise since). (Read alone, a member the flattened part does not
    /// know reads as an empty part, which places nothing.) A flattened map
    /// takes a complete member as it comes; a part deeper in one of its
    /// members, or a view that grows neither way (an enum), is rebuilt with
    /// the struct around it.
    pub fn place_flat<V: super::View>(
        slot: &mut Option<V>,
        from: Option<V>,
        index: u32,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) {
        // An enum read from one member alone says nothing of the rest (its
        // tag, an untagged variant's other fields).
        let alone = V::__kind() != Kind::Plain
            || slot
                .as_ref()
                .is_some_and(|v| !v.__fields() && !v.__members());
        match (slot, from) {
            // A member still being written, whatever a read of it alone
            // shows: serde's buffer for the flattened part leaves it out
            // (see `Hint::Omit`), so it changes nothing.
            _ if alone && (at + 1 < levels.len() || out.cut) => {}
            // Complete: the struct is read again.
            (_, None) if alone => {
                if !out.probe {
                    out.rebuild = Some(at);
                }
            }
            (slot, None) => {
                if !out.probe {
                    *slot = None;
                }
            }
            // A part `None` so far may show again only where the member that
            // failed it was the last and still being written (`"x": ` read
            // as null, then `"x": 5`): the struct is read again.
            (None, Some(_)) => {
                if !out.probe {
                    out.rebuild = Some(at);
                }
            }
            (Some(v), Some(from)) if v.__fields() => {
                out.route.push(Route::Field(index));
                v.__place(from, levels, at, out);
            }
            // A flattened map takes a member as it comes, and a part inside
            // one into it: its members are the struct's.
            (Some(v), Some(from)) if v.__members() => {
                out.route.push(Route::Field(index));
                v.__place(from, levels, at, out);
            }
            (Some(_), Some(_)) => {
                out.rebuild = Some(at);
                out.fixed = true;
            }
        }
    }

    /// The one member of `from` (a map view read from a text holding only
    /// it), admitted as a list's element is (see
    /// [`View::__put_member`](super::View::__put_member)): its key with the
    /// value to put in, or with `None` for one not admitted (taken out).
    /// `None` when there is nothing to change (a probe, or no member).
    pub(crate) fn put_member<K, V: super::View>(
        from: impl IntoIterator<Item = (K, V)>,
        out: &mut Placed,
    ) -> Option<(K, Option<V>)> {
        let (key, part) = from.into_iter().next()?;
        out.fields = part.__fields();
        if out.probe {
            out.present = !out.admit || part.admitted().is_some();
            return None;
        }
        let part = part.admitted();
        out.present = part.is_some();
        Some((key, part))
    }

    /// A map view's part (see [`View::__place`](super::View::__place)):
    /// the map itself replaced, a member put in as it comes (read from a
    /// text holding only it, as a flattened map's is), a part deeper in a
    /// member put into that member's value (`get`: the value the map holds
    /// under a key). A deeper part of a member not shown has the map read
    /// again.
    pub(crate) fn map_member<M, K, V>(
        map: &mut M,
        from: M,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
        get: impl for<'m> FnOnce(&'m mut M, &K) -> Option<&'m mut V>,
    ) where
        M: super::View + IntoIterator<Item = (K, V)>,
        V: super::View,
    {
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *map = from;
            }
        } else if levels[at] != Level::Member {
            out.rebuild = Some(at);
            out.fixed = true;
        } else if at + 1 == levels.len() {
            map.__put_member(from, out);
        } else {
            match from.into_iter().next() {
                Some((key, part)) => match get(map, &key) {
                    Some(v) => v.__place(part, levels, at + 1, out),
                    None => out.rebuild = Some(at),
                },
                None => out.rebuild = Some(at),
            }
        }
    }

    /// `from` put in `slot` whole; a part below it asks for a rebuild, of a
    /// node that cannot grow in place when `fixed`.
    fn put_whole<V>(
        slot: &mut Option<V>,
        from: V,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
        fixed: bool,
    ) {
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *slot = Some(from);
            }
        } else {
            out.rebuild = Some(at);
            out.fixed = fixed;
        }
    }

    /// A struct view's field marked `#[llm(atomic)]`: its type need not be
    /// a view, and is put in whole, as a plain scalar's view is (a part
    /// below it asks for a rebuild).
    pub fn place_atomic<V>(
        slot: &mut Option<V>,
        from: V,
        levels: &[Level],
        at: usize,
        out: &mut Placed,
    ) {
        let fixed = slot.is_some();
        put_whole(slot, from, levels, at, out, fixed);
    }

    /// A struct view's field whose node is never read on its own (one
    /// marked `#[llm(atomic)]`, as a scalar's view is not).
    pub fn local_none<V>(_: &mut Option<V>, _: &[Route], _: &mut Local<'_>, _: bool) -> bool {
        false
    }

    /// A field whose view cannot be appended to.
    pub fn append_none<V>(_: &mut Option<V>, _: &[Route], _: &str) -> bool {
        false
    }

    /// A struct view's field on a route.
    pub fn append<V: super::View>(slot: &mut Option<V>, route: &[Route], text: &str) -> bool {
        slot.as_mut().is_some_and(|v| v.__append(route, text))
    }
}

/// Types that are their own view, shown once complete (a number, a date):
/// `atomic! { A, B }`, or `atomic! { impl<T: Bound> C<T> }` for a generic
/// one, whose view is a `View` where it deserializes. (The generic arm is
/// first: a type fragment cannot back off from `impl<`.)
macro_rules! atomic {
    ($(impl<$t:ident: $bound:path> $ty:ty),* $(,)?) => {
        $(
            impl<$t: $bound> Partial for $ty
            where
                $ty: serde::de::DeserializeOwned,
            {
                type View = $ty;
            }
            impl<$t: $bound> View for $ty
            where
                $ty: serde::de::DeserializeOwned,
            {
                fn __cut() -> grow::Cut {
                    grow::Cut::Whole
                }

                fn __local_list(list: &mut Vec<Self>, cx: &mut grow::Local<'_>) -> bool {
                    cx.place(list)
                }
            }
        )*
    };
    ($($ty:ty),* $(,)?) => {
        $(
            impl Partial for $ty {
                type View = $ty;
            }
            impl View for $ty {
                fn __cut() -> grow::Cut {
                    grow::Cut::Whole
                }

                fn __local_list(list: &mut Vec<Self>, cx: &mut grow::Local<'_>) -> bool {
                    cx.place(list)
                }
            }
        )*
    };
}

atomic! {
    bool, char, (),
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
}

/// Feature `chrono`: dates and times, each shown once complete (a cut
/// `"2024-05-0` is never a date). `DateTime<Tz>` has a view wherever
/// chrono deserializes it: `Utc`, `FixedOffset`, and `Local` with chrono's
/// `clock` feature. They read RFC 3339 strings, as chrono's serde does.
#[cfg(feature = "chrono")]
mod chrono_views {
    use super::{grow, Partial, View};

    atomic! { impl<Tz: chrono::TimeZone> chrono::DateTime<Tz> }
    atomic! { chrono::NaiveDate, chrono::NaiveDateTime, chrono::NaiveTime }
}

/// Feature `time`: `OffsetDateTime`, `Date`, `PrimitiveDateTime` and `Time`,
/// each shown once complete. With time's `serde` feature alone (all this
/// feature turns on) they read time's compact arrays (`[2024, 135]` for a
/// date). A JSON string takes time's own feature `serde-human-readable`,
/// turned on in your `Cargo.toml` (not here: it changes how time serializes
/// everywhere), and then reads time's own format
/// (`"2024-05-14 09:30:05.0 +02:00:00"`), not RFC 3339.
#[cfg(feature = "time")]
mod time_views {
    use super::{grow, Partial, View};

    atomic! { time::OffsetDateTime, time::Date, time::PrimitiveDateTime, time::Time }
}

/// Feature `uuid`: `Uuid`, shown once complete.
#[cfg(feature = "uuid")]
mod uuid_views {
    use super::{grow, Partial, View};

    atomic! { uuid::Uuid }
}

/// Feature `rust_decimal`: `Decimal`, shown once complete (from a number or
/// a string, as rust_decimal's serde reads it).
#[cfg(feature = "rust_decimal")]
mod rust_decimal_views {
    use super::{grow, Partial, View};

    atomic! { rust_decimal::Decimal }
}

/// Feature `url`: `Url`, shown once complete (a cut `"https://exa` is never
/// a URL).
#[cfg(feature = "url")]
mod url_views {
    use super::{grow, Partial, View};

    atomic! { url::Url }
}

impl Partial for String {
    type View = String;
}

/// The room a string view that grows in place is given first.
const GROWN_FIRST: usize = 256;
impl View for String {
    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        if route.is_empty() {
            // A string that grows a piece at a time skips the smallest
            // steps of doubling (8, 16, 32 bytes): each is a reallocation.
            if self.capacity() - self.len() < text.len() {
                self.reserve(text.len().max(self.len()).max(GROWN_FIRST));
            }
            self.push_str(text);
        }
        route.is_empty()
    }

    fn __local_list(list: &mut Vec<Self>, cx: &mut grow::Local<'_>) -> bool {
        cx.place(list)
    }
}

impl Partial for serde_json::Value {
    type View = serde_json::Value;
}
/// An untyped view grows as a list or an object does; its members are the
/// keys themselves.
impl View for serde_json::Value {
    fn __place(&mut self, from: Self, levels: &[grow::Level], at: usize, out: &mut grow::Placed) {
        use serde_json::Value;
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *self = from;
            }
            return;
        }
        match (levels[at], self, from) {
            (grow::Level::Member, Value::Object(live), Value::Object(from)) => {
                let Some((key, part)) = from.into_iter().next() else {
                    return;
                };
                out.route.push(grow::Route::Key(key.clone()));
                if at + 1 == levels.len() {
                    out.present = true;
                    if !out.probe {
                        live.insert(key, part);
                    }
                } else {
                    match live.get_mut(&key) {
                        Some(v) => v.__place(part, levels, at + 1, out),
                        None => out.rebuild = Some(at + 1),
                    }
                }
            }
            (grow::Level::Element { has }, Value::Array(live), Value::Array(from)) => {
                grow::element(live, from, has, levels, at, out);
            }
            _ => {
                out.rebuild = Some(at);
                out.fixed = true;
            }
        }
    }

    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        use serde_json::Value;
        match (route.split_first(), self) {
            (None, Value::String(s)) => {
                s.push_str(text);
                true
            }
            (Some((grow::Route::Key(k), rest)), Value::Object(m)) => {
                m.get_mut(k).is_some_and(|v| v.__append(rest, text))
            }
            (Some((grow::Route::Last, rest)), Value::Array(a)) => {
                a.last_mut().is_some_and(|v| v.__append(rest, text))
            }
            _ => false,
        }
    }

    fn __local_list(list: &mut Vec<Self>, cx: &mut grow::Local<'_>) -> bool {
        cx.place(list)
    }

    fn __local(&mut self, route: &[grow::Route], cx: &mut grow::Local<'_>) -> bool {
        use serde_json::Value;
        match (route.split_first(), self) {
            (None, node) => cx.place(node),
            (Some((grow::Route::Key(k), rest)), Value::Object(m)) => {
                m.get_mut(k).is_some_and(|v| v.__local(rest, cx))
            }
            (Some((grow::Route::Last, rest)), Value::Array(a)) => {
                a.last_mut().is_some_and(|v| v.__local(rest, cx))
            }
            _ => false,
        }
    }

    fn __grows(&self) -> bool {
        true
    }
}

impl<'a> Partial for &'a str {
    type View = &'a str;
}
impl View for &str {}

impl<'a> Partial for std::borrow::Cow<'a, str> {
    type View = std::borrow::Cow<'a, str>;
}
impl View for std::borrow::Cow<'_, str> {}

/// `null` is a value of an `Option`: shown as `None` in the view (an
/// element of a `Vec<Option<T>>`, a map's value). A struct's `Option<T>`
/// field keeps one `Option` in its view (`Option<T::View>`, `None` both
/// while missing and for `null`), as the derive writes it.
impl<T: Partial> Partial for Option<T> {
    type View = Option<T::View>;
}
impl<T: View> View for Option<T> {
    /// `None` (a `null`) is shown; a value, where it is.
    fn admitted(self) -> Option<Self> {
        match self {
            None => Some(None),
            Some(v) => v.admitted().map(Some),
        }
    }

    fn __place(&mut self, from: Self, levels: &[grow::Level], at: usize, out: &mut grow::Placed) {
        match (self.as_mut(), from) {
            (Some(v), Some(from)) => v.__place(from, levels, at, out),
            (_, from) if at == levels.len() => {
                out.present = true;
                out.fields = from.as_ref().is_some_and(View::__fields);
                if !out.probe {
                    *self = from;
                }
            }
            _ => {
                out.rebuild = Some(at);
                out.fixed = true;
            }
        }
    }

    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        self.as_mut().is_some_and(|v| v.__append(route, text))
    }

    fn __local(&mut self, route: &[grow::Route], cx: &mut grow::Local<'_>) -> bool {
        self.as_mut().is_some_and(|v| v.__local(route, cx))
    }

    fn __kind() -> grow::Kind {
        T::__kind()
    }

    fn __cut() -> grow::Cut {
        T::__cut()
    }

    fn __kind_at(&self, route: &[grow::Route]) -> grow::Kind {
        match (self, route) {
            (Some(v), _) => v.__kind_at(route),
            (None, []) => T::__kind(),
            (None, _) => grow::Kind::Plain,
        }
    }

    fn __shown(&self) -> bool {
        self.as_ref().is_none_or(View::__shown)
    }

    fn __fields(&self) -> bool {
        self.as_ref().is_some_and(View::__fields)
    }

    fn __grows(&self) -> bool {
        self.as_ref().is_some_and(View::__grows)
    }
}

impl<T: Partial> Partial for Box<T> {
    type View = Box<T::View>;
}
impl<T: View> View for Box<T> {
    fn admitted(self) -> Option<Self> {
        (*self).admitted().map(Box::new)
    }

    fn __place(&mut self, from: Self, levels: &[grow::Level], at: usize, out: &mut grow::Placed) {
        (**self).__place(*from, levels, at, out);
    }

    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        (**self).__append(route, text)
    }

    fn __local(&mut self, route: &[grow::Route], cx: &mut grow::Local<'_>) -> bool {
        (**self).__local(route, cx)
    }

    fn __kind() -> grow::Kind {
        T::__kind()
    }

    fn __cut() -> grow::Cut {
        T::__cut()
    }

    fn __kind_at(&self, route: &[grow::Route]) -> grow::Kind {
        (**self).__kind_at(route)
    }

    fn __shown(&self) -> bool {
        (**self).__shown()
    }

    fn __fields(&self) -> bool {
        (**self).__fields()
    }

    fn __grows(&self) -> bool {
        (**self).__grows()
    }
}

impl<T: Partial> Partial for Vec<T> {
    type View = Vec<T::View>;
}
impl<T: View> View for Vec<T> {
    fn admitted(self) -> Option<Self> {
        Some(self.into_iter().filter_map(View::admitted).collect())
    }

    fn __cut() -> grow::Cut {
        T::__cut().of_parts()
    }

    fn __place(&mut self, from: Self, levels: &[grow::Level], at: usize, out: &mut grow::Placed) {
        if at == levels.len() {
            out.present = true;
            if !out.probe {
                *self = from.into_iter().filter_map(View::admitted).collect();
            }
            return;
        }
        match levels[at] {
            grow::Level::Element { has } => grow::element(self, from, has, levels, at, out),
            grow::Level::Member | grow::Level::Content => {
                out.rebuild = Some(at);
                out.fixed = true;
            }
        }
    }

    fn __append(&mut self, route: &[grow::Route], text: &str) -> bool {
        match route.split_first() {
            Some((grow::Route::Last, rest)) => {
                self.last_mut().is_some_and(|v| v.__append(rest, text))
            }
            _ => false,
        }
    }

    fn __kind_at(&self, route: &[grow::Route]) -> grow::Kind {
        match (route.split_first(), self.last()) {
            (Some((grow::Route::Last, [])), _) => T::__kind(),
            (Some((grow::Route::Last, rest)), Some(v)) => v.__kind_at(rest),
            _ => grow::Kind::Plain,
        }
    }

    fn __local(&mut self, route: &[grow::Route], cx: &mut grow::Local<'_>) -> bool {
        match route.split_first() {
            None => T::__local_list(self, cx),
            Some((grow::Route::Last, rest)) => self.last_mut().is_some_and(|v| v.__local(rest, cx)),
            _ => false,
        }
    }

    fn __grows(&self) -> bool {
        true
    }
}

/// A map's view: the same map of views, admitted member by member, taking
/// each member as it comes (see [`grow::map_member`]).
macro_rules! map_view {
    () => {
        fn admitted(self) -> Option<Self> {
            Some(
                self.into_iter()
                    .filter_map(|(k, v)| Some((k, v.admitted()?)))
                    .collect(),
            )
        }

        fn __cut() -> grow::Cut {
            V::__cut().of_parts()
        }

        fn __place(
            &mut self,
            from: Self,
            levels: &[grow::Level],
            at: usize,
            out: &mut grow::Placed,
        ) {
            grow::map_member(self, from, levels, at, out, |map, key| map.get_mut(key));
        }

        fn __grows(&self) -> bool {
            true
        }

        fn __members(&self) -> bool {
            true
        }

        fn __put_member(&mut self, from: Self, out: &mut grow::Placed) {
            match grow::put_member(from, out) {
                Some((key, Some(v))) => drop(self.insert(key, v)),
                Some((key, None)) => drop(self.remove(&key)),
                None => {}
            }
        }
    };
}

impl<K: Eq + std::hash::Hash, V: Partial, S: std::hash::BuildHasher + Default> Partial
    for std::collections::HashMap<K, V, S>
{
    type View = std::collections::HashMap<K, V::View, S>;
}
impl<K: Eq + std::hash::Hash, V: View, S: std::hash::BuildHasher + Default> View
    for std::collections::HashMap<K, V, S>
{
    map_view!();
}

impl<K: Ord, V: Partial> Partial for std::collections::BTreeMap<K, V> {
    type View = std::collections::BTreeMap<K, V::View>;
}
impl<K: Ord, V: View> View for std::collections::BTreeMap<K, V> {
    map_view!();
}

/// Collections whose view is the same collection of views.
macro_rules! collections {
    ($($coll:ident<$t:ident $(: $bound:path)?>),*) => {
        $(
            impl<$t: Partial> Partial for $coll<$t>
            where
                $t::View: Sized $(+ $bound)?,
            {
                type View = $coll<$t::View>;
            }
            impl<$t: View $(+ $bound)?> View for $coll<$t> {
                fn admitted(self) -> Option<Self> {
                    Some(self.into_iter().filter_map(View::admitted).collect())
                }

                fn __cut() -> grow::Cut {
                    $t::__cut().of_parts()
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

impl<T: Partial> Partial for HashSet<T>
where
    T::View: Eq + std::hash::Hash,
{
    type View = HashSet<T::View>;
}
impl<T: View + Eq + std::hash::Hash> View for HashSet<T> {
    fn admitted(self) -> Option<Self> {
        Some(self.into_iter().filter_map(View::admitted).collect())
    }

    fn __cut() -> grow::Cut {
        T::__cut().of_parts()
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

    use super::grow;

    /// A view field: the value if it is complete (the partial policy) and
    /// admitted.
    pub fn field<'de, D, V>(d: D) -> Result<Option<V>, D::Error>
    where
        D: Deserializer<'de>,
        V: Deserialize<'de> + View,
    {
        let (v, judge) = crate::de::field::read_judged::<D, Option<V>>(d, super::FIELD)?;
        Ok(if judge { v.and_then(View::admitted) } else { v })
    }

    /// A view field marked `#[llm(atomic)]`: the field's own type (which
    /// need not be a view), once complete, as a plain scalar field is read.
    pub fn atomic_field<'de, D, V>(d: D) -> Result<Option<V>, D::Error>
    where
        D: Deserializer<'de>,
        V: Deserialize<'de>,
    {
        // Counted as any field is, though nothing inside is a view field.
        crate::de::field::read::<D, Option<V>>(d, super::FIELD)
    }

    /// A value read by a seed where a field marked partial stands (a
    /// runtime schema's property marked `x-partial`), cut as far as `cut`
    /// says: as [`partial_field`] reads a view whose `__cut` is `cut`, but
    /// without the `Option` around it and without admission (the seed
    /// decides both).
    pub fn read_seed<'de, D, S>(d: D, cut: grow::Cut, seed: S) -> Result<S::Value, D::Error>
    where
        D: Deserializer<'de>,
        S: serde::de::DeserializeSeed<'de>,
    {
        let name = match cut {
            grow::Cut::Grows => super::TOKEN,
            grow::Cut::Parts => super::PARTS,
            grow::Cut::Whole => super::FIELD,
        };
        crate::de::field::read_seed(d, name, seed)
    }

    /// A view field marked `#[llm(partial)]`: the value so far.
    pub fn partial_field<'de, D, V>(d: D) -> Result<Option<V>, D::Error>
    where
        D: Deserializer<'de>,
        V: Deserialize<'de> + View,
    {
        let (v, judge) = super::deserialize_as::<D, Option<V>>(d)?;
        Ok(if judge { v.and_then(View::admitted) } else { v })
    }
}
