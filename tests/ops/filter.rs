//! Row masks, compaction and the prefix sum on the GPU against the CPU reference and against
//! filtering on the host: random predicates over columns of many formats (NaN, ±0, ±inf and
//! integer extremes included), masks that keep all, none, every other, 1% and 99% of the rows,
//! and a device whose storage bindings hold 1 MiB (rows split over several dispatches).

use crate::fixtures::*;
use crate::select::{small, special_rows};
use gpudata::ops::cpu::{self, HostInput, HostPredicate};
use gpudata::ops::{
    self, Comparand, Comparison, GpuMask, OpError, Predicate, PredicateOf, ShaderScalar,
};
use gpudata::{Gpu, GpuDataView, VertexFormat};

/// A host column and its upload.
pub(crate) struct Column {
    bytes: Vec<u8>,
    buffer: wgpu::Buffer,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
}

impl Column {
    pub(crate) fn new(gpu: &Gpu, rng: &mut Rng, format: VertexFormat, length: u64) -> Column {
        let align = if format.is_packed_bits() {
            4
        } else {
            format.byte_length() / u64::from(format.components())
        };
        let offset = align * rng.below(3);
        let stride = format.byte_length().next_multiple_of(align) + align * rng.below(2);
        let mut bytes = special_rows(rng, format, length, offset, stride);
        // No f32 subnormals in compared columns: a GPU may flush them in comparisons.
        if format.data_type() == gpudata::format::DataType::Float32 {
            for row in 0..length {
                for lane in 0..u64::from(format.components()) {
                    let at = (offset + row * stride + lane * 4) as usize;
                    let v = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
                    if v & 0x7f80_0000 == 0 {
                        bytes[at..at + 4].copy_from_slice(&(v & 0x8000_0000).to_le_bytes());
                    }
                }
            }
        }
        let buffer = upload(gpu, &bytes);
        Column {
            bytes,
            buffer,
            format,
            length,
            offset,
            stride,
        }
    }

    pub(crate) fn view(&self) -> GpuDataView<'_> {
        view_at(
            &self.buffer,
            self.format,
            self.length,
            self.offset,
            Some(self.stride),
        )
    }

    pub(crate) fn host(&self) -> HostInput<'_> {
        HostInput::new(&self.bytes, self.format, self.length)
            .with_byte_offset(self.offset)
            .with_byte_stride(self.stride)
    }
}

pub(crate) fn scalar(rng: &mut Rng) -> ShaderScalar {
    match rng.below(5) {
        0 => ShaderScalar::F32(rng.f32_in(100.0)),
        1 => ShaderScalar::F32([0.0, -0.0, f32::INFINITY, f32::NAN][rng.below(4) as usize]),
        2 => ShaderScalar::I32([i32::MIN, -1, 0, 7, i32::MAX][rng.below(5) as usize]),
        3 => ShaderScalar::U32([0, 1, 200, u32::MAX][rng.below(4) as usize]),
        _ => ShaderScalar::I32(rng.next_u32() as i32 >> 16),
    }
}

/// A random predicate tree over `columns` (by index) and mask 0: one predicate, mapped to host
/// columns and to GPU views.
type Tree = PredicateOf<usize, ()>;

fn tree(rng: &mut Rng, columns: usize, depth: u32) -> Tree {
    let cmps = Comparison::ALL;
    let leaf = |rng: &mut Rng| -> Tree {
        let c = rng.below(columns as u64) as usize;
        let other = if rng.below(3) == 0 {
            Comparand::Column(rng.below(columns as u64) as usize)
        } else {
            Comparand::Value(scalar(rng))
        };
        match rng.below(6) {
            0 => Tree::between(c, scalar(rng), other),
            1 => Tree::Mask(()),
            _ => Tree::compare(cmps[rng.below(6) as usize], c, other),
        }
    };
    if depth == 0 {
        return leaf(rng);
    }
    match rng.below(4) {
        0 => Tree::And(
            (0..1 + rng.below(3))
                .map(|_| tree(rng, columns, depth - 1))
                .collect(),
        ),
        1 => Tree::Or(
            (0..1 + rng.below(3))
                .map(|_| tree(rng, columns, depth - 1))
                .collect(),
        ),
        2 => Tree::Not(Box::new(tree(rng, columns, depth - 1))),
        _ => leaf(rng),
    }
}

fn build<C: Copy, M: Copy>(t: &Tree, cols: &[C], mask: M) -> PredicateOf<C, M> {
    t.map(|&i| cols[i], |_| mask)
}

fn check_masks(gpu: &Gpu, rng: &mut Rng, length: u64, trees: usize) {
    // Single-lane columns, plus multi-lane ones of one lane count (so lanes always match).
    let formats = [
        VertexFormat::Float32,
        VertexFormat::Sint32,
        VertexFormat::Uint32,
        VertexFormat::Sint16,
        VertexFormat::Uint8,
        VertexFormat::Unorm8,
        VertexFormat::Float16,
        VertexFormat::Snorm16,
        VertexFormat::Float32x2,
        VertexFormat::Uint8x2,
        VertexFormat::Float16x2,
    ];
    let columns: Vec<Column> = formats
        .iter()
        .map(|&f| Column::new(gpu, rng, f, length))
        .collect();
    let bools: Vec<bool> = (0..length).map(|_| rng.below(2) == 0).collect();
    let gpu_mask = GpuMask::from_bools(gpu, &bools).unwrap();
    let views: Vec<GpuDataView<'_>> = columns.iter().map(Column::view).collect();
    let hosts: Vec<HostInput<'_>> = columns.iter().map(Column::host).collect();
    for i in 0..trees {
        let t = tree(rng, columns.len(), 3);
        let host: HostPredicate<'_> = build(&t, &hosts, &bools[..]);
        let device: Predicate<'_> = build(&t, &views, &gpu_mask);
        let expected = cpu::mask(&host).unwrap();
        // With subgroup ballots where the device has them (the default), and, for every
        // fourth tree (each is a new kernel to compile), without.
        for subgroups in [true, false] {
            if !subgroups && i % 4 != 0 {
                continue;
            }
            let config = ops::OpsConfig {
                subgroups,
                ..ops::OpsConfig::default()
            };
            let got = ops::plan_mask(gpu, &device, &config)
                .unwrap()
                .run(gpu)
                .unwrap();
            assert_eq!(got.len(), length);
            assert_eq!(
                got.read(gpu).unwrap(),
                expected,
                "{t:?}, subgroups {subgroups}"
            );
        }
    }
}

#[test]
fn the_test_device_has_subgroups() {
    // lavapipe has them, so `masks_equal_the_cpu_reference` runs the ballot kernel as well as
    // the one without subgroups; the limited devices (no features) run the latter only.
    let gpu = fresh_gpu();
    assert!(
        gpu.device().features().contains(wgpu::Features::SUBGROUP),
        "{:?}",
        gpu.adapter_info()
    );
}

#[test]
fn masks_equal_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(30);
    check_masks(&gpu, &mut rng, 3000, 40);
    check_masks(&gpu, &mut rng, 1, 5);
}

#[test]
fn masks_split_large_columns() {
    let gpu = small();
    let mut rng = Rng::new(31);
    check_masks(&gpu, &mut rng, 300_000, 3);
}

#[test]
fn comparison_rules() {
    let gpu = fresh_gpu();
    let values = [f32::NAN, -0.0, 0.0, 1.0, f32::INFINITY, -3.5];
    let buffer = upload(&gpu, &f32_bytes(&values));
    let x = view(&buffer, VertexFormat::Float32, 6);
    let m = |p: Predicate<'_>| ops::mask(&gpu, &p).unwrap().read(&gpu).unwrap();
    assert_eq!(
        m(Predicate::equal(x, 0.0f32)),
        [false, true, true, false, false, false]
    );
    assert_eq!(
        m(Predicate::less(x, 1.0f32).not()),
        [true, false, false, true, true, false]
    );
    assert_eq!(
        m(Predicate::between(x, -0.0f32, 1.0f32)),
        [false, true, true, true, false, false]
    );
    assert_eq!(
        m(Predicate::compare(Comparison::NotEqual, x, x)),
        [true, false, false, false, false, false]
    );
    // Signed against unsigned, exactly.
    let ints = upload(
        &gpu,
        &(-2i32..2).flat_map(i32::to_le_bytes).collect::<Vec<_>>(),
    );
    let i = view(&ints, VertexFormat::Sint32, 4);
    assert_eq!(m(Predicate::less(i, u32::MAX)), [true; 4]);
    assert_eq!(m(Predicate::greater(i, 0u32)), [false, false, false, true]);
    assert_eq!(
        ops::greater(&gpu, i, -1i32).unwrap().read(&gpu).unwrap(),
        [false, false, true, true]
    );
    // All lanes of a vector column must match.
    let pairs = upload(&gpu, &f32_bytes(&[1.0, 5.0, 2.0, 3.0]));
    let p = view(&pairs, VertexFormat::Float32x2, 2);
    assert_eq!(
        ops::between(&gpu, p, 0.0f32, 4.0f32)
            .unwrap()
            .read(&gpu)
            .unwrap(),
        [false, true]
    );
    // Errors.
    let short = view(&buffer, VertexFormat::Float32, 5);
    assert!(matches!(
        ops::mask(&gpu, &Predicate::less(x, short)),
        Err(OpError::LengthMismatch { .. })
    ));
    let triple = upload(&gpu, &[0; 24]);
    let t = view(&triple, VertexFormat::Float32x3, 2);
    assert!(matches!(
        ops::mask(&gpu, &Predicate::less(p, t)),
        Err(OpError::LaneMismatch { .. })
    ));
    assert_eq!(
        ops::mask(&gpu, &Predicate::And(vec![])).unwrap_err(),
        OpError::NoInputs { op: "mask" }
    );
}

#[cfg(feature = "arrow")]
#[test]
fn masks_read_back_as_arrow_boolean_arrays() {
    let gpu = fresh_gpu();
    let bools: Vec<bool> = (0..77).map(|i| i % 3 == 0).collect();
    let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
    let array = mask.read_arrow(&gpu).unwrap();
    assert_eq!(array.len(), 77);
    assert_eq!(arrow_array::Array::null_count(&array), 0);
    assert_eq!(array.iter().map(Option::unwrap).collect::<Vec<_>>(), bools);
    let back = GpuMask::from_arrow(&gpu, &array).unwrap();
    assert_eq!(back.read(&gpu).unwrap(), bools);
    assert_eq!(back.count(&gpu).unwrap(), 26);
}

/// Masks of every shape the tests use.
fn masks(rng: &mut Rng, length: u64) -> Vec<(&'static str, Vec<bool>)> {
    let n = length as usize;
    vec![
        ("all", vec![true; n]),
        ("none", vec![false; n]),
        ("alternating", (0..n).map(|i| i % 2 == 0).collect()),
        ("1%", (0..n).map(|_| rng.below(100) == 0).collect()),
        ("99%", (0..n).map(|_| rng.below(100) != 0).collect()),
    ]
}

/// The rows `mask` keeps of `column`, filtered on the host.
pub(crate) fn host_filter(column: &Column, mask: &[bool]) -> Vec<u8> {
    let size = column.format.byte_length() as usize;
    mask.iter()
        .enumerate()
        .filter(|(_, k)| **k)
        .flat_map(|(row, _)| {
            let at = (column.offset + row as u64 * column.stride) as usize;
            column.bytes[at..at + size].to_vec()
        })
        .collect()
}

fn check_compact(gpu: &Gpu, rng: &mut Rng, length: u64) {
    let formats = [
        VertexFormat::Float32,
        VertexFormat::Float32x4,
        VertexFormat::Uint8,
        VertexFormat::Unorm8x2,
        VertexFormat::Sint16x4,
        VertexFormat::Float16x2,
        VertexFormat::Float32x3,
        VertexFormat::Uint8x4,
    ];
    let columns: Vec<Column> = formats
        .iter()
        .map(|&f| Column::new(gpu, rng, f, length))
        .collect();
    let views: Vec<GpuDataView<'_>> = columns.iter().map(Column::view).collect();
    let hosts: Vec<HostInput<'_>> = columns.iter().map(Column::host).collect();
    for (name, bools) in masks(rng, length) {
        let mask = GpuMask::from_bools(gpu, &bools).unwrap();
        let kept = bools.iter().filter(|&&k| k).count() as u64;
        assert_eq!(mask.count(gpu).unwrap(), kept, "{name}");
        let out = ops::compact(gpu, &mask, &views).unwrap();
        let (expected, expected_kept) = cpu::compact(&bools, &hosts).unwrap();
        assert_eq!(out.kept, kept, "{name}");
        assert_eq!(expected_kept, kept);
        for ((column, data), reference) in columns.iter().zip(&out.columns).zip(&expected) {
            assert_eq!(format_of(data), column.format);
            assert_eq!(data.length(), kept);
            let bytes = data.read_bytes(gpu).unwrap();
            assert_eq!(
                bytes,
                host_filter(column, &bools),
                "{name} mask, {}",
                column.format
            );
            assert_eq!(bytes, reference.bytes());
        }
    }
}

#[test]
fn compaction_equals_filtering_on_the_host() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(32);
    check_compact(&gpu, &mut rng, 20_000);
    check_compact(&gpu, &mut rng, 1);
    check_compact(&gpu, &mut rng, 0);
}

#[test]
fn compaction_splits_large_columns() {
    let gpu = small();
    let mut rng = Rng::new(33);
    check_compact(&gpu, &mut rng, 150_000);
}

#[test]
fn compaction_of_struct_rows_keeps_their_format() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(34);
    let format = gpudata::GpuDataStructFormat::new(
        gpudata::StructLayout::WgslStorage,
        vec![
            ("p".to_owned(), VertexFormat::Float32x3),
            ("c".to_owned(), VertexFormat::Unorm8x4),
        ],
    )
    .unwrap();
    let length = 5000;
    let stride = format.byte_stride();
    let bytes = rng.bytes((length * stride) as usize);
    let buffer = upload(&gpu, &bytes);
    let rows = rows_at(&buffer, &format, length, 0, None);
    for (name, bools) in masks(&mut rng, length) {
        let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
        let out = ops::compact_data(&gpu, &mask, &[&rows]).unwrap();
        let expected: Vec<u8> = bools
            .iter()
            .enumerate()
            .filter(|(_, k)| **k)
            .flat_map(|(r, _)| bytes[r * stride as usize..(r + 1) * stride as usize].to_vec())
            .collect();
        assert_eq!(out.columns[0].struct_format(), Some(&format));
        assert_eq!(out.columns[0].read_bytes(&gpu).unwrap(), expected, "{name}");
    }
}

#[test]
fn prefix_sums_equal_the_cpu_reference() {
    let gpu = fresh_gpu();
    let split = small();
    let mut rng = Rng::new(35);
    for (gpu, n) in [
        (&gpu, 0),
        (&gpu, 1),
        (&gpu, 256),
        (&gpu, 257),
        (&gpu, 70_000),
        (&split, 400_000),
    ] {
        let values: Vec<u32> = (0..n)
            .map(|_| {
                if rng.below(2) == 0 {
                    rng.next_u32()
                } else {
                    rng.below(9) as u32
                }
            })
            .collect();
        let bytes = u32_bytes(&values);
        let buffer = upload(gpu, &bytes);
        let expected = cpu::prefix_sum(HostInput::new(&bytes, VertexFormat::Uint32, n)).unwrap();
        let out = ops::prefix_sum(gpu, view(&buffer, VertexFormat::Uint32, n)).unwrap();
        assert_eq!(out.length(), n + 1);
        assert_eq!(out.read_bytes(gpu).unwrap(), expected.bytes(), "{n} values");
    }
}

#[test]
fn prefix_sums_of_every_integer_format() {
    // One-lane integers of 8, 16 and 32 bits, offset and strided, against the CPU reference and
    // a running sum written here (sign-extended for signed formats, wrapping at 32 bits); a
    // device of 1 MiB bindings splits the last.
    let gpu = fresh_gpu();
    let split = small();
    let mut rng = Rng::new(36);
    let formats = [
        VertexFormat::Uint8,
        VertexFormat::Uint16,
        VertexFormat::Uint32,
        VertexFormat::Sint8,
        VertexFormat::Sint16,
        VertexFormat::Sint32,
    ];
    for (k, format) in formats.into_iter().enumerate() {
        for (gpu, n) in [(&gpu, 1 + rng.below(300)), (&gpu, 5000), (&split, 300_000)] {
            let size = format.byte_length();
            let offset = size * rng.below(3);
            let stride = size * (1 + (k as u64 % 3));
            let bytes = special_rows(&mut rng, format, n, offset, stride);
            let host = HostInput::new(&bytes, format, n)
                .with_byte_offset(offset)
                .with_byte_stride(stride);
            let expected = cpu::prefix_sum(host).unwrap();
            let mut sum = 0u32;
            let mut running = Vec::new();
            for row in 0..n {
                running.extend_from_slice(&sum.to_le_bytes());
                let at = (offset + row * stride) as usize;
                let mut word = [0u8; 8];
                word[..size as usize].copy_from_slice(&bytes[at..at + size as usize]);
                let raw = u64::from_le_bytes(word);
                let value = if format.is_signed() {
                    let shift = 64 - 8 * size;
                    ((raw << shift) as i64 >> shift) as u32
                } else {
                    raw as u32
                };
                sum = sum.wrapping_add(value);
            }
            running.extend_from_slice(&sum.to_le_bytes());
            assert_eq!(expected.bytes(), running, "{format}: the reference");
            let buffer = upload(gpu, &bytes);
            let out =
                ops::prefix_sum(gpu, view_at(&buffer, format, n, offset, Some(stride))).unwrap();
            let want = if format.is_signed() {
                VertexFormat::Sint32
            } else {
                VertexFormat::Uint32
            };
            assert_eq!(format_of(&out), want);
            assert_eq!(
                out.read_bytes(gpu).unwrap(),
                running,
                "{format}: {n} values"
            );
        }
    }
    let floats = upload(&gpu, &[0u8; 16]);
    assert!(matches!(
        ops::prefix_sum(&gpu, view(&floats, VertexFormat::Float32, 4)),
        Err(OpError::UnsupportedFormat { .. })
    ));
    assert!(matches!(
        ops::prefix_sum(&gpu, view(&floats, VertexFormat::Uint16x2, 4)),
        Err(OpError::UnsupportedFormat { .. })
    ));
}

/// One-, two- and three-byte rows and their unit sizes: the formats whose compaction and gather
/// assemble output words from several rows.
pub(crate) const SUB_WORD: [VertexFormat; 12] = [
    VertexFormat::Uint8,
    VertexFormat::Sint8,
    VertexFormat::Unorm8,
    VertexFormat::Snorm8,
    VertexFormat::Uint16,
    VertexFormat::Sint16,
    VertexFormat::Unorm16,
    VertexFormat::Float16,
    VertexFormat::Unorm8x2,
    VertexFormat::Uint8x2,
    VertexFormat::Sint8x2,
    VertexFormat::Snorm8x2,
];

/// A mask whose 8192-row blocks (a compaction workgroup's) each keep nothing, one to five rows
/// (near either end or anywhere), everything, or a random share: block boundaries then fall at
/// every byte of an output word, with empty blocks between them.
pub(crate) fn blocky_mask(rng: &mut Rng, length: u64) -> Vec<bool> {
    let mut out = Vec::with_capacity(length as usize);
    while (out.len() as u64) < length {
        let n = (length - out.len() as u64).min(8192) as usize;
        let mut block = vec![false; n];
        match rng.below(6) {
            0 => {}
            1 | 2 => {
                for _ in 0..=rng.below(5) {
                    let at = match rng.below(3) {
                        0 => rng.below(8) as usize,
                        1 => n.saturating_sub(1 + rng.below(8) as usize),
                        _ => rng.below(n as u64) as usize,
                    };
                    block[at.min(n - 1)] = true;
                }
            }
            3 => block.iter_mut().for_each(|k| *k = true),
            _ => {
                let share = 1 + rng.below(99);
                block.iter_mut().for_each(|k| *k = rng.below(100) < share);
            }
        }
        out.extend(block);
    }
    out
}

/// Compacts `length` rows of each of `formats` (random bytes, each column at a random offset
/// and stride of its unit) by `bools`, in one call, against filtering on the host.
fn check_sub_word_compaction(
    gpu: &Gpu,
    rng: &mut Rng,
    formats: &[VertexFormat],
    bools: &[bool],
    spread: u64,
) {
    let length = bools.len() as u64;
    let columns: Vec<(Vec<u8>, VertexFormat, u64, u64)> = formats
        .iter()
        .map(|&format| {
            let unit = format.byte_length() / u64::from(format.components());
            let offset = unit * rng.below(4);
            let stride = format.byte_length() + unit * rng.below(spread + 1);
            let bytes = rng.bytes((offset + length * stride + 4) as usize);
            (bytes, format, offset, stride)
        })
        .collect();
    let buffers: Vec<wgpu::Buffer> = columns.iter().map(|c| upload(gpu, &c.0)).collect();
    let views: Vec<GpuDataView<'_>> = columns
        .iter()
        .zip(&buffers)
        .map(|(c, b)| view_at(b, c.1, length, c.2, Some(c.3)))
        .collect();
    let mask = GpuMask::from_bools(gpu, bools).unwrap();
    let out = ops::compact(gpu, &mask, &views).unwrap();
    let kept = bools.iter().filter(|&&k| k).count() as u64;
    assert_eq!(out.kept, kept);
    for ((bytes, format, offset, stride), data) in columns.iter().zip(&out.columns) {
        let size = format.byte_length() as usize;
        let expected: Vec<u8> = (0..length as usize)
            .filter(|&r| bools[r])
            .flat_map(|r| {
                let at = *offset as usize + r * *stride as usize;
                bytes[at..at + size].to_vec()
            })
            .collect();
        assert_eq!(format_of(data), *format);
        assert_eq!(
            data.read_bytes(gpu).unwrap(),
            expected,
            "{length} rows of {format} at offset {offset}, stride {stride}, {kept} kept"
        );
    }
}

#[test]
fn sub_word_compaction_equals_the_host_at_every_size() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(35);
    let mut lengths = vec![
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 255, 256, 257, 1023,
    ];
    lengths.extend((0..6).map(|_| 1 + rng.below(3000)));
    lengths.extend([8191, 8192, 8193, 3 * 8192 + 5]);
    for (i, &length) in lengths.iter().enumerate() {
        // Every format in every third length, with a random density or block pattern.
        let formats: Vec<VertexFormat> = SUB_WORD.iter().copied().skip(i % 3).step_by(3).collect();
        let share = rng.below(101);
        let bools: Vec<bool> = if length > 4096 && i % 2 == 0 {
            blocky_mask(&mut rng, length)
        } else {
            (0..length).map(|_| rng.below(100) < share).collect()
        };
        check_sub_word_compaction(&gpu, &mut rng, &formats, &bools, 2);
    }
}

#[test]
fn sub_word_compaction_meets_at_block_boundaries() {
    // Many blocks keeping 0 to 5 rows, a random share or all: each block-boundary word is put
    // together from up to four blocks' rows.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(36);
    for round in 0..4 {
        let length = 40 * 8192 + rng.below(8192);
        let bools = blocky_mask(&mut rng, length);
        let formats = [SUB_WORD[round], SUB_WORD[4 + round], SUB_WORD[8 + round]];
        check_sub_word_compaction(&gpu, &mut rng, &formats, &bools, 1);
    }
    // Blocks that keep exactly one row each, then exactly three.
    for each in [1, 3] {
        let bools: Vec<bool> = (0..20 * 8192).map(|r| r % 8192 < each).collect();
        check_sub_word_compaction(&gpu, &mut rng, &SUB_WORD[..2], &bools, 0);
        let bools: Vec<bool> = (0..20 * 8192).map(|r| r % 8192 >= 8192 - each).collect();
        check_sub_word_compaction(&gpu, &mut rng, &[VertexFormat::Unorm8x2], &bools, 0);
    }
}

#[test]
fn sub_word_compaction_splits_into_runs_at_any_byte() {
    // 1 MiB bindings and rows 61 or 62 bytes apart: runs of 16,384 rows, each writing its output
    // from a byte that is rarely a word boundary, and meeting the next run inside a word.
    let gpu = small();
    let mut rng = Rng::new(37);
    for format in [
        VertexFormat::Uint8,
        VertexFormat::Float16,
        VertexFormat::Snorm8x2,
    ] {
        let length = 150_000 + rng.below(1000);
        let bools = blocky_mask(&mut rng, length);
        let unit = format.byte_length() / u64::from(format.components());
        let stride = (61 / unit) * unit + unit;
        let bytes = rng.bytes((length * stride + 8) as usize);
        let buffer = upload(&gpu, &bytes);
        let v = view_at(&buffer, format, length, unit, Some(stride));
        let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
        let plan = ops::plan_compact(&gpu, &mask, &[v], &ops::OpsConfig::default()).unwrap();
        assert!(plan.dispatches() >= 10, "{} dispatches", plan.dispatches());
        let out = plan.run(&gpu).unwrap();
        let size = format.byte_length() as usize;
        let expected: Vec<u8> = (0..length as usize)
            .filter(|&r| bools[r])
            .flat_map(|r| {
                let at = (unit + r as u64 * stride) as usize;
                bytes[at..at + size].to_vec()
            })
            .collect();
        assert_eq!(
            out.columns[0].read_bytes(&gpu).unwrap(),
            expected,
            "{format}"
        );
    }
}

#[test]
fn sub_word_kernels_take_one_to_four_words_per_invocation() {
    // `rows_per_thread` sets the output words an invocation of the sub-word compaction takes per
    // step and of the sub-word gather in all (1 to 4); every choice gives the same bytes.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(38);
    for words in [1, 3, 4] {
        let config = ops::OpsConfig {
            rows_per_thread: Some(words),
            ..ops::OpsConfig::default()
        };
        for (format, length) in [
            (VertexFormat::Uint8, 5 * 8192 + 77),
            (VertexFormat::Unorm8x2, 3 * 8192 + 1),
            (VertexFormat::Sint8, 1001),
        ] {
            let bools = blocky_mask(&mut rng, length);
            let bytes = rng.bytes(length as usize * 2 + 8);
            let buffer = upload(&gpu, &bytes);
            let stride = format.byte_length();
            let v = view_at(&buffer, format, length, 0, Some(stride));
            let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
            let out = ops::plan_compact(&gpu, &mask, &[v], &config)
                .unwrap()
                .run(&gpu)
                .unwrap();
            let size = stride as usize;
            let expected: Vec<u8> = (0..length as usize)
                .filter(|&r| bools[r])
                .flat_map(|r| bytes[r * size..(r + 1) * size].to_vec())
                .collect();
            assert_eq!(
                out.columns[0].read_bytes(&gpu).unwrap(),
                expected,
                "compact {format}, {words} words"
            );
            let ids: Vec<u32> = (0..length / 3 + 5)
                .map(|_| rng.below(length + 3) as u32)
                .collect();
            let id_bytes: Vec<u8> = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
            let id_buffer = upload(&gpu, &id_bytes);
            let gathered = ops::plan_gather(
                &gpu,
                view(&id_buffer, VertexFormat::Uint32, ids.len() as u64),
                v,
                &config,
            )
            .unwrap()
            .run(&gpu)
            .unwrap();
            let expected: Vec<u8> = ids
                .iter()
                .flat_map(|&i| match i as u64 {
                    i if i < length => bytes[i as usize * size..(i as usize + 1) * size].to_vec(),
                    _ => vec![0; size],
                })
                .collect();
            assert_eq!(
                gathered.read_bytes(&gpu).unwrap(),
                expected,
                "gather {format}, {words} words"
            );
        }
    }
}

#[test]
fn sub_word_compaction_keeps_every_row_of_full_masks() {
    // Every row kept: each invocation fills every output word it owns (a table filter's
    // "all" mask over batches of these sizes once lost the second word of each step).
    let gpu = fresh_gpu();
    let mut rng = Rng::new(39);
    for length in [37u64, 999, 1000, 1001, 1024, 2500, 2 * 8192 + 3] {
        let bools = vec![true; length as usize];
        let formats = [
            VertexFormat::Sint16,
            VertexFormat::Sint8,
            VertexFormat::Unorm8x2,
        ];
        check_sub_word_compaction(&gpu, &mut rng, &formats, &bools, 1);
    }
}

/// Compacts `length` packed rows of `format` from byte `offset` of a buffer of `bytes` (a
/// multiple of 16 bytes long, so the packed kernel reads it whole) by `bools`.
fn check_packed_compaction(
    gpu: &Gpu,
    format: VertexFormat,
    offset: u64,
    bytes: &[u8],
    bools: &[bool],
) {
    let length = bools.len() as u64;
    let buffer = upload(gpu, bytes);
    let v = view_at(&buffer, format, length, offset, None);
    let mask = GpuMask::from_bools(gpu, bools).unwrap();
    let out = ops::compact(gpu, &mask, &[v]).unwrap();
    let size = format.byte_length() as usize;
    let expected: Vec<u8> = (0..length as usize)
        .filter(|&r| bools[r])
        .flat_map(|r| {
            let at = offset as usize + r * size;
            bytes[at..at + size].to_vec()
        })
        .collect();
    assert_eq!(out.kept, expected.len() as u64 / size as u64);
    assert_eq!(
        out.columns[0].read_bytes(gpu).unwrap(),
        expected,
        "{length} rows of {format} at offset {offset}"
    );
}

#[test]
fn sub_word_compaction_of_packed_rows() {
    // Packed one- and two-byte rows at 16-byte offsets of buffers sized in 16 bytes (the
    // vector-loading kernel) and of buffers that are not (the general one): every length near
    // a word, a mask word and a block, with random, full, alternating and blocky masks.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(40);
    let formats = [
        VertexFormat::Uint8,
        VertexFormat::Sint8,
        VertexFormat::Uint16,
        VertexFormat::Unorm8x2,
        VertexFormat::Float16,
    ];
    let lengths = [
        1u64,
        3,
        4,
        5,
        31,
        32,
        33,
        100,
        8191,
        8192,
        8193,
        3 * 8192 + 5,
        9 * 8192 + 77,
    ];
    for (i, &length) in lengths.iter().enumerate() {
        for (f, &format) in formats.iter().enumerate() {
            let offset = 16 * ((i + f) as u64 % 3);
            let size = offset + length * format.byte_length();
            let padded = if (i + f) % 4 == 3 {
                size + 4
            } else {
                size.next_multiple_of(16)
            };
            let bytes = rng.bytes(padded as usize);
            let bools: Vec<bool> = match (i + 2 * f) % 4 {
                0 => vec![true; length as usize],
                1 => (0..length).map(|r| r % 2 == 1).collect(),
                2 if length > 4096 => blocky_mask(&mut rng, length),
                _ => {
                    let share = rng.below(101);
                    (0..length).map(|_| rng.below(100) < share).collect()
                }
            };
            check_packed_compaction(&gpu, format, offset, &bytes, &bools);
        }
    }
}

#[test]
fn sub_word_compaction_of_packed_rows_splits_into_runs() {
    // 1 MiB bindings: runs of packed rows, each run's output meeting the next inside a word.
    let gpu = small();
    let mut rng = Rng::new(41);
    for format in [VertexFormat::Uint8, VertexFormat::Uint16] {
        let length = (3 << 20) / format.byte_length() + rng.below(1000);
        let bytes = rng.bytes((length * format.byte_length()).next_multiple_of(16) as usize);
        let bools = blocky_mask(&mut rng, length);
        check_packed_compaction(&gpu, format, 0, &bytes, &bools);
        let share = rng.below(101);
        let bools: Vec<bool> = (0..length).map(|_| rng.below(100) < share).collect();
        check_packed_compaction(&gpu, format, 0, &bytes, &bools);
    }
}

#[test]
fn packed_rows_compact_alike_with_either_kernel() {
    // Without staged outputs packed rows take the general kernel (one invocation per output
    // word, one to four words per step): the same bytes as the packed rows' kernel.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(42);
    for (format, length) in [
        (VertexFormat::Uint8, 5 * 8192 + 77),
        (VertexFormat::Unorm8x2, 3 * 8192 + 1),
        (VertexFormat::Sint16, 1001),
    ] {
        let bools = blocky_mask(&mut rng, length);
        let bytes = rng.bytes((length * format.byte_length()).next_multiple_of(16) as usize);
        let buffer = upload(&gpu, &bytes);
        let v = view_at(&buffer, format, length, 0, None);
        let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
        let packed = ops::compact(&gpu, &mask, &[v]).unwrap();
        let packed = packed.columns[0].read_bytes(&gpu).unwrap();
        for words in [None, Some(1), Some(3), Some(4)] {
            let config = ops::OpsConfig {
                rows_per_thread: words,
                stage_outputs: false,
                ..ops::OpsConfig::default()
            };
            let out = ops::plan_compact(&gpu, &mask, &[v], &config)
                .unwrap()
                .run(&gpu)
                .unwrap();
            assert_eq!(
                out.columns[0].read_bytes(&gpu).unwrap(),
                packed,
                "{format}, {words:?} words"
            );
        }
    }
}
