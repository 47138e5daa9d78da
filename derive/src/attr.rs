//! Parsing `#[llm(..)]` and sorting `#[serde(..)]`: what the view carries
//! over, what it leaves out, and what it cannot follow.

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Lit, Meta, Token};

/// Errors gathered while reading the input, so every mistake shows at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub fn to_compile_errors(&self) -> proc_macro2::TokenStream {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}

/// The keys of one field's `#[llm(..)]` attributes, each with the path that
/// named it (for spans).
#[derive(Default)]
pub struct Llm<'a> {
    /// Every `#[llm]` attribute, where one is not allowed at all.
    pub attrs: Vec<&'a Attribute>,
    pub partial: Option<syn::Path>,
    pub required: Option<syn::Path>,
    pub atomic: Option<syn::Path>,
    /// The keys in the order written.
    pub keys: Vec<syn::Path>,
}

/// Reads every `#[llm(..)]` among `attrs`: unknown and repeated keys are
/// errors here; which keys may go together is for `valid.rs`.
pub fn llm<'a>(attrs: &'a [Attribute], errors: &mut Errors) -> Llm<'a> {
    let mut llm = Llm::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("llm")) {
        llm.attrs.push(attr);
        if !matches!(attr.meta, Meta::List(_)) {
            errors.push(syn::Error::new_spanned(
                attr,
                "expected `#[llm(partial)]`, `#[llm(required)]` or `#[llm(atomic)]`",
            ));
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            let slot = if meta.path.is_ident("partial") {
                &mut llm.partial
            } else if meta.path.is_ident("required") {
                &mut llm.required
            } else if meta.path.is_ident("atomic") {
                &mut llm.atomic
            } else {
                let key = meta.path.get_ident().map_or_else(
                    || quote::ToTokens::to_token_stream(&meta.path).to_string(),
                    ToString::to_string,
                );
                return Err(meta.error(format_args!(
                    "unknown llm attribute `{}`: expected `partial`, `required` or `atomic`",
                    key.replace(' ', "")
                )));
            };
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                return Err(meta.error(format_args!(
                    "`{}` takes no value: write `#[llm({0})]`",
                    meta.path.get_ident().unwrap()
                )));
            }
            if slot.is_some() {
                return Err(meta.error(format_args!(
                    "duplicate llm attribute `{}`",
                    meta.path.get_ident().unwrap()
                )));
            }
            *slot = Some(meta.path.clone());
            llm.keys.push(meta.path);
            Ok(())
        });
        if let Err(e) = parsed {
            errors.push(e);
        }
    }
    llm
}

/// Where a `#[serde(..)]` attribute stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Container,
    Variant,
    Field,
}

/// What the view does with one serde attribute.
enum Fate {
    /// The view reads the same JSON only with it.
    Keep,
    /// Serialization only, or replaced by what the view sets itself
    /// (`default`, `bound`, `crate`, `borrow`).
    Drop,
    /// Changes how the value is read in a way a generated view cannot
    /// follow (a custom deserializer, a conversion).
    Refuse,
}

fn fate(position: Position, key: &str) -> Fate {
    match (position, key) {
        (
            Position::Container,
            "rename"
            | "rename_all"
            | "rename_all_fields"
            | "deny_unknown_fields"
            | "tag"
            | "content"
            | "untagged"
            | "transparent"
            | "expecting",
        ) => Fate::Keep,
        (Position::Container, "from" | "try_from" | "remote") => Fate::Refuse,
        (Position::Variant, "rename" | "alias" | "rename_all" | "other" | "untagged") => Fate::Keep,
        (Position::Field, "rename" | "alias") => Fate::Keep,
        (Position::Variant | Position::Field, "deserialize_with" | "with") => Fate::Refuse,
        _ => Fate::Drop,
    }
}

/// The serde attributes of one container, variant or field, sorted.
#[derive(Default)]
pub struct Serde {
    /// Carried over to the view as they are.
    pub kept: Vec<Meta>,
    /// `skip` or `skip_deserializing`: the view leaves the item out.
    pub skip: bool,
    pub flatten: bool,
    pub transparent: bool,
    /// `with = "serde_llm::partial"`: the same as `#[llm(partial)]`.
    pub partial_with: bool,
    /// Attributes the view cannot follow (reported by `valid.rs`).
    pub refused: Vec<Meta>,
}

/// Sorts the `#[serde(..)]` attributes among `attrs`. One serde cannot parse
/// is left to serde's own derive on the original to report.
pub fn serde(attrs: &[Attribute], position: Position) -> Serde {
    let mut serde = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let Ok(metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        else {
            continue;
        };
        for meta in metas {
            let Some(key) = meta.path().get_ident().map(ToString::to_string) else {
                continue;
            };
            match key.as_str() {
                "skip" | "skip_deserializing" if position != Position::Container => {
                    serde.skip = true;
                    continue;
                }
                "flatten" if position == Position::Field => {
                    serde.flatten = true;
                    continue;
                }
                "transparent" if position == Position::Container => serde.transparent = true,
                "with" if is_partial(&meta, "serde_llm::partial") => {
                    serde.partial_with = true;
                    continue;
                }
                "deserialize_with" if is_partial(&meta, "serde_llm::partial::deserialize") => {
                    serde.partial_with = true;
                    continue;
                }
                _ => {}
            }
            match fate(position, &key) {
                Fate::Keep => serde.kept.push(meta),
                Fate::Drop => {}
                Fate::Refuse => serde.refused.push(meta),
            }
        }
    }
    serde
}

/// Whether `meta` is `key = "<path>"` naming `serde_llm`'s own partial marker.
fn is_partial(meta: &Meta, path: &str) -> bool {
    let Meta::NameValue(nv) = meta else {
        return false;
    };
    let Expr::Lit(lit) = &nv.value else {
        return false;
    };
    let Lit::Str(s) = &lit.lit else {
        return false;
    };
    let value = s.value();
    value.trim().trim_start_matches("::") == path
}

/// The doc attributes of an item, to carry over to its view.
pub fn docs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("doc")).collect()
}
