//! The derive's compile-time bind group check, as `const fn`s: each field's layout entry
//! against the WGSL global the macro read ([`ShaderGlobal`]), by the shared
//! [`resource_finding`](super::rules::resource_finding), then the buffer's value type against
//! the global's type tree by the struct check's own comparison
//! ([`compare_tree`](crate::derive_support::compare_tree)): nested structs, arrays, matrices,
//! atomics, runtime-sized tails. The messages are written here; the run-time check's are its
//! error enums' `#[error]` texts.

use super::entry::{BindingKeys, keys_problem, layout_entry};
use super::resource::{BufferValue, ResourceKind};
use super::rules::{BindingFinding, WgslResource, resource_finding, unfilterable_sample};
use crate::derive_support::{ShaderTree, TreeFinding, compare_tree, finding_text, more_text};
use crate::format::const_str_eq;
use crate::record::tree::Msg;

/// A WGSL global as the derive read it. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ShaderGlobal {
    /// Its name.
    pub name: &'static str,
    /// `file:line:column` of its declaration.
    pub at: &'static str,
    /// What it is, as a binding.
    pub resource: WgslResource,
    /// Its type, for a uniform or storage buffer.
    pub tree: Option<&'static ShaderTree>,
}

/// `field `name` disagrees with wgsl `global` (at): `.
const fn head(name: &str, global: &ShaderGlobal) -> Msg {
    Msg::new()
        .str("field `")
        .str(name)
        .str("` disagrees with wgsl `")
        .str(global.name)
        .str("` (")
        .str(global.at)
        .str("): ")
}

/// `msg` with what `finding` says and how to fix it.
#[must_use]
pub const fn binding_finding_text(msg: Msg, finding: &BindingFinding) -> Msg {
    match *finding {
        BindingFinding::Resource { host, shader } => msg
            .str("the field binds ")
            .str(host)
            .str(", the shader declares ")
            .str(shader)
            .str("; borrow the resource the shader declares, or change the wgsl"),
        BindingFinding::AddressSpace { host, shader } => msg
            .str("the field binds var<")
            .str(host)
            .str(">, the shader declares var<")
            .str(shader)
            .str(">; ")
            .str(space_fix(shader)),
        BindingFinding::Dimension { host, shader } => msg
            .str("the field binds a ")
            .str(host)
            .str(" texture view, the shader declares a ")
            .str(shader)
            .str(" texture; set the field's dimension to \"")
            .str(shader)
            .str("\" (`texture = \"...\"` or `storage_texture = \"...\"`), or change the wgsl"),
        BindingFinding::SampleType { host, shader } => msg
            .str("the field binds a texture of ")
            .str(host)
            .str(" samples, the shader declares ")
            .str(shader)
            .str(" samples; set `sample = \"")
            .str(shader)
            .str("\"` on the field, or change the wgsl"),
        BindingFinding::Multisampled { host: true } => msg.str(
            "the field binds a multisampled texture, the shader declares a single-sampled one; remove `multisampled`, or declare a texture_multisampled_* in the wgsl",
        ),
        BindingFinding::Multisampled { host: false } => msg.str(
            "the field binds a single-sampled texture, the shader declares a multisampled one; add `multisampled` to the field, or change the wgsl",
        ),
        BindingFinding::Sampler { host, shader } => msg
            .str("the field binds a ")
            .str(host)
            .str(" sampler, the shader declares ")
            .str(shader)
            .str("; ")
            .str(if const_str_eq(shader, "sampler_comparison") {
                "set `sampler = \"comparison\"` on the field, or declare a `sampler` in the wgsl"
            } else {
                "set `sampler = \"filtering\"` (or \"non-filtering\") on the field, or declare a `sampler_comparison` in the wgsl"
            }),
        BindingFinding::StorageFormat { host, shader } => msg
            .str("the field binds texel format ")
            .str(host)
            .str(", the shader declares ")
            .str(shader)
            .str("; set `format = \"")
            .str(shader)
            .str("\"` on the field, or change the wgsl"),
        BindingFinding::StorageAccess { host, shader } => msg
            .str("the field binds storage texture access ")
            .str(host)
            .str(", the shader declares ")
            .str(shader)
            .str("; set `access = \"")
            .str(shader)
            .str("\"` on the field, or change the wgsl"),
    }
}

/// How to make a buffer's address space agree with a global declared `var<shader>`.
const fn space_fix(shader: &str) -> &'static str {
    if const_str_eq(shader, "uniform") {
        "bind a GpuUniform, GpuUniformArray or TypedGpuData with `uniform`, or declare the global var<storage>"
    } else if const_str_eq(shader, "storage, read_write") {
        "add `read_write` to the field's #[binding(...)], or declare the global var<storage, read>"
    } else {
        "bind a GpuStorage or TypedGpuData without `read_write`, or declare the global as the field binds it"
    }
}

/// Why field `name` (a resource of `kind` with `keys`) does not bind `global`, or `None`: the
/// resource, its address space, texture or sampler kind, then a buffer's value type.
#[must_use]
pub const fn shader_problem(
    name: &str,
    kind: &ResourceKind,
    keys: &BindingKeys,
    global: &ShaderGlobal,
) -> Option<Msg> {
    if keys_problem(name, kind, keys).is_some() {
        // Reported at the field by its own check; the layout here would be a guess.
        return None;
    }
    let entry = layout_entry(kind, keys);
    if let Some(finding) = resource_finding(&entry.ty, &global.resource) {
        return Some(binding_finding_text(head(name, global), &finding));
    }
    let (Some(value), Some(tree)) = (kind.value(), global.tree) else {
        return None;
    };
    let path = Msg::new().str(name);
    let found = match (kind, tree) {
        (
            ResourceKind::Rows(_),
            ShaderTree::Array {
                element, stride, ..
            },
        ) => {
            let found = if value.size == *stride {
                TreeFinding::none()
            } else {
                TreeFinding::none().note(
                    path.str("[]"),
                    global.at,
                    Msg::new()
                        .str("host row stride ")
                        .num(value.size)
                        .str(" bytes, shader array stride ")
                        .num(*stride)
                        .str(" bytes; make the row types agree"),
                )
            };
            compare_value(value, element, path.str("[]"), global.at, found)
        }
        _ => compare_value(value, tree, path, global.at, TreeFinding::none()),
    };
    if !found.found {
        return None;
    }
    let msg = finding_text(head(name, global), &found, name);
    Some(more_text(
        msg,
        &found,
        name,
        "gpudata::check::Shader::check_bind_group",
    ))
}

/// One side of a texture and sampler pair an entry point samples together: the field's name,
/// resource and keys. Not API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct PairField<'a> {
    /// The field's name.
    pub name: &'a str,
    /// What it borrows.
    pub kind: &'a ResourceKind,
    /// Its keys.
    pub keys: &'a BindingKeys,
}

/// Why entry point `entry` cannot sample field `texture` through field `sampler`, or `None`:
/// wgpu's rule ([`unfilterable_sample`]) over the two layout entries. `at` is the texture
/// global's `file:line:column`.
#[must_use]
pub const fn sampling_problem(
    sampler: PairField<'_>,
    texture: PairField<'_>,
    entry: &str,
    at: &str,
) -> Option<Msg> {
    if keys_problem(sampler.name, sampler.kind, sampler.keys).is_some()
        || keys_problem(texture.name, texture.kind, texture.keys).is_some()
    {
        return None;
    }
    let texture_entry = layout_entry(texture.kind, texture.keys);
    let sampler_entry = layout_entry(sampler.kind, sampler.keys);
    let Some(sample) = unfilterable_sample(&texture_entry.ty, &sampler_entry.ty) else {
        return None;
    };
    Some(
        Msg::new()
            .str("field `")
            .str(sampler.name)
            .str("` binds a filtering sampler, but entry point `")
            .str(entry)
            .str("` samples field `")
            .str(texture.name)
            .str("` (")
            .str(at)
            .str("), a texture of ")
            .str(sample)
            .str(" samples, with it, which wgpu refuses at pipeline creation; set `sampler = \"non-filtering\"` on `")
            .str(sampler.name)
            .str(if const_str_eq(sample, "unfilterable-float") {
                "`, or bind a filterable float texture (`sample = \"float\"`)"
            } else {
                "` (an integer texture is never filtered)"
            }),
    )
}

/// The value's type tree against the shader's.
const fn compare_value(
    value: &BufferValue,
    shader: &ShaderTree,
    path: Msg,
    at: &'static str,
    found: TreeFinding,
) -> TreeFinding {
    compare_tree(value.wgsl, value.host, shader, value.space, path, at, found)
}
