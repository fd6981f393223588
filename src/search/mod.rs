//! Ranked search over tools: the terms a text is cut into ([`terms`]) and a BM25 index that finds
//! exact names first ([`index`]). Pure: strings in, positions and scores out; the catalog in
//! [`crate::store`] builds one index per tool set.

pub(crate) mod index;
pub(crate) mod terms;

pub(crate) use index::{Document, Hit, Index};
