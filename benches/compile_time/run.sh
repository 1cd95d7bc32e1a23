#!/usr/bin/env bash
# Compile time of a crate deriving 200 structs: gpudata's `GpuStruct` against bytemuck's
# `Pod + Zeroable` and encase's `ShaderType`, side by side.
#
#   benches/compile_time/run.sh [structs] [runs] [kind]     (defaults: 200 structs, 5 runs, flat)
#
# kind `flat`: six-field structs of scalars and vectors. kind `nested` (issue 14): half the
# structs are materials (`color: vec3<f32>, roughness: f32`), half are rows nesting their own
# material beside a `mat4x4<f32>`, a `vec3<f32>` and a scalar (gpudata reads `[[f32; 4]; 4]`
# with `#[gpu(wgsl = "mat4x4<f32>")]`; encase gets the same WGSL types through its
# `impl_matrix!`/`impl_vector!` newtypes, declared once; bytemuck and the baseline the arrays).
#
# For each derive it generates a library crate (same six fields per struct, `#[repr(C)]`, no
# padding, `Clone + Copy`) plus a baseline crate with the same structs and no derive, builds all
# dependencies once, then times a full (non-incremental, `CARGO_INCREMENTAL=0`) `cargo build` (dev
# profile) of each crate itself after touching its source, in `runs` rounds that visit the crates
# in turn, keeping each crate's fastest build (the minimum is the measurement least disturbed by
# other work on the machine). The derive's
# cost is that time minus the baseline's. Crates and their shared target directory live in
# target/compile_time/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
structs=${1:-200}
runs=${2:-5}
kind=${3:-flat}
work=$root/target/compile_time
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
export CARGO_INCREMENTAL=0
# The crates live under the repository, where .cargo/config.toml's profiles would reach them:
# keep cargo's default dev profile (full debug info), as every earlier run of this script had.
export CARGO_PROFILE_DEV_DEBUG=true

# Same versions as the workspace.
gpudata_dep="gpudata = { path = \"$root/gpudata\", default-features = false, features = [\"derive\"] }"
bytemuck_dep='bytemuck = { version = "1.25", features = ["derive"] }'
encase_dep='encase = "0.13"'

# shellcheck source=rounds.sh
source "$root/benches/compile_time/rounds.sh"

fields='a: [f32; 3], b: f32, c: [f32; 2], d: u32, e: [f32; 4], f: i32,'

# encase's types for `mat4x4<f32>` and `vec3<f32>` over the same arrays (nested kind).
encase_types='#[derive(Clone, Copy)] pub struct Mat4(pub [[f32; 4]; 4]);
impl AsRef<[[f32; 4]; 4]> for Mat4 { fn as_ref(&self) -> &[[f32; 4]; 4] { &self.0 } }
impl AsMut<[[f32; 4]; 4]> for Mat4 { fn as_mut(&mut self) -> &mut [[f32; 4]; 4] { &mut self.0 } }
impl From<[[f32; 4]; 4]> for Mat4 { fn from(m: [[f32; 4]; 4]) -> Self { Mat4(m) } }
encase::impl_matrix!(4, 4, Mat4, f32; using AsRef AsMut From);
#[derive(Clone, Copy)] pub struct Vec3(pub [f32; 3]);
impl AsRef<[f32; 3]> for Vec3 { fn as_ref(&self) -> &[f32; 3] { &self.0 } }
impl AsMut<[f32; 3]> for Vec3 { fn as_mut(&mut self) -> &mut [f32; 3] { &mut self.0 } }
impl From<[f32; 3]> for Vec3 { fn from(v: [f32; 3]) -> Self { Vec3(v) } }
encase::impl_vector!(3, Vec3, f32; using AsRef AsMut From);'

generate() { # name, dependency line, derive list, use line
    local name=$1 dep=$2 derives=$3 uses=$4 dir=$work/$1
    new_crate "$name" "$dep"
    {
        echo '#![allow(dead_code)]'
        echo "$uses"
        if [ "$kind" = nested ]; then
            local mat='[[f32; 4]; 4]' vec='[f32; 3]' attr=''
            case $name in
                gpudata) attr='#[gpu(wgsl = "mat4x4<f32>")] ' ;;
                encase) mat=Mat4 vec=Vec3; echo "$encase_types" ;;
            esac
            for i in $(seq 1 $((structs / 2))); do
                echo "#[derive($derives)]"
                echo '#[repr(C)]'
                echo "pub struct Material$i { color: $vec, roughness: f32 }"
                echo "#[derive($derives)]"
                echo '#[repr(C)]'
                echo "pub struct Row$i { ${attr}transform: $mat, position: $vec, scale: f32, material: Material$i }"
            done
        else
            for i in $(seq 1 "$structs"); do
                echo "#[derive($derives)]"
                echo '#[repr(C)]'
                echo "pub struct Row$i { $fields }"
            done
        fi
    } >"$dir/src/lib.rs"
}

generate baseline "" "Clone, Copy" ""
generate bytemuck "$bytemuck_dep" "Clone, Copy, bytemuck::Pod, bytemuck::Zeroable" ""
generate gpudata "$gpudata_dep" "Clone, Copy, gpudata::GpuStruct" ""
generate encase "$encase_dep" "Clone, Copy, encase::ShaderType" ""

time_rounds baseline bytemuck gpudata encase

echo "kind: $kind, structs: $structs, rounds: $runs (fastest build of each crate kept), rustc: $(rustc --version)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
base=${best[baseline]} cbase=${cpu[baseline]}
printf '%-10s wall %8.3f s   cpu %8.3f s\n' baseline "$base" "$cbase"
for name in bytemuck gpudata encase; do
    printf '%-10s wall %8.3f s   cpu %8.3f s   derive cost: wall %8.3f s, cpu %8.3f s\n' "$name" \
        "${best[$name]}" "${cpu[$name]}" "$(echo "${best[$name]} - $base" | bc -l)" \
        "$(echo "${cpu[$name]} - $cbase" | bc -l)"
done
ratio() { echo "scale=2; ($1 - $3) / ($2 - $3)" | bc -l; }
echo "gpudata / bytemuck (derive cost): wall $(ratio "${best[gpudata]}" "${best[bytemuck]}" "$base")x, cpu $(ratio "${cpu[gpudata]}" "${cpu[bytemuck]}" "$cbase")x"
echo "encase / gpudata (derive cost):   wall $(ratio "${best[encase]}" "${best[gpudata]}" "$base")x, cpu $(ratio "${cpu[encase]}" "${cpu[gpudata]}" "$cbase")x"
