# Sourced by the compile-time scripts. `new_crate NAME DEPENDENCY` writes the manifest (and the
# workspace's lock file) of a library crate under $work/NAME. `time_rounds CRATE...` builds each crate under $work once
# (dependencies), then times full builds of each crate alone after touching its source, in $runs
# rounds that visit the crates in turn (so load from elsewhere on the machine hits all of them
# alike), and keeps each crate's fastest build in the associative array `best` (wall seconds) and
# its smallest CPU time (user + sys of cargo and every rustc it ran) in `cpu`.

new_crate() { # name, dependency line
    local dir=$work/$1
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "ct_$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$2

[workspace]
TOML
    cp "$root/Cargo.lock" "$dir/Cargo.lock"
}

now() { date +%s.%N; }

time_build() { # name -> "wall cpu" in seconds (cpu = user + sys of the build and its children)
    local dir=$work/$1 start end times
    touch "$dir/src/lib.rs"
    times=$(mktemp)
    start=$(now)
    /usr/bin/time -f '%U %S' -o "$times" cargo build -q --manifest-path "$dir/Cargo.toml"
    end=$(now)
    echo "$(echo "$end - $start" | bc -l) $(awk '{ print $1 + $2 }' "$times")"
    rm -f "$times"
}

declare -A best cpu
time_rounds() {
    local name t c
    for name in "$@"; do
        cargo build -q --manifest-path "$work/$name/Cargo.toml" >/dev/null
    done
    for _ in $(seq 1 "$runs"); do
        for name in "$@"; do
            read -r t c < <(time_build "$name")
            if [ -z "${cpu[$name]:-}" ] || [ "$(echo "$c < ${cpu[$name]}" | bc -l)" = 1 ]; then
                cpu[$name]=$c
            fi
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$t < ${best[$name]}" | bc -l)" = 1 ]; then
                best[$name]=$t
            fi
        done
    done
}
