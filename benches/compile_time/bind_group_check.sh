#!/usr/bin/env bash
# Compile time of the derive's compile-time bind group check (issue 27): one
# `#[derive(GpuBindGroup)]` struct of 20 bindings (6 `GpuUniform`s and 6 `TypedGpuData` rows of
# their own six-field structs, 4 sampled textures, 4 samplers) checked against one WGSL file
# whose vertex and fragment entry points use all 20 globals (`#[bind_group(shader =
# "shaders/bench.wgsl", group = 0, entry = "vs_main", entry = "fs_main")]`), against the same
# crate with each binding number and stage written out and no shader, and against the crate
# without the bind group (the 12 structs alone). Same gpudata features everywhere (`derive`,
# `naga`).
#
#   benches/compile_time/bind_group_check.sh [rounds]     (default 5)
#
# As shader_check.sh: dependencies built once, then full non-incremental dev builds of each crate
# alone after touching its source, in rounds visiting the crates in turn, each crate's fastest
# build (wall) and smallest CPU time kept. The check's cost is checked minus unchecked; the
# derive's, unchecked minus structs-only.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
runs=${1:-5}
n=6 # uniforms, and storage rows; plus 4 textures and 4 samplers: 20 bindings
work=$root/target/compile_time
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=true

dep="gpudata = { path = \"$root/gpudata\", default-features = false, features = [\"derive\", \"naga\"] }
wgpu = \"30\""

# shellcheck source=rounds.sh
source "$root/benches/compile_time/rounds.sh"

wgsl() {
    echo "// The 20-binding group of benches/compile_time/bind_group_check.sh."
    for i in $(seq 1 "$n"); do
        printf 'struct U%d {\n    a: vec3<f32>,\n    b: f32,\n    c: vec2<f32>,\n    d: u32,\n    e: vec4<f32>,\n    f: i32,\n}\n' "$i"
        printf 'struct R%d {\n    a: vec3<f32>,\n    b: f32,\n    c: vec2<f32>,\n    d: u32,\n    e: vec4<f32>,\n    f: i32,\n}\n' "$i"
    done
    local b=0
    for i in $(seq 1 "$n"); do
        printf '@group(0) @binding(%d) var<uniform> u%d: U%d;\n' "$b" "$i" "$i"; b=$((b + 1))
        printf '@group(0) @binding(%d) var<storage, read> r%d: array<R%d>;\n' "$b" "$i" "$i"; b=$((b + 1))
    done
    for i in 1 2 3 4; do
        printf '@group(0) @binding(%d) var t%d: texture_2d<f32>;\n' "$b" "$i"; b=$((b + 1))
        printf '@group(0) @binding(%d) var s%d: sampler;\n' "$b" "$i"; b=$((b + 1))
    done
    echo '@vertex'
    echo 'fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {'
    echo '    var p = vec4<f32>(f32(i), 0.0, 0.0, 1.0);'
    for i in $(seq 1 "$n"); do
        echo "    p = p + u$i.e * u$i.b + vec4<f32>(u$i.a, f32(u$i.d + u32(u$i.f)));"
    done
    echo '    return p;'
    echo '}'
    echo '@fragment'
    echo 'fn fs_main(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {'
    echo '    var c = at;'
    for i in $(seq 1 "$n"); do
        echo "    c = c + r$i[0].e * r$i[0].b + vec4<f32>(r$i[0].c, r$i[0].a.xy);"
    done
    for i in 1 2 3 4; do
        echo "    c = c + textureSample(t$i, s$i, at.xy);"
    done
    echo '    return c;'
    echo '}'
}

generate() { # name, with the group (0/1), checked (0/1)
    local name=$1 group=$2 checked=$3 dir=$work/$1
    new_crate "$name" "$dep"
    mkdir -p "$dir/shaders"
    wgsl >"$dir/shaders/bench.wgsl"
    {
        echo '#![allow(dead_code)]'
        if [ "$group" = 1 ]; then
            echo 'use gpudata::data::GpuUniform;'
            echo 'use gpudata::TypedGpuData;'
        fi
        for i in $(seq 1 "$n"); do
            echo '#[derive(Clone, Copy, gpudata::GpuStruct)]'
            echo '#[gpu(layout = "wgsl-uniform")]'
            echo "pub struct U$i { a: [f32; 3], b: f32, c: [f32; 2], d: u32, e: [f32; 4], f: i32 }"
            echo '#[derive(Clone, Copy, gpudata::GpuStruct)]'
            echo "pub struct R$i { a: [f32; 3], b: f32, c: [f32; 2], d: u32, e: [f32; 4], f: i32 }"
        done
        [ "$group" = 1 ] || return 0
        echo '#[derive(gpudata::GpuBindGroup)]'
        if [ "$checked" = 1 ]; then
            echo '#[bind_group(shader = "shaders/bench.wgsl", group = 0, entry = "vs_main", entry = "fs_main")]'
        else
            echo '#[bind_group(group = 0, visibility = "vertex | fragment")]'
        fi
        echo "pub struct Group<'a> {"
        local b=0 attr
        for i in $(seq 1 "$n"); do
            attr=""; [ "$checked" = 1 ] || attr="#[binding($b)] "
            echo "    ${attr}u$i: &'a GpuUniform<U$i>,"; b=$((b + 1))
            attr=""; [ "$checked" = 1 ] || attr="#[binding($b)] "
            echo "    ${attr}r$i: &'a TypedGpuData<R$i>,"; b=$((b + 1))
        done
        for i in 1 2 3 4; do
            attr=""; [ "$checked" = 1 ] || attr="#[binding($b)] "
            echo "    ${attr}t$i: &'a wgpu::TextureView,"; b=$((b + 1))
            attr=""; [ "$checked" = 1 ] || attr="#[binding($b)] "
            echo "    ${attr}s$i: &'a wgpu::Sampler,"; b=$((b + 1))
        done
        echo '}'
    } >"$dir/src/lib.rs"
}

generate bg_structs 0 0
generate bg_unchecked 1 0
generate bg_checked 1 1
echo "wgsl lines: $(wc -l <"$work/bg_checked/shaders/bench.wgsl")"

time_rounds bg_structs bg_unchecked bg_checked

echo "bindings: 20, rounds: $runs (fastest build of each crate kept), rustc: $(rustc --version)"
for c in bg_structs bg_unchecked bg_checked; do
    printf '%-13s wall %8.3f s   cpu %8.3f s\n' "$c" "${best[$c]}" "${cpu[$c]}"
done
printf 'derive cost  wall %+8.3f s   cpu %+8.3f s\n' \
    "$(echo "${best[bg_unchecked]} - ${best[bg_structs]}" | bc -l)" \
    "$(echo "${cpu[bg_unchecked]} - ${cpu[bg_structs]}" | bc -l)"
printf 'check cost   wall %+8.3f s   cpu %+8.3f s\n' \
    "$(echo "${best[bg_checked]} - ${best[bg_unchecked]}" | bc -l)" \
    "$(echo "${cpu[bg_checked]} - ${cpu[bg_unchecked]}" | bc -l)"
