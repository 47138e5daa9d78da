//! Code generation: the view type, its serde attributes, and the impls.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, GenericParam, Generics, LitStr};

use crate::ast::{Enum, Field, Input, Struct, Style, Variant};
use crate::attr::{self, Errors};
use crate::valid;

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    match Input::from_syn(input, &mut errors) {
        Ok(ast) => {
            valid::check(&ast, &mut errors);
            if errors.is_empty() {
                return match &ast {
                    Input::Struct(s) => expand_struct(s),
                    Input::Enum(e) if e.unit_only() => expand_unit_enum(input),
                    Input::Enum(e) => expand_enum(e),
                };
            }
        }
        Err(e) => errors.push(e),
    }
    let errors = errors.to_compile_errors();
    let stub = stub(input);
    quote!(#errors #stub)
}

/// On a mistake: the impl with a placeholder view, so that the mistake is the
/// one error the user sees (not one more for each use of the type).
fn stub(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::serde_llm::Partial for #ident #ty_generics #where_clause {
            type View = ();
        }
    }
}

/// A unit-only enum is its own view: a variant name is atomic.
fn expand_unit_enum(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::serde_llm::Partial for #ident #ty_generics #where_clause {
            type View = Self;
        }
        #[automatically_derived]
        impl #impl_generics ::serde_llm::View for #ident #ty_generics #where_clause {}
    }
}

/// What every part of one expansion needs.
struct Cx<'a> {
    input: &'a DeriveInput,
    view: Ident,
    /// The original generics, each type parameter bound by `Partial` (but
    /// one that only atomic fields name: they hold it whole).
    generics: Generics,
    /// Type and const parameters: a field type naming one needs bounds.
    params: Vec<Ident>,
    transparent: bool,
    /// The types of the fields that need a view and name no parameter (nor
    /// the type itself): each impl for the view assumes their `Partial`
    /// impls (see [`impl_where`](Self::impl_where)).
    assumed: Vec<TokenStream>,
}

impl<'a> Cx<'a> {
    fn new(input: &'a DeriveInput, transparent: bool, fields: &[&Field]) -> Self {
        let mut generics = input.generics.clone();
        for param in generics.type_params_mut() {
            let named = |f: &&Field| mentions(&f.ty, std::slice::from_ref(&param.ident));
            let whole = fields.iter().any(|f| f.atomic() && named(f))
                && !fields.iter().any(|f| !f.atomic() && named(f));
            if !whole {
                param.bounds.push(syn::parse_quote!(::serde_llm::Partial));
            }
        }
        let params: Vec<Ident> = input
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                GenericParam::Type(t) => Some(t.ident.clone()),
                GenericParam::Const(c) => Some(c.ident.clone()),
                GenericParam::Lifetime(_) => None,
            })
            .collect();
        Cx {
            input,
            view: format_ident!("{}View", input.ident),
            generics,
            params,
            transparent,
            assumed: Vec::new(),
        }
    }

    /// `self` assuming the views of the types of `fields`, those the view
    /// holds (see [`assumptions`](Self::assumptions)).
    fn assuming(mut self, fields: &[&Field]) -> Self {
        let this = std::slice::from_ref(&self.input.ident);
        let mut seen = std::collections::HashSet::new();
        self.assumed = fields
            .iter()
            .filter(|f| !f.serde.skip && !f.atomic())
            .filter(|f| !mentions(&f.ty, &self.params) && !mentions(&f.ty, this))
            .map(|f| f.ty.to_token_stream())
            .filter(|ty| seen.insert(ty.to_string()))
            .collect();
        self
    }

    /// `for<'__llm> F: Partial` for each field type `F` assumed, and with
    /// `view_too` `for<'__llm> <F as Partial>::View: View`: an impl for the
    /// view holds only where its fields' types have views. A field of a type
    /// without one is an error where the view's field names it (its type
    /// is spanned there), and once only: the impls' bodies assume the view
    /// rather than fail again (a bound on a concrete type that does not
    /// hold leaves the impl out, as for `Debug` below). Where the bound
    /// holds, rustc uses the impl, not the bound.
    fn assumptions(&self, view_too: bool) -> Vec<TokenStream> {
        self.assumed
            .iter()
            .flat_map(|ty| {
                let partial = quote!(for<'__llm> #ty: ::serde_llm::Partial);
                let view = view_too.then(
                    || quote!(for<'__llm> <#ty as ::serde_llm::Partial>::View: ::serde_llm::View),
                );
                std::iter::once(partial).chain(view)
            })
            .collect()
    }

    /// `<F as Partial>::View`, or `F` for a field marked atomic (for an
    /// `Option<T>`, `T`'s view, or `T`: the view field is an `Option`
    /// already, `None` both while missing and for `null`).
    /// Spanned at the field's type, so that a type without a view is an
    /// error there.
    fn view_ty(field: &Field) -> TokenStream {
        let whole = &field.whole;
        let span = syn::spanned::Spanned::span(&field.original.ty);
        if field.atomic() {
            quote_spanned!(span=> #whole)
        } else {
            quote_spanned!(span=> <#whole as ::serde_llm::Partial>::View)
        }
    }

    /// The view types of `fields` that name a type parameter: those need a
    /// bound for serde and `View` (the others are checked where they stand).
    fn generic_views<'f>(
        &self,
        fields: impl IntoIterator<Item = &'f Field<'f>>,
    ) -> Vec<TokenStream> {
        self.views(fields, true)
    }

    /// The view types of `fields`, but a field naming the type itself (its
    /// bound would be a cycle, and the impl being defined covers it).
    fn views<'f>(
        &self,
        fields: impl IntoIterator<Item = &'f Field<'f>>,
        generic_only: bool,
    ) -> Vec<TokenStream> {
        self.bounded(fields, generic_only)
            .into_iter()
            .map(Self::view_ty)
            .collect()
    }

    /// The fields whose view types [`views`](Self::views) bounds, one per
    /// view type. (An atomic field naming the type itself is bounded: its
    /// view holds the original, which the impl being defined does not
    /// cover.)
    fn bounded<'f>(
        &self,
        fields: impl IntoIterator<Item = &'f Field<'f>>,
        generic_only: bool,
    ) -> Vec<&'f Field<'f>> {
        let this = std::slice::from_ref(&self.input.ident);
        let mut seen = std::collections::HashSet::new();
        fields
            .into_iter()
            .filter(|f| !f.serde.skip && (f.atomic() || !mentions(&f.ty, this)))
            .filter(|f| !generic_only || mentions(&f.ty, &self.params))
            .filter(|f| seen.insert(Self::view_ty(f).to_string()))
            .collect()
    }

    /// The view's where clause plus `view: bound` for each of `views`.
    fn where_clause(&self, views: &[TokenStream], bound: &TokenStream) -> TokenStream {
        self.impl_where(views, bound, &[])
    }

    /// [`where_clause`](Self::where_clause) plus `assumed`.
    fn impl_where(
        &self,
        views: &[TokenStream],
        bound: &TokenStream,
        assumed: &[TokenStream],
    ) -> TokenStream {
        let mut own: Vec<TokenStream> = self
            .generics
            .where_clause
            .as_ref()
            .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
            .unwrap_or_default();
        own.extend(assumed.iter().cloned());
        if own.is_empty() && views.is_empty() {
            return TokenStream::new();
        }
        // `for<'__llm>`: a bound on a concrete type that does not hold then
        // leaves the impl out, where a plain one would be an error (rustc
        // refuses trivially false bounds). So the view is `Debug` when its
        // fields' views are, whether or not the original is.
        quote!(where #(#own,)* #(for<'__llm> #views: #bound,)*)
    }

    /// `#[serde(bound(..))]` for the view: what each generic field among
    /// `fields` needs to be read (its view read, and a `View`; an atomic
    /// field's own type read), and `'de: 'a` for each lifetime (a view may
    /// borrow from the reply as the original does). Without it serde would
    /// bound the type parameters themselves by `Deserialize`, which they
    /// need not be.
    fn serde_bound(&self, fields: &[&Field]) -> TokenStream {
        // Serde puts these on its wrappers for `deserialize_with` too, which
        // call `field` and so need the view read.
        let assumed = self.assumed_read();
        if self.input.generics.params.is_empty() && assumed.is_empty() {
            return TokenStream::new();
        }
        let lifetimes = self.input.generics.lifetimes().map(|l| &l.lifetime);
        let reads = self
            .bounded(fields.iter().copied(), true)
            .into_iter()
            .map(|f| {
                let view = Self::view_ty(f);
                let de = quote!(::serde_llm::__private::serde::Deserialize<'de>);
                match f.atomic() {
                    true => quote!(#view: #de),
                    false => quote!(#view: #de + ::serde_llm::View),
                }
            });
        let predicates = quote! {
            #(#assumed,)*
            #(#reads,)*
            #('de: #lifetimes,)*
        };
        let bound = LitStr::new(&predicates.to_string(), Span::call_site());
        quote!(#[serde(bound(deserialize = #bound))])
    }

    /// For each type assumed to have a view (see `assuming`): that it has
    /// one, read with `'de`. On an impl, a type with none leaves the impl out
    /// (one error, at the field), where serde would report it again.
    fn assumed_read(&self) -> Vec<TokenStream> {
        self.assumed
            .iter()
            .map(|ty| {
                quote! {
                    for<'__llm> #ty: ::serde_llm::Partial,
                    for<'__llm> <#ty as ::serde_llm::Partial>::View:
                        ::serde_llm::__private::serde::Deserialize<'de> + ::serde_llm::View
                }
            })
            .collect()
    }

    /// The attributes every view carries.
    fn view_attrs(&self, kept: &[syn::Meta], fields: &[&Field]) -> TokenStream {
        let doc = format!(
            "The partial view of [`{}`], generated by `#[derive(Partial)]`.",
            self.input.ident
        );
        let bound = self.serde_bound(fields);
        quote! {
            #[doc = #doc]
            #[derive(::serde_llm::__private::serde::Deserialize)]
            #[serde(crate = "::serde_llm::__private::serde")]
            #(#[serde(#kept)])*
            #bound
        }
    }

    /// One field of the view (`vis`: `pub` in a struct, nothing in a
    /// variant).
    /// `untagged`: the field is in a variant serde tries in turn; a required
    /// field then has no default, so a variant without it does not match.
    fn field(&self, field: &Field, vis: &TokenStream, untagged: bool) -> TokenStream {
        if field.serde.skip {
            // Only tuple structs and variants keep a skipped field, as `()`,
            // so positions and length stay those of the original.
            return quote!(#[serde(skip)] #vis ());
        }
        let name = field.original.ident.as_ref().map(|ident| quote!(#ident:));
        let docs = field_docs(field);
        let kept = &field.serde.kept;
        let view = Self::view_ty(field);
        let span = syn::spanned::Spanned::span(&field.original.ty);
        let option = quote_spanned!(span=> ::core::option::Option<#view>);
        let how = if field.serde.flatten {
            quote!(#[serde(flatten)])
        } else {
            let read = if field.partial() {
                "::serde_llm::__private::partial_field"
            } else if field.atomic() {
                "::serde_llm::__private::atomic_field"
            } else {
                "::serde_llm::__private::field"
            };
            // Spanned at the field's type: serde's call of it is where a
            // type with no view fails, and there it is the same error as
            // the field's own (rustc shows it once).
            let read = LitStr::new(read, span);
            // A transparent struct's one field must not have a default.
            let default =
                (!(self.transparent || untagged && field.required())).then(|| quote!(default,));
            quote!(#[serde(#default deserialize_with = #read)])
        };
        quote! {
            #docs
            #how
            #(#[serde(#kept)])*
            #vis #name #option
        }
    }

    /// The fields of one struct or variant, between their delimiters.
    fn fields(
        &self,
        style: Style,
        fields: &[&Field],
        vis: &TokenStream,
        untagged: bool,
    ) -> TokenStream {
        let defs = fields.iter().map(|f| self.field(f, vis, untagged));
        match style {
            Style::Named => quote!({ #(#defs,)* }),
            Style::Tuple => quote!(( #(#defs,)* )),
            Style::Unit => TokenStream::new(),
        }
    }

    /// The fields of one variant as the view's definition has them, without
    /// the serde attributes (the view is read through twins that carry
    /// them, see `tagged`).
    fn plain_fields(&self, style: Style, fields: &[&Field]) -> TokenStream {
        let defs = fields.iter().map(|field| {
            let name = field.original.ident.as_ref().map(|ident| quote!(#ident:));
            let view = Self::view_ty(field);
            let span = syn::spanned::Spanned::span(&field.original.ty);
            let option = quote_spanned!(span=> ::core::option::Option<#view>);
            let docs = field_docs(field);
            quote!(#docs #name #option)
        });
        match style {
            Style::Named => quote!({ #(#defs,)* }),
            Style::Tuple => quote!(( #(#defs,)* )),
            Style::Unit => TokenStream::new(),
        }
    }

    fn impl_head(&self) -> (TokenStream, TokenStream) {
        let (impl_generics, ty_generics, _) = self.generics.split_for_impl();
        (
            impl_generics.to_token_stream(),
            ty_generics.to_token_stream(),
        )
    }

    /// `impl Partial for T { type View = TView; }`.
    fn partial_impl(&self) -> TokenStream {
        let ident = &self.input.ident;
        let view = &self.view;
        let (impl_generics, ty_generics) = self.impl_head();
        // The view is a `View` where the fields' types have views (the
        // view's `View` impl assumes them): so is the type a `Partial`, and
        // a field without a view is one error, where the view names it.
        let assumed = self.assumptions(false);
        let where_clause = self.impl_where(&[], &TokenStream::new(), &assumed);
        quote! {
            #[automatically_derived]
            impl #impl_generics ::serde_llm::Partial for #ident #ty_generics #where_clause {
                type View = #view #ty_generics;
            }
        }
    }

    /// An impl for the view, with `trait` bounds on the generic views.
    fn view_impl(
        &self,
        tr: &TokenStream,
        views: &[TokenStream],
        body: &TokenStream,
    ) -> TokenStream {
        let view = &self.view;
        let (impl_generics, ty_generics) = self.impl_head();
        let view_too = tr.to_string() == quote!(::serde_llm::View).to_string();
        let assumed = self.assumptions(view_too);
        let where_clause = self.impl_where(views, tr, &assumed);
        quote! {
            #[automatically_derived]
            impl #impl_generics #tr for #view #ty_generics #where_clause {
                #body
            }
        }
    }
}

/// The fields a view has: a named struct or variant leaves out those serde
/// skips (their types need no view); a tuple keeps them as `()`.
fn in_view<'f>(style: Style, fields: &'f [Field<'f>]) -> Vec<&'f Field<'f>> {
    fields
        .iter()
        .filter(|f| style != Style::Named || !f.serde.skip)
        .collect()
}

/// Binding names for destructuring, one per field.
fn bindings(prefix: &str, fields: &[&Field]) -> Vec<Ident> {
    (0..fields.len())
        .map(|i| format_ident!("__{}{}", prefix, i))
        .collect()
}

/// `{ a: __f0, b: __f1 }` (also for tuples: `{ 0: __f0 }`).
fn braced(fields: &[&Field], bindings: &[Ident]) -> TokenStream {
    let members = fields.iter().map(|f| &f.member);
    quote!({ #(#members: #bindings),* })
}

/// The body of `View::admitted` for one struct or variant (destructured into
/// `bindings`): `None` while a required field is missing, and a flattened
/// part is admitted with the rest. `None` when nothing needs checking.
fn admitted(path: &TokenStream, fields: &[&Field], bindings: &[Ident]) -> Option<TokenStream> {
    let mut checks = Vec::new();
    for (f, b) in fields.iter().zip(bindings) {
        if f.serde.skip {
            continue;
        }
        if f.required() {
            checks.push(quote! {
                if ::core::option::Option::is_none(&#b) {
                    return ::core::option::Option::None;
                }
            });
        } else if f.serde.flatten {
            checks.push(quote! {
                let #b = match #b {
                    ::core::option::Option::Some(v) => {
                        ::core::option::Option::Some(::serde_llm::View::admitted(v)?)
                    }
                    ::core::option::Option::None => ::core::option::Option::None,
                };
            });
        }
    }
    if checks.is_empty() {
        return None;
    }
    let rebuilt = braced(fields, bindings);
    Some(quote! {
        #(#checks)*
        ::core::option::Option::Some(#path #rebuilt)
    })
}

/// `View::__shown` for a struct view: what [`admitted`] keeps, checked
/// without taking the view apart (its required fields are there, and so are
/// its flattened parts' where they are). `None` when nothing needs checking.
fn shown(fields: &[&Field]) -> Option<TokenStream> {
    let required: Vec<_> = fields
        .iter()
        .filter(|f| !f.serde.skip && f.required())
        .map(|f| &f.member)
        .collect();
    let flat: Vec<_> = fields
        .iter()
        .filter(|f| !f.serde.skip && !f.required() && f.serde.flatten)
        .map(|f| &f.member)
        .collect();
    if required.is_empty() && flat.is_empty() {
        return None;
    }
    Some(quote! {
        fn __shown(&self) -> bool {
            true #(&& self.#required.is_some())*
                #(&& self.#flat.as_ref().map_or(true, ::serde_llm::View::__shown))*
        }
    })
}

/// How a struct's view grows in place while a reply streams (see
/// `serde_llm::partial::grow`): by its named fields. One flattened field
/// (not marked atomic) grows with the struct's own: its
/// members are the struct's, so a member no other field takes is put into
/// it at the same level (`grow::place_flat`). Several flattened fields (a
/// member goes to the first that knows it, which a part read alone does
/// not say) or a transparent struct read their members differently, so such
/// a view is rebuilt from its text instead.
fn grow(cx: &Cx, s: &Struct, fields: &[&Field]) -> TokenStream {
    let flat: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].serde.flatten)
        .collect();
    let flat_plain = match flat[..] {
        [] => true,
        [i] => !fields[i].atomic(),
        _ => false,
    };
    if s.style != Style::Named || s.cont.serde.transparent || !flat_plain {
        return TokenStream::new();
    }
    let grow = quote!(::serde_llm::__private::grow);
    let members: Vec<_> = fields.iter().map(|f| &f.member).collect();
    let bindings = bindings("f", fields);
    let index: Vec<u32> = (0..fields.len() as u32).collect();
    // The struct's own fields are placed first, then the flattened one,
    // which serde gives every member the others do not take.
    let own: Vec<usize> = (0..fields.len()).filter(|i| !flat.contains(i)).collect();
    let own_bindings: Vec<_> = own.iter().map(|&i| &bindings[i]).collect();
    let own_members: Vec<_> = own.iter().map(|&i| members[i]).collect();
    let own_index: Vec<u32> = own.iter().map(|&i| index[i]).collect();
    let flat_bindings: Vec<_> = flat.iter().map(|&i| &bindings[i]).collect();
    let flat_members: Vec<_> = flat.iter().map(|&i| members[i]).collect();
    let flat_index: Vec<u32> = flat.iter().map(|&i| index[i]).collect();
    let Growers {
        place,
        append,
        kind,
        local,
    } = Growers::of(fields);
    let own_place: Vec<_> = own.iter().map(|&i| &place[i]).collect();
    // A view with generics may not be `DeserializeOwned` (a borrowed one
    // never is), so only a plain one is read on its own.
    let partial: Vec<bool> = fields.iter().map(|f| f.partial()).collect();
    let local = cx.input.generics.params.is_empty().then(|| {
        quote! {
            fn __local(&mut self, route: &[#grow::Route], cx: &mut #grow::Local<'_>) -> bool {
                match route.split_first() {
                    ::core::option::Option::None => {
                        use ::serde_llm::__private::{PlaceNone as _, PlaceOwned as _};
                        (&mut ::serde_llm::__private::Placer(self)).place_in(cx)
                    }
                    #(
                        ::core::option::Option::Some((#grow::Route::Field(#index), rest)) => {
                            #grow::#local(&mut self.#members, rest, cx, #partial)
                        }
                    )*
                    _ => false,
                }
            }

            fn __local_list(
                list: &mut ::std::vec::Vec<Self>,
                cx: &mut #grow::Local<'_>,
            ) -> bool {
                use ::serde_llm::__private::{PlaceNone as _, PlaceOwned as _};
                (&mut ::serde_llm::__private::Placer(list)).place_in(cx)
            }
        }
    });
    quote! {
        #local

        fn __place(
            &mut self,
            from: Self,
            levels: &[#grow::Level],
            at: usize,
            out: &mut #grow::Placed,
        ) {
            let ::core::option::Option::Some(from) = #grow::member(self, from, levels, at, out) else {
                return;
            };
            let Self { #(#members: #bindings),* } = from;
            #(
                if let ::core::option::Option::Some(v) = #own_bindings {
                    out.route.push(#grow::Route::Field(#own_index));
                    return #grow::#own_place(&mut self.#own_members, v, levels, at + 1, out);
                }
            )*
            #(
                #grow::place_flat(&mut self.#flat_members, #flat_bindings, #flat_index, levels, at, out);
            )*
        }

        fn __append(&mut self, route: &[#grow::Route], text: &str) -> bool {
            match route.split_first() {
                #(
                    ::core::option::Option::Some((#grow::Route::Field(#index), rest)) => {
                        #grow::#append(&mut self.#members, rest, text)
                    }
                )*
                _ => false,
            }
        }

        fn __fields(&self) -> bool {
            true
        }

        fn __grows(&self) -> bool {
            true
        }

        fn __kind_at(&self, route: &[#grow::Route]) -> #grow::Kind {
            match route.split_first() {
                #(
                    ::core::option::Option::Some((#grow::Route::Field(#index), rest)) => {
                        #grow::#kind(&self.#members, rest)
                    }
                )*
                _ => #grow::Kind::Plain,
            }
        }
    }
}

/// The `grow` helpers each field's growth goes through: a field grows by
/// its view (`Partial::View` is bounded by `View`, so a field whose type
/// names a type parameter grows as any other does); a field marked atomic
/// holds a type that need not be a view, put in whole as a plain scalar's
/// view is.
struct Growers {
    place: Vec<TokenStream>,
    append: Vec<TokenStream>,
    kind: Vec<TokenStream>,
    local: Vec<TokenStream>,
}

impl Growers {
    fn of(fields: &[&Field]) -> Growers {
        let pick = |grows: &str, atomic: &str| -> Vec<TokenStream> {
            fields
                .iter()
                .map(|f| {
                    let name = if f.atomic() { atomic } else { grows };
                    Ident::new(name, Span::call_site()).into_token_stream()
                })
                .collect()
        };
        Growers {
            place: pick("place", "place_atomic"),
            append: pick("append", "append_none"),
            kind: pick("kind_at", "kind_none"),
            local: pick("local", "local_none"),
        }
    }
}

/// `View` needs the flattened generic views to be views themselves.
fn flattened_views(cx: &Cx, fields: &[&Field]) -> Vec<TokenStream> {
    cx.generic_views(fields.iter().copied().filter(|f| f.serde.flatten))
}

fn expand_struct(s: &Struct) -> TokenStream {
    let cx = Cx::new(
        s.cont.original,
        s.cont.serde.transparent,
        &s.fields.iter().collect::<Vec<_>>(),
    );
    let fields = in_view(s.style, &s.fields);
    let cx = cx.assuming(&fields);
    let attrs = cx.view_attrs(&s.cont.serde.kept, &fields);
    let views = cx.views(fields.iter().copied(), false);
    let vis = &s.cont.original.vis;
    let view = &cx.view;
    let generics = &cx.generics;
    let where_clause = cx.where_clause(&[], &TokenStream::new());
    let body = cx.fields(s.style, &fields, &quote!(pub), false);
    let definition = match s.style {
        Style::Named => quote!(#vis struct #view #generics #where_clause #body),
        Style::Tuple => quote!(#vis struct #view #generics #body #where_clause;),
        Style::Unit => quote!(#vis struct #view #generics #where_clause;),
    };

    let members: Vec<_> = fields.iter().map(|f| &f.member).collect();
    let name = view.to_string();
    let debug = match s.style {
        Style::Named => {
            let names = members.iter().map(|m| m.to_token_stream().to_string());
            quote!(f.debug_struct(#name) #(.field(#names, &self.#members))* .finish())
        }
        Style::Tuple => quote!(f.debug_tuple(#name) #(.field(&self.#members))* .finish()),
        Style::Unit => quote!(f.write_str(#name)),
    };
    let bindings = bindings("f", &fields);
    let admitted = admitted(&quote!(Self), &fields, &bindings).map(|checks| {
        let pattern = braced(&fields, &bindings);
        quote! {
            fn admitted(self) -> ::core::option::Option<Self> {
                let Self #pattern = self;
                #checks
            }
        }
    });

    let shown = shown(&fields);
    let grow = grow(&cx, s, &fields);
    let partial_impl = cx.partial_impl();
    let view_impl = cx.view_impl(
        &quote!(::serde_llm::View),
        &flattened_views(&cx, &fields),
        &quote!(#admitted #shown #grow),
    );
    let default_impl = cx.view_impl(
        &quote!(::core::default::Default),
        &[],
        &quote! {
            fn default() -> Self {
                Self { #(#members: ::core::default::Default::default()),* }
            }
        },
    );
    let std_impls = std_impls(
        &cx,
        &views,
        &debug,
        &quote!(Self { #(#members: ::core::clone::Clone::clone(&self.#members)),* }),
        &quote!(true #(&& self.#members == other.#members)*),
    );
    quote! {
        #attrs
        #definition
        #partial_impl
        #view_impl
        #default_impl
        #std_impls
    }
}

/// The variants a view has (serde's skipped variants are never read).
fn variants<'e>(e: &'e Enum<'e>) -> Vec<(&'e Variant<'e>, Vec<&'e Field<'e>>)> {
    e.variants
        .iter()
        .filter(|v| !v.serde.skip)
        .map(|v| (v, in_view(v.style, &v.fields)))
        .collect()
}

fn expand_enum(e: &Enum) -> TokenStream {
    let every: Vec<&Field> = e.variants.iter().flat_map(|v| &v.fields).collect();
    let cx = Cx::new(e.cont.original, false, &every);
    let variants = variants(e);
    let all_fields: Vec<&Field> = variants
        .iter()
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    let cx = cx.assuming(&all_fields);
    let attrs = cx.view_attrs(&e.cont.serde.kept, &all_fields);
    let views = cx.views(all_fields.iter().copied(), false);
    let vis = &e.cont.original.vis;
    let view = &cx.view;
    let generics = &cx.generics;
    let where_clause = cx.where_clause(&[], &TokenStream::new());
    let untagged = e
        .cont
        .serde
        .kept
        .iter()
        .any(|m| m.path().is_ident("untagged"));
    let defs = variants.iter().map(|(v, fields)| {
        let ident = &v.original.ident;
        let docs = docs(&v.original.attrs, || format!("The view of `{ident}`."));
        let kept = &v.serde.kept;
        let untagged = untagged || v.serde.kept.iter().any(|m| m.path().is_ident("untagged"));
        let body = cx.fields(v.style, fields, &TokenStream::new(), untagged);
        quote! {
            #docs
            #(#[serde(#kept)])*
            #ident #body
        }
    });
    let defs: Vec<TokenStream> = defs.collect();
    // An internally tagged view is read by the code below, not by serde's
    // buffer (see `tagged`): its definition carries no serde attribute.
    // So is an adjacently tagged view that does not grow as tagged (see
    // `adjacent_tag`): its content is read as the variant's value.
    let tag = match cx.input.generics.params.is_empty() {
        true => internal_tag(e, &variants, untagged)
            .map(|tag| Twins::Internal { tag })
            .or_else(|| {
                let content = str_attr(&e.cont.serde.kept, "content")?;
                let tag = str_attr(&e.cont.serde.kept, "tag")?;
                let plain = !untagged
                    && !variants
                        .iter()
                        .any(|(v, _)| v.serde.kept.iter().any(|m| m.path().is_ident("untagged")));
                (plain && adjacent_tag(e, &variants, untagged).is_none())
                    .then_some(Twins::Adjacent { tag, content })
            }),
        false => None,
    };
    let definition = match &tag {
        None => quote!(#vis enum #view #generics #where_clause { #(#defs,)* }),
        Some(_) => {
            let plain = variants.iter().map(|(v, fields)| {
                let ident = &v.original.ident;
                let docs = docs(&v.original.attrs, || format!("The view of `{ident}`."));
                let body = cx.plain_fields(v.style, fields);
                quote!(#docs #ident #body)
            });
            let doc = format!(
                "The partial view of [`{}`], generated by `#[derive(Partial)]`.",
                cx.input.ident
            );
            quote!(#[doc = #doc] #vis enum #view { #(#plain,)* })
        }
    };

    let several = variants.len() > 1;
    let mut debug_arms = Vec::new();
    let mut clone_arms = Vec::new();
    let mut eq_arms = Vec::new();
    let mut admitted_arms = Vec::new();
    for (v, fields) in &variants {
        let ident = &v.original.ident;
        let path = quote!(Self::#ident);
        let name = ident.to_string();
        let ours = bindings("f", fields);
        let theirs = bindings("g", fields);
        let pattern = braced(fields, &ours);
        let pattern_other = braced(fields, &theirs);
        let debug = match v.style {
            Style::Named => {
                let names = fields
                    .iter()
                    .map(|f| f.member.to_token_stream().to_string());
                quote!(f.debug_struct(#name) #(.field(#names, #ours))* .finish())
            }
            Style::Tuple => quote!(f.debug_tuple(#name) #(.field(#ours))* .finish()),
            Style::Unit => quote!(f.write_str(#name)),
        };
        debug_arms.push(quote!(#path #pattern => #debug,));
        let members = fields.iter().map(|f| &f.member);
        clone_arms.push(quote! {
            #path #pattern => #path { #(#members: ::core::clone::Clone::clone(#ours)),* },
        });
        eq_arms.push(quote! {
            (#path #pattern, #path #pattern_other) => true #(&& #ours == #theirs)*,
        });
        if let Some(checks) = admitted(&path, fields, &ours) {
            admitted_arms.push(quote!(#path #pattern => { #checks }));
        }
    }
    let eq_rest = several.then(|| quote!(_ => false,));
    let admitted = (!admitted_arms.is_empty()).then(|| {
        let rest = (admitted_arms.len() < variants.len())
            .then(|| quote!(__other => ::core::option::Option::Some(__other),));
        quote! {
            fn admitted(self) -> ::core::option::Option<Self> {
                match self {
                    #(#admitted_arms)*
                    #rest
                }
            }
        }
    });

    // serde reads an internally or adjacently tagged or an untagged enum
    // from content it buffers: a part of one is not read without the rest.
    let buffered = untagged
        || e.cont.serde.kept.iter().any(|m| m.path().is_ident("tag"))
        || variants
            .iter()
            .any(|(v, _)| v.serde.kept.iter().any(|m| m.path().is_ident("untagged")));
    let adjacent = !untagged
        && str_attr(&e.cont.serde.kept, "content").is_some()
        && !variants
            .iter()
            .any(|(v, _)| v.serde.kept.iter().any(|m| m.path().is_ident("untagged")));
    let no_generics = cx.input.generics.params.is_empty();
    let grows_as_tagged = internal_tag(e, &variants, untagged)
        .map(|tag| (tag, None))
        .or_else(|| {
            no_generics
                .then(|| adjacent_tag(e, &variants, untagged))
                .flatten()
                .map(|tag| (tag, None))
        })
        .or_else(|| {
            no_generics
                .then(|| adjacent_content(e, &variants, untagged))
                .flatten()
                .map(|(tag, content)| (tag, Some(content)))
        });
    let buffered = match grows_as_tagged {
        Some((tag, content)) => grow_enum(&cx, &variants, &tag, content.as_deref()),
        // (One read through twins is not in serde's buffer: the decoder
        // reads its content as the variant's, a cut string in it growing.
        // Nor is an adjacently tagged one's content after its tag: serde
        // reads it as the variant's.)
        None if buffered && (tag.is_some() || adjacent) => quote! {
            fn __kind() -> ::serde_llm::__private::grow::Kind {
                ::serde_llm::__private::grow::Kind::Whole
            }
        },
        None if buffered => quote! {
            fn __kind() -> ::serde_llm::__private::grow::Kind {
                ::serde_llm::__private::grow::Kind::Buffered
            }
        },
        None => TokenStream::new(),
    };
    let admitted = admitted.unwrap_or_default();
    let (attrs, twins) = match &tag {
        Some(twins) => (TokenStream::new(), tagged(&cx, e, &variants, &defs, twins)),
        None => (attrs, TokenStream::new()),
    };
    let partial_impl = cx.partial_impl();
    let view_impl = cx.view_impl(
        &quote!(::serde_llm::View),
        &flattened_views(&cx, &all_fields),
        &quote!(#admitted #buffered),
    );
    let std_impls = if variants.is_empty() {
        let never = quote!(match *self {});
        std_impls(&cx, &views, &never, &never, &never)
    } else {
        std_impls(
            &cx,
            &views,
            &quote!(match self { #(#debug_arms)* }),
            &quote!(match self { #(#clone_arms)* }),
            &quote!(match (self, other) { #(#eq_arms)* #eq_rest }),
        )
    };
    quote! {
        #attrs
        #definition
        #twins
        #partial_impl
        #view_impl
        #std_impls
    }
}

/// A tagged view read through twins (see [`tagged`]).
enum Twins {
    /// Internally tagged, with this tag.
    Internal { tag: String },
    /// Adjacently tagged, with this tag and this content key.
    Adjacent { tag: String, content: String },
}

/// How an internally or adjacently tagged view (no generics) is read: two
/// twins serde derives, externally tagged for the decoder (which finds the
/// tag on its tape and reads the object as the variant's struct, or the
/// content member's value as the variant's, so partial fields grow there
/// as anywhere, whatever the members' order) and tagged as the view is for
/// any other deserializer (see `serde_llm`'s `de::tagged`), each moved into
/// the view.
fn tagged(
    cx: &Cx,
    e: &Enum,
    variants: &[(&Variant, Vec<&Field>)],
    defs: &[TokenStream],
    twins: &Twins,
) -> TokenStream {
    let view = &cx.view;
    let serde = quote!(::serde_llm::__private::serde);
    let kept = &e.cont.serde.kept;
    let untag: Vec<&syn::Meta> = kept
        .iter()
        .filter(|m| !m.path().is_ident("tag") && !m.path().is_ident("content"))
        .collect();
    let arms: Vec<TokenStream> = variants
        .iter()
        .map(|(v, fields)| {
            let ident = &v.original.ident;
            let ours = bindings("f", fields);
            let pat = match v.style {
                Style::Unit => TokenStream::new(),
                _ => braced(fields, &ours),
            };
            quote!(Twin::#ident #pat => #view::#ident #pat,)
        })
        .collect();
    // `serde_llm`'s `de::tagged::TAGGED` or `ADJACENT`, then the keys.
    let name = match twins {
        Twins::Internal { tag } => format!("$serde_llm::private::Tagged:{tag}"),
        Twins::Adjacent { tag, content } => {
            format!("$serde_llm::private::Adjacent:{}:{tag}{content}", tag.len())
        }
    };
    let name = LitStr::new(&name, Span::call_site());
    let assumed = cx.assumed_read();
    let bound = cx.serde_bound(
        &variants
            .iter()
            .flat_map(|(_, f)| f.iter().copied())
            .collect::<Vec<_>>(),
    );
    quote! {
        const _: () = {
            #[derive(#serde::Deserialize)]
            #[serde(crate = "::serde_llm::__private::serde")]
            #(#[serde(#untag)])*
            #bound
            enum __SerdeLlmExternal { #(#defs,)* }

            #[derive(#serde::Deserialize)]
            #[serde(crate = "::serde_llm::__private::serde")]
            #(#[serde(#kept)])*
            #bound
            enum __SerdeLlmTagged { #(#defs,)* }

            #[automatically_derived]
            impl<'de> #serde::Deserialize<'de> for #view where #(#assumed,)* {
                fn deserialize<D: #serde::Deserializer<'de>>(
                    d: D,
                ) -> ::core::result::Result<Self, D::Error> {
                    const NAME: &str = #name;
                    ::core::result::Result::Ok(
                        match ::serde_llm::__private::tagged::<D, __SerdeLlmExternal, __SerdeLlmTagged>(d, NAME)? {
                            ::core::result::Result::Ok(twin) => {
                                use __SerdeLlmExternal as Twin;
                                match twin { #(#arms)* }
                            }
                            ::core::result::Result::Err(twin) => {
                                use __SerdeLlmTagged as Twin;
                                match twin { #(#arms)* }
                            }
                        },
                    )
                }
            }
        };
    }
}

/// The tag of an internally tagged enum whose variants are all named or
/// unit ones without a flattened field: such a view grows in place.
fn internal_tag(e: &Enum, variants: &[(&Variant, Vec<&Field>)], untagged: bool) -> Option<String> {
    let kept = &e.cont.serde.kept;
    if untagged || kept.iter().any(|m| m.path().is_ident("content")) {
        return None;
    }
    let plain = variants.iter().all(|(v, fields)| {
        matches!(v.style, Style::Named | Style::Unit)
            && !v.serde.kept.iter().any(|m| m.path().is_ident("untagged"))
            && !fields.iter().any(|f| f.serde.flatten)
    });
    if !plain {
        return None;
    }
    str_attr(kept, "tag")
}

/// The string value of serde's container attribute `name` (`tag = "…"`).
fn str_attr(kept: &[syn::Meta], name: &str) -> Option<String> {
    kept.iter().find_map(|m| match m {
        syn::Meta::NameValue(nv) if nv.path.is_ident(name) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The tag of an adjacently tagged enum whose variants are all newtype or
/// unit ones: serde reads such a view without a buffer when the tag comes
/// first (it reads the content member as the variant's one field), so a
/// part inside the content grows in place, read with the tag before it,
/// as an internally tagged view's does (see `grow_enum`: the content
/// member is the variant's field, at the same level). With a struct
/// variant, see `adjacent_content`.
fn adjacent_tag(e: &Enum, variants: &[(&Variant, Vec<&Field>)], untagged: bool) -> Option<String> {
    let kept = &e.cont.serde.kept;
    str_attr(kept, "content")?;
    let plain = variants.iter().all(|(v, fields)| {
        !v.serde.kept.iter().any(|m| m.path().is_ident("untagged"))
            && match v.style {
                Style::Unit => true,
                Style::Tuple => fields.len() == 1 && !fields[0].serde.skip,
                Style::Named => false,
            }
    });
    (!untagged && plain)
        .then(|| str_attr(kept, "tag"))
        .flatten()
}

/// The tag and content keys of an adjacently tagged enum with a struct
/// variant, whose variants are all struct, newtype or unit ones (no
/// flattened field): read through twins (see `tagged`), it grows in place
/// as an internally tagged view does, its struct variants' fields a level
/// below its tag (see `grow_enum`).
fn adjacent_content(
    e: &Enum,
    variants: &[(&Variant, Vec<&Field>)],
    untagged: bool,
) -> Option<(String, String)> {
    let kept = &e.cont.serde.kept;
    let content = str_attr(kept, "content")?;
    let plain = variants.iter().all(|(v, fields)| {
        !v.serde.kept.iter().any(|m| m.path().is_ident("untagged"))
            && !fields.iter().any(|f| f.serde.flatten)
            && match v.style {
                Style::Unit | Style::Named => true,
                Style::Tuple => fields.len() == 1 && !fields[0].serde.skip,
            }
    });
    let structs = variants.iter().any(|(v, _)| v.style == Style::Named);
    (!untagged && plain && structs)
        .then(|| str_attr(kept, "tag").map(|tag| (tag, content)))
        .flatten()
}

/// How an internally tagged enum's view grows in place (see
/// `serde_llm::partial::grow`): the members of its object are the current
/// variant's fields, as a struct's are. A part of another variant than the
/// one shown asks for the node to be read again. An adjacently tagged view
/// of newtype variants (see `adjacent_tag`) grows the same way: its content
/// member is the variant's one field.
///
/// `content`: an adjacently tagged view with struct variants (see
/// `adjacent_content`), whose content member is [`Level::Content`] and
/// whose struct variants' fields are a level below it, behind
/// `Route::Content`.
///
/// [`Level::Content`]: serde_llm::__private::grow::Level::Content
fn grow_enum(
    cx: &Cx,
    variants: &[(&Variant, Vec<&Field>)],
    tag: &str,
    content: Option<&str>,
) -> TokenStream {
    let grow = quote!(::serde_llm::__private::grow);
    let some = quote!(::core::option::Option::Some);
    let (mut place, mut append, mut shown, mut kind, mut local) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (v, fields) in variants {
        let ident = &v.original.ident;
        let ours = bindings("f", fields);
        let theirs = bindings("g", fields);
        let (pat, pat_from) = match v.style {
            Style::Unit => (TokenStream::new(), TokenStream::new()),
            _ => (braced(fields, &ours), braced(fields, &theirs)),
        };
        let index: Vec<u32> = (0..fields.len() as u32).collect();
        let Growers {
            place: placer,
            append: appender,
            kind: kinder,
            local: localer,
        } = Growers::of(fields);
        let partial: Vec<bool> = fields.iter().map(|f| f.partial()).collect();
        let required: Vec<&Ident> = fields
            .iter()
            .zip(&ours)
            .filter(|(f, _)| f.required())
            .map(|(_, b)| b)
            .collect();
        shown.push(quote!(Self::#ident #pat => true #(&& #required.is_some())*,));
        if content.is_some() && v.style == Style::Named {
            // The content object: the variant's fields are its members.
            place.push(quote! {
                (Self::#ident #pat, Self::#ident #pat_from) => {
                    out.route.push(#grow::Route::Content);
                    if at + 1 == levels.len() {
                        // The object itself: the variant as read from it.
                        out.present = true;
                        if !out.probe {
                            #(*#ours = #theirs;)*
                        }
                        return;
                    }
                    if levels[at + 1] != #grow::Level::Member {
                        out.rebuild = #some(at + 1);
                        out.fixed = true;
                        return;
                    }
                    #(
                        if let #some(v) = #theirs {
                            out.route.push(#grow::Route::Field(#index));
                            return #grow::#placer(#ours, v, levels, at + 2, out);
                        }
                    )*
                }
            });
            append.push(quote! {
                (Self::#ident #pat, #some((#grow::Route::Content, rest))) => {
                    match rest.split_first() {
                        #some((#grow::Route::Field(n), rest)) => match *n {
                            #(#index => #grow::#appender(#ours, rest, text),)*
                            _ => false,
                        },
                        _ => false,
                    }
                }
            });
            kind.push(quote! {
                (Self::#ident #pat, #some((#grow::Route::Content, rest))) => {
                    match rest.split_first() {
                        #some((#grow::Route::Field(n), rest)) => match *n {
                            #(#index => #grow::#kinder(#ours, rest),)*
                            _ => #grow::Kind::Plain,
                        },
                        _ => #grow::Kind::Plain,
                    }
                }
            });
            // (The content object alone is not the enum: not read on its
            // own, but from the enum's object, its tag first.)
            local.push(quote! {
                (Self::#ident #pat, #some((#grow::Route::Content, rest))) => {
                    match rest.split_first() {
                        #some((#grow::Route::Field(n), rest)) => match *n {
                            #(#index => #grow::#localer(#ours, rest, cx, #partial),)*
                            _ => false,
                        },
                        _ => false,
                    }
                }
            });
            continue;
        }
        place.push(quote! {
            (Self::#ident #pat, Self::#ident #pat_from) => {
                #(
                    if let #some(v) = #theirs {
                        out.route.push(#grow::Route::Field(#index));
                        return #grow::#placer(#ours, v, levels, at + 1, out);
                    }
                )*
            }
        });
        append.push(quote! {
            (Self::#ident #pat, #some((#grow::Route::Field(n), rest))) => {
                match *n {
                    #(#index => #grow::#appender(#ours, rest, text),)*
                    _ => false,
                }
            }
        });
        kind.push(quote! {
            (Self::#ident #pat, #some((#grow::Route::Field(n), rest))) => {
                match *n {
                    #(#index => #grow::#kinder(#ours, rest),)*
                    _ => #grow::Kind::Plain,
                }
            }
        });
        local.push(quote! {
            (Self::#ident #pat, #some((#grow::Route::Field(n), rest))) => {
                match *n {
                    #(#index => #grow::#localer(#ours, rest, cx, #partial),)*
                    _ => false,
                }
            }
        });
    }
    let own_kind = match content {
        Some(content) => quote!(#grow::Kind::Adjacent { tag: #tag, content: #content }),
        None => quote!(#grow::Kind::Tagged(#tag)),
    };
    // The enum's own member on the path: any (internally tagged), or only
    // its content (adjacently, see `grow::content`).
    let member = match content {
        Some(_) => quote!(#grow::content),
        None => quote!(#grow::member),
    };
    let unused = quote!(#[allow(unused_variables)]);
    // A view with generics may not be `DeserializeOwned`: not read alone.
    let local = cx.input.generics.params.is_empty().then(|| {
        quote! {
            #unused
            fn __local(&mut self, route: &[#grow::Route], cx: &mut #grow::Local<'_>) -> bool {
                match (self, route.split_first()) {
                    (node, ::core::option::Option::None) => {
                        use ::serde_llm::__private::{PlaceNone as _, PlaceOwned as _};
                        (&mut ::serde_llm::__private::Placer(node)).place_in(cx)
                    }
                    #(#local)*
                    _ => false,
                }
            }

            fn __local_list(
                list: &mut ::std::vec::Vec<Self>,
                cx: &mut #grow::Local<'_>,
            ) -> bool {
                use ::serde_llm::__private::{PlaceNone as _, PlaceOwned as _};
                (&mut ::serde_llm::__private::Placer(list)).place_in(cx)
            }
        }
    });
    quote! {
        fn __kind() -> #grow::Kind {
            #own_kind
        }

        #unused
        fn __kind_at(&self, route: &[#grow::Route]) -> #grow::Kind {
            match (self, route.split_first()) {
                (_, ::core::option::Option::None) => #own_kind,
                #(#kind)*
                _ => #grow::Kind::Plain,
            }
        }

        #unused
        fn __place(
            &mut self,
            from: Self,
            levels: &[#grow::Level],
            at: usize,
            out: &mut #grow::Placed,
        ) {
            let ::core::option::Option::Some(from) = #member(self, from, levels, at, out) else {
                return;
            };
            match (self, from) {
                #(#place)*
                // Another variant than the one shown: read it again.
                _ => out.rebuild = ::core::option::Option::Some(at),
            }
        }

        #unused
        fn __append(&mut self, route: &[#grow::Route], text: &str) -> bool {
            match (self, route.split_first()) {
                #(#append)*
                _ => false,
            }
        }

        #unused
        fn __shown(&self) -> bool {
            match self {
                #(#shown)*
            }
        }

        fn __fields(&self) -> bool {
            true
        }

        fn __grows(&self) -> bool {
            true
        }

        #local
    }
}

/// `Debug`, `Clone` and `PartialEq` for the view, given their bodies; each
/// holds when the fields' views have it (whether or not the original does).
fn std_impls(
    cx: &Cx,
    views: &[TokenStream],
    debug: &TokenStream,
    clone: &TokenStream,
    eq: &TokenStream,
) -> TokenStream {
    let debug = cx.view_impl(
        &quote!(::core::fmt::Debug),
        views,
        &quote! {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #debug
            }
        },
    );
    let clone = cx.view_impl(
        &quote!(::core::clone::Clone),
        views,
        &quote!(fn clone(&self) -> Self { #clone }),
    );
    let eq = cx.view_impl(
        &quote!(::core::cmp::PartialEq),
        views,
        &quote!(fn eq(&self, other: &Self) -> bool { #eq }),
    );
    quote!(#debug #clone #eq)
}

/// The doc comments of an item, carried over to its view, or one saying
/// what it is (a view's fields are `pub`, so `missing_docs` may ask).
/// A view field's docs: the original's, or what the view shows of it.
fn field_docs(field: &Field) -> TokenStream {
    docs(&field.original.attrs, || {
        let member = field.member.to_token_stream();
        if field.partial() {
            format!("`{member}` as far as it goes.")
        } else if field.required() {
            format!("`{member}` once complete (until then there is no view).")
        } else {
            format!("`{member}` once complete.")
        }
    })
}

fn docs(attrs: &[syn::Attribute], default: impl FnOnce() -> String) -> TokenStream {
    let docs = attr::docs(attrs);
    if docs.is_empty() {
        let doc = default();
        quote!(#[doc = #doc])
    } else {
        quote!(#(#docs)*)
    }
}

/// Whether `tokens` name any of `params`.
fn mentions(tokens: &TokenStream, params: &[Ident]) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        TokenTree::Ident(ident) => params.contains(&ident),
        TokenTree::Group(group) => mentions(&group.stream(), params),
        _ => false,
    })
}
