//! Tables, vectors, segmented layouts and their conversions on the device, rendering and storage
//! bindings, and the `TableError` catalogue.

#[path = "../support/mod.rs"]
pub mod support;

mod blocks;
mod chunked;
mod chunked_filter;
mod chunked_reduce;
mod dynamic;
mod edges;
mod errors;
mod faults;
mod filter;
mod fixtures;
mod formats;
mod picking;
mod relayout;
mod render;
mod segmented;
mod shader_check;
mod sort;
mod split;
mod vectors;
