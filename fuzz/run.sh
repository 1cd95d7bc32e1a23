#!/usr/bin/env bash
# Runs every fuzz target for a fixed time each (default 60 s): ./fuzz/run.sh [SECONDS]
# cargo-fuzz needs nightly compiler flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept
# them (this project builds with stable Rust only).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
export RUSTC_BOOTSTRAP=1
# The ipc_file target starts from corrupted IPC files: tests/arrow/faults.rs writes its ~2,700
# (truncated, bytes and words overwritten) when GPUDATA_IPC_CORPUS names a folder.
if [ -z "$(ls -A corpus/ipc_file 2>/dev/null)" ]; then
    echo "== seeding corpus/ipc_file from tests/arrow/faults.rs"
    (cd .. && GPUDATA_IPC_CORPUS="$PWD/fuzz/corpus/ipc_file" XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" \
        cargo test --features arrow --test arrow faults::corrupted_ipc_files_are_errors_never_panics \
        >/dev/null 2>&1) || { echo "seeding the ipc_file corpus failed"; exit 1; }
fi
for target in $(cargo fuzz list); do
    echo "== $target (${seconds}s)"
    cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 2>&1 \
        | grep -E '^(#[0-9]+\s+DONE|Done [0-9]+ runs|==[0-9]+== ERROR|SUMMARY|thread .* panicked)' || true
done
