#!/usr/bin/env bash
# Compile time of a crate deriving 200 six-field structs: gpudata's `GpuStruct` against
# bytemuck's `Pod + Zeroable` and encase's `ShaderType`, side by side.
#
#   benches/compile_time/run.sh [structs] [runs]     (defaults: 200 structs, 5 runs)
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
work=$root/target/compile_time
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
export CARGO_INCREMENTAL=0

# Same versions as the workspace.
gpudata_dep="gpudata = { path = \"$root/gpudata\", default-features = false, features = [\"derive\"] }"
bytemuck_dep='bytemuck = { version = "1.25", features = ["derive"] }'
encase_dep='encase = "0.13"'

# shellcheck source=rounds.sh
source "$root/benches/compile_time/rounds.sh"

fields='a: [f32; 3], b: f32, c: [f32; 2], d: u32, e: [f32; 4], f: i32,'

generate() { # name, dependency line, derive list, use line
    local name=$1 dep=$2 derives=$3 uses=$4 dir=$work/$1
    new_crate "$name" "$dep"
    {
        echo '#![allow(dead_code)]'
        echo "$uses"
        for i in $(seq 1 "$structs"); do
            echo "#[derive($derives)]"
            echo '#[repr(C)]'
            echo "pub struct Row$i { $fields }"
        done
    } >"$dir/src/lib.rs"
}

generate baseline "" "Clone, Copy" ""
generate bytemuck "$bytemuck_dep" "Clone, Copy, bytemuck::Pod, bytemuck::Zeroable" ""
generate gpudata "$gpudata_dep" "Clone, Copy, gpudata::GpuStruct" ""
generate encase "$encase_dep" "Clone, Copy, encase::ShaderType" ""

time_rounds baseline bytemuck gpudata encase

echo "structs: $structs, rounds: $runs (fastest build of each crate kept), rustc: $(rustc --version)"
base=${best[baseline]}
printf '%-10s %8.3f s\n' baseline "$base"
for name in bytemuck gpudata encase; do
    printf '%-10s %8.3f s   derive cost %8.3f s\n' "$name" "${best[$name]}" "$(echo "${best[$name]} - $base" | bc -l)"
done
ratio() { echo "scale=2; ($1 - $base) / ($2 - $base)" | bc -l; }
echo "gpudata / bytemuck (derive cost): $(ratio "${best[gpudata]}" "${best[bytemuck]}")x"
echo "encase / gpudata (derive cost):   $(ratio "${best[encase]}" "${best[gpudata]}")x"
