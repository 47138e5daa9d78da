//! The derive macro of [`serde_llm`](https://docs.rs/serde_llm):
//! `#[derive(Partial)]`, re-exported as `serde_llm::Partial`. Use it from
//! there; this crate is an implementation detail.

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Generates the partial view of a struct or enum: what it looks like while
/// the reply that holds it is still being written.
///
/// For `struct Answer` it generates `struct AnswerView` (same visibility and
/// generics) where each field `f: F` becomes `pub f: Option<<F as
/// Partial>::View>` (a field `f: Option<T>`, `pub f: Option<<T as
/// Partial>::View>`: one `Option`, `None` both while missing and for
/// `null`), and `impl Partial for Answer { type View = AnswerView; }`.
/// The view derives `Deserialize` with the original's serde attributes, so
/// it reads the same JSON, and implements `Default` (structs), `Debug`,
/// `Clone` and `PartialEq`.
///
/// Field attributes:
///
/// - `#[llm(partial)]`: the field may be shown incomplete (a string's prefix,
///   an array's elements so far, an object's members so far). Without it a
///   field shows only once its value is complete. Values that are never
///   cut stay whole: a list of numbers, chars or dates grows by whole
///   values, and such a value alone shows once complete.
/// - `#[llm(required)]`: the whole view is `None` until this field is
///   complete (an id, a kind).
/// - `#[llm(atomic)]`: the view holds the field's own type `F` (for an
///   `Option<T>` field, `T`: the view field is an `Option` already), shown
///   once complete, as a number is: never a value cut short, exactly what a
///   decode of the original reads. `F` needs only `Deserialize`, not
///   `Partial`: the way to hold a type from another crate (a date, an id, a
///   decimal) that has no view, since the orphan rule keeps you from
///   implementing `Partial` for it. A type parameter that only atomic
///   fields name needs no `Partial` bound. It goes with `required` (the
///   view waits for the value), not with `partial`.
///
/// ```
/// use serde_llm::Partial;
///
/// #[derive(serde::Deserialize, Partial)]
/// struct Answer {
///     #[llm(required)]
///     id: u64,
///     title: String,
///     #[llm(partial)]
///     body: String,
/// }
///
/// let view = serde_llm::from_llm_str_partial::<Answer>(r#"{"id": 3, "title": "Bread", "body": "Feed the sta"#)?
///     .expect("the id is complete");
/// assert_eq!(view.body.as_deref(), Some("Feed the sta"));
/// # Ok::<(), serde_llm::Error>(())
/// ```
///
/// An atomic field, of a type with `Deserialize` but no partial view:
///
/// ```
/// use serde_llm::Partial;
///
/// /// Say, from another crate: it implements `Deserialize` only.
/// #[derive(Debug, PartialEq, serde::Deserialize)]
/// struct Sku(String);
///
/// #[derive(serde::Deserialize, Partial)]
/// struct Order {
///     #[llm(required, atomic)]
///     sku: Sku,
///     #[llm(atomic)]
///     gift: Option<Sku>,
///     #[llm(partial)]
///     note: String,
/// }
///
/// // No view until the required atomic field is complete ...
/// let cut = r#"{"note": "For Ada", "sku": "AB-12"#;
/// assert!(serde_llm::from_llm_str_partial::<Order>(cut)?.is_none());
/// // ... then the value itself; the `Option` field holds an `Option<Sku>`.
/// let cut = r#"{"note": "For Ada", "sku": "AB-12", "gift": "CD-3"#;
/// let view = serde_llm::from_llm_str_partial::<Order>(cut)?.expect("the sku is complete");
/// assert_eq!(view.sku, Some(Sku("AB-12".into())));
/// assert_eq!(view.gift, None);
/// assert_eq!(view.note.as_deref(), Some("For Ada"));
/// # Ok::<(), serde_llm::Error>(())
/// ```
///
/// The rules, exactly:
///
/// - A unit-only enum is its own view (`type View = Self`): a variant name
///   is never partial. Any other enum gets `EnumView` with the same variants;
///   `admitted` checks the `required` fields of the variant that was read.
/// - A flattened field is `Option<<F as Partial>::View>` too, with
///   `#[serde(flatten)]`; its `required` fields count as the outer view's.
/// - Fields serde skips (`skip`, `skip_deserializing`) are left out of the
///   view, so their types need no view; in a tuple struct or variant they
///   stay as `()`, so positions and length match the original. Skipped
///   variants are left out.
/// - In an untagged enum, serde takes the first variant that reads; a
///   view's fields all default, so there a `required` field has no default:
///   mark the fields that tell the variants apart `#[llm(required)]`.
/// - Serde attributes carried over: container `rename`, `rename_all`,
///   `rename_all_fields`, `deny_unknown_fields`, `tag`, `content`,
///   `untagged`, `transparent`, `expecting`; variant `rename`, `alias`,
///   `rename_all`, `other`, `untagged`; field `rename`, `alias`, `flatten`.
///   `default` is dropped (a view field is `None` when missing, not the
///   default), as are serialize-only attributes, `bound`, `borrow` and
///   `crate` (the view sets its own).
/// - An internally tagged enum's view (named or unit variants, no generics,
///   no flattened field) is read without serde's buffer: the decoder finds
///   the tag and reads the object as the variant's struct, so its partial
///   fields grow as a struct's do. So is an adjacently tagged enum's view
///   (no generics): whose variants are all newtype or unit ones when its
///   tag comes first (serde reads its content without a buffer then); with
///   a struct or tuple variant, wherever the tag is (the decoder finds it
///   and reads the content member as the variant's value; a struct
///   variant shows, with no fields yet, once its tag is complete). A
///   stream grows such a view in place once its tag has come first, but
///   for a tuple variant of several fields. Inside content
///   serde does buffer (untagged enums, `flatten`, newtype variants'
///   adjacently tagged content written before its tag, a generic tagged
///   view), the buffer cannot say a value is cut: a cut
///   value there is missing where nothing cut is kept, and where the place
///   is marked partial it makes the buffered value the cut's (an element of
///   a list marked partial shows once that value is complete; a field, the
///   decode is `Truncated`). Such parts show only once complete.
/// - Compile errors: `deserialize_with` or `with` on a field or variant
///   (the view cannot follow a custom deserializer; wrap the type in a
///   newtype whose `Deserialize` calls it, and mark the field
///   `#[llm(atomic)]`), `from`,
///   `try_from` or `remote` on a struct or data enum, `#[llm]` on a
///   container, a variant, a skipped or a flattened field, and unions;
///   `atomic` with `partial`. A field whose type has no view is an error
///   at the field's type naming the way out: `#[llm(atomic)]`.
///   `with = "serde_llm::partial"` reads as `#[llm(partial)]`.
/// - `Debug`, `Clone` and `PartialEq` hold when the fields' views have them
///   (whether or not the original or its type parameters do). Enum views
///   have no `Default`.
#[proc_macro_derive(Partial, attributes(llm))]
pub fn derive_partial(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

// The README's example runs as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
struct ReadmeDoctests;
