#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a bounded time over the seed
# corpus in fuzz/corpus/<target>/; new inputs go to fuzz/target/corpus, so the
# committed seeds stay small. CI calls this last (`.ci/run`: 15 s a target).
# Usage: fuzz/run.sh [SECONDS] [TARGET...]     (default 60 s, every target)
#
# Stable toolchain only: cargo fuzz passes rustc the -Z flags of the
# coverage instrumentation, which RUSTC_BOOTSTRAP=1 lets stable accept.
# Installs the pinned cargo-fuzz when it is missing or another version.
# FUZZ_SANITIZER=address adds AddressSanitizer and leak checks (the runtime
# ships with stable; the default, none, builds with about 40% less CPU).
# FUZZ_FEATURES= (empty) builds only the text-parser targets, without the
# service stack (much faster); the default, "requests", builds them all.
# Fails if any target fails; its input is in fuzz/artifacts/<target>/: turn
# it into a regression test in the crate it belongs to, then fix it.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")

# libfuzzer-sys compiles libFuzzer from its C++ source.
if ! command -v c++ >/dev/null; then
    echo "fuzz/run.sh needs a C++ compiler (Debian: apt-get install g++)" >&2
    exit 1
fi
cargo_fuzz_version=0.13.2
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]; then
    cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked
fi
export RUSTC_BOOTSTRAP=1

flags=(--sanitizer "${FUZZ_SANITIZER:-none}" --codegen-units 16)
features="${FUZZ_FEATURES-requests}"
if [ -n "$features" ]; then flags+=(--features "$features"); fi
if [ ${#targets[@]} -eq 0 ]; then
    if [ -n "$features" ]; then
        mapfile -t targets < <(cargo fuzz list)
    else
        mapfile -t targets < <(cargo fuzz list | grep -v '_requests$')
    fi
fi

cargo fuzz build "${flags[@]}"
failed=()
for target in "${targets[@]}"; do
    mkdir -p "target/corpus/$target"
    log="target/$target.log"
    echo "== $target: ${seconds} s"
    if cargo fuzz run "${flags[@]}" "$target" "target/corpus/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log"
    else
        tail -40 "$log"
        failed+=("$target")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "!! fuzz targets failed: ${failed[*]} (inputs in fuzz/artifacts/<target>/, logs in fuzz/target/<target>.log)" >&2
    exit 1
fi
