#!/usr/bin/env bash
# Runs every fuzz target for a fixed time each (default 60 s): ./fuzz/run.sh [SECONDS]
# cargo-fuzz needs nightly compiler flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept
# them (this project builds with stable Rust only).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
export RUSTC_BOOTSTRAP=1
for target in $(cargo fuzz list); do
    echo "== $target (${seconds}s)"
    cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 2>&1 \
        | grep -E '^(#[0-9]+\s+DONE|Done [0-9]+ runs|==[0-9]+== ERROR|SUMMARY|thread .* panicked)' || true
done
