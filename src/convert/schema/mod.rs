//! Schema transforms: a tool's `inputSchema` becomes a parameter schema one provider accepts, and
//! every change is recorded as a [`Note`] (sent to hosts as `conversionNotes`).
//!
//! Each transform is a small pure function over `serde_json::Value`, in its own file, with its own
//! tests. [`convert`] composes them per format, in this order:
//!
//! | transform | openai, openai-responses | anthropic | gemini |
//! |---|---|---|---|
//! | [`refs::inline`]: local `$ref` inlined, `$defs` removed, cut-offs | ✓ | ✓ | ✓ |
//! | [`all_of::merge`]: `allOf` merged into one schema | ✓ | ✓ | ✓ |
//! | [`keywords::drop_meta`]: `$schema`, `$id`, `$comment`… | ✓ | ✓ | ✓ |
//! | [`root::normalise`]: top level is a plain object (no `anyOf`/`oneOf`) | ✓ | ✓ | ✓ |
//! | [`arrays::single_items`]: tuple `items`/`prefixItems` → one `items` | ✓ | ✓ | ✓ |
//! | [`arrays::require_items`]: every array has `items` | ✓ | | ✓ |
//! | [`keywords::const_to_enum`] | strict only | | ✓ |
//! | [`nullable::rewrite`]: `type: [T, "null"]`, null branches → `nullable` | | | ✓ |
//! | [`unions::for_gemini`]: `oneOf` → `anyOf`, unions collapsed where Gemini rejects them | | | ✓ |
//! | [`gemini::subset`]: Gemini's OpenAPI-subset `Schema` (field allowlist, `TYPE` names…) | | | ✓ |
//! | [`strict::make_strict`]: OpenAI strict mode, or a reasoned fallback | strict only | | |
//!
//! The `mcp` format is never converted: it is the server's own tool object.
//!
//! Termination and size: [`refs::inline`] runs first and bounds the tree (a `$ref` cycle or a chain
//! deeper than [`MAX_REF_DEPTH`] is cut to a permissive schema, nesting deeper than
//! [`MAX_SCHEMA_DEPTH`] likewise, and at most [`MAX_SCHEMA_NODES`] nodes are produced however the
//! definitions fan out), so every later walk is bounded too. Nothing here panics on any input.
//!
//! Arguments are always validated against the server's original schema, never against the
//! converted one (see `mcp::tools`); [`super::arguments`] undoes the one rewrite that changes what
//! a model sends (strict mode's nullable optional properties).
//!
//! Its other files:
//! - `all_of`: Merging `allOf`.
//! - `arrays`: Arrays.
//! - `gemini`: Gemini's `Schema`.
//! - `keywords`: Keyword-level rewrites that need no context.
//! - `notes`: The bounds of schema conversion and the `Notes` a conversion records (sent to hosts as …
//! - `pipeline`: `convert`.
//! - `refs`: Inlining `$ref`.
//! - `root`: The top level of a parameter schema.
//! - `strict`: OpenAI strict mode (`strict.
//! - `unions`: Unions (`anyOf`/`oneOf`) where a provider cannot take them as they are.
//! - `walk`: Walking a JSON Schema.

pub mod all_of;
pub mod arrays;
pub mod gemini;
pub mod keywords;
pub mod notes;
pub mod nullable;
pub mod pipeline;
pub mod refs;
pub mod root;
pub mod strict;
pub mod unions;
pub mod walk;

pub use notes::{
    Action, Note, Notes, MAX_NOTES, MAX_REF_DEPTH, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES,
};
pub use pipeline::{convert, Converted};
pub use walk::permissive;

#[cfg(test)]
pub(crate) use notes::run_transform;
