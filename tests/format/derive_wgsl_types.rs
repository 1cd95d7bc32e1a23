//! `#[derive(GpuStruct)]` over the WGSL types the other derive tests leave out: all nine
//! `matCxR<f32>` (`[[f32; R]; C]` with `#[gpu(wgsl = "matCxR<f32>")]`), atomics as fields, arrays
//! of arrays of structs and vectors, and (feature `mint`) mint's column matrices. The oracle is
//! naga: the derive's WGSL declaration is parsed and validated (atomics in
//! `var<storage, read_write>`, used by `atomicAdd`; `f16` with `enable f16;`), and naga's layouter and member offsets,
//! flattened independently into leaves (matrix columns, array elements, struct members, luma.gl's
//! names), must be the derived format's fields, offset for offset. Encoded rows hold the host
//! values at those offsets and decode back.

use gpudata::GpuStruct;
use gpudata::layout::AddressSpace;
use gpudata::record::GpuType;

use crate::derive_nested::{naga_bound_module, struct_decl};

/// The module of `T`'s WGSL declaration bound as `block` in `space`, with `body` in a compute
/// entry point, validated by naga.
fn naga_module<T: GpuType>(space: AddressSpace, body: &str) -> (naga::Module, String) {
    let decl = struct_decl::<T>();
    let text = decl.wgsl(space).unwrap_or_else(|e| panic!("no WGSL: {e}"));
    naga_bound_module(&text, &decl.name, space, body)
}

/// The vertex format name of `n` components of `scalar` (`float32x3`, `uint32`).
fn format_name(scalar: naga::Scalar, n: u32) -> String {
    let base = match scalar.kind {
        naga::ScalarKind::Float if scalar.width == 2 => "float16",
        naga::ScalarKind::Float => "float32",
        naga::ScalarKind::Uint => "uint32",
        naga::ScalarKind::Sint => "sint32",
        other => panic!("no format for {other:?}"),
    };
    if n == 1 {
        base.to_owned()
    } else {
        format!("{base}x{n}")
    }
}

/// naga's type `ty` at `offset` named `name`, flattened into leaves: a scalar, vector or atomic
/// is one leaf, a matrix one per column (`m[1]`, columns `size / C` apart), an array one group
/// per element (`a[2]`, naga's stride apart), a struct one group per member (`s.x`).
fn leaves(
    module: &naga::Module,
    layouter: &naga::proc::Layouter,
    ty: naga::Handle<naga::Type>,
    name: &str,
    offset: u64,
    out: &mut Vec<(String, u64, String)>,
) {
    match &module.types[ty].inner {
        naga::TypeInner::Scalar(s) | naga::TypeInner::Atomic(s) => {
            out.push((name.to_owned(), offset, format_name(*s, 1)));
        }
        naga::TypeInner::Vector { size, scalar } => {
            out.push((name.to_owned(), offset, format_name(*scalar, *size as u32)));
        }
        naga::TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => {
            let c = *columns as u64;
            let column_stride = u64::from(layouter[ty].size) / c;
            for i in 0..c {
                out.push((
                    format!("{name}[{i}]"),
                    offset + i * column_stride,
                    format_name(*scalar, *rows as u32),
                ));
            }
        }
        naga::TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            for i in 0..u64::from(n.get()) {
                let at = offset + i * u64::from(*stride);
                leaves(module, layouter, *base, &format!("{name}[{i}]"), at, out);
            }
        }
        naga::TypeInner::Struct { members, .. } => {
            for m in members {
                let member = m.name.as_deref().unwrap_or_default();
                let at = offset + u64::from(m.offset);
                leaves(module, layouter, m.ty, &format!("{name}.{member}"), at, out);
            }
        }
        other => panic!("no leaves for {other:?}"),
    }
}

/// naga's leaves of the block struct named `name` in `module` (top-level members unprefixed)
/// and its span.
fn naga_leaves(module: &naga::Module, name: &str) -> (Vec<(String, u64, String)>, u64) {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct")
    };
    let mut out = Vec::new();
    for m in members {
        let member = m.name.as_deref().unwrap_or_default();
        leaves(
            module,
            &layouter,
            m.ty,
            member,
            u64::from(m.offset),
            &mut out,
        );
    }
    (out, u64::from(*span))
}

/// The derived format's fields as (name, offset, format).
fn derived_leaves<T: GpuStruct>() -> Vec<(String, u64, String)> {
    T::FORMAT
        .fields()
        .iter()
        .map(|f| {
            (
                f.name().to_owned(),
                f.byte_offset(),
                f.format().as_str().to_owned(),
            )
        })
        .collect()
}

/// `T`'s derived fields and stride are naga's leaves and span of its declaration in `space`.
fn assert_naga_agrees<T: GpuStruct + GpuType>(space: AddressSpace, body: &str) -> String {
    let (module, text) = naga_module::<T>(space, body);
    let name = struct_decl::<T>().name;
    let (expected, span) = naga_leaves(&module, &name);
    assert_eq!(derived_leaves::<T>(), expected, "{text}");
    assert_eq!(T::FORMAT.byte_stride(), span, "{text}");
    text
}

/// The little-endian `f32` at `offset` of `bytes`.
fn f32_at(bytes: &[u8], offset: u64) -> f32 {
    let o = offset as usize;
    f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap())
}

/// The host value `k`-th of a test row: distinct for every component.
fn value(k: usize) -> f32 {
    1.0 + k as f32
}

/// A `[[f32; R]; C]` whose components count on from `*next`.
fn columns<const C: usize, const R: usize>(next: &mut usize) -> [[f32; R]; C] {
    core::array::from_fn(|_| {
        core::array::from_fn(|_| {
            *next += 1;
            value(*next)
        })
    })
}

/// The nine `matCxR<f32>` between scalars, in one struct per layout.
macro_rules! nine_matrices {
    ($name:ident, $layout:tt) => {
        #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
        #[gpu(layout = $layout)]
        struct $name {
            s0: f32,
            #[gpu(wgsl = "mat2x2<f32>")]
            m22: [[f32; 2]; 2],
            s1: f32,
            #[gpu(wgsl = "mat2x3<f32>")]
            m23: [[f32; 3]; 2],
            s2: f32,
            #[gpu(wgsl = "mat2x4<f32>")]
            m24: [[f32; 4]; 2],
            s3: f32,
            #[gpu(wgsl = "mat3x2<f32>")]
            m32: [[f32; 2]; 3],
            s4: f32,
            #[gpu(wgsl = "mat3x3<f32>")]
            m33: [[f32; 3]; 3],
            s5: f32,
            #[gpu(wgsl = "mat3x4<f32>")]
            m34: [[f32; 4]; 3],
            s6: f32,
            #[gpu(wgsl = "mat4x2<f32>")]
            m42: [[f32; 2]; 4],
            s7: f32,
            #[gpu(wgsl = "mat4x3<f32>")]
            m43: [[f32; 3]; 4],
            s8: f32,
            #[gpu(wgsl = "mat4x4<f32>")]
            m44: [[f32; 4]; 4],
        }

        impl $name {
            /// A value whose every component differs.
            fn sample() -> Self {
                let mut k = 0;
                let mut s = || {
                    k += 1;
                    value(1000 + k)
                };
                let (s0, s1, s2, s3, s4, s5, s6, s7, s8) =
                    (s(), s(), s(), s(), s(), s(), s(), s(), s());
                let mut next = 0;
                Self {
                    s0,
                    m22: columns(&mut next),
                    s1,
                    m23: columns(&mut next),
                    s2,
                    m24: columns(&mut next),
                    s3,
                    m32: columns(&mut next),
                    s4,
                    m33: columns(&mut next),
                    s5,
                    m34: columns(&mut next),
                    s6,
                    m42: columns(&mut next),
                    s7,
                    m43: columns(&mut next),
                    s8,
                    m44: columns(&mut next),
                }
            }

            /// The host components of each leaf, in field order.
            fn host_leaves(&self) -> Vec<Vec<f32>> {
                let mut out: Vec<Vec<f32>> = Vec::new();
                let mut matrix = |m: &[&[f32]]| out.extend(m.iter().map(|c| c.to_vec()));
                matrix(&[&[self.s0]]);
                matrix(&self.m22.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s1]]);
                matrix(&self.m23.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s2]]);
                matrix(&self.m24.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s3]]);
                matrix(&self.m32.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s4]]);
                matrix(&self.m33.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s5]]);
                matrix(&self.m34.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s6]]);
                matrix(&self.m42.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s7]]);
                matrix(&self.m43.iter().map(|c| &c[..]).collect::<Vec<_>>());
                matrix(&[&[self.s8]]);
                matrix(&self.m44.iter().map(|c| &c[..]).collect::<Vec<_>>());
                out
            }
        }
    };
}

nine_matrices!(StorageMatrices, "wgsl-storage");
nine_matrices!(UniformMatrices, "wgsl-uniform");

/// Every leaf of the encoded row holds the host components at the field's offset; the row
/// decodes back.
fn assert_row_holds<T: GpuStruct + PartialEq + core::fmt::Debug>(value: &T, host: &[Vec<f32>]) {
    let fields = T::FORMAT.fields();
    assert_eq!(fields.len(), host.len());
    let bytes = gpudata::record::encode_rows_to_vec(std::slice::from_ref(value));
    for (field, components) in fields.iter().zip(host) {
        let found: Vec<f32> = (0..components.len() as u64)
            .map(|i| f32_at(&bytes, field.byte_offset() + 4 * i))
            .collect();
        assert_eq!(&found, components, "field {}", field.name());
    }
    assert_eq!(&T::decode_row(&bytes), value);
}

#[test]
fn all_nine_f32_matrices_lay_out_as_naga_does_in_both_spaces() {
    let text = assert_naga_agrees::<StorageMatrices>(AddressSpace::Storage, "");
    for shape in [
        "2x2", "2x3", "2x4", "3x2", "3x3", "3x4", "4x2", "4x3", "4x4",
    ] {
        assert!(text.contains(&format!("mat{shape}<f32>")), "{text}");
    }
    assert_naga_agrees::<UniformMatrices>(AddressSpace::Uniform, "");
    // Independent figures for one member: `mat2x3<f32>` after two scalars and a `mat2x2` is at
    // 16 (vec3 alignment), 32 bytes, columns 16 apart.
    let m23: Vec<(String, u64)> = derived_leaves::<StorageMatrices>()
        .into_iter()
        .filter(|(name, ..)| name.starts_with("m23"))
        .map(|(name, offset, _)| (name, offset))
        .collect();
    assert_eq!(m23, [("m23[0]".to_owned(), 32), ("m23[1]".to_owned(), 48)]);

    let storage = StorageMatrices::sample();
    assert_row_holds(&storage, &storage.host_leaves());
    let uniform = UniformMatrices::sample();
    assert_row_holds(&uniform, &uniform.host_leaves());
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Counters {
    #[gpu(wgsl = "atomic<u32>")]
    hits: u32,
    scale: f32,
    #[gpu(wgsl = "atomic<i32>")]
    balance: i32,
    #[gpu(wgsl = "array<atomic<u32>, 4>")]
    bins: [u32; 4],
    tail: [f32; 3],
}

#[test]
fn atomic_fields_lay_out_as_naga_does_and_validate_in_read_write_storage() {
    let text = assert_naga_agrees::<Counters>(
        AddressSpace::Storage,
        "atomicAdd(&block.hits, 1u); atomicSub(&block.balance, 2); atomicMax(&block.bins[3], 5u);",
    );
    assert!(text.contains("hits: atomic<u32>"), "{text}");
    assert!(text.contains("balance: atomic<i32>"), "{text}");
    assert!(text.contains("array<atomic<u32>, 4>"), "{text}");
    let row = Counters {
        hits: 7,
        scale: 0.5,
        balance: -3,
        bins: [10, 20, 30, 40],
        tail: [1.0, 2.0, 3.0],
    };
    let bytes = gpudata::record::encode_rows_to_vec(&[row]);
    let word = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    // hits 0, scale 4, balance 8, bins 12..28, tail (vec3, 16-aligned) 32.
    assert_eq!(word(0), 7);
    assert_eq!(f32_at(&bytes, 4), 0.5);
    assert_eq!(word(8) as i32, -3);
    assert_eq!([word(12), word(16), word(20), word(24)], [10, 20, 30, 40]);
    assert_eq!(f32_at(&bytes, 36), 2.0);
    assert_eq!(Counters::decode_row(&bytes), row);
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Cell {
    weight: f32,
    direction: [f32; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Grid {
    count: u32,
    cells: [[Cell; 2]; 3],
    corners: [[[f32; 2]; 2]; 2],
    #[gpu(wgsl = "array<array<mat2x3<f32>, 2>, 2>")]
    frames: [[[[f32; 3]; 2]; 2]; 2],
}

#[test]
fn arrays_of_arrays_of_structs_vectors_and_matrices_lay_out_as_naga_does() {
    let text = assert_naga_agrees::<Grid>(AddressSpace::Storage, "");
    assert!(text.contains("array<array<Cell, 2>, 3>"), "{text}");
    // Cell: weight 0, direction 16, 32 bytes; cells at 16, rows of two cells 64 bytes apart.
    let leaves = derived_leaves::<Grid>();
    let at = |name: &str| leaves.iter().find(|(n, ..)| n == name).map(|l| l.1);
    assert_eq!(at("cells[2][1].direction"), Some(16 + 2 * 64 + 32 + 16));
    assert_eq!(at("corners[1][1]"), Some(16 + 192 + 16 + 8));

    let mut next = 0;
    let grid = Grid {
        count: 3,
        cells: core::array::from_fn(|_| {
            core::array::from_fn(|_| {
                next += 4;
                Cell {
                    weight: value(next),
                    direction: [value(next + 1), value(next + 2), value(next + 3)],
                }
            })
        }),
        corners: core::array::from_fn(|_| columns(&mut next)),
        frames: core::array::from_fn(|_| core::array::from_fn(|_| columns(&mut next))),
    };
    let mut host: Vec<Vec<f32>> = vec![vec![f32::from_bits(3)]];
    for row in &grid.cells {
        for cell in row {
            host.push(vec![cell.weight]);
            host.push(cell.direction.to_vec());
        }
    }
    host.extend(grid.corners.iter().flatten().map(|v| v.to_vec()));
    host.extend(grid.frames.iter().flatten().flatten().map(|c| c.to_vec()));
    assert_row_holds(&grid, &host);
}

/// What the derive offers instead of a `vec3<f16>` or a `matCx3<f16>` (which no vertex format
/// holds, so no row can): the types its message names.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct HalfAlternatives {
    s: f32,
    #[gpu(wgsl = "vec4<f16>")]
    v4: [half::f16; 4],
    #[gpu(wgsl = "array<f16, 3>")]
    a3: [u16; 3],
    #[gpu(wgsl = "mat2x4<f16>")]
    m24: [[half::f16; 4]; 2],
    #[gpu(wgsl = "array<array<f16, 3>, 2>")]
    m23: [[u16; 3]; 2],
}

/// naga's layouter on `enable f16;` types: (size, alignment) of each member type of `S`.
fn naga_type_layouts(members: &str) -> Vec<(u32, u32)> {
    let text = format!("enable f16;\nstruct S {{ {members} }}\n");
    let module = naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let (_, s) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("S"))
        .unwrap();
    let naga::TypeInner::Struct { members, .. } = &s.inner else {
        panic!()
    };
    members
        .iter()
        .map(|m| (layouter[m.ty].size, layouter[m.ty].alignment.round_up(1)))
        .collect()
}

#[test]
fn three_row_f16_types_lay_out_as_naga_does_and_their_alternatives_are_rows() {
    use gpudata::format::PrimitiveType::F16;
    use gpudata::layout::{LeafType, leaf_layout};
    // The memory model holds them (naga: vec3<f16> 6 bytes aligned to 8, matCx3<f16> C columns
    // 8 bytes apart): only the row format, one vertex format per leaf, cannot (no float16x3).
    let naga = naga_type_layouts("a: vec3<f16>, b: mat2x3<f16>, c: mat3x3<f16>, d: mat4x3<f16>");
    assert_eq!(naga, [(6, 8), (16, 8), (24, 8), (32, 8)]);
    let ours: Vec<(u32, u32)> = [
        LeafType::Vector {
            components: 3,
            scalar: F16,
        },
        LeafType::Matrix {
            columns: 2,
            rows: 3,
            scalar: F16,
        },
        LeafType::Matrix {
            columns: 3,
            rows: 3,
            scalar: F16,
        },
        LeafType::Matrix {
            columns: 4,
            rows: 3,
            scalar: F16,
        },
    ]
    .into_iter()
    .map(|leaf| {
        let l = leaf_layout(leaf, AddressSpace::Storage).unwrap();
        assert_eq!(l, leaf_layout(leaf, AddressSpace::Uniform).unwrap());
        (l.size as u32, l.alignment as u32)
    })
    .collect();
    assert_eq!(ours, naga);

    // The alternatives lay out as naga does, leaf for leaf: `vec4<f16>` one `float16x4`,
    // `array<f16, 3>` three `float16` 2 bytes apart, `mat2x4<f16>` two `float16x4` columns.
    let text = assert_naga_agrees::<HalfAlternatives>(AddressSpace::Storage, "");
    assert!(text.contains("a3: array<f16, 3>"), "{text}");
    let leaves = derived_leaves::<HalfAlternatives>();
    let at = |name: &str| leaves.iter().find(|(n, ..)| n == name).cloned().unwrap();
    assert_eq!(at("v4"), ("v4".to_owned(), 8, "float16x4".to_owned()));
    assert_eq!(at("a3[2]"), ("a3[2]".to_owned(), 20, "float16".to_owned()));
    assert_eq!(
        at("m24[1]"),
        ("m24[1]".to_owned(), 32, "float16x4".to_owned())
    );
    assert_eq!(
        at("m23[1][0]"),
        ("m23[1][0]".to_owned(), 46, "float16".to_owned())
    );

    let h = |x: f32| half::f16::from_f32(x);
    let value = HalfAlternatives {
        s: 1.5,
        v4: [h(1.0), h(2.0), h(3.0), h(4.0)],
        a3: [h(5.0).to_bits(), h(6.0).to_bits(), h(7.0).to_bits()],
        m24: [
            [h(8.0), h(9.0), h(10.0), h(11.0)],
            [h(12.0), h(13.0), h(14.0), h(15.0)],
        ],
        m23: [
            [h(16.0).to_bits(), h(17.0).to_bits(), h(18.0).to_bits()],
            [h(19.0).to_bits(), h(20.0).to_bits(), h(21.0).to_bits()],
        ],
    };
    let bytes = gpudata::record::encode_rows_to_vec(std::slice::from_ref(&value));
    let f16_at = |o: usize| half::f16::from_le_bytes([bytes[o], bytes[o + 1]]).to_f32();
    assert_eq!(f16_at(20), 7.0);
    assert_eq!(f16_at(32 + 6), 15.0);
    assert_eq!(f16_at(46), 19.0);
    assert_eq!(HalfAlternatives::decode_row(&bytes), value);
}

#[cfg(feature = "mint")]
mod mint_fields {
    use gpudata::GpuStruct;
    use gpudata::layout::AddressSpace;

    use super::{assert_naga_agrees, assert_row_holds, columns, struct_decl};

    /// mint's nine column matrices: `ColumnMatrixRxC` (rows first) is C columns of `VectorR`,
    /// WGSL's `matCxR<f32>`.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    struct MintMatrices {
        m2: mint::ColumnMatrix2<f32>,
        m3: mint::ColumnMatrix3<f32>,
        m4: mint::ColumnMatrix4<f32>,
        r2c3: mint::ColumnMatrix2x3<f32>,
        r2c4: mint::ColumnMatrix2x4<f32>,
        r3c2: mint::ColumnMatrix3x2<f32>,
        r3c4: mint::ColumnMatrix3x4<f32>,
        r4c2: mint::ColumnMatrix4x2<f32>,
        r4c3: mint::ColumnMatrix4x3<f32>,
    }

    #[test]
    fn mint_column_matrices_lay_out_as_wgsl_matrices_and_encode_their_columns() {
        let text = assert_naga_agrees::<MintMatrices>(AddressSpace::Storage, "");
        let wgsl: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("//"))
            .filter_map(|l| l.split_once(": "))
            .filter_map(|(_, ty)| ty.split(',').next())
            .filter(|ty| ty.starts_with("mat"))
            .map(str::to_owned)
            .collect();
        assert_eq!(
            wgsl,
            [
                "mat2x2<f32>",
                "mat3x3<f32>",
                "mat4x4<f32>",
                "mat3x2<f32>",
                "mat4x2<f32>",
                "mat2x3<f32>",
                "mat4x3<f32>",
                "mat2x4<f32>",
                "mat3x4<f32>",
            ],
            "{text}"
        );
        assert_eq!(struct_decl::<MintMatrices>().name, "MintMatrices");

        // Each built from its host columns (`[[f32; R]; C]`); the row holds the columns.
        let mut next = 0;
        let m2: [[f32; 2]; 2] = columns(&mut next);
        let m3: [[f32; 3]; 3] = columns(&mut next);
        let m4: [[f32; 4]; 4] = columns(&mut next);
        let r2c3: [[f32; 2]; 3] = columns(&mut next);
        let r2c4: [[f32; 2]; 4] = columns(&mut next);
        let r3c2: [[f32; 3]; 2] = columns(&mut next);
        let r3c4: [[f32; 3]; 4] = columns(&mut next);
        let r4c2: [[f32; 4]; 2] = columns(&mut next);
        let r4c3: [[f32; 4]; 3] = columns(&mut next);
        let value = MintMatrices {
            m2: m2.into(),
            m3: m3.into(),
            m4: m4.into(),
            r2c3: r2c3.into(),
            r2c4: r2c4.into(),
            r3c2: r3c2.into(),
            r3c4: r3c4.into(),
            r4c2: r4c2.into(),
            r4c3: r4c3.into(),
        };
        let mut host: Vec<Vec<f32>> = Vec::new();
        host.extend(m2.iter().map(|c| c.to_vec()));
        host.extend(m3.iter().map(|c| c.to_vec()));
        host.extend(m4.iter().map(|c| c.to_vec()));
        host.extend(r2c3.iter().map(|c| c.to_vec()));
        host.extend(r2c4.iter().map(|c| c.to_vec()));
        host.extend(r3c2.iter().map(|c| c.to_vec()));
        host.extend(r3c4.iter().map(|c| c.to_vec()));
        host.extend(r4c2.iter().map(|c| c.to_vec()));
        host.extend(r4c3.iter().map(|c| c.to_vec()));
        assert_row_holds(&value, &host);
    }
}
