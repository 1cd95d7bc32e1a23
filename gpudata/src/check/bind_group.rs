//! A derived bind group ([`GpuBindGroup`]) against a shader at run time: the checks the derive
//! makes at compile time (`#[bind_group(shader = "...")]`), for a shader loaded at run time.
//! Resource kinds, address spaces, textures and samplers by the shared rule
//! ([`resource_finding`]); buffer types by the struct check's comparison; the entry points'
//! use of each global (read from naga's validation) for visibility and for globals no field
//! binds.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace as NagaSpace, ImageClass, ImageDimension, ScalarKind, ShaderStage};
use naga::{GlobalVariable, Handle, TypeInner};

use super::bind_group_error::{BindGroupCheckError, BindingMismatch, BindingMismatchError};
use super::error::ShaderMismatch;
use super::shader::Shader;
use crate::bind::{
    BindingField, BindingFinding, GpuBindGroup, ResourceKind, WgslResource, WgslSample,
    resource_finding, texel_format_text, unfilterable_sample,
};
use crate::layout::TypeDecl;

/// The entry points a check covers: their index, name and stage.
type Entries<'m> = Vec<(usize, &'m str, ShaderStage)>;

impl Shader {
    /// Checks the bind group `G` against the shader: for each field, the global at its
    /// `@group`/`@binding` exists and is the resource the field's layout entry binds (kind,
    /// address space and access mode, texture dimension, sample type and multisampling, storage
    /// texel format and access, sampler comparison), a buffer's value type agrees with the
    /// global's type level by level, and the entry's visibility covers every stage whose entry
    /// point uses it; each texture and sampler of the group an entry point samples together
    /// pass wgpu's filtering rule (a filtering sampler cannot sample an `unfilterable-float`,
    /// `sint` or `uint` texture); and every global of the group those entry points use has a
    /// field.
    ///
    /// The entry points are `G::ENTRY_POINTS` (the derive's `entry = "..."`), or every entry
    /// point of the shader when it names none.
    ///
    /// # Errors
    /// [`BindGroupCheckError::MissingEntryPoint`], [`BindGroupCheckError::Invalid`] (naga's
    /// validation refused the shader), [`BindGroupCheckError::Mismatches`] listing every
    /// [`BindingMismatchError`].
    pub fn check_bind_group<G: GpuBindGroup>(&self) -> Result<(), BindGroupCheckError> {
        let info = Validator::new(ValidationFlags::all(), Capabilities::all())
            .validate(self.module())
            .map_err(|e| BindGroupCheckError::Invalid {
                message: e.as_inner().to_string(),
            })?;
        let entries = self.entries_of::<G>()?;
        let mut out = Vec::new();
        for field in G::BINDINGS {
            self.check_field::<G>(field, &info, &entries, &mut out)?;
        }
        self.check_sampling::<G>(&info, &entries, &mut out);
        for (handle, global) in self.module().global_variables.iter() {
            let Some(binding) = &global.binding else {
                continue;
            };
            let bound = G::BINDINGS
                .iter()
                .any(|f| f.entry.binding == binding.binding);
            if binding.group != G::GROUP || bound {
                continue;
            }
            if let Some(&(_, name, _)) = uses(&info, &entries, handle).next() {
                out.push(BindingMismatch {
                    path: global.name.clone().unwrap_or_default(),
                    location: self.global_location(handle),
                    error: BindingMismatchError::Unbound {
                        group: binding.group,
                        binding: binding.binding,
                        entry_point: name.to_owned(),
                    },
                });
            }
        }
        if out.is_empty() {
            Ok(())
        } else {
            Err(BindGroupCheckError::Mismatches {
                bind_group: G::LABEL.to_owned(),
                mismatches: out,
            })
        }
    }

    /// wgpu's filtering rule ([`unfilterable_sample`]) over each texture and sampler of `G`
    /// that a checked entry point samples together (naga's sampling set), reported at the
    /// sampler's field, in sampler then texture field order.
    fn check_sampling<G: GpuBindGroup>(
        &self,
        info: &ModuleInfo,
        entries: &Entries<'_>,
        out: &mut Vec<BindingMismatch>,
    ) {
        let field_of = |handle: Handle<GlobalVariable>| {
            let binding = self.module().global_variables[handle].binding.as_ref()?;
            if binding.group != G::GROUP {
                return None;
            }
            G::BINDINGS
                .iter()
                .position(|f| f.entry.binding == binding.binding)
        };
        let mut pairs: Vec<(usize, usize, &str, Handle<GlobalVariable>)> = Vec::new();
        for &(index, name, _) in entries {
            let mut found: Vec<(usize, usize, Handle<GlobalVariable>)> = info
                .get_entry_point(index)
                .sampling_set
                .iter()
                .filter_map(|key| Some((field_of(key.sampler)?, field_of(key.image)?, key.sampler)))
                .collect();
            found.sort_by_key(|&(s, t, _)| (s, t));
            for (s, t, sampler) in found {
                if !pairs.iter().any(|p| p.0 == s && p.1 == t) {
                    pairs.push((s, t, name, sampler));
                }
            }
        }
        pairs.sort_by_key(|p| (p.0, p.1));
        for (s, t, entry_point, sampler) in pairs {
            let (sampler_field, texture_field) = (&G::BINDINGS[s], &G::BINDINGS[t]);
            if let Some(sample) =
                unfilterable_sample(&texture_field.entry.ty, &sampler_field.entry.ty)
            {
                out.push(BindingMismatch {
                    path: sampler_field.name.to_owned(),
                    location: self.global_location(sampler),
                    error: BindingMismatchError::Filtering {
                        texture: texture_field.name.to_owned(),
                        sample,
                        entry_point: entry_point.to_owned(),
                    },
                });
            }
        }
    }

    /// The entry points `G` is checked for.
    fn entries_of<G: GpuBindGroup>(&self) -> Result<Entries<'_>, BindGroupCheckError> {
        let all = self.module().entry_points.iter().enumerate();
        if G::ENTRY_POINTS.is_empty() {
            return Ok(all.map(|(i, ep)| (i, ep.name.as_str(), ep.stage)).collect());
        }
        G::ENTRY_POINTS
            .iter()
            .map(|name| {
                self.module()
                    .entry_points
                    .iter()
                    .enumerate()
                    .find(|(_, ep)| ep.name == *name)
                    .map(|(i, ep)| (i, ep.name.as_str(), ep.stage))
                    .ok_or_else(|| BindGroupCheckError::MissingEntryPoint {
                        bind_group: G::LABEL.to_owned(),
                        name: (*name).to_owned(),
                    })
            })
            .collect()
    }

    fn global_location(&self, handle: Handle<GlobalVariable>) -> Option<super::WgslLocation> {
        self.span_location(self.module().global_variables.get_span(handle))
    }

    /// The checks of one field, appended to `out`.
    fn check_field<G: GpuBindGroup>(
        &self,
        field: &BindingField,
        info: &ModuleInfo,
        entries: &Entries<'_>,
        out: &mut Vec<BindingMismatch>,
    ) -> Result<(), BindGroupCheckError> {
        let group = G::GROUP;
        let binding = field.entry.binding;
        let found = self.module().global_variables.iter().find(|(_, g)| {
            g.binding
                .as_ref()
                .is_some_and(|b| b.group == group && b.binding == binding)
        });
        let Some((handle, global)) = found else {
            out.push(BindingMismatch {
                path: field.name.to_owned(),
                location: None,
                error: BindingMismatchError::NoGlobal { group, binding },
            });
            return Ok(());
        };
        let location = self.global_location(handle);
        let mismatch = |error| BindingMismatch {
            path: field.name.to_owned(),
            location,
            error,
        };
        let resource = self.wgsl_resource(global);
        if let Some(finding) = resource_finding(&field.entry.ty, &resource) {
            out.push(mismatch(mismatch_error(finding)));
        } else if let Some(value) = field.kind.value() {
            let mut found = Vec::new();
            let decl = TypeDecl::from(value.wgsl);
            let rows_array = match (&field.kind, &self.module().types[global.ty].inner) {
                (ResourceKind::Rows(_), TypeInner::Array { base, stride, .. }) => {
                    Some((*base, u64::from(*stride)))
                }
                _ => None,
            };
            match rows_array {
                Some((base, stride)) => {
                    let path = format!("{}[]", field.name);
                    if value.size != stride {
                        found.push(ShaderMismatch {
                            path: path.clone(),
                            location,
                            error: super::MismatchError::Stride {
                                host: value.size,
                                shader: stride,
                            },
                        });
                    }
                    self.compare_type(
                        &decl,
                        Some(value.host),
                        base,
                        value.space,
                        &path,
                        location,
                        &mut found,
                    )?;
                }
                None => self.compare_type(
                    &decl,
                    Some(value.host),
                    global.ty,
                    value.space,
                    field.name,
                    location,
                    &mut found,
                )?,
            }
            out.extend(found.into_iter().map(|m| BindingMismatch {
                path: m.path,
                location: m.location,
                error: BindingMismatchError::Type(m.error),
            }));
        }
        for &(_, name, stage) in uses(info, entries, handle) {
            let bit = stage_bit(stage);
            if !field.entry.visibility.contains(bit) {
                out.push(mismatch(BindingMismatchError::Visibility {
                    host: stages_text(field.entry.visibility),
                    entry_point: name.to_owned(),
                    stage: stage_text(stage),
                }));
                break;
            }
        }
        Ok(())
    }

    /// What `global` is, as a binding.
    fn wgsl_resource(&self, global: &GlobalVariable) -> WgslResource {
        match global.space {
            NagaSpace::Uniform => return WgslResource::Uniform,
            NagaSpace::Storage { access } => {
                return WgslResource::Storage {
                    read_only: !access.contains(naga::StorageAccess::STORE),
                };
            }
            NagaSpace::Handle => {}
            _ => return WgslResource::Other,
        }
        match self.module().types[global.ty].inner {
            TypeInner::Image {
                dim,
                arrayed,
                class,
            } => {
                let view_dimension = view_dimension(dim, arrayed);
                match class {
                    ImageClass::Sampled { kind, multi } => WgslResource::Texture {
                        view_dimension,
                        sample: match kind {
                            ScalarKind::Sint => WgslSample::Sint,
                            ScalarKind::Uint => WgslSample::Uint,
                            _ => WgslSample::Float,
                        },
                        multisampled: multi,
                    },
                    ImageClass::Depth { multi } => WgslResource::Texture {
                        view_dimension,
                        sample: WgslSample::Depth,
                        multisampled: multi,
                    },
                    ImageClass::Storage { format, access } => WgslResource::StorageTexture {
                        view_dimension,
                        format: texel_name(format),
                        access: storage_access(access),
                    },
                    ImageClass::External => WgslResource::Other,
                }
            }
            TypeInner::Sampler { comparison } => WgslResource::Sampler { comparison },
            _ => WgslResource::Other,
        }
    }
}

/// The entry points of `entries` that use `global`.
fn uses<'e, 'm>(
    info: &'e ModuleInfo,
    entries: &'e Entries<'m>,
    global: Handle<GlobalVariable>,
) -> impl Iterator<Item = &'e (usize, &'m str, ShaderStage)> {
    entries
        .iter()
        .filter(move |(i, _, _)| !info.get_entry_point(*i)[global].is_empty())
}

fn view_dimension(dim: ImageDimension, arrayed: bool) -> wgpu::TextureViewDimension {
    match (dim, arrayed) {
        (ImageDimension::D1, _) => wgpu::TextureViewDimension::D1,
        (ImageDimension::D2, false) => wgpu::TextureViewDimension::D2,
        (ImageDimension::D2, true) => wgpu::TextureViewDimension::D2Array,
        (ImageDimension::D3, _) => wgpu::TextureViewDimension::D3,
        (ImageDimension::Cube, false) => wgpu::TextureViewDimension::Cube,
        (ImageDimension::Cube, true) => wgpu::TextureViewDimension::CubeArray,
    }
}

fn storage_access(access: naga::StorageAccess) -> wgpu::StorageTextureAccess {
    if access.contains(naga::StorageAccess::ATOMIC) {
        wgpu::StorageTextureAccess::Atomic
    } else if access.contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE) {
        wgpu::StorageTextureAccess::ReadWrite
    } else if access.contains(naga::StorageAccess::STORE) {
        wgpu::StorageTextureAccess::WriteOnly
    } else {
        wgpu::StorageTextureAccess::ReadOnly
    }
}

/// The storage texel formats WGSL spells as naga names them, lowercased.
const TEXEL_FORMATS: &[wgpu::TextureFormat] = &[
    wgpu::TextureFormat::R8Unorm,
    wgpu::TextureFormat::R8Snorm,
    wgpu::TextureFormat::R8Uint,
    wgpu::TextureFormat::R8Sint,
    wgpu::TextureFormat::R16Uint,
    wgpu::TextureFormat::R16Sint,
    wgpu::TextureFormat::R16Float,
    wgpu::TextureFormat::R16Unorm,
    wgpu::TextureFormat::R16Snorm,
    wgpu::TextureFormat::Rg8Unorm,
    wgpu::TextureFormat::Rg8Snorm,
    wgpu::TextureFormat::Rg8Uint,
    wgpu::TextureFormat::Rg8Sint,
    wgpu::TextureFormat::R32Uint,
    wgpu::TextureFormat::R32Sint,
    wgpu::TextureFormat::R32Float,
    wgpu::TextureFormat::Rg16Uint,
    wgpu::TextureFormat::Rg16Sint,
    wgpu::TextureFormat::Rg16Float,
    wgpu::TextureFormat::Rg16Unorm,
    wgpu::TextureFormat::Rg16Snorm,
    wgpu::TextureFormat::Rgba8Unorm,
    wgpu::TextureFormat::Rgba8Snorm,
    wgpu::TextureFormat::Rgba8Uint,
    wgpu::TextureFormat::Rgba8Sint,
    wgpu::TextureFormat::Bgra8Unorm,
    wgpu::TextureFormat::Rgb10a2Uint,
    wgpu::TextureFormat::Rgb10a2Unorm,
    wgpu::TextureFormat::Rg11b10Ufloat,
    wgpu::TextureFormat::R64Uint,
    wgpu::TextureFormat::Rg32Uint,
    wgpu::TextureFormat::Rg32Sint,
    wgpu::TextureFormat::Rg32Float,
    wgpu::TextureFormat::Rgba16Uint,
    wgpu::TextureFormat::Rgba16Sint,
    wgpu::TextureFormat::Rgba16Float,
    wgpu::TextureFormat::Rgba16Unorm,
    wgpu::TextureFormat::Rgba16Snorm,
    wgpu::TextureFormat::Rgba32Uint,
    wgpu::TextureFormat::Rgba32Sint,
    wgpu::TextureFormat::Rgba32Float,
];

/// WGSL's spelling of naga's storage format (naga names each as WGSL does, in CamelCase).
fn texel_name(format: naga::StorageFormat) -> &'static str {
    let name = format!("{format:?}").to_lowercase();
    TEXEL_FORMATS
        .iter()
        .map(|f| texel_format_text(*f))
        .find(|text| *text == name)
        .unwrap_or("an unknown format")
}

fn stage_bit(stage: ShaderStage) -> wgpu::ShaderStages {
    match stage {
        ShaderStage::Vertex => wgpu::ShaderStages::VERTEX,
        ShaderStage::Fragment => wgpu::ShaderStages::FRAGMENT,
        ShaderStage::Compute => wgpu::ShaderStages::COMPUTE,
        ShaderStage::Task => wgpu::ShaderStages::TASK,
        ShaderStage::Mesh => wgpu::ShaderStages::MESH,
        ShaderStage::RayGeneration => wgpu::ShaderStages::RAY_GENERATION,
        ShaderStage::Miss => wgpu::ShaderStages::MISS,
        ShaderStage::AnyHit => wgpu::ShaderStages::ANY_HIT,
        ShaderStage::ClosestHit => wgpu::ShaderStages::CLOSEST_HIT,
    }
}

fn stage_text(stage: ShaderStage) -> &'static str {
    match stage {
        ShaderStage::Vertex => "vertex",
        ShaderStage::Fragment => "fragment",
        ShaderStage::Compute => "compute",
        ShaderStage::Task => "task",
        ShaderStage::Mesh => "mesh",
        ShaderStage::RayGeneration => "ray generation",
        ShaderStage::Miss => "miss",
        ShaderStage::AnyHit => "any hit",
        ShaderStage::ClosestHit => "closest hit",
    }
}

/// `vertex | fragment`, or `no stage`.
fn stages_text(stages: wgpu::ShaderStages) -> String {
    let names = [
        (wgpu::ShaderStages::VERTEX, "vertex"),
        (wgpu::ShaderStages::FRAGMENT, "fragment"),
        (wgpu::ShaderStages::COMPUTE, "compute"),
        (wgpu::ShaderStages::TASK, "task"),
        (wgpu::ShaderStages::MESH, "mesh"),
    ];
    let text: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| stages.contains(*bit))
        .map(|(_, name)| *name)
        .collect();
    if text.is_empty() {
        "no stage".to_owned()
    } else {
        text.join(" | ")
    }
}

/// The run-time error of a finding of the shared rule.
fn mismatch_error(finding: BindingFinding) -> BindingMismatchError {
    match finding {
        BindingFinding::Resource { host, shader } => {
            BindingMismatchError::Resource { host, shader }
        }
        BindingFinding::AddressSpace { host, shader } => {
            BindingMismatchError::AddressSpace { host, shader }
        }
        BindingFinding::Dimension { host, shader } => {
            BindingMismatchError::Dimension { host, shader }
        }
        BindingFinding::SampleType { host, shader } => {
            BindingMismatchError::SampleType { host, shader }
        }
        BindingFinding::Multisampled { host } => {
            let text = |m: bool| if m { "multisampled" } else { "single-sampled" };
            BindingMismatchError::Multisampled {
                host: text(host),
                shader: text(!host),
            }
        }
        BindingFinding::Sampler { host, shader } => BindingMismatchError::Sampler { host, shader },
        BindingFinding::StorageFormat { host, shader } => {
            BindingMismatchError::StorageFormat { host, shader }
        }
        BindingFinding::StorageAccess { host, shader } => {
            BindingMismatchError::StorageAccess { host, shader }
        }
    }
}
