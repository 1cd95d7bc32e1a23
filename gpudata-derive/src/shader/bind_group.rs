//! The compile-time bind group check's WGSL side (feature `naga`): `#[bind_group(shader =
//! "file.wgsl", group = N, entry = "...")]`. The macro reads the file (the struct check's
//! parse, shared per session), validates it with naga to learn which globals each entry point
//! uses, and matches each field with the global of its name: what names decide (a global that
//! is missing, in another group or at another binding; a used global no field binds; a
//! visibility that hides a stage using it) is reported here, spanned at the field or key; the
//! rest (the resource, its address space, texture and sampler kind, a buffer's type tree)
//! becomes a `ShaderGlobal` the expansion's `const` assertion compares with the field's type.

use proc_macro2::{Ident, TokenStream};

use crate::internals::bind_attr::{FieldKeys, GroupAttrs};
use crate::internals::ctxt::Ctxt;

/// A field of the bind group, as the shader check reads it.
#[cfg_attr(not(feature = "naga"), allow(dead_code))]
pub(crate) struct BindField<'a> {
    /// The field.
    pub(crate) ident: &'a Ident,
    /// Its keys.
    pub(crate) keys: &'a FieldKeys,
}

/// What the shader says of one field's binding.
pub(crate) struct Bound {
    /// Its `@binding`.
    pub(crate) binding: u32,
    /// Stage bits of the entry points that use it.
    pub(crate) visibility: u32,
    /// The global's minimum binding size, for buffers.
    pub(crate) min_size: Option<u64>,
    /// The `ShaderGlobal` expression.
    pub(crate) global: TokenStream,
}

/// A texture and a sampler of the group that an entry point samples together (naga's
/// sampling set), for wgpu's filtering rule.
pub(crate) struct SamplingPair {
    /// The texture's field, by index.
    pub(crate) texture: usize,
    /// The sampler's field, by index.
    pub(crate) sampler: usize,
    /// The first checked entry point sampling them together.
    pub(crate) entry: String,
    /// `file:line:column` of the texture global.
    pub(crate) at: String,
}

/// What the shader says of the whole group.
pub(crate) struct GroupShader {
    /// The file's absolute path, for `include_bytes!`.
    pub(crate) path: String,
    /// Each field's binding (`None`: a problem reported).
    pub(crate) fields: Vec<Option<Bound>>,
    /// The pairs of fields sampled together, in sampler then texture field order.
    pub(crate) pairs: Vec<SamplingPair>,
}

/// Reads the shader `attrs` names and matches the fields with its globals of `group`.
#[cfg(not(feature = "naga"))]
pub(crate) fn resolve(
    cx: &Ctxt,
    _p: &Ident,
    attrs: &GroupAttrs,
    _group: u32,
    _fields: &[BindField<'_>],
) -> Option<GroupShader> {
    if let Some(lit) = &attrs.shader {
        cx.error_spanned_by(
            lit,
            "the shader check needs gpudata's `naga` feature: add `features = [\"naga\"]` to the gpudata dependency",
        );
    }
    None
}

/// Reads the shader `attrs` names and matches the fields with its globals of `group`.
#[cfg(feature = "naga")]
pub(crate) fn resolve(
    cx: &Ctxt,
    p: &Ident,
    attrs: &GroupAttrs,
    group: u32,
    fields: &[BindField<'_>],
) -> Option<GroupShader> {
    naga_side::resolve(cx, p, attrs, group, fields)
}

#[cfg(feature = "naga")]
mod naga_side {
    use std::cell::RefCell;
    use std::rc::Rc;

    use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
    use naga::{GlobalVariable, Handle, ImageClass, ImageDimension, ShaderStage};
    use naga::{ScalarKind, TypeInner};
    use proc_macro2::{Ident, TokenStream};
    use quote::quote;
    use syn::LitStr;
    use syn::ext::IdentExt;

    use super::{BindField, Bound, GroupShader, SamplingPair};
    use crate::internals::bind_attr::{COMPUTE, FRAGMENT, GroupAttrs, VERTEX};
    use crate::internals::ctxt::Ctxt;
    use crate::shader::asserts::tree;
    use crate::shader::wgsl::Wgsl;

    thread_local! {
        /// naga's validation of each file this session checked a bind group against.
        static VALIDATED: RefCell<Vec<(Rc<Wgsl>, Rc<ModuleInfo>)>> =
            const { RefCell::new(Vec::new()) };
    }

    /// naga's `ModuleInfo` of `shader`, validated once per session.
    fn info(shader: &Rc<Wgsl>) -> Result<Rc<ModuleInfo>, String> {
        let cached = VALIDATED.with_borrow(|all| {
            all.iter()
                .find(|(w, _)| Rc::ptr_eq(w, shader))
                .map(|(_, i)| Rc::clone(i))
        });
        if let Some(info) = cached {
            return Ok(info);
        }
        let info = Validator::new(ValidationFlags::all(), Capabilities::all())
            .validate(shader.module())
            .map_err(|e| {
                format!(
                    "the shader `{}` does not validate: {}",
                    shader.file(),
                    e.as_inner()
                )
            })?;
        let info = Rc::new(info);
        VALIDATED.with_borrow_mut(|all| all.push((Rc::clone(shader), Rc::clone(&info))));
        Ok(info)
    }

    fn stage_bit(stage: ShaderStage) -> u32 {
        match stage {
            ShaderStage::Vertex => VERTEX,
            ShaderStage::Fragment => FRAGMENT,
            ShaderStage::Compute => COMPUTE,
            // Task and mesh stages: wgpu's `ShaderStages::TASK` and `MESH`.
            ShaderStage::Task => 8,
            ShaderStage::Mesh => 16,
            _ => 0,
        }
    }

    fn stages_text(bits: u32) -> String {
        let names = [
            (VERTEX, "vertex"),
            (FRAGMENT, "fragment"),
            (COMPUTE, "compute"),
        ];
        let text: Vec<&str> = names
            .iter()
            .filter(|(b, _)| bits & b != 0)
            .map(|(_, n)| *n)
            .collect();
        text.join(" | ")
    }

    /// An entry point a check covers: index, name, stage bit and the attribute naming it.
    struct Entry<'l> {
        index: usize,
        name: String,
        stage: u32,
        lit: Option<&'l LitStr>,
    }

    pub(super) fn resolve(
        cx: &Ctxt,
        p: &Ident,
        attrs: &GroupAttrs,
        group: u32,
        fields: &[BindField<'_>],
    ) -> Option<GroupShader> {
        let file = attrs.shader.as_ref()?;
        let relative = file.value();
        let path = crate::shader::resolve(&relative, file);
        let shader = match Wgsl::load(&relative, &path) {
            Ok(shader) => shader,
            Err(message) => {
                cx.error_spanned_by(file, message);
                return None;
            }
        };
        let info = match info(&shader) {
            Ok(info) => info,
            Err(message) => {
                cx.error_spanned_by(file, message);
                return None;
            }
        };
        let module = shader.module();
        let all: Vec<Entry<'_>> = module
            .entry_points
            .iter()
            .enumerate()
            .map(|(index, ep)| Entry {
                index,
                name: ep.name.clone(),
                stage: stage_bit(ep.stage),
                lit: None,
            })
            .collect();
        let mut entries = Vec::new();
        for lit in &attrs.entries {
            match all.iter().find(|e| e.name == lit.value()) {
                Some(e) => entries.push(Entry {
                    index: e.index,
                    name: e.name.clone(),
                    stage: e.stage,
                    lit: Some(lit),
                }),
                None => {
                    let names: Vec<String> = all.iter().map(|e| format!("`{}`", e.name)).collect();
                    cx.error_spanned_by(
                        lit,
                        format_args!(
                            "the shader `{}` has no entry point `{}`; its entry points: {}",
                            shader.file(),
                            lit.value(),
                            names.join(", ")
                        ),
                    );
                }
            }
        }
        let named = !attrs.entries.is_empty();
        let entries = if named { entries } else { all };
        let used_by = |handle: Handle<GlobalVariable>| -> Vec<&Entry<'_>> {
            entries
                .iter()
                .filter(|e| !info.get_entry_point(e.index)[handle].is_empty())
                .collect()
        };
        let global_at = |handle: Handle<GlobalVariable>| {
            module
                .global_variables
                .get_span(handle)
                .to_range()
                .map_or_else(|| shader.file().to_owned(), |r| shader.at(r.start))
        };
        let in_group: Vec<String> = module
            .global_variables
            .iter()
            .filter_map(|(_, g)| {
                let b = g.binding.as_ref().filter(|b| b.group == group)?;
                Some(format!(
                    "`{}` (@binding({}))",
                    g.name.as_deref().unwrap_or(""),
                    b.binding
                ))
            })
            .collect();
        let mut matched = Vec::new();
        let mut out = Vec::new();
        // The global of each field that got a `Bound`, by field index.
        let mut bound_globals: Vec<(Handle<GlobalVariable>, usize)> = Vec::new();
        for field in fields {
            let name = field
                .keys
                .global
                .as_ref()
                .map_or_else(|| field.ident.unraw().to_string(), LitStr::value);
            let found = module
                .global_variables
                .iter()
                .find(|(_, g)| g.name.as_deref() == Some(name.as_str()));
            let Some((handle, global)) = found else {
                let at: &dyn quote::ToTokens = match &field.keys.global {
                    Some(lit) => lit,
                    None => field.ident,
                };
                cx.error_spanned_by(
                    at,
                    format_args!(
                        "the shader `{}` declares no global `{name}`; its globals in @group({group}): {}; rename the field, or name its global with #[binding(global = \"...\")]",
                        shader.file(),
                        if in_group.is_empty() { "none".to_owned() } else { in_group.join(", ") }
                    ),
                );
                out.push(None);
                continue;
            };
            let at = global_at(handle);
            let Some(binding) = &global.binding else {
                cx.error_spanned_by(
                    field.ident,
                    format_args!(
                        "wgsl `{name}` ({at}) has no @group/@binding, so no bind group binds it; declare it `@group({group}) @binding(N) var ...`"
                    ),
                );
                out.push(None);
                continue;
            };
            matched.push(handle);
            if binding.group != group {
                let spot: &dyn quote::ToTokens = match &attrs.group {
                    Some((_, lit)) => lit,
                    None => field.ident,
                };
                cx.error_spanned_by(
                    spot,
                    format_args!(
                        "field `{}` binds wgsl `{name}` ({at}), declared @group({}) @binding({}), but the struct binds @group({group}); make the groups agree, or move the field to a bind group of @group({})",
                        field.ident, binding.group, binding.binding, binding.group
                    ),
                );
                out.push(None);
                continue;
            }
            if let Some((n, lit)) = &field.keys.binding
                && *n != binding.binding
            {
                cx.error_spanned_by(
                    lit,
                    format_args!(
                        "#[binding({n})], but wgsl `{name}` ({at}) is declared @group({group}) @binding({}); make the two agree, or drop the number (the shader's is taken)",
                        binding.binding
                    ),
                );
            }
            let users = used_by(handle);
            let mut visibility: u32 = users.iter().fold(0, |bits, e| bits | e.stage);
            if let Some((bits, lit)) = &field.keys.visibility {
                if let Some(e) = users.iter().find(|e| bits & e.stage == 0) {
                    cx.error_spanned_by(
                        lit,
                        format_args!(
                            "visibility \"{}\" hides field `{}` from entry point `{}` ({}), which uses wgsl `{name}` ({at}); add its stage, or drop `visibility` (the shader's stages are taken)",
                            lit.value(),
                            field.ident,
                            e.name,
                            stages_text(e.stage)
                        ),
                    );
                }
                visibility = *bits;
            }
            if visibility == 0 {
                visibility = entries.iter().fold(0, |bits, e| bits | e.stage);
            }
            bound_globals.push((handle, out.len()));
            out.push(Some(Bound {
                binding: binding.binding,
                visibility,
                min_size: min_size(&shader, global),
                global: global_tokens(p, &shader, &name, &at, global),
            }));
        }
        for (handle, global) in module.global_variables.iter() {
            let Some(binding) = global.binding.as_ref().filter(|b| b.group == group) else {
                continue;
            };
            if matched.contains(&handle) {
                continue;
            }
            let Some(user) = used_by(handle).into_iter().next() else {
                continue;
            };
            let name = global.name.as_deref().unwrap_or("");
            let spot: &dyn quote::ToTokens = match user.lit {
                Some(lit) => lit,
                None => file,
            };
            cx.error_spanned_by(
                spot,
                format_args!(
                    "entry point `{}` uses wgsl `{name}` ({}), @group({group}) @binding({}), but no field binds it; add a field `{name}: &'a ...` borrowing its resource (or name it with #[binding(global = \"{name}\")])",
                    user.name,
                    global_at(handle),
                    binding.binding
                ),
            );
        }
        let field_of = |handle: Handle<GlobalVariable>| {
            bound_globals
                .iter()
                .find(|(h, _)| *h == handle)
                .map(|(_, k)| *k)
        };
        let mut pairs: Vec<SamplingPair> = Vec::new();
        for e in &entries {
            let mut found: Vec<(usize, usize, Handle<GlobalVariable>)> = info
                .get_entry_point(e.index)
                .sampling_set
                .iter()
                .filter_map(|key| Some((field_of(key.sampler)?, field_of(key.image)?, key.image)))
                .collect();
            found.sort_by_key(|(s, t, _)| (*s, *t));
            for (sampler, texture, image) in found {
                if !pairs
                    .iter()
                    .any(|p| p.sampler == sampler && p.texture == texture)
                {
                    pairs.push(SamplingPair {
                        texture,
                        sampler,
                        entry: e.name.clone(),
                        at: global_at(image),
                    });
                }
            }
        }
        pairs.sort_by_key(|p| (p.sampler, p.texture));
        Some(GroupShader {
            path: path.to_string_lossy().into_owned(),
            fields: out,
            pairs,
        })
    }

    /// The fewest bytes a binding of a buffer global needs, as wgpu computes it (naga's size
    /// of the type; a runtime-sized array counts one element).
    fn min_size(shader: &Wgsl, global: &GlobalVariable) -> Option<u64> {
        use naga::AddressSpace;
        if !matches!(
            global.space,
            AddressSpace::Uniform | AddressSpace::Storage { .. }
        ) {
            return None;
        }
        let module = shader.module();
        module.types[global.ty]
            .inner
            .try_size(module.to_ctx())
            .map(u64::from)
    }

    fn dimension(dim: ImageDimension, arrayed: bool) -> TokenStream {
        match (dim, arrayed) {
            (ImageDimension::D1, _) => quote!(D1),
            (ImageDimension::D2, false) => quote!(D2),
            (ImageDimension::D2, true) => quote!(D2Array),
            (ImageDimension::D3, _) => quote!(D3),
            (ImageDimension::Cube, false) => quote!(Cube),
            (ImageDimension::Cube, true) => quote!(CubeArray),
        }
    }

    /// The global as a `ShaderGlobal` expression.
    fn global_tokens(
        p: &Ident,
        shader: &Wgsl,
        name: &str,
        at: &str,
        global: &GlobalVariable,
    ) -> TokenStream {
        use naga::AddressSpace;
        let wgpu = quote!(#p::wgpu);
        let mut buffer = false;
        let resource = match global.space {
            AddressSpace::Uniform => {
                buffer = true;
                quote!(#p::WgslResource::Uniform)
            }
            AddressSpace::Storage { access } => {
                buffer = true;
                let read_only = !access.contains(naga::StorageAccess::STORE);
                quote!(#p::WgslResource::Storage { read_only: #read_only })
            }
            AddressSpace::Handle => match shader.module().types[global.ty].inner {
                TypeInner::Image {
                    dim,
                    arrayed,
                    class,
                } => {
                    let d = dimension(dim, arrayed);
                    let view_dimension = quote!(#wgpu::TextureViewDimension::#d);
                    match class {
                        ImageClass::Sampled { kind, multi } => {
                            let sample = match kind {
                                ScalarKind::Sint => quote!(Sint),
                                ScalarKind::Uint => quote!(Uint),
                                _ => quote!(Float),
                            };
                            quote!(#p::WgslResource::Texture {
                                view_dimension: #view_dimension,
                                sample: #p::WgslSample::#sample,
                                multisampled: #multi,
                            })
                        }
                        ImageClass::Depth { multi } => quote!(#p::WgslResource::Texture {
                            view_dimension: #view_dimension,
                            sample: #p::WgslSample::Depth,
                            multisampled: #multi,
                        }),
                        ImageClass::Storage { format, access } => {
                            let format = format!("{format:?}").to_lowercase();
                            let access = if access.contains(naga::StorageAccess::ATOMIC) {
                                quote!(Atomic)
                            } else if access
                                .contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE)
                            {
                                quote!(ReadWrite)
                            } else if access.contains(naga::StorageAccess::STORE) {
                                quote!(WriteOnly)
                            } else {
                                quote!(ReadOnly)
                            };
                            quote!(#p::WgslResource::StorageTexture {
                                view_dimension: #view_dimension,
                                format: #format,
                                access: #wgpu::StorageTextureAccess::#access,
                            })
                        }
                        ImageClass::External => quote!(#p::WgslResource::Other),
                    }
                }
                TypeInner::Sampler { comparison } => {
                    quote!(#p::WgslResource::Sampler { comparison: #comparison })
                }
                _ => quote!(#p::WgslResource::Other),
            },
            _ => quote!(#p::WgslResource::Other),
        };
        let tree = if buffer {
            let t = tree(p, &shader.tree(global.ty));
            quote!(::core::option::Option::Some(&#t))
        } else {
            quote!(::core::option::Option::None)
        };
        quote! {
            #p::ShaderGlobal { name: #name, at: #at, resource: #resource, tree: #tree }
        }
    }
}
