//! JSON Schemas, both ways.
//!
//! - From types (cargo feature `schema`, through schemars): [`schema`],
//!   [`openai_schema`], [`anthropic_schema`] and [`prompt`] say what to ask
//!   the model for (`generate`).
//! - Known only at run time: [`SchemaDecoder`] compiles a JSON Schema once
//!   (`compile`, with `pattern` for its regular expressions) and decodes
//!   replies against it through the same Deserializer a type drives
//!   (`seed`: a `DeserializeSeed` that walks the compiled schema; `choice`:
//!   `anyOf`/`oneOf`), checks bounds and formats as a contract (`check`),
//!   and places what it reports (`locate`). `runtime` is the public face.

use std::fmt;

mod check;
mod choice;
mod compile;
#[cfg(feature = "schema")]
mod generate;
mod locate;
mod pattern;
mod runtime;
mod seed;

#[cfg(feature = "schema")]
pub use generate::{anthropic_schema, openai_schema, prompt, schema};
pub use runtime::{SchemaDecoder, SchemaOptions, SchemaStream};

/// Why a JSON Schema is not one this crate can use: one a provider does
/// not accept (`openai_schema`, `anthropic_schema`, feature `schema`),
/// or one [`SchemaDecoder::new`] cannot compile (a keyword it does not
/// understand, a `$ref` that points nowhere). Where in the schema (a JSON
/// pointer, empty for the root) and what.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"path": {"type": "string", "contentMediaTyp": "text/plain"}}
/// });
/// let err = serde_llm::SchemaDecoder::new(&schema).unwrap_err();
/// assert_eq!(err.path(), "/properties/path");
/// assert_eq!(
///     err.to_string(),
///     "JSON Schema: at /properties/path: unknown keyword `contentMediaTyp` \
///      (SchemaOptions::ignore_unknown_keywords leaves such keywords out)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    provider: &'static str,
    path: String,
    message: String,
}

impl SchemaError {
    pub(crate) fn new(
        provider: &'static str,
        path: &str,
        message: impl Into<String>,
    ) -> SchemaError {
        SchemaError {
            provider,
            path: path.to_owned(),
            message: message.into(),
        }
    }

    /// Where the schema breaks the rules: a JSON pointer into the schema
    /// (`/properties/tags`, `/$defs/Item/properties/meta`), empty for the
    /// root.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.provider, self.message)
        } else {
            write!(f, "{}: at {}: {}", self.provider, self.path, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}
