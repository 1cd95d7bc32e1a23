#!/usr/bin/env bash
# Compile time of the derive's compile-time shader check: a crate of 20 `#[derive(GpuStruct)]`
# structs each checked against its struct in one 500-line WGSL file
# (`#[gpu(shader = "shaders/bench.wgsl", shader_struct = "RowN")]`), against the same crate
# without the check (same structs, same gpudata features).
#
#   benches/compile_time/shader_check.sh [rounds]     (default 5)
#
# As benches/compile_time/run.sh: dependencies built once, then full non-incremental
# (`CARGO_INCREMENTAL=0`) dev builds of each crate alone after touching its source, in rounds
# that visit both crates in turn, keeping each crate's fastest build. The check's cost is the
# difference. Crates and their shared target directory live in target/compile_time/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
runs=${1:-5}
structs=20
work=$root/target/compile_time
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
export CARGO_INCREMENTAL=0
# The crates live under the repository, where .cargo/config.toml's profiles would reach them:
# keep cargo's default dev profile (full debug info), as every earlier run of this script had.
export CARGO_PROFILE_DEV_DEBUG=true

dep="gpudata = { path = \"$root/gpudata\", default-features = false, features = [\"derive\", \"naga\"] }"

# shellcheck source=rounds.sh
source "$root/benches/compile_time/rounds.sh"

wgsl() { # the 500-line shader: 20 structs and 20 functions reading them
    echo "// $structs structs and $structs functions: the shader of benches/compile_time/shader_check.sh."
    for i in $(seq 1 "$structs"); do
        printf 'struct Row%d {\n    a: vec3<f32>,\n    b: f32,\n    c: vec2<f32>,\n    d: u32,\n    e: vec4<f32>,\n    f: i32,\n}\n' "$i"
    done
    for i in $(seq 1 "$structs"); do
        printf '@group(%d) @binding(0) var<storage, read> rows%d: array<Row%d>;\n' "$((i - 1))" "$i" "$i"
    done
    for i in $(seq 1 "$structs"); do
        cat <<FN
fn total$i(index: u32) -> f32 {
    let r = rows$i[index];
    var sum = r.b + r.a.x + r.a.y + r.a.z;
    sum = sum + r.c.x * r.c.y;
    sum = sum + f32(r.d) - f32(r.f);
    sum = sum + dot(r.e, vec4<f32>(1.0, 2.0, 3.0, 4.0));
    let scaled = sum * 2.0;
    let halved = scaled / 4.0;
    sum = sum + halved;
    if sum > 1000.0 {
        sum = sum * 0.5;
    } else {
        sum = sum + 1.0;
    }
    return sum;
}
FN
    done
}

generate() { # name, attribute line (may be empty)
    local name=$1 attr=$2 dir=$work/$1
    new_crate "$name" "$dep"
    mkdir -p "$dir/shaders"
    wgsl >"$dir/shaders/bench.wgsl"
    {
        echo '#![allow(dead_code)]'
        for i in $(seq 1 "$structs"); do
            echo '#[derive(Clone, Copy, gpudata::GpuStruct)]'
            [ -n "$attr" ] && echo "${attr//N/$i}"
            echo "pub struct Row$i { a: [f32; 3], b: f32, c: [f32; 2], d: u32, e: [f32; 4], f: i32 }"
        done
    } >"$dir/src/lib.rs"
}

generate unchecked ""
generate checked '#[gpu(shader = "shaders/bench.wgsl", shader_struct = "RowN")]'
echo "wgsl lines: $(wc -l <"$work/checked/shaders/bench.wgsl")"

time_rounds unchecked checked

echo "structs: $structs, rounds: $runs (fastest build of each crate kept), rustc: $(rustc --version)"
printf '%-10s %8.3f s\n' unchecked "${best[unchecked]}" checked "${best[checked]}"
printf 'check cost %8.3f s (%.1f ms per checked struct)\n' \
    "$(echo "${best[checked]} - ${best[unchecked]}" | bc -l)" \
    "$(echo "(${best[checked]} - ${best[unchecked]}) * 1000 / $structs" | bc -l)"
