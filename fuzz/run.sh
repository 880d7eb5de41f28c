#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 60 s each) over the seed
# corpus in fuzz/corpus/<target>/ (new inputs go to fuzz/target/corpus, so the
# committed seeds stay small). Needs cargo-fuzz (`cargo install cargo-fuzz`)
# and the nightly toolchain. Usage: fuzz/run.sh [SECONDS] [TARGET...]
# FUZZ_FEATURES= (empty) builds only the text-parser targets, without the
# service stack (much faster); the default, "requests", builds them all.
# A crash leaves its input in fuzz/artifacts/<target>/: turn it into a
# regression test in the crate it belongs to, then fix it.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
features=()
if [ -n "${FUZZ_FEATURES-requests}" ]; then features=(--features "${FUZZ_FEATURES-requests}"); fi
cargo +nightly fuzz build --release "${features[@]}"
for target in "${targets[@]}"; do
    mkdir -p "target/corpus/$target" "corpus/$target"
    echo "== $target: ${seconds} s"
    log="target/$target.log"
    cargo +nightly fuzz run --release "${features[@]}" "$target" "target/corpus/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1 || true
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)|panicked" "$log" || tail -5 "$log"
    if [ -n "$(ls "artifacts/$target" 2>/dev/null)" ]; then
        echo "!! $target: crash inputs in fuzz/artifacts/$target" >&2
        exit 1
    fi
done
