//! The input, read once: each item keeps its original syn node (for spans)
//! beside what its attributes say.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{Attribute, Data, DeriveInput, Fields, Member};

use crate::attr::{self, Errors, Llm, Position, Serde};

pub enum Input<'a> {
    Struct(Struct<'a>),
    Enum(Enum<'a>),
}

pub struct Container<'a> {
    pub original: &'a DeriveInput,
    /// `#[llm]` is not allowed here; kept to point at it.
    pub llm: Vec<&'a Attribute>,
    pub serde: Serde,
}

pub struct Struct<'a> {
    pub cont: Container<'a>,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

pub struct Enum<'a> {
    pub cont: Container<'a>,
    pub variants: Vec<Variant<'a>>,
}

pub struct Variant<'a> {
    pub original: &'a syn::Variant,
    /// `#[llm]` is not allowed here; kept to point at it.
    pub llm: Vec<&'a Attribute>,
    pub serde: Serde,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub member: Member,
    pub llm: Llm<'a>,
    pub serde: Serde,
    /// The field's type, `Self` spelled out (in the view, `Self` is the view).
    pub ty: TokenStream,
    /// What an atomic view holds: the field's type, or `T` for an
    /// `Option<T>` (the view field is an `Option` already), `Self` spelled
    /// out.
    pub whole: TokenStream,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Named,
    Tuple,
    Unit,
}

impl<'a> Input<'a> {
    /// Reads `input`. Attribute mistakes go to `errors` and reading goes on;
    /// a union is refused at once.
    pub fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> syn::Result<Self> {
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let ident = &input.ident;
        let this = quote!(#ident #ty_generics);
        let cont = Container {
            original: input,
            llm: attr::llm(&input.attrs, errors).attrs,
            serde: attr::serde(&input.attrs, Position::Container),
        };
        match &input.data {
            Data::Struct(data) => {
                let (style, fields) = fields(&data.fields, &this, errors);
                Ok(Input::Struct(Struct {
                    cont,
                    style,
                    fields,
                }))
            }
            Data::Enum(data) => {
                let variants = data
                    .variants
                    .iter()
                    .map(|original| {
                        let (style, fields) = fields(&original.fields, &this, errors);
                        Variant {
                            original,
                            llm: attr::llm(&original.attrs, errors).attrs,
                            serde: attr::serde(&original.attrs, Position::Variant),
                            style,
                            fields,
                        }
                    })
                    .collect();
                Ok(Input::Enum(Enum { cont, variants }))
            }
            Data::Union(data) => Err(syn::Error::new_spanned(
                data.union_token,
                "#[derive(Partial)] supports structs and enums, not unions",
            )),
        }
    }
}

fn fields<'a>(
    fields: &'a Fields,
    this: &TokenStream,
    errors: &mut Errors,
) -> (Style, Vec<Field<'a>>) {
    let style = match fields {
        Fields::Named(_) => Style::Named,
        Fields::Unnamed(_) => Style::Tuple,
        Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .zip(fields.members())
        .map(|(original, member)| Field {
            original,
            member,
            llm: attr::llm(&original.attrs, errors),
            serde: attr::serde(&original.attrs, Position::Field),
            ty: replace_self(original.ty.to_token_stream(), this),
            whole: replace_self(unwrap_option(&original.ty).to_token_stream(), this),
        })
        .collect();
    (style, fields)
}

impl Field<'_> {
    /// Whether the value may be shown incomplete.
    pub fn partial(&self) -> bool {
        self.llm.partial.is_some() || self.serde.partial_with
    }

    pub fn required(&self) -> bool {
        self.llm.required.is_some()
    }

    /// `#[llm(atomic)]`: the view holds the field's own type, shown once
    /// complete (the type needs no view of its own).
    pub fn atomic(&self) -> bool {
        self.llm.atomic.is_some()
    }
}

impl Enum<'_> {
    /// Every variant is a unit variant: the enum is its own view (a variant
    /// name is never partial).
    pub fn unit_only(&self) -> bool {
        self.variants.iter().all(|v| v.style == Style::Unit)
    }
}

/// `T` for `Option<T>` (spelled `Option`, `std::option::Option` or
/// `core::option::Option`: judged by how the type is written, as serde's
/// own derive judges a field optional), else `ty` itself.
fn unwrap_option(ty: &syn::Type) -> &syn::Type {
    // A type passed through a `macro_rules!` fragment comes in a group.
    let bare = match ty {
        syn::Type::Group(g) => &*g.elem,
        syn::Type::Paren(p) => &*p.elem,
        ty => ty,
    };
    let syn::Type::Path(path) = bare else {
        return ty;
    };
    if path.qself.is_some() {
        return ty;
    }
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if !matches!(names[..], ["Option"] | ["std" | "core", "option", "Option"]) {
        return ty;
    }
    let last = path.path.segments.last().expect("a segment");
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return ty;
    };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [syn::GenericArgument::Type(inner)] => inner,
        _ => ty,
    }
}

/// `tokens` with each `Self` replaced by `this`, keeping every other span.
fn replace_self(tokens: TokenStream, this: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    for tt in tokens {
        match tt {
            TokenTree::Ident(ident) if ident == "Self" => out.extend(this.clone()),
            TokenTree::Group(group) => {
                let mut g = Group::new(group.delimiter(), replace_self(group.stream(), this));
                g.set_span(group.span());
                out.extend([TokenTree::Group(g)]);
            }
            tt => out.extend([tt]),
        }
    }
    out
}
