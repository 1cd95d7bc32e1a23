//! The bench's own kernels: the copy kernels ops are measured against, and the fill that gives
//! every input random contents on the GPU (no gigabytes through the host, no zeros).

use wgpu::util::DeviceExt as _;

/// A compute pipeline with its bind group and dispatch shape, recorded as often as needed.
pub struct Kernel {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    workgroups: (u32, u32),
}

impl Kernel {
    /// Records the dispatch.
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.workgroups.0, self.workgroups.1, 1);
    }
}

fn grid(device: &wgpu::Device, threads: u64, workgroup: u32) -> Result<(u32, u32), String> {
    let groups = threads.div_ceil(u64::from(workgroup));
    let max = u64::from(device.limits().max_compute_workgroups_per_dimension);
    let x = groups.clamp(1, max);
    let y = groups.div_ceil(x);
    if y > max {
        return Err(format!("{groups} workgroups do not fit a 2D dispatch"));
    }
    Ok((x as u32, y as u32))
}

fn build(
    device: &wgpu::Device,
    wgsl: &str,
    buffers: &[wgpu::BufferBinding<'_>],
    params: [u32; 4],
    workgroups: (u32, u32),
) -> Kernel {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("gpubench kernel"),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("gpubench kernel"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("gpubench params"),
        contents: &params
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let mut entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: wgpu::BindingResource::Buffer(b.clone()),
        })
        .collect();
    entries.push(wgpu::BindGroupEntry {
        binding: buffers.len() as u32,
        resource: uniform.as_entire_binding(),
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpubench kernel"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    Kernel {
        pipeline,
        bind_group,
        workgroups,
    }
}

/// All of `buffer`.
fn whole(buffer: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: None,
    }
}

const INDEX: &str = "let i = (wid.y * nwg.x + wid.x) * WGu + lid;";
const ARGS: &str = "@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32";

/// `dst[i] = src[i]` over `bytes` bytes, in elements of `element` (`u32`, `vec2<u32>`,
/// `vec4<u32>`), `workgroup` invocations wide.
pub fn copy(
    device: &wgpu::Device,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    bytes: u64,
    element: &str,
    workgroup: u32,
) -> Result<Kernel, String> {
    let size = match element {
        "u32" => 4,
        "vec2<u32>" => 8,
        _ => 16,
    };
    let n = bytes / size;
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read> src: array<{element}>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<{element}>;\n\
         @group(0) @binding(2) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(WG) fn main({ARGS}) {{\n\
             {INDEX}\n\
             if (i >= p.x) {{ return; }}\n\
             dst[i] = src[i];\n\
         }}\n"
    )
    .replace("WG", &workgroup.to_string());
    let n32 = u32::try_from(n).map_err(|_| format!("{n} elements do not fit u32"))?;
    Ok(build(
        device,
        &wgsl,
        &[whole(src), whole(dst)],
        [n32, 0, 0, 0],
        grid(device, n, workgroup)?,
    ))
}

/// A kernel of `wgsl`'s `main` with `buffers` bound whole as bindings 0.. and `params` in a
/// uniform after them, over `threads` invocations in workgroups of 256.
pub fn custom(
    device: &wgpu::Device,
    wgsl: &str,
    buffers: &[&wgpu::Buffer],
    params: [u32; 4],
    threads: u64,
) -> Result<Kernel, String> {
    let bindings: Vec<wgpu::BufferBinding<'_>> = buffers.iter().map(|b| whole(b)).collect();
    Ok(build(
        device,
        wgsl,
        &bindings,
        params,
        grid(device, threads, 256)?,
    ))
}

/// What [`fill`] writes in each 32-bit word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Hashed bits.
    Bits,
    /// `f32` values in `[1, 2)` with random mantissas.
    UnitF32,
    /// Pairs of finite `f16` values of magnitude below 2 (no NaN, whose payloads the GPU's
    /// arithmetic need not keep as the CPU does).
    F16,
    /// Doubles of magnitudes 2^-63 to 2^64 with random significands and signs (every second
    /// word is a high word).
    F64,
    /// Doubles of magnitudes 2^-127 to 2^129: a fifth with a low part below f32's normal range,
    /// one in 256 with a high part below it (`fround`'s general path), one in 256 past f32's
    /// largest value.
    F64Wide,
}

/// Fills `buffer` (a multiple of 4 bytes) with pseudo-random words from `seed`, one dispatch
/// per window of at most `max_storage_buffer_binding_size` bytes.
pub fn fill(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    seed: u32,
    kind: Fill,
) -> Result<(), String> {
    let value = match kind {
        Fill::Bits => "h",
        Fill::UnitF32 => "(h & 0x007fffffu) | 0x3f800000u",
        Fill::F16 => "h & 0xbbffbbffu",
        Fill::F64 => {
            "select(h, (h & 0x800fffffu) | ((0x3c0u + (h >> 25u)) << 20u), (i & 1u) == 1u)"
        }
        Fill::F64Wide => {
            "select(h, (h & 0x800fffffu) | ((0x380u + (h >> 24u)) << 20u), (i & 1u) == 1u)"
        }
    };
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\
         @group(0) @binding(1) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(WG) fn main({ARGS}) {{\n\
             {INDEX}\n\
             if (i >= p.x) {{ return; }}\n\
             var h = (i + p.z + p.y) * 0x9e3779b9u;\n\
             h = (h ^ (h >> 16u)) * 0x7feb352du;\n\
             h = (h ^ (h >> 15u)) * 0x846ca68bu;\n\
             h = h ^ (h >> 16u);\n\
             buf[i] = {value};\n\
         }}\n"
    )
    .replace("WG", "256");
    let limits = device.limits();
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(4);
    let window = (limits.max_storage_buffer_binding_size.min(1 << 31) / align * align).max(align);
    let mut kernels = Vec::new();
    let mut offset = 0;
    while offset < buffer.size() {
        let size = window.min(buffer.size() - offset);
        let (n, base) = (size / 4, offset / 4);
        let n32 = u32::try_from(n).map_err(|_| format!("{n} words do not fit u32"))?;
        let base32 = u32::try_from(base).map_err(|_| format!("word {base} does not fit u32"))?;
        let binding = wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        };
        kernels.push(build(
            device,
            &wgsl,
            &[binding],
            [n32, seed, base32, 0],
            grid(device, n, 256)?,
        ));
        offset += size;
    }
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for kernel in &kernels {
            kernel.encode(&mut pass);
        }
    }
    queue.submit([encoder.finish()]);
    Ok(())
}
