//! `#[derive(GpuBindGroup)]`'s model: the struct's `#[bind_group(...)]` keys ([`GroupAttrs`])
//! and each field's `#[binding(...)]` keys ([`FieldKeys`]), parsed into typed holders. Parsers
//! record errors in the [`Ctxt`] and keep what they could read, so every bad key of a struct
//! is reported at once.

use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, Lit, LitInt, LitStr, Token};

use super::ctxt::Ctxt;

/// Shader stages as wgpu's `ShaderStages` bits.
pub(crate) const VERTEX: u32 = 1;
pub(crate) const FRAGMENT: u32 = 2;
pub(crate) const COMPUTE: u32 = 4;

/// A texture view dimension, by wgpu's variant name.
pub(crate) type Dimension = &'static str;

/// The struct's `#[bind_group(...)]` keys.
pub(crate) struct GroupAttrs {
    /// `group = N`.
    pub(crate) group: Option<(u32, LitInt)>,
    /// `shader = "file.wgsl"`.
    pub(crate) shader: Option<LitStr>,
    /// `entry = "vs_main"`, in order.
    pub(crate) entries: Vec<LitStr>,
    /// `visibility = "..."`: stage bits.
    pub(crate) visibility: Option<(u32, LitStr)>,
    /// `label = "..."`.
    pub(crate) label: Option<LitStr>,
    /// `crate = "..."`.
    pub(crate) krate: syn::Path,
}

/// How a buffer field is bound: `uniform`, `storage` or `read_write`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum BufferKey {
    Uniform,
    Storage,
    ReadWrite,
}

/// One field's `#[binding(...)]` keys.
#[derive(Default)]
pub(crate) struct FieldKeys {
    /// `N`.
    pub(crate) binding: Option<(u32, LitInt)>,
    /// `global = "name"`.
    pub(crate) global: Option<LitStr>,
    /// `visibility = "..."`.
    pub(crate) visibility: Option<(u32, LitStr)>,
    /// `uniform`, `storage` or `read_write`.
    pub(crate) buffer: Option<BufferKey>,
    /// `texture` / `texture = "2d-array"`: the dimension (default `D2`).
    pub(crate) texture: Option<Dimension>,
    /// `sample = "..."`: `TextureSampleType` tokens' variant (`Depth`, `Float { filterable: true }`).
    pub(crate) sample: Option<&'static str>,
    /// `multisampled`.
    pub(crate) multisampled: bool,
    /// `storage_texture = "2d"`.
    pub(crate) storage_texture: Option<Dimension>,
    /// `format = "rgba8unorm"`: `(wgpu variant, WGSL name)`.
    pub(crate) format: Option<(&'static str, &'static str)>,
    /// `access = "write"`: `StorageTextureAccess` variant.
    pub(crate) access: Option<&'static str>,
    /// `sampler` / `sampler = "comparison"`: `SamplerBindingType` variant.
    pub(crate) sampler: Option<&'static str>,
    /// The attribute, for errors about all its keys.
    pub(crate) attr: Option<syn::Attribute>,
}

/// `(word, value)` tables of the string keys.
const DIMENSIONS: &[(&str, Dimension)] = &[
    ("1d", "D1"),
    ("2d", "D2"),
    ("2d-array", "D2Array"),
    ("cube", "Cube"),
    ("cube-array", "CubeArray"),
    ("3d", "D3"),
];
const SAMPLES: &[(&str, &str)] = &[
    ("float", "Float { filterable: true }"),
    ("unfilterable-float", "Float { filterable: false }"),
    ("sint", "Sint"),
    ("uint", "Uint"),
    ("depth", "Depth"),
];
const ACCESSES: &[(&str, &str)] = &[
    ("read", "ReadOnly"),
    ("write", "WriteOnly"),
    ("read_write", "ReadWrite"),
    ("atomic", "Atomic"),
];
const SAMPLERS: &[(&str, &str)] = &[
    ("filtering", "Filtering"),
    ("non-filtering", "NonFiltering"),
    ("comparison", "Comparison"),
];
/// WGSL's storage texel formats with wgpu's variant names.
const FORMATS: &[(&str, &str)] = &[
    ("r8unorm", "R8Unorm"),
    ("r8snorm", "R8Snorm"),
    ("r8uint", "R8Uint"),
    ("r8sint", "R8Sint"),
    ("r16uint", "R16Uint"),
    ("r16sint", "R16Sint"),
    ("r16float", "R16Float"),
    ("r16unorm", "R16Unorm"),
    ("r16snorm", "R16Snorm"),
    ("rg8unorm", "Rg8Unorm"),
    ("rg8snorm", "Rg8Snorm"),
    ("rg8uint", "Rg8Uint"),
    ("rg8sint", "Rg8Sint"),
    ("r32uint", "R32Uint"),
    ("r32sint", "R32Sint"),
    ("r32float", "R32Float"),
    ("rg16uint", "Rg16Uint"),
    ("rg16sint", "Rg16Sint"),
    ("rg16float", "Rg16Float"),
    ("rg16unorm", "Rg16Unorm"),
    ("rg16snorm", "Rg16Snorm"),
    ("rgba8unorm", "Rgba8Unorm"),
    ("rgba8snorm", "Rgba8Snorm"),
    ("rgba8uint", "Rgba8Uint"),
    ("rgba8sint", "Rgba8Sint"),
    ("bgra8unorm", "Bgra8Unorm"),
    ("rgb10a2uint", "Rgb10a2Uint"),
    ("rgb10a2unorm", "Rgb10a2Unorm"),
    ("rg11b10ufloat", "Rg11b10Ufloat"),
    ("r64uint", "R64Uint"),
    ("rg32uint", "Rg32Uint"),
    ("rg32sint", "Rg32Sint"),
    ("rg32float", "Rg32Float"),
    ("rgba16uint", "Rgba16Uint"),
    ("rgba16sint", "Rgba16Sint"),
    ("rgba16float", "Rgba16Float"),
    ("rgba16unorm", "Rgba16Unorm"),
    ("rgba16snorm", "Rgba16Snorm"),
    ("rgba32uint", "Rgba32Uint"),
    ("rgba32sint", "Rgba32Sint"),
    ("rgba32float", "Rgba32Float"),
];

/// The value of `lit` in `table`, or an error at it listing the words.
fn lookup<T: Copy>(cx: &Ctxt, key: &str, lit: &LitStr, table: &[(&str, T)]) -> Option<T> {
    let value = lit.value();
    if let Some((_, v)) = table.iter().find(|(word, _)| *word == value) {
        return Some(*v);
    }
    let words: Vec<String> = table.iter().map(|(w, _)| format!("\"{w}\"")).collect();
    cx.error_spanned_by(
        lit,
        format_args!(
            "unknown {key} \"{value}\"; expected one of {}",
            words.join(", ")
        ),
    );
    None
}

/// WGSL's storage texel format of wgpu variant `variant`.
pub(crate) fn texel_format(wgsl: &str) -> Option<(&'static str, &'static str)> {
    FORMATS
        .iter()
        .find(|(w, _)| *w == wgsl)
        .map(|(w, v)| (*v, *w))
}

/// `"vertex | fragment"` as stage bits.
fn stages(cx: &Ctxt, lit: &LitStr) -> Option<u32> {
    let mut bits = 0;
    for word in lit.value().split('|').map(str::trim) {
        bits |= match word {
            "vertex" => VERTEX,
            "fragment" => FRAGMENT,
            "compute" => COMPUTE,
            _ => {
                cx.error_spanned_by(
                    lit,
                    format_args!(
                        "unknown stage \"{word}\" in visibility; write stages joined by `|`: \"vertex | fragment\", \"compute\""
                    ),
                );
                return None;
            }
        };
    }
    Some(bits)
}

/// A key's value: a literal after `=`, if any.
fn parse_value(input: ParseStream<'_>) -> syn::Result<Option<Lit>> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        return Ok(Some(input.parse()?));
    }
    Ok(None)
}

/// One key of an attribute, with its value when it has one.
struct Key<'c> {
    cx: &'c Ctxt,
    ident: Ident,
    name: String,
    value: Option<Lit>,
}

impl Key<'_> {
    /// The string value, or an error at the key showing `example`.
    fn string(&self, example: &str) -> Option<LitStr> {
        match &self.value {
            Some(Lit::Str(s)) => Some(s.clone()),
            _ => {
                self.cx.error_spanned_by(
                    &self.ident,
                    format_args!("`{}` takes a string: `{example}`", self.name),
                );
                None
            }
        }
    }

    /// Whether the key stands alone, as a flag must (a value is an error).
    fn flag(&self) -> bool {
        if self.value.is_some() {
            self.cx.error_spanned_by(
                &self.ident,
                format_args!("`{0}` takes no value: `#[binding({0})]`", self.name),
            );
            return false;
        }
        true
    }

    /// Stores `value` in `slot`, or reports the key as a duplicate.
    fn set<T>(&self, slot: &mut Option<T>, value: Option<T>) {
        if let Some(v) = value {
            if slot.is_some() {
                duplicate(self.cx, &self.ident);
            } else {
                *slot = Some(v);
            }
        }
    }
}

/// Reads `key [= literal], ...` from `tokens`, each key passed to `each`; bare integers to
/// `number`.
fn parse_keys(
    cx: &Ctxt,
    tokens: proc_macro2::TokenStream,
    mut number: impl FnMut(LitInt),
    mut each: impl FnMut(Key<'_>),
) {
    let parser = |input: ParseStream<'_>| {
        while !input.is_empty() {
            if input.peek(LitInt) {
                number(input.parse()?);
            } else {
                let ident = input.call(Ident::parse_any)?;
                let value = parse_value(input)?;
                let name = ident.unraw().to_string();
                each(Key {
                    cx,
                    ident,
                    name,
                    value,
                });
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    };
    if let Err(e) = parser.parse2(tokens) {
        cx.syn_error(e);
    }
}

/// The struct's `#[bind_group(...)]` attributes.
pub(crate) fn group_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> GroupAttrs {
    let mut out = GroupAttrs {
        group: None,
        shader: None,
        entries: Vec::new(),
        visibility: None,
        label: None,
        krate: syn::parse_quote!(::gpudata),
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("bind_group")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        parse_keys(
            cx,
            list.tokens.clone(),
            |lit| cx.error_spanned_by(&lit, "a bind group's keys are named: `group = 0`"),
            |key| group_key(&mut out, &key),
        );
    }
    out
}

fn duplicate(cx: &Ctxt, key: &Ident) {
    cx.error_spanned_by(key, format_args!("duplicate key `{key}`; keep one"));
}

fn group_key(out: &mut GroupAttrs, key: &Key<'_>) {
    let (cx, name, value) = (key.cx, &key.name, &key.value);
    let string = |example: &str| key.string(example);
    match name.as_str() {
        "group" => match value {
            Some(Lit::Int(i)) => match i.base10_parse::<u32>() {
                Ok(n) if out.group.is_none() => out.group = Some((n, i.clone())),
                Ok(_) => duplicate(cx, &key.ident),
                Err(_) => cx.error_spanned_by(i, "`group` takes an unsigned integer: `group = 0`"),
            },
            _ => cx.error_spanned_by(&key.ident, "`group` takes an unsigned integer: `group = 0`"),
        },
        "shader" => {
            key.set(&mut out.shader, string("shader = \"shaders/scene.wgsl\""));
        }
        "entry" => {
            if let Some(s) = string("entry = \"vs_main\"") {
                out.entries.push(s);
            }
        }
        "visibility" => {
            if let Some(s) = string("visibility = \"vertex | fragment\"")
                && let Some(bits) = stages(cx, &s)
            {
                out.visibility = Some((bits, s));
            }
        }
        "label" => out.label = string("label = \"globals\"").or(out.label.take()),
        "crate" => {
            if let Some(s) = string("crate = \"::gpudata\"") {
                match s.parse::<syn::Path>() {
                    Ok(path) => out.krate = path,
                    Err(_) => cx.error_spanned_by(&s, "`crate` takes a path: `crate = \"::gpudata\"`"),
                }
            }
        }
        _ => cx.error_spanned_by(
            &key.ident,
            format_args!(
                "unknown bind_group key `{name}`; expected `group`, `shader`, `entry`, `visibility`, `label` or `crate`"
            ),
        ),
    }
}

/// A field's `#[binding(...)]` attributes.
pub(crate) fn field_keys(cx: &Ctxt, attrs: &[syn::Attribute]) -> FieldKeys {
    let mut out = FieldKeys::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("binding")) {
        out.attr = Some(attr.clone());
        let syn::Meta::List(list) = &attr.meta else {
            // `#[binding]` alone: nothing said.
            continue;
        };
        let mut binding = out.binding.take();
        parse_keys(
            cx,
            list.tokens.clone(),
            |lit| match lit.base10_parse::<u32>() {
                Ok(_) if binding.is_some() => {
                    cx.error_spanned_by(&lit, "duplicate binding number; keep one");
                }
                Ok(n) => binding = Some((n, lit)),
                Err(_) => cx.error_spanned_by(
                    &lit,
                    "a binding number is an unsigned integer: `#[binding(0)]`",
                ),
            },
            |key| field_key(&mut out, &key),
        );
        out.binding = binding;
    }
    out
}

fn field_key(out: &mut FieldKeys, key: &Key<'_>) {
    let (cx, name, value) = (key.cx, &key.name, &key.value);
    let string = |example: &str| key.string(example);
    let flag = || key.flag();
    match name.as_str() {
        "global" => key.set(&mut out.global, string("global = \"camera\"")),
        "visibility" => {
            let v = string("visibility = \"vertex | fragment\"")
                .and_then(|s| stages(cx, &s).map(|bits| (bits, s)));
            key.set(&mut out.visibility, v);
        }
        "uniform" | "storage" | "read_write" => {
            if flag() {
                let b = match name.as_str() {
                    "uniform" => BufferKey::Uniform,
                    "storage" => BufferKey::Storage,
                    _ => BufferKey::ReadWrite,
                };
                key.set(&mut out.buffer, Some(b));
            }
        }
        "texture" | "storage_texture" => {
            let dim = match &value {
                None => Some("D2"),
                Some(Lit::Str(s)) => lookup(cx, "texture dimension", s, DIMENSIONS),
                Some(_) => {
                    cx.error_spanned_by(
                        &key.ident,
                        format_args!("`{name}` takes a dimension: `{name} = \"2d-array\"`"),
                    );
                    None
                }
            };
            let slot = if name.as_str() == "texture" {
                &mut out.texture
            } else {
                &mut out.storage_texture
            };
            key.set(slot, dim);
        }
        "sample" => {
            let v = string("sample = \"depth\"").and_then(|s| lookup(cx, "sample type", &s, SAMPLES));
            key.set(&mut out.sample, v);
        }
        "multisampled" => out.multisampled = flag(),
        "format" => {
            let v = string("format = \"rgba8unorm\"").and_then(|s| {
                let found = texel_format(&s.value());
                if found.is_none() {
                    lookup(cx, "storage texel format", &s, FORMATS);
                }
                found
            });
            key.set(&mut out.format, v);
        }
        "access" => {
            let v = string("access = \"write\"").and_then(|s| lookup(cx, "access", &s, ACCESSES));
            key.set(&mut out.access, v);
        }
        "sampler" => {
            let v = match &value {
                None => Some("Filtering"),
                Some(Lit::Str(s)) => lookup(cx, "sampler type", s, SAMPLERS),
                Some(_) => {
                    cx.error_spanned_by(&key.ident, "`sampler` takes a type: `sampler = \"comparison\"`");
                    None
                }
            };
            key.set(&mut out.sampler, v);
        }
        _ => cx.error_spanned_by(
            &key.ident,
            format_args!(
                "unknown binding key `{name}`; expected a binding number, `global`, `visibility`, `uniform`, `storage`, `read_write`, `texture`, `sample`, `multisampled`, `storage_texture`, `format`, `access` or `sampler`"
            ),
        ),
    }
}

impl FieldKeys {
    /// Whether any sampled-texture key is set.
    pub(crate) fn is_texture(&self) -> bool {
        self.texture.is_some() || self.sample.is_some() || self.multisampled
    }

    /// Whether any storage-texture key is set.
    pub(crate) fn is_storage_texture(&self) -> bool {
        self.storage_texture.is_some() || self.format.is_some() || self.access.is_some()
    }
}
