//! Feature `serde`: every serde implementation of the crate, in luma.gl's JSON shapes (DESIGN.md,
//! decision 8): formats, struct formats and buffer layouts (`formats.rs`), shader block layouts
//! and luma.gl's composite shader types (`blocks.rs`).

mod blocks;
mod formats;
