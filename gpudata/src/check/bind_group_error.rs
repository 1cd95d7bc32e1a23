//! The bind group check's errors: [`BindGroupCheckError`] (a check that could not run, or found
//! disagreements) and [`BindingMismatchError`] (one disagreement between a derived bind group's
//! binding and the WGSL global it binds), carried with the field and WGSL position in a
//! [`BindingMismatch`].

use std::fmt;

use super::error::{Lines, MismatchError, ShaderCheckError, WgslLocation, write_mismatch};
use crate::count::Count;

/// One disagreement of a bind group: the field it is about (or the WGSL global no field binds),
/// where the shader declares it, and what differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingMismatch {
    /// The field (`camera`), a path below it for a buffer's type (`camera.view`), or the global
    /// no field binds.
    pub path: String,
    /// The WGSL line and column of the global or member, when the shader has one.
    pub location: Option<WgslLocation>,
    /// What differs.
    pub error: BindingMismatchError,
}

impl fmt::Display for BindingMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_mismatch(f, &self.path, self.location, &self.error)
    }
}

/// A derived bind group and a WGSL shader that cannot be compared, or that disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindGroupCheckError {
    /// The bind group names an entry point the shader does not declare.
    #[error(
        "bind group `{bind_group}` is checked for entry point `{name}`, which the shader does not declare"
    )]
    MissingEntryPoint {
        /// The bind group struct.
        bind_group: String,
        /// The entry point asked for.
        name: String,
    },
    /// naga's validation refused the shader (the check reads which globals each entry point
    /// uses from it).
    #[error("the shader does not validate: {message}")]
    Invalid {
        /// naga's message.
        message: String,
    },
    /// A buffer's host type has no layout (a check of its type could not run).
    #[error(transparent)]
    Check(#[from] ShaderCheckError),
    /// The check ran and found disagreements, all of them listed.
    #[error("bind group `{bind_group}` disagrees with the shader in {count}:{}", Lines(.mismatches), count = Count(.mismatches.len(), "place"))]
    Mismatches {
        /// The bind group struct.
        bind_group: String,
        /// Every disagreement found, in field order, then the globals no field binds.
        mismatches: Vec<BindingMismatch>,
    },
}

/// One way a binding and its WGSL global disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingMismatchError {
    /// The shader declares no global at the field's `@group`/`@binding`.
    #[error(
        "the shader declares no global at @group({group}) @binding({binding}); bind a global the shader declares, or add this one to the wgsl"
    )]
    NoGlobal {
        /// The group.
        group: u32,
        /// The field's binding.
        binding: u32,
    },
    /// An entry point uses a global of the group that no field binds.
    #[error(
        "@group({group}) @binding({binding}) is used by entry point `{entry_point}`, but no field binds it; add a field that borrows its resource"
    )]
    Unbound {
        /// The group.
        group: u32,
        /// The global's binding.
        binding: u32,
        /// The first entry point using it.
        entry_point: String,
    },
    /// The field binds another kind of resource.
    #[error(
        "the field binds {host}, the shader declares {shader}; borrow the resource the shader declares, or change the wgsl"
    )]
    Resource {
        /// What the layout binds (`a uniform buffer`).
        host: &'static str,
        /// What the shader declares (`a sampled texture`).
        shader: &'static str,
    },
    /// A buffer of another address space or access mode.
    #[error(
        "the field binds var<{host}>, the shader declares var<{shader}>; make the field's keys (`uniform`, `storage`, `read_write`) and the wgsl declaration agree"
    )]
    AddressSpace {
        /// `uniform`, `storage, read` or `storage, read_write`.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// A texture of another view dimension.
    #[error(
        "the field binds a {host} texture view, the shader declares a {shader} texture; make the dimensions agree"
    )]
    Dimension {
        /// wgpu's name (`2d-array`).
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// A texture of another sample type.
    #[error(
        "the field binds a texture of {host} samples, the shader declares {shader} samples; make the sample types agree"
    )]
    SampleType {
        /// `float`, `unfilterable-float`, `sint`, `uint` or `depth`.
        host: &'static str,
        /// `float`, `sint`, `uint` or `depth`.
        shader: &'static str,
    },
    /// Multisampled on one side only.
    #[error(
        "the field binds a {host} texture, the shader declares a {shader} one; make the two agree"
    )]
    Multisampled {
        /// `multisampled` or `single-sampled`.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// A sampler that compares where the shader's does not, or the reverse.
    #[error(
        "the field binds a {host} sampler, the shader declares `{shader}`; use a comparison sampler for `sampler_comparison`, a filtering or non-filtering one for `sampler`"
    )]
    Sampler {
        /// `filtering`, `non-filtering` or `comparison`.
        host: &'static str,
        /// `sampler` or `sampler_comparison`.
        shader: &'static str,
    },
    /// The field, a filtering sampler, is sampled together with a texture it cannot filter
    /// (`unfilterable-float`, `sint` or `uint` samples): wgpu refuses the pair at pipeline
    /// creation. A depth texture takes a filtering sampler, as in wgpu.
    #[error(
        "the field binds a filtering sampler, but entry point `{entry_point}` samples `{texture}`, a texture of {sample} samples, with it (wgpu refuses the pair); bind a non-filtering sampler (only a filterable float or a depth texture takes a filtering one)"
    )]
    Filtering {
        /// The texture's field.
        texture: String,
        /// Its sample type: `unfilterable-float`, `sint` or `uint`.
        sample: &'static str,
        /// The first entry point sampling the two together.
        entry_point: String,
    },
    /// A storage texture of another texel format.
    #[error(
        "the field binds texel format {host}, the shader declares {shader}; make the formats agree"
    )]
    StorageFormat {
        /// The format as WGSL spells it.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// A storage texture of another access mode.
    #[error(
        "the field binds storage texture access {host}, the shader declares {shader}; make the access modes agree"
    )]
    StorageAccess {
        /// `read`, `write`, `read_write` or `atomic`.
        host: &'static str,
        /// The global's.
        shader: &'static str,
    },
    /// The layout entry hides the binding from a stage whose entry point uses it.
    #[error(
        "the field is visible to {host}, but entry point `{entry_point}` ({stage}) uses it; add the stage to its visibility"
    )]
    Visibility {
        /// The entry's stages (`vertex | fragment`).
        host: String,
        /// The entry point.
        entry_point: String,
        /// Its stage.
        stage: &'static str,
    },
    /// A buffer's value type differs from the global's at the mismatch's path.
    #[error(transparent)]
    Type(MismatchError),
}
