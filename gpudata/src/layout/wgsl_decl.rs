//! WGSL text for a [`StructDecl`] and every struct it contains, dependencies first, with the
//! `@align`/`@size` attributes that make a WGSL compiler place every member where gpudata's
//! layout rules do, in the storage or the uniform address space.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::decl::{StructDecl, TypeDecl};
use super::memory::AddressSpace;
use super::struct_format::first_duplicate;
use super::wgsl::{check_name, check_struct_name};
use crate::format::PrimitiveType;
use crate::layout::{LayoutError, WgslError};

/// The WGSL spelling of a type (struct types by name).
pub(crate) fn type_text(ty: &TypeDecl) -> String {
    match ty {
        TypeDecl::Leaf(leaf) => leaf.to_string(),
        TypeDecl::Array {
            element,
            count: Some(n),
        } => format!("array<{}, {n}>", type_text(element)),
        TypeDecl::Array {
            element,
            count: None,
        } => format!("array<{}>", type_text(element)),
        TypeDecl::Struct(s) => s.name.clone(),
    }
}

/// The alignment a WGSL compiler gives a type from the types alone: the leaf's, the element's
/// (arrays), the largest member type's (structs). A member whose alignment differs from it gets
/// `@align`: gpudata's uniform rules raise struct and array alignment to 16, and a struct with an
/// `@align` member is, by the WGSL spec, aligned to that too, which naga's layouter does not see
/// (it aligns a struct by its member types only), so the text states it on every member of the
/// struct's type and both readings agree.
fn natural_alignment(ty: &TypeDecl) -> Result<u64, LayoutError> {
    match ty {
        TypeDecl::Leaf(_) => Ok(ty.layout(AddressSpace::Storage)?.alignment),
        TypeDecl::Array { element, .. } => natural_alignment(element),
        TypeDecl::Struct(s) => s
            .members
            .iter()
            .try_fold(1, |align, m| Ok(align.max(natural_alignment(&m.ty)?))),
    }
}

fn uses_f16(ty: &TypeDecl) -> bool {
    match ty {
        TypeDecl::Leaf(leaf) => leaf.scalar() == PrimitiveType::F16,
        TypeDecl::Array { element, .. } => uses_f16(element),
        TypeDecl::Struct(s) => s.members.iter().any(|m| uses_f16(&m.ty)),
    }
}

/// Every struct `s` contains, dependencies first, then `s`; a name declared twice with two
/// different definitions is an error. `known` maps the names in `out` to their structs, so each
/// struct is looked up once, not compared with every other.
fn collect<'a>(
    s: &'a StructDecl,
    out: &mut Vec<&'a StructDecl>,
    known: &mut HashMap<&'a str, &'a StructDecl>,
) -> Result<(), WgslError> {
    for member in &s.members {
        let mut ty = &member.ty;
        while let TypeDecl::Array { element, .. } = ty {
            ty = element;
        }
        if let TypeDecl::Struct(inner) = ty {
            collect(inner, out, known)?;
        }
    }
    match known.get(s.name.as_str()) {
        Some(first) if !std::ptr::eq(*first, s) && *first != s => {
            Err(WgslError::ConflictingStruct {
                name: s.name.clone(),
            })
        }
        Some(_) => Ok(()),
        None => {
            known.insert(&s.name, s);
            out.push(s);
            Ok(())
        }
    }
}

impl StructDecl {
    /// WGSL declarations of this struct and every struct it contains (dependencies first),
    /// whose layout in `space` is exactly gpudata's: every member at its offset, every struct
    /// its size. `enable f16;` comes first when a member is `f16`-based.
    ///
    /// A member gets `@align(n)` where gpudata's alignment exceeds what WGSL would give it (the
    /// uniform rules' 16 for structs and arrays, or a declared `@align`), `@size(n)` where it
    /// claims more bytes than its type (a declared `@size`, or the last member padding the
    /// struct to a multiple of 16 in the uniform space).
    ///
    /// ```
    /// use gpudata::layout::{AddressSpace, StructDecl};
    ///
    /// let light = StructDecl::parse("Light", "position: vec3<f32>, intensity: f32")?;
    /// let wgsl = light.wgsl(AddressSpace::Uniform)?;
    /// assert!(wgsl.contains("struct Light {"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WgslError::InvalidName`] (a struct or member name), [`WgslError::PredeclaredName`] (a
    /// struct named like a WGSL type or built-in), [`WgslError::DuplicateMember`],
    /// [`WgslError::ConflictingStruct`], [`WgslError::Layout`] (the type has no layout in
    /// `space`).
    pub fn wgsl(&self, space: AddressSpace) -> Result<String, WgslError> {
        let mut structs = Vec::new();
        collect(self, &mut structs, &mut HashMap::new())?;
        let mut out = String::new();
        if uses_f16(&TypeDecl::Struct(self.clone())) {
            out.push_str("enable f16;\n\n");
        }
        for (i, s) in structs.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            s.declaration(space, &mut out)?;
        }
        Ok(out)
    }

    fn declaration(&self, space: AddressSpace, out: &mut String) -> Result<(), WgslError> {
        check_struct_name(&self.name)?;
        for member in &self.members {
            check_name(&member.name)?;
        }
        if let Some((_, second)) = first_duplicate(self.members.iter().map(|m| m.name.as_str())) {
            return Err(WgslError::DuplicateMember {
                structure: self.name.clone(),
                member: self.members[second].name.clone(),
            });
        }
        let (placed, layout) = self.placements(space).map_err(Box::new)?;
        let natural_struct_align = placed.iter().map(|p| p.alignment).max().unwrap_or(1);
        let _ = writeln!(
            out,
            "// {space} layout: {} bytes, alignment {}, generated by gpudata",
            layout.size, layout.alignment
        );
        let _ = writeln!(out, "struct {} {{", self.name);
        let last = placed.len().saturating_sub(1);
        for (i, (member, at)) in self.members.iter().zip(&placed).enumerate() {
            let natural = natural_alignment(&member.ty).map_err(Box::new)?;
            let type_size = member.ty.layout(space).map_err(Box::new)?.size;
            let mut size = at.size;
            if i == last && !member.ty.is_runtime_array() {
                // Pad the struct to gpudata's size where WGSL's rounding gives less.
                let end = at.offset + at.size;
                let wgsl_size = end.div_ceil(natural_struct_align) * natural_struct_align;
                if wgsl_size < layout.size {
                    size = layout.size - at.offset;
                }
            }
            out.push_str("    ");
            if at.alignment != natural {
                let _ = write!(out, "@align({}) ", at.alignment);
            }
            if size != type_size {
                let _ = write!(out, "@size({size}) ");
            }
            let _ = writeln!(
                out,
                "{}: {}, // offset {}",
                member.name,
                type_text(&member.ty),
                at.offset
            );
        }
        out.push_str("}\n");
        Ok(())
    }
}
