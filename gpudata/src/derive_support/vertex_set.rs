//! The compile-time check of a whole vertex state ([`check_vertex_set!`](crate::check_vertex_set)):
//! the vertex buffers of one pipeline, each a derived struct checked against the entry point on
//! its own (`#[gpu(vertex_entry = "...")]`: every attribute feeds the input at its location),
//! checked together: no location fed twice, every input the entry point reads fed. The run-time
//! twin is [`Shader::check_vertex_state`](crate::check::Shader::check_vertex_state).

use crate::format::const_str_eq;
use crate::record::shader_rules::VertexEntry;
use crate::record::tree::Msg;

/// The record of `entry` among `entries`, if any.
const fn find<'a>(entries: &'a [VertexEntry], entry: &str) -> Option<&'a VertexEntry> {
    let mut i = 0;
    while i < entries.len() {
        if const_str_eq(entries[i].entry, entry) {
            return Some(&entries[i]);
        }
        i += 1;
    }
    None
}

/// Which buffer (by position) and attribute feed `location`, the first found.
const fn feeder(attributes: &[&[wgpu::VertexAttribute]], location: u32) -> Option<usize> {
    let mut b = 0;
    while b < attributes.len() {
        let mut a = 0;
        while a < attributes[b].len() {
            if attributes[b][a].shader_location == location {
                return Some(b);
            }
            a += 1;
        }
        b += 1;
    }
    None
}

/// Why the vertex buffers `names` (each a derived struct: its [`VertexEntry`] records and its
/// vertex attributes, in order) cannot together feed vertex entry point `entry`, or `None`:
/// a buffer not checked against `entry` (or against another shader file than the first), a
/// location two attributes feed, an input no attribute feeds.
#[must_use]
pub const fn vertex_set_problem(
    entry: &str,
    names: &[&str],
    entries: &[&[VertexEntry]],
    attributes: &[&[wgpu::VertexAttribute]],
) -> Option<Msg> {
    let mut first: Option<&VertexEntry> = None;
    let mut b = 0;
    while b < names.len() {
        let Some(found) = find(entries[b], entry) else {
            return Some(
                Msg::new()
                    .str("vertex buffer `")
                    .str(names[b])
                    .str("` was not checked against vertex entry point `")
                    .str(entry)
                    .str("`: add it to the struct's #[gpu(vertex_entry = \"...\")]"),
            );
        };
        match first {
            None => first = Some(found),
            Some(seen) if !const_str_eq(seen.shader, found.shader) => {
                return Some(
                    Msg::new()
                        .str("vertex buffer `")
                        .str(names[b])
                        .str("` was checked against `")
                        .str(entry)
                        .str("` of ")
                        .str(found.shader)
                        .str(", the first buffer against ")
                        .str(seen.shader)
                        .str(": check every buffer against one shader"),
                );
            }
            Some(_) => {}
        }
        b += 1;
    }
    // Locations fed twice.
    let mut b = 0;
    while b < attributes.len() {
        let mut a = 0;
        while a < attributes[b].len() {
            let location = attributes[b][a].shader_location;
            let mut c = b;
            while c < attributes.len() {
                let mut d = if c == b { a + 1 } else { 0 };
                while d < attributes[c].len() {
                    if attributes[c][d].shader_location == location {
                        return Some(
                            Msg::new()
                                .str("location ")
                                .num(location as u64)
                                .str(" is fed by vertex buffer `")
                                .str(names[b])
                                .str("` and by `")
                                .str(names[c])
                                .str("`: give the buffers distinct locations (#[gpu(location = N)] sets a struct's first)"),
                        );
                    }
                    d += 1;
                }
                c += 1;
            }
            a += 1;
        }
        b += 1;
    }
    // Inputs no buffer feeds.
    let Some(record) = first else {
        return Some(Msg::new().str("a vertex state needs at least one vertex buffer"));
    };
    let mut i = 0;
    while i < record.inputs.len() {
        let input = &record.inputs[i];
        if feeder(attributes, input.location).is_none() {
            return Some(
                Msg::new()
                    .str("input `")
                    .str(input.name)
                    .str("` at location ")
                    .num(input.location as u64)
                    .str(" of vertex entry point `")
                    .str(entry)
                    .str("` (")
                    .str(input.at)
                    .str(") is fed by no vertex buffer of the set; add a field at that location"),
            );
        }
        i += 1;
    }
    None
}
