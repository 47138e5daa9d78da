//! Derive macros for [`serde_llm`](https://docs.rs/serde_llm).
//!
//! This crate is the future home of `#[derive(Partial)]`, which generates the
//! partial view of a type for streaming decodes. It exports nothing yet: the
//! derive lands together with the typed partial policy.
