//! The agreement rules between a host field and a WGSL declaration, as `const fn`s: the
//! compile-time shader check of `#[derive(GpuStruct)]` (`#[gpu(shader = "...", ...)]`) calls
//! them in `const` items, through `__private`, with the facts the macro read from the WGSL
//! file; the run-time check (`gpudata::check`, feature `naga`) calls the same rules, so the two
//! cannot disagree. Messages for the compile-time check are written here; the run-time check's
//! are its error enums' `#[error]` texts.

use super::facts::{Analysis, Spot, problem_message, problem_spot};
use super::shader_tree::{
    ShaderTree, TreeFinding, compare_tree, finding_text, more_text, offset_body,
};
use crate::format::{ShaderType, VertexFormat};
use crate::layout::WgslType;
use crate::record::HostShape;
use crate::record::host_shape::carrier_type;
use crate::record::shader_rules::{
    VertexFeed, one_value_size_agrees, type_name, vertex_feed, vertex_formats_of,
    vertex_scalar_name,
};
use crate::record::tree::{Msg, fail};

/// A WGSL struct member as the macro read it.
#[derive(Clone, Copy, Debug)]
pub struct ShaderMember {
    /// `Struct.member`.
    pub path: &'static str,
    /// `file:line:column` of the member.
    pub at: &'static str,
    /// Its type.
    pub tree: ShaderTree,
    /// Its byte offset.
    pub offset: u64,
    /// Its alignment.
    pub align: u64,
    /// Its size in bytes.
    pub size: u64,
}

/// A vertex entry point's input as the macro read it.
#[derive(Clone, Copy, Debug)]
pub struct ShaderInput {
    /// `entry(name)`.
    pub path: &'static str,
    /// `file:line:column` of the input.
    pub at: &'static str,
    /// Its `@location`.
    pub location: u32,
    /// Its type, when it is a scalar or vector of `f32`, `f16`, `i32` or `u32`.
    pub ty: Option<ShaderType>,
    /// Its WGSL type as written by naga.
    pub type_name: &'static str,
}

const fn field_head<const N: usize>(analysis: &Analysis<N>, k: usize, path: &str, at: &str) -> Msg {
    Msg::new()
        .str("field `")
        .str(analysis.names[k])
        .str("` disagrees with wgsl `")
        .str(path)
        .str("` (")
        .str(at)
        .str("): ")
}

/// Gpu field `k`'s WGSL type and host shape: its type tree's member, or a vertex-format field's
/// WGSL carrier.
const fn field_type<const N: usize>(analysis: &Analysis<N>, k: usize) -> (WgslType, HostShape) {
    match analysis.structure {
        Some(s) if analysis.tree[k] => (s.members[k].ty, analysis.hosts[k]),
        _ => (
            carrier_type(analysis.formats[k]),
            HostShape::Field(analysis.formats[k]),
        ),
    }
}

/// Why gpu field `k` does not match the shader member `m`, or `None`: its type tree against the
/// member's, then its offset. The tree (a vertex-format field as its WGSL carrier; a nested struct,
/// array or matrix level by level, naming the first disagreement's path below the field and its
/// WGSL position, and how many more there are).
#[must_use]
pub const fn member_problem<const N: usize>(
    analysis: &Analysis<N>,
    k: usize,
    m: &ShaderMember,
) -> Option<Msg> {
    if !analysis.valid {
        // The struct's own problem is reported; a layout of zeros would only add noise.
        return None;
    }
    let (ty, shape) = field_type(analysis, k);
    let path = Msg::new().str(analysis.names[k]);
    let found = compare_tree(
        &ty,
        &shape,
        &m.tree,
        analysis.space,
        path,
        m.at,
        TreeFinding::none(),
    );
    if !found.found {
        let host = analysis.layout.offsets[k];
        if host == m.offset {
            return None;
        }
        return Some(
            field_head(analysis, k, m.path, m.at)
                .str(offset_body(host, m.offset, m.tree.name(), m.align).as_str()),
        );
    }
    let mut msg = finding_text(
        field_head(analysis, k, m.path, m.at),
        &found,
        analysis.names[k],
    );
    let host = analysis.layout.offsets[k];
    if host != m.offset {
        msg = msg
            .str("; its offset differs too: host ")
            .num(host)
            .str(", shader ")
            .num(m.offset);
    }
    Some(more_text(
        msg,
        &found,
        analysis.names[k],
        "gpudata::check::Shader::check_struct",
    ))
}

/// The message of the derive's `zero_copy` problem on a struct whose fields the shader check
/// matched with `members` (`(gpu field, member)`): when a member disagrees with its field and is
/// wider than it (`vec4<u32>` where the field is `[u32; 3]`), the host bytes' gap is that
/// mismatch, and `#[gpu(padding)]` would only hide it: the message names the mismatch instead.
/// Otherwise, the analysis's own message.
#[must_use]
pub const fn zero_copy_message<const N: usize>(
    analysis: &Analysis<N>,
    members: &[(usize, ShaderMember)],
) -> Msg {
    let own = problem_message(analysis);
    if !matches!(
        problem_spot(analysis),
        Some(Spot::ZeroCopyField(_) | Spot::ZeroCopyEnd)
    ) {
        return own;
    }
    let mut i = 0;
    while i < members.len() {
        let (k, m) = members[i];
        i += 1;
        if k >= N {
            continue;
        }
        let size = match field_type(analysis, k).0.layout(analysis.space) {
            Ok(layout) => layout.size,
            Err(_) => continue,
        };
        if m.size <= size {
            continue;
        }
        if let Some(problem) = member_problem(analysis, k, &m) {
            return Msg::new()
                .str("`#[gpu(zero_copy)]`: the host bytes are not the gpu rows because the shader declares a wider type (")
                .num(m.size)
                .str(" bytes) than field `")
                .str(analysis.names[k])
                .str("` (")
                .num(size)
                .str(" bytes); fix the field's type, not with #[gpu(padding)], which would hide the mismatch: ")
                .str(problem.as_str());
        }
    }
    own
}

/// Fails compilation with `problem`'s message when there is one, reported at the caller.
#[track_caller]
pub const fn fail_if(problem: &Option<Msg>) {
    if let Some(msg) = problem {
        fail(msg);
    }
}

/// Why the struct's stride differs from the shader struct's size, or `None`. For `one_value`
/// rows (a struct global, not an array's elements) the host may also measure the size rounded
/// up to 16, as a `wgsl-uniform` struct does (`record::shader_rules::one_value_size_agrees`).
#[must_use]
pub const fn stride_problem<const N: usize>(
    analysis: &Analysis<N>,
    shader_struct: &str,
    at: &str,
    size: u64,
    one_value: bool,
    matched: &[(usize, u64)],
) -> Option<Msg> {
    let host = analysis.layout.shape.byte_stride;
    let agrees = if one_value {
        one_value_size_agrees(host, size)
    } else {
        host == size
    };
    if agrees || !analysis.valid {
        return None;
    }
    let mut msg = Msg::new()
        .str("the struct's stride disagrees with wgsl `")
        .str(shader_struct)
        .str("` (")
        .str(at)
        .str("): host stride ")
        .num(host)
        .str(" bytes, shader size ")
        .num(size)
        .str(" bytes; make the last fields agree or set #[gpu(stride = ")
        .num(size)
        .str(")]\nfield offsets, host and shader side by side:");
    // The side-by-side table: where the two layouts part.
    let mut i = 0;
    while i < matched.len() {
        let (k, shader) = matched[i];
        if k < N {
            let host = analysis.layout.offsets[k];
            msg = msg
                .str("\n  ")
                .str(analysis.names[k])
                .str(": ")
                .num(host)
                .str(" | ")
                .num(shader);
            if host != shader {
                msg = msg.str("  <- differs");
            }
        }
        i += 1;
    }
    Some(msg.str("\n  (end): ").num(host).str(" | ").num(size))
}

/// Why gpu field `k`, fed to `input`'s location, cannot feed it, or `None`: [`feed_problem`]
/// for the field's name and format.
#[must_use]
pub const fn input_problem<const N: usize>(
    analysis: &Analysis<N>,
    k: usize,
    input: &ShaderInput,
) -> Option<Msg> {
    if !analysis.valid {
        return None;
    }
    feed_problem(analysis.names[k], analysis.formats[k], input)
}

/// Why field `name` of `format` cannot feed the vertex input `input`, or `None`: WebGPU's rule
/// as wgpu applies it (`record::shader_rules::vertex_feed`: the scalar kinds agree; component counts may differ), the
/// rule `gpudata::check::Shader::check_vertex_state` applies at run time.
#[must_use]
pub const fn feed_problem(name: &str, format: VertexFormat, input: &ShaderInput) -> Option<Msg> {
    let head = Msg::new()
        .str("field `")
        .str(name)
        .str("` feeds location ")
        .num(input.location as u64)
        .str(", read as ")
        .str(input.type_name)
        .str(" by wgsl `")
        .str(input.path)
        .str("` (")
        .str(input.at)
        .str("): ")
        .str(format.as_str());
    match (vertex_feed(format, input.ty), input.ty) {
        (VertexFeed::Accepted, _) => None,
        (VertexFeed::Unfetchable, _) => Some(
            head.str(" is a WebGL-only format, which wgpu cannot fetch; use a WebGPU vertex format"),
        ),
        (VertexFeed::KindDiffers, Some(ty)) => Some(
            head.str(" delivers ")
                .str(vertex_scalar_name(format))
                .str(" values (")
                .str(type_name(format.vertex_input_type()))
                .str("), the input reads ")
                .str(ty.primitive().as_str())
                .str(" (a vertex input reads the scalar kind its format delivers; component counts may differ): use ")
                .str(vertex_formats_of(ty.primitive()))
                .str(", or declare the input with ")
                .str(vertex_scalar_name(format))
                .str(" components"),
        ),
        (VertexFeed::KindDiffers | VertexFeed::NotNumeric, _) => Some(head.str(
            " cannot feed it: a vertex input is a scalar or vector of f32, f16, i32 or u32",
        )),
    }
}
