//! Host encoding of 1M rows (no GPU): `gpudata::record::encode_rows` on a zero-copy struct
//! against a plain `memcpy` of the same bytes, and on a padded wgsl-storage struct (the
//! derive's per-field encoder) against encase 0.13 writing the same data into the same layout.
//!
//! The nested groups do the same on a struct with a `mat4x4<f32>`, a `vec3<f32>` and a nested
//! struct (issue 14).
//!
//! ```text
//! cargo bench --bench encode
//! ```
//!
//! `gpudata_encode_rows` is `encode_rows` as users call it: above 4 MiB of output it splits the
//! rows over the machine's threads (at most 8); `gpudata_encode_rows_1_thread` is the same
//! encoder on the calling thread only (`encode_rows_on(.., 1)`), the like-for-like comparison
//! with encase, which is single-threaded.
//!
//! Before timing, the bench checks that every method produces identical bytes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use encase::{ShaderType, StorageBuffer};
use gpudata::record::{encode_rows, encode_rows_on, rows_as_bytes};
use gpudata::{GpuStruct, Unorm8x4};

const ROWS: usize = 1_000_000;

/// Host layout = GPU layout (packed): `encode_rows` is one memcpy.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Vertex {
    position: [f32; 3],
    color: Unorm8x4,
    uv: [f32; 2],
    id: u32,
    weight: f32,
}

/// wgsl-storage: `position` moves to byte 16, `uv` to 40, and rows pad to 64 bytes, so the
/// derive's per-field encoder writes each field at its offset and zeroes the gaps (bytes 4..16,
/// 36..40 and 60..64).
#[derive(Clone, Copy, GpuStruct)]
struct Particle {
    mass: f32,
    position: [f32; 3],
    age: f32,
    id: u32,
    flags: u32,
    seed: u32,
    life: f32,
    uv: [f32; 2],
    size: f32,
    angle: f32,
    spin: f32,
}

/// encase's vector types for the same WGSL struct.
#[derive(Clone, Copy)]
struct Vec2([f32; 2]);
#[derive(Clone, Copy)]
struct Vec3([f32; 3]);

macro_rules! encase_vector {
    ($name:ident, $n:literal) => {
        impl AsRef<[f32; $n]> for $name {
            fn as_ref(&self) -> &[f32; $n] {
                &self.0
            }
        }
        impl AsMut<[f32; $n]> for $name {
            fn as_mut(&mut self) -> &mut [f32; $n] {
                &mut self.0
            }
        }
        impl From<[f32; $n]> for $name {
            fn from(v: [f32; $n]) -> Self {
                $name(v)
            }
        }
        encase::impl_vector!($n, $name, f32; using AsRef AsMut From);
    };
}
encase_vector!(Vec2, 2);
encase_vector!(Vec3, 3);

/// The same WGSL struct for encase: `struct Particle { mass: f32, position: vec3<f32>, age: f32,
/// id: u32, flags: u32, seed: u32, life: f32, uv: vec2<f32>, size: f32, angle: f32, spin: f32 }`.
#[derive(Clone, Copy, ShaderType)]
struct EncaseParticle {
    mass: f32,
    position: Vec3,
    age: f32,
    id: u32,
    flags: u32,
    seed: u32,
    life: f32,
    uv: Vec2,
    size: f32,
    angle: f32,
    spin: f32,
}

#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    reason = "bench data: any value will do"
)]
fn vertices() -> Vec<Vertex> {
    (0..ROWS)
        .map(|i| Vertex {
            position: [i as f32, 1.0, 2.0],
            color: Unorm8x4([i as u8, 2, 3, 4]),
            uv: [0.5, i as f32],
            id: i as u32,
            weight: 0.25,
        })
        .collect()
}

#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    reason = "bench data: any value will do"
)]
fn particles() -> Vec<Particle> {
    (0..ROWS)
        .map(|i| Particle {
            mass: 1.5,
            position: [i as f32, 1.0, 2.0],
            age: 0.25,
            id: i as u32,
            flags: 7,
            seed: (i as u32).wrapping_mul(2_654_435_761),
            life: 3.0,
            uv: [0.5, i as f32],
            size: 2.0,
            angle: 0.125,
            spin: -1.0,
        })
        .collect()
}

fn encase_write(rows: &[EncaseParticle], dst: &mut [u8]) {
    let mut buffer = StorageBuffer::new(dst);
    buffer.write(rows).expect("destination is large enough");
}

fn host_encoding(c: &mut Criterion) {
    // Zero-copy path against a plain memcpy of the same bytes.
    let rows = vertices();
    let source = rows_as_bytes(&rows).expect("zero-copy").to_vec();
    let mut dst = vec![0u8; source.len()];
    encode_rows(&rows, &mut dst).unwrap();
    assert!(dst == source, "encode_rows must copy the rows' bytes");

    let mut group = c.benchmark_group("encode_zero_copy");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.bench_function(BenchmarkId::new("memcpy", ROWS), |b| {
        b.iter(|| dst.copy_from_slice(black_box(&source)));
    });
    group.bench_function(BenchmarkId::new("gpudata_encode_rows", ROWS), |b| {
        b.iter(|| encode_rows(black_box(&rows), &mut dst).unwrap());
    });
    group.finish();

    // Per-field encoder on a padded wgsl-storage struct against encase.
    let rows = particles();
    let encase_rows: Vec<EncaseParticle> = rows
        .iter()
        .map(|p| EncaseParticle {
            mass: p.mass,
            position: Vec3(p.position),
            age: p.age,
            id: p.id,
            flags: p.flags,
            seed: p.seed,
            life: p.life,
            uv: Vec2(p.uv),
            size: p.size,
            angle: p.angle,
            spin: p.spin,
        })
        .collect();
    let stride = usize::try_from(Particle::FORMAT.byte_stride()).unwrap();
    assert_eq!(stride as u64, EncaseParticle::min_size().get());
    const { assert!(!Particle::HOST_LAYOUT_MATCHES) };
    // encase leaves padding bytes as they were (gpudata zeroes them), so both start zeroed.
    let mut ours = vec![0u8; ROWS * stride];
    let mut theirs = vec![0u8; ROWS * stride];
    encode_rows(&rows, &mut ours).unwrap();
    encase_write(&encase_rows, &mut theirs);
    assert!(
        ours == theirs,
        "gpudata and encase must write the same bytes"
    );
    let mut single = vec![0xAAu8; ROWS * stride];
    encode_rows_on(&rows, &mut single, 1).unwrap();
    assert!(single == theirs, "one thread must write the same bytes");
    drop(single);

    let mut group = c.benchmark_group("encode_padded_storage");
    group.throughput(Throughput::Bytes((ROWS * stride) as u64));
    // The encoder on the calling thread only (encase is single-threaded), measured before the
    // threaded case so that it does not start from caches the threads filled.
    group.bench_function(
        BenchmarkId::new("gpudata_encode_rows_1_thread", ROWS),
        |b| {
            b.iter(|| encode_rows_on(black_box(&rows), &mut ours, 1).unwrap());
        },
    );
    // `encode_rows` as users call it: 4 MiB and more split over the machine's threads.
    group.bench_function(BenchmarkId::new("gpudata_encode_rows", ROWS), |b| {
        b.iter(|| encode_rows(black_box(&rows), &mut ours).unwrap());
    });
    // The same encoder row by row with plain stores (what `encode_rows` does below 4 MiB, on
    // other architectures, or into a destination that is not 16-byte aligned).
    group.bench_function(BenchmarkId::new("gpudata_encode_row_loop", ROWS), |b| {
        b.iter(|| {
            for (row, out) in black_box(&rows).iter().zip(ours.chunks_exact_mut(stride)) {
                row.encode_row(out);
            }
        });
    });
    // `encode_rows` in calls of under 4 MiB each: the same per-row code on one thread with plain
    // stores instead of streaming ones (whether streaming pays depends on the machine's caches).
    group.bench_function(
        BenchmarkId::new("gpudata_encode_rows_plain_stores", ROWS),
        |b| {
            b.iter(|| encode_in_small_calls(black_box(&rows), &mut ours, stride));
        },
    );
    group.bench_function(BenchmarkId::new("encase_storage_buffer_write", ROWS), |b| {
        b.iter(|| encase_write(black_box(&encase_rows), &mut theirs));
    });
    group.finish();
}

/// `encode_rows` over `rows` in calls whose outputs stay under 4 MiB (its streaming and
/// threading threshold): one thread, plain stores.
fn encode_in_small_calls<T: GpuStruct>(rows: &[T], dst: &mut [u8], stride: usize) {
    let per_call = ((4 << 20) - 1) / stride;
    for (rows, out) in rows.chunks(per_call).zip(dst.chunks_mut(per_call * stride)) {
        encode_rows(rows, out).unwrap();
    }
}

/// A nested material (16 bytes, its host layout is its GPU layout).
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Material {
    color: [f32; 3],
    roughness: f32,
}

/// Zero-copy nested row: `mat4x4<f32>`, `vec3<f32>`, a scalar, a nested struct (96 bytes).
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Instance {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    position: [f32; 3],
    scale: f32,
    material: Material,
}

/// The encoder path on a nested row: `mass` first puts the matrix at 16, the vec3 at 80 and the
/// material at 96 (112 bytes), so the row is encoded leaf by leaf.
#[derive(Clone, Copy, GpuStruct)]
struct Body {
    mass: f32,
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    position: [f32; 3],
    material: Material,
}

/// encase's matrix type for the same WGSL struct.
#[derive(Clone, Copy)]
struct Mat4([[f32; 4]; 4]);

impl AsRef<[[f32; 4]; 4]> for Mat4 {
    fn as_ref(&self) -> &[[f32; 4]; 4] {
        &self.0
    }
}
impl AsMut<[[f32; 4]; 4]> for Mat4 {
    fn as_mut(&mut self) -> &mut [[f32; 4]; 4] {
        &mut self.0
    }
}
impl From<[[f32; 4]; 4]> for Mat4 {
    fn from(m: [[f32; 4]; 4]) -> Self {
        Mat4(m)
    }
}
encase::impl_matrix!(4, 4, Mat4, f32; using AsRef AsMut From);

/// `struct Material { color: vec3<f32>, roughness: f32 }` for encase.
#[derive(Clone, Copy, ShaderType)]
struct EncaseMaterial {
    color: Vec3,
    roughness: f32,
}

/// `struct Body { mass: f32, transform: mat4x4<f32>, position: vec3<f32>, material: Material }`
/// for encase.
#[derive(Clone, Copy, ShaderType)]
struct EncaseBody {
    mass: f32,
    transform: Mat4,
    position: Vec3,
    material: EncaseMaterial,
}

#[allow(clippy::cast_precision_loss, reason = "bench data: any value will do")]
fn matrix(i: usize) -> [[f32; 4]; 4] {
    let f = i as f32;
    [
        [f, 1.0, 2.0, 3.0],
        [4.0, f, 6.0, 7.0],
        [8.0, 9.0, f, 11.0],
        [12.0, 13.0, 14.0, 1.0],
    ]
}

#[allow(clippy::cast_precision_loss, reason = "bench data: any value will do")]
fn nested_encoding(c: &mut Criterion) {
    let material = |i: usize| Material {
        color: [0.5, i as f32, 0.25],
        roughness: 0.75,
    };
    // Zero-copy path against a plain memcpy of the same bytes.
    let instances: Vec<Instance> = (0..ROWS)
        .map(|i| Instance {
            transform: matrix(i),
            position: [i as f32, 1.0, 2.0],
            scale: 1.5,
            material: material(i),
        })
        .collect();
    let source = rows_as_bytes(&instances).expect("zero-copy").to_vec();
    let mut dst = vec![0u8; source.len()];
    encode_rows(&instances, &mut dst).unwrap();
    assert!(dst == source, "encode_rows must copy the rows' bytes");
    let mut group = c.benchmark_group("encode_nested_zero_copy");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.bench_function(BenchmarkId::new("memcpy", ROWS), |b| {
        b.iter(|| dst.copy_from_slice(black_box(&source)));
    });
    group.bench_function(BenchmarkId::new("gpudata_encode_rows", ROWS), |b| {
        b.iter(|| encode_rows(black_box(&instances), &mut dst).unwrap());
    });
    group.finish();

    // Leaf-by-leaf encoder against encase on the same nested struct.
    let bodies: Vec<Body> = (0..ROWS)
        .map(|i| Body {
            mass: 2.0,
            transform: matrix(i),
            position: [i as f32, 1.0, 2.0],
            material: material(i),
        })
        .collect();
    let encase_bodies: Vec<EncaseBody> = bodies
        .iter()
        .map(|b| EncaseBody {
            mass: b.mass,
            transform: Mat4(b.transform),
            position: Vec3(b.position),
            material: EncaseMaterial {
                color: Vec3(b.material.color),
                roughness: b.material.roughness,
            },
        })
        .collect();
    let stride = usize::try_from(Body::FORMAT.byte_stride()).unwrap();
    assert_eq!(stride as u64, EncaseBody::min_size().get());
    const { assert!(!Body::HOST_LAYOUT_MATCHES) };
    let mut ours = vec![0u8; ROWS * stride];
    let mut theirs = vec![0u8; ROWS * stride];
    encode_rows(&bodies, &mut ours).unwrap();
    let mut buffer = StorageBuffer::new(&mut theirs);
    buffer
        .write(&encase_bodies)
        .expect("destination is large enough");
    assert!(
        ours == theirs,
        "gpudata and encase must write the same bytes"
    );
    let mut single = vec![0xAAu8; ROWS * stride];
    encode_rows_on(&bodies, &mut single, 1).unwrap();
    assert!(single == theirs, "one thread must write the same bytes");
    drop(single);
    let mut group = c.benchmark_group("encode_nested_storage");
    group.throughput(Throughput::Bytes((ROWS * stride) as u64));
    // The encoder on the calling thread only (encase is single-threaded), measured before the
    // threaded case so that it does not start from caches the threads filled.
    group.bench_function(
        BenchmarkId::new("gpudata_encode_rows_1_thread", ROWS),
        |b| {
            b.iter(|| encode_rows_on(black_box(&bodies), &mut ours, 1).unwrap());
        },
    );
    // `encode_rows` as users call it: 4 MiB and more split over the machine's threads.
    group.bench_function(BenchmarkId::new("gpudata_encode_rows", ROWS), |b| {
        b.iter(|| encode_rows(black_box(&bodies), &mut ours).unwrap());
    });
    group.bench_function(
        BenchmarkId::new("gpudata_encode_rows_plain_stores", ROWS),
        |b| {
            b.iter(|| encode_in_small_calls(black_box(&bodies), &mut ours, stride));
        },
    );
    group.bench_function(BenchmarkId::new("encase_storage_buffer_write", ROWS), |b| {
        b.iter(|| {
            let mut buffer = StorageBuffer::new(&mut theirs);
            buffer
                .write(black_box(&encase_bodies))
                .expect("destination is large enough");
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    targets = host_encoding, nested_encoding
}
criterion_main!(benches);
