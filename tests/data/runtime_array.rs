//! Runtime-sized structs on the device: a derived storage struct ending in a `RuntimeArray`
//! (WGSL's `struct Particles { count: u32, items: array<Particle> }`) goes up through
//! `GpuStorage` from a header and a slice of elements; a compute shader that declares gpudata's
//! WGSL text reads `arrayLength` and every leaf of the header and of each element and writes them
//! out as u32 words, which must equal the words of the Rust values (written out by hand here, in
//! the shader's order); writes of the tail range and the header, readbacks of both, and the
//! `min_binding_size` that wgpu and naga require.

use gpudata::GpuStruct;
use gpudata::data::{GpuStorage, Growth, StorageError};
use gpudata::layout::{AddressSpace, StructDecl, TypeDecl};
use gpudata::record::{GpuRuntimeStruct, GpuType, RuntimeArray, encode_runtime};

use crate::support::device::gpu;
use crate::support::probe::compute_capture;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Light {
    position: [f32; 3],
    intensity: f32,
    color: [f32; 4],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Particle {
    #[gpu(wgsl = "mat2x3<f32>")]
    basis: [[f32; 3]; 2],
    velocity: [f32; 3],
    id: u32,
    light: Light,
    tags: [u32; 2],
}

/// The struct: `struct Particles { count: u32, items: array<Particle> }`.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Particles {
    count: u32,
    items: RuntimeArray<Particle>,
}

/// A header of several leaves, a vector among them, before the tail.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Swarm {
    count: u32,
    center: [f32; 3],
    #[gpu(align = 32)]
    items: RuntimeArray<Particle>,
}

/// A tail of vectors whose host bytes are their GPU bytes (one memcpy).
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Samples {
    scale: f32,
    values: RuntimeArray<[f32; 2]>,
}

/// A 2-byte element: WGSL's `f16`.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Half {
    #[gpu(wgsl = "f16")]
    x: half::f16,
}

/// A tail of 2-byte elements.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Halves {
    count: u32,
    values: RuntimeArray<Half>,
}

fn particle(seed: u32) -> Particle {
    let f = |i: u32| (seed * 100 + i) as f32 + 0.5;
    Particle {
        basis: [[f(0), f(1), f(2)], [f(3), f(4), f(5)]],
        velocity: [f(6), f(7), f(8)],
        id: seed * 1000 + 9,
        light: Light {
            position: [f(10), f(11), f(12)],
            intensity: f(13),
            color: [f(14), f(15), f(16), f(17)],
        },
        tags: [seed * 1000 + 18, seed * 1000 + 19],
    }
}

/// Every leaf of a particle as u32 words, in the order of its leaves (`Particle::FORMAT`).
fn particle_words(p: &Particle) -> Vec<u32> {
    let mut words = Vec::new();
    let floats = |words: &mut Vec<u32>, values: &[f32]| {
        words.extend(values.iter().map(|v| v.to_bits()));
    };
    floats(&mut words, &p.basis[0]);
    floats(&mut words, &p.basis[1]);
    floats(&mut words, &p.velocity);
    words.push(p.id);
    floats(&mut words, &p.light.position);
    floats(&mut words, &[p.light.intensity]);
    floats(&mut words, &p.light.color);
    words.extend(p.tags);
    words
}

fn struct_decl<T: GpuType>() -> StructDecl {
    match TypeDecl::from(&T::WGSL) {
        TypeDecl::Struct(s) => s,
        other => panic!("{other:?}"),
    }
}

/// `bitcast<u32>` of every component of the leaves `fields` (names, component counts) under
/// `base`, one `out[...]` store each, counting words from `*word`.
fn stores(base: &str, fields: &[(&str, u32)], word: &mut usize, body: &mut String) {
    for (name, components) in fields {
        let access = format!("{base}.{name}");
        for c in 0..*components {
            let component = if *components == 1 {
                access.clone()
            } else {
                format!("{access}[{c}]")
            };
            body.push_str(&format!("    out[{word}] = bitcast<u32>({component});\n"));
            *word += 1;
        }
    }
}

fn leaves(fields: &[gpudata::layout::GpuDataStructField]) -> Vec<(&str, u32)> {
    fields
        .iter()
        .map(|f| (f.name(), f.format().components()))
        .collect()
}

/// A compute shader declaring `T`'s WGSL (gpudata's text) as `var<storage> v: T`, writing
/// `arrayLength(&v.<tail>)`, the header's leaves and the leaves of elements `0..elements`.
fn probe<T: GpuRuntimeStruct + GpuType>(tail: &str, elements: usize) -> (String, usize) {
    let decl = struct_decl::<T>();
    let mut body = format!("    out[0] = arrayLength(&v.{tail});\n");
    let mut word = 1;
    stores("v", &leaves(T::HEADER_FIELDS), &mut word, &mut body);
    let element = leaves(Particle::FORMAT.fields());
    for i in 0..elements {
        stores(&format!("v.{tail}[{i}]"), &element, &mut word, &mut body);
    }
    let text = format!(
        "{}\n@group(0) @binding(0) var<storage, read> v: {};\n\
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1) fn main() {{\n{body}}}\n",
        decl.wgsl(AddressSpace::Storage).unwrap(),
        decl.name,
    );
    (text, word)
}

fn run_probe<T: GpuRuntimeStruct + GpuType>(
    storage: &GpuStorage<T>,
    tail: &str,
    elements: usize,
) -> (Vec<u32>, String) {
    run_probe_on::<T>(storage.binding(), tail, elements)
}

/// [`run_probe`] over any binding of a `T` value (one a bind group made earlier would hold).
fn run_probe_on<T: GpuRuntimeStruct + GpuType>(
    binding: wgpu::BufferBinding<'_>,
    tail: &str,
    elements: usize,
) -> (Vec<u32>, String) {
    let gpu = gpu();
    let (wgsl, words) = probe::<T>(tail, elements);
    let out = compute_capture(
        &gpu,
        &wgsl,
        vec![GpuStorage::<T>::layout_entry(
            0,
            wgpu::ShaderStages::COMPUTE,
            true,
        )],
        vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(binding),
        }],
        1,
        words as u64,
        1,
    );
    (out, wgsl)
}

/// naga's size of struct `name` in `wgsl` (a runtime-sized array counted with one element).
fn naga_size(wgsl: &str, name: &str) -> u64 {
    let module = naga::front::wgsl::parse_str(wgsl).unwrap();
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some(name))
        .unwrap();
    u64::from(ty.inner.size(module.to_ctx()))
}

#[test]
fn the_layout_has_a_tail_and_naga_agrees() {
    let text = struct_decl::<Particles>()
        .wgsl(AddressSpace::Storage)
        .unwrap();
    assert!(
        text.contains(
            "struct Particles {\n    count: u32, // offset 0\n    items: array<Particle>, // offset 16\n}"
        ),
        "{text}"
    );
    // Particle: mat2x3 at 0 (32 bytes), velocity at 32, id at 44, light at 48 (32 bytes),
    // tags at 80: 88 bytes, stride 96; the tail starts at 16 (Particle aligns to 16).
    assert_eq!(Particles::tail().offset, 16);
    assert_eq!(Particles::tail().stride, 96);
    assert_eq!(Particles::min_binding_size().get(), 112);
    assert_eq!(
        Particles::min_binding_size().get(),
        naga_size(&text, "Particles")
    );
    assert_eq!(Particles::byte_length(0), Some(112));
    assert_eq!(Particles::byte_length(5), Some(16 + 5 * 96));
    assert_eq!(Particles::byte_length(u64::MAX), None);
    let names: Vec<&str> = Particles::HEADER_FIELDS.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["count"]);
    const { assert!(!Particles::ELEMENT_HOST_MATCHES) };
    assert_eq!(Particles::ELEMENT_COPIES.len(), 8);

    let swarm = struct_decl::<Swarm>().wgsl(AddressSpace::Storage).unwrap();
    assert!(
        swarm.contains("@align(32) items: array<Particle>, // offset 32"),
        "{swarm}"
    );
    assert_eq!(Swarm::tail().offset, 32);
    assert_eq!(Swarm::min_binding_size().get(), naga_size(&swarm, "Swarm"));
    let names: Vec<&str> = Swarm::HEADER_FIELDS.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["count", "center"]);
    assert_eq!(Swarm::HEADER_FIELDS[1].byte_offset(), 16);

    let samples = struct_decl::<Samples>()
        .wgsl(AddressSpace::Storage)
        .unwrap();
    assert_eq!((Samples::tail().offset, Samples::tail().stride), (8, 8));
    assert_eq!(Samples::min_binding_size().get(), 16);
    assert_eq!(
        Samples::min_binding_size().get(),
        naga_size(&samples, "Samples")
    );
    const { assert!(Samples::ELEMENT_HOST_MATCHES) };
    // The tail's end is not rounded up to the struct's alignment (8), only to 4.
    assert_eq!(Halves::byte_length(3), Some(12));
    assert_eq!(Halves::byte_length(1), Some(8));
}

#[test]
fn a_compute_shader_reads_the_header_and_every_element() {
    let gpu = gpu();
    for n in [1, 2, 5] {
        let items: Vec<Particle> = (0..n).map(particle).collect();
        let header = Particles {
            count: n + 40,
            items: RuntimeArray::new(),
        };
        let storage = GpuStorage::new(&gpu, &header, &items).unwrap();
        assert_eq!(storage.len(), n as usize);
        assert_eq!(storage.byte_size(), 16 + u64::from(n) * 96);
        let (words, wgsl) = run_probe(&storage, "items", n as usize);
        let mut expected = vec![n, n + 40];
        for item in &items {
            expected.extend(particle_words(item));
        }
        assert_eq!(words, expected, "{wgsl}");
        assert_eq!(storage.read(&gpu).unwrap(), (header, items));
    }
}

#[test]
fn a_header_of_several_leaves_and_an_aligned_tail() {
    let gpu = gpu();
    let items: Vec<Particle> = (3..7).map(particle).collect();
    let header = Swarm {
        count: 4,
        center: [1.5, -2.5, 3.5],
        items: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &items).unwrap();
    let (words, wgsl) = run_probe(&storage, "items", items.len());
    let mut expected = vec![
        4,
        4,
        1.5f32.to_bits(),
        (-2.5f32).to_bits(),
        3.5f32.to_bits(),
    ];
    for item in &items {
        expected.extend(particle_words(item));
    }
    assert_eq!(words, expected, "{wgsl}");
}

/// Every `GpuStorage` call that takes a `Gpu` refuses another device's, before touching the
/// buffer.
#[test]
fn storage_refuses_another_devices_gpu() {
    use crate::support::{assert_other_device, other_gpu};
    let gpu = gpu();
    let other = other_gpu();
    let header = Particles {
        count: 2,
        items: RuntimeArray::new(),
    };
    let items = [particle(0), particle(1)];
    let mut storage = GpuStorage::new(&gpu, &header, &items).unwrap();
    let refused = |error: StorageError, operation: &str| {
        let StorageError::Gpu(error) = error else {
            panic!("expected StorageError::Gpu for `{operation}`, found {error:?}");
        };
        assert_other_device(&error, operation);
    };
    refused(
        storage.read(&other).unwrap_err(),
        "read back a runtime-sized storage struct",
    );
    refused(
        storage.read_elements(&other, 0, 1).unwrap_err(),
        "read back a runtime-sized storage struct",
    );
    refused(
        storage.write_header(&other, &header).unwrap_err(),
        "write a storage buffer",
    );
    refused(
        storage
            .write_elements(&other, 0, &[particle(5)])
            .unwrap_err(),
        "write a storage buffer",
    );
    refused(
        storage.reserve(&other, 10).unwrap_err(),
        "grow a storage buffer",
    );
    refused(
        storage.extend(&other, &[particle(5)]).unwrap_err(),
        "grow a storage buffer",
    );
    assert_eq!(storage.read(&gpu).unwrap(), (header, items.to_vec()));
}

#[test]
fn an_empty_tail_binds_as_one_zeroed_element() {
    let gpu = gpu();
    let header = Particles {
        count: 0,
        items: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &[]).unwrap();
    assert!(storage.is_empty());
    assert_eq!(storage.byte_size(), 112);
    let (words, wgsl) = run_probe(&storage, "items", 1);
    let mut expected = vec![1, 0];
    expected.extend([0; 20]);
    assert_eq!(words, expected, "{wgsl}");
    assert_eq!(storage.read(&gpu).unwrap(), (header, Vec::new()));
}

#[test]
fn writes_of_the_tail_range_and_the_header_reach_the_shader() {
    let gpu = gpu();
    let mut items: Vec<Particle> = (0..6).map(particle).collect();
    let mut header = Particles {
        count: 6,
        items: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &items).unwrap();
    let replaced = [particle(20), particle(21)];
    storage.write_elements(&gpu, 3, &replaced).unwrap();
    items[3..5].copy_from_slice(&replaced);
    header.count = 77;
    storage.write_header(&gpu, &header).unwrap();
    assert_eq!(storage.read_elements(&gpu, 2, 3).unwrap(), items[2..5]);
    assert_eq!(storage.read_elements(&gpu, 6, 0).unwrap(), []);
    assert_eq!(storage.read(&gpu).unwrap(), (header, items.clone()));
    let (words, wgsl) = run_probe(&storage, "items", items.len());
    let mut expected = vec![6, 77];
    for item in &items {
        expected.extend(particle_words(item));
    }
    assert_eq!(words, expected, "{wgsl}");

    // The memcpy path of the elements, and a header that shares no word with the tail.
    let values = [[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let header = Samples {
        scale: 0.25,
        values: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &values).unwrap();
    storage.write_elements(&gpu, 2, &[[7.0, 8.0]]).unwrap();
    let bytes = encode_runtime(&header, &values).unwrap();
    assert_eq!(bytes.len(), 32);
    assert_eq!(
        storage.read(&gpu).unwrap(),
        (header, vec![[1.0, 2.0], [3.0, 4.0], [7.0, 8.0]])
    );
}

#[test]
fn two_byte_elements_are_written_in_pairs() {
    use half::f16;
    let gpu = gpu();
    let half = |v: f32| Half {
        x: f16::from_f32(v),
    };
    let values: Vec<Half> = (0..5).map(|i| half(i as f32)).collect();
    let header = Halves {
        count: 5,
        values: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &values).unwrap();
    assert_eq!(storage.byte_size(), 16);
    assert_eq!(storage.read(&gpu).unwrap(), (header, values.clone()));
    let e = storage.write_elements(&gpu, 1, &[half(1.0)]).unwrap_err();
    assert_eq!(
        e,
        StorageError::UnalignedElements {
            first: 1,
            count: 1,
            stride: 2,
            offset: 6
        }
    );
    assert_eq!(
        e.to_string(),
        "elements 1..2 of 2 bytes cover bytes 6..8, which do not start and end on multiples of 4; write an even number of elements from an even index"
    );
    storage
        .write_elements(&gpu, 2, &[half(9.0), half(10.0)])
        .unwrap();
    assert_eq!(
        storage.read_elements(&gpu, 1, 3).unwrap(),
        [1.0, 9.0, 10.0].map(half)
    );
    // The header ends inside the word element 0 shares when it is two bytes long.
    assert_eq!(Halves::tail().offset, 4);
}

#[test]
fn storage_errors() {
    let gpu = gpu();
    let header = Particles {
        count: 2,
        items: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &[particle(1), particle(2)]).unwrap();
    let e = storage
        .write_elements(&gpu, 1, &[particle(3), particle(4)])
        .unwrap_err();
    assert_eq!(
        e,
        StorageError::ElementsOutOfRange {
            first: 1,
            count: 2,
            len: 2
        }
    );
    assert_eq!(
        e.to_string(),
        "elements 1..3 do not exist: the tail has 2 elements"
    );
    assert!(matches!(
        storage.read_elements(&gpu, usize::MAX, 2),
        Err(StorageError::ElementsOutOfRange { .. })
    ));
    let small = crate::support::device::limited_gpu("small storage", |limits| {
        limits.max_storage_buffer_binding_size = 256;
    });
    let items = vec![particle(0); 3];
    let e = GpuStorage::new(&small, &header, &items).unwrap_err();
    assert_eq!(
        e,
        StorageError::TooLarge {
            size: 16 + 3 * 96,
            limit: 256
        }
    );
    assert_eq!(
        e.to_string(),
        "a storage buffer of 304 bytes exceeds the device's max_storage_buffer_binding_size of 256 bytes"
    );
    assert_eq!(
        StorageError::SizeOverflow {
            elements: u64::MAX,
            stride: 96
        }
        .to_string(),
        "a runtime-sized struct with 18446744073709551615 elements of 96 bytes overflows u64"
    );
    assert_eq!(
        StorageError::Readback {
            expected: 112,
            found: 16
        }
        .to_string(),
        "storage readback of 16 bytes does not hold 112 bytes"
    );
    let lost = gpudata::error::GpuError::EmptyUsage;
    assert_eq!(
        StorageError::Gpu(lost.clone()).to_string(),
        lost.to_string()
    );
}

/// A header of one 2-byte leaf: the tail starts inside the header's word.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct HalfHeader {
    scale: Half,
    values: RuntimeArray<Half>,
}

/// No header at all: `struct Bare { items: array<Particle> }`.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Bare {
    #[gpu(name = "elements")]
    items: RuntimeArray<Particle>,
}

/// A nested struct in the header.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Meta {
    count: u32,
    #[gpu(wgsl = "mat2x2<f32>")]
    frame: [[f32; 2]; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Framed {
    info: Meta,
    items: RuntimeArray<Particle>,
}

#[test]
fn a_header_write_keeps_the_tail_bytes_it_shares_a_word_with() {
    use half::f16;
    let gpu = gpu();
    let half = |v: f32| Half {
        x: f16::from_f32(v),
    };
    assert_eq!(
        (HalfHeader::tail().offset, HalfHeader::tail().stride),
        (2, 2)
    );
    let values: Vec<Half> = [1.0, 2.0, 3.0].map(half).to_vec();
    let storage = GpuStorage::new(
        &gpu,
        &HalfHeader {
            scale: half(0.5),
            values: RuntimeArray::new(),
        },
        &values,
    )
    .unwrap();
    assert_eq!(storage.byte_size(), 8);
    let header = HalfHeader {
        scale: half(7.0),
        values: RuntimeArray::new(),
    };
    storage.write_header(&gpu, &header).unwrap();
    assert_eq!(storage.read(&gpu).unwrap(), (header, values));
}

#[test]
fn a_bare_tail_and_a_nested_header_reach_the_shader() {
    let gpu = gpu();
    let bare = struct_decl::<Bare>().wgsl(AddressSpace::Storage).unwrap();
    assert!(
        bare.contains("elements: array<Particle>, // offset 0"),
        "{bare}"
    );
    assert_eq!(Bare::tail().offset, 0);
    assert!(Bare::HEADER_FIELDS.is_empty());
    assert_eq!(Bare::min_binding_size().get(), naga_size(&bare, "Bare"));
    let items: Vec<Particle> = (0..3).map(particle).collect();
    let storage = GpuStorage::new(
        &gpu,
        &Bare {
            items: RuntimeArray::new(),
        },
        &items,
    )
    .unwrap();
    let (words, wgsl) = run_probe(&storage, "elements", items.len());
    let mut expected = vec![3];
    for item in &items {
        expected.extend(particle_words(item));
    }
    assert_eq!(words, expected, "{wgsl}");

    // info: count at 0, frame (mat2x2, 8-aligned) at 8, 24 bytes; the tail at 32.
    let names: Vec<&str> = Framed::HEADER_FIELDS.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["info.count", "info.frame[0]", "info.frame[1]"]);
    assert_eq!(Framed::tail().offset, 32);
    let header = Framed {
        info: Meta {
            count: 2,
            frame: [[1.0, 2.0], [3.0, 4.0]],
        },
        items: RuntimeArray::new(),
    };
    let storage = GpuStorage::new(&gpu, &header, &items[..2]).unwrap();
    let (words, wgsl) = run_probe(&storage, "items", 2);
    let mut expected = vec![2, 2];
    expected.extend([1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits));
    for item in &items[..2] {
        expected.extend(particle_words(item));
    }
    assert_eq!(words, expected, "{wgsl}");
    assert_eq!(storage.read(&gpu).unwrap(), (header, items[..2].to_vec()));
}

#[test]
fn the_tail_grows_like_a_vec_and_the_shader_sees_each_length() {
    let gpu = gpu();
    let header = Particles {
        count: 7,
        items: RuntimeArray::new(),
    };
    let all: Vec<Particle> = (0..7).map(particle).collect();
    let mut storage = GpuStorage::with_capacity(&gpu, &header, &all[..1], 2).unwrap();
    assert_eq!((storage.len(), storage.capacity()), (1, 2));
    assert_eq!(storage.buffer().size(), 16 + 2 * 96);
    // Within the capacity: the same buffer.
    let first = storage.buffer().clone();
    assert_eq!(storage.extend(&gpu, &all[1..2]).unwrap(), Growth::InPlace);
    assert_eq!(storage.buffer(), &first);
    // Past it: twice the capacity, then exactly what is asked when more is needed.
    assert_eq!(storage.extend(&gpu, &all[2..3]).unwrap(), Growth::Moved);
    assert_eq!(storage.capacity(), 4);
    assert_ne!(storage.buffer(), &first);
    assert_eq!(storage.extend(&gpu, &all[3..7]).unwrap(), Growth::Moved);
    assert_eq!((storage.len(), storage.capacity()), (7, 8));
    assert_eq!(storage.byte_size(), 16 + 7 * 96);
    assert_eq!(storage.read(&gpu).unwrap(), (header, all.clone()));
    let expected = |n: usize| {
        let mut words = vec![n as u32, 7];
        for item in &all[..n] {
            words.extend(particle_words(item));
        }
        words
    };
    let (words, wgsl) = run_probe(&storage, "items", 7);
    assert_eq!(words, expected(7), "{wgsl}");
    // Truncated, the binding and `arrayLength` shrink; the next elements overwrite old ones.
    storage.truncate(3);
    let (words, wgsl) = run_probe(&storage, "items", 3);
    assert_eq!(words, expected(3), "{wgsl}");
    let again = [particle(40)];
    assert_eq!(storage.extend(&gpu, &again).unwrap(), Growth::InPlace);
    assert_eq!(storage.capacity(), 8);
    assert_eq!(storage.read_elements(&gpu, 3, 1).unwrap(), again);
    assert_eq!(storage.read(&gpu).unwrap().1.len(), 4);
}

/// Growth is never silent: `extend` says the value moved (`Growth::Moved`, `#[must_use]`) and
/// `generation` changes with every change of the binding, while a binding made before the move
/// (what a bind group made then holds) still reads the old buffer and the old value.
#[test]
fn a_move_is_reported_and_a_binding_made_before_reads_the_old_value() {
    let gpu = gpu();
    let header = Particles {
        count: 3,
        items: RuntimeArray::new(),
    };
    let all: Vec<Particle> = (0..3).map(particle).collect();
    let mut storage = GpuStorage::with_capacity(&gpu, &header, &all[..2], 2).unwrap();
    let made_at = storage.generation();
    let (old, old_size) = (storage.buffer().clone(), storage.byte_size());
    // Nothing to do: the binding is the same.
    assert_eq!(storage.reserve(&gpu, 0).unwrap(), Growth::InPlace);
    storage.truncate(5);
    assert_eq!(storage.generation(), made_at);
    // Past the capacity: moved, and said so.
    let growth = storage.extend(&gpu, &all[2..3]).unwrap();
    assert!(growth.moved());
    assert_ne!(storage.generation(), made_at);
    storage.write_elements(&gpu, 0, &[particle(50)]).unwrap();
    let words = |n: usize, items: &[Particle]| {
        let mut words = vec![n as u32, 3];
        for item in items {
            words.extend(particle_words(item));
        }
        words
    };
    // A binding of the old buffer: two elements, the old first one.
    let stale = wgpu::BufferBinding {
        buffer: &old,
        offset: 0,
        size: std::num::NonZeroU64::new(old_size),
    };
    let (found, wgsl) = run_probe_on::<Particles>(stale, "items", 2);
    assert_eq!(found, words(2, &all[..2]), "{wgsl}");
    // The binding made again: three elements, the new first one.
    let (found, wgsl) = run_probe(&storage, "items", 3);
    assert_eq!(found, words(3, &[particle(50), all[1], all[2]]), "{wgsl}");
    // Shorter: the binding changes again.
    let before = storage.generation();
    storage.truncate(1);
    assert_ne!(storage.generation(), before);
}

#[test]
fn two_byte_elements_extend_inside_a_word() {
    use half::f16;
    let gpu = gpu();
    let half = |v: f32| Half {
        x: f16::from_f32(v),
    };
    let header = Halves {
        count: 9,
        values: RuntimeArray::new(),
    };
    let mut values: Vec<Half> = (0..3).map(|i| half(i as f32)).collect();
    let mut storage = GpuStorage::new(&gpu, &header, &values).unwrap();
    // Element 3 starts at byte 10, inside the word element 2 ends in; then aligned, then odd.
    let growths = [Growth::Moved, Growth::InPlace, Growth::Moved];
    for (extra, growth) in [vec![half(3.0)], vec![half(4.0), half(5.0)], vec![half(6.0)]]
        .into_iter()
        .zip(growths)
    {
        assert_eq!(storage.extend(&gpu, &extra).unwrap(), growth);
        values.extend(extra);
        assert_eq!(storage.read(&gpu).unwrap(), (header, values.clone()));
    }
    assert_eq!(storage.len(), 7);
}

#[test]
fn growth_stays_within_the_binding_limit() {
    let small = crate::support::device::limited_gpu("small storage", |limits| {
        limits.max_storage_buffer_binding_size = 16 + 3 * 96;
    });
    let header = Particles {
        count: 0,
        items: RuntimeArray::new(),
    };
    let mut storage = GpuStorage::new(&small, &header, &[particle(0), particle(1)]).unwrap();
    // Twice the capacity (4) would not bind; exactly the 3 needed do.
    assert_eq!(
        storage.extend(&small, &[particle(2)]).unwrap(),
        Growth::Moved
    );
    assert_eq!((storage.len(), storage.capacity()), (3, 3));
    let e = storage.extend(&small, &[particle(3)]).unwrap_err();
    assert_eq!(
        e,
        StorageError::TooLarge {
            size: 16 + 4 * 96,
            limit: 16 + 3 * 96
        }
    );
    // Refused growth leaves the value as it was.
    assert_eq!(
        storage.read(&small).unwrap().1,
        [particle(0), particle(1), particle(2)]
    );
}
