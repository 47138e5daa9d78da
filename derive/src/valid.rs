//! Rules across attributes: where `#[llm]` may stand, which keys go
//! together, and which serde attributes a view cannot follow.

use quote::ToTokens;
use syn::Meta;

use crate::ast::{Container, Field, Input};
use crate::attr::Errors;

pub fn check(input: &Input, errors: &mut Errors) {
    match input {
        Input::Struct(s) => {
            container(&s.cont, true, errors);
            s.fields.iter().for_each(|f| field(f, errors));
        }
        Input::Enum(e) => {
            // A unit-only enum is its own view: its serde attributes, whatever
            // they are, apply as they stand.
            container(&e.cont, !e.unit_only(), errors);
            for v in &e.variants {
                for attr in &v.llm {
                    errors.push(syn::Error::new_spanned(
                        attr,
                        "#[llm(..)] goes on fields, not on enum variants",
                    ));
                }
                if !v.serde.skip {
                    refused(&v.serde.refused, errors);
                    v.fields.iter().for_each(|f| field(f, errors));
                }
            }
        }
    }
}

fn container(cont: &Container, view: bool, errors: &mut Errors) {
    for attr in &cont.llm {
        errors.push(syn::Error::new_spanned(
            attr,
            "#[llm(..)] goes on fields: a whole struct or enum cannot be marked partial or required",
        ));
    }
    if view {
        refused(&cont.serde.refused, errors);
    }
}

fn field(field: &Field, errors: &mut Errors) {
    let llm = &field.llm;
    if field.serde.skip || field.serde.flatten {
        let why = if field.serde.skip {
            "#[llm(..)] on a field serde skips: the view leaves this field out"
        } else {
            "#[llm(..)] on a flattened field: mark the fields of its type instead"
        };
        for attr in &llm.attrs {
            errors.push(syn::Error::new_spanned(attr, why));
        }
        return;
    }
    if let (Some(_), Some(_)) = (&llm.partial, &llm.required) {
        // Point at whichever came second.
        let second = llm.keys.last().expect("both keys were seen");
        errors.push(syn::Error::new_spanned(
            second,
            "a field cannot be both `partial` and `required`: a required field is shown only once complete",
        ));
    } else if let (Some(required), true) = (&llm.required, field.serde.partial_with) {
        errors.push(syn::Error::new_spanned(
            required,
            "a field cannot be both partial (`with = \"serde_llm::partial\"`) and `required`",
        ));
    }
    if let (Some(_), Some(_)) = (&llm.partial, &llm.atomic) {
        // Point at whichever of the two came second.
        let second = llm
            .keys
            .iter()
            .rev()
            .find(|k| k.is_ident("partial") || k.is_ident("atomic"))
            .expect("both keys were seen");
        errors.push(syn::Error::new_spanned(
            second,
            "a field cannot be both `partial` and `atomic`: an atomic field is shown only once complete",
        ));
    } else if let (Some(atomic), true) = (&llm.atomic, field.serde.partial_with) {
        errors.push(syn::Error::new_spanned(
            atomic,
            "a field cannot be both partial (`with = \"serde_llm::partial\"`) and `atomic`",
        ));
    }
    refused(&field.serde.refused, errors);
}

/// Serde attributes the view cannot follow.
fn refused(metas: &[Meta], errors: &mut Errors) {
    for meta in metas {
        let key = meta.path().to_token_stream().to_string();
        let msg = match key.as_str() {
            "deserialize_with" | "with" => format!(
                "#[derive(Partial)] cannot carry `{key}` over to the view: its function reads \
                 the field's own type, not its view. Wrap the type in a newtype whose \
                 `Deserialize` calls the function, and mark the field `#[llm(atomic)]` \
                 (or implement `serde_llm::Partial` for the newtype)"
            ),
            _ => format!(
                "#[derive(Partial)] cannot follow #[serde({key} = ..)]: the view would need \
                 the same conversion. Implement `serde_llm::Partial` for this type by hand"
            ),
        };
        errors.push(syn::Error::new_spanned(meta, msg));
    }
}
