#!/usr/bin/env bash
# CI's fuzz step: builds every fuzz target with the stable toolchain and plain
# cargo, instrumented as `cargo fuzz build` instruments them (coverage for
# libFuzzer, `--cfg fuzzing`, debug assertions) but in the `fuzz-ci` profile
# (optimised, parallel code generation: `cargo fuzz build` compiles everything
# in one code-generation unit), without installing cargo-fuzz; then runs each
# target for SECONDS seconds (default 15) from its seeds. A crash fails the step
# and leaves its input in fuzz/artifacts/TARGET/. Figures: fuzz/README.md.
# Usage: fuzz/ci.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-15}"
triple=$(rustc -vV | sed -n 's/^host: //p')
# `--target` keeps these flags off build scripts and procedural macros.
export RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-sanitizer-coverage-stack-depth -Cllvm-args=-simplifycfg-branch-fold-threshold=0"
# CARGO_TARGET_DIR (CI keeps it between runs on one machine) or fuzz/target.
target_dir="${CARGO_TARGET_DIR:-target}"
start=$SECONDS
cargo build --locked --quiet --target "$triple" --profile fuzz-ci --bins ${FUZZ_BUILD_FLAGS:-}
echo "fuzz: built every target in $((SECONDS - start))s"
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | tail -n +2)
for target in $targets; do
    corpus="$target_dir/ci-corpus/$target"
    log="$target_dir/ci-$target.log"
    mkdir -p "$corpus" "artifacts/$target" "seeds/$target"
    if ! "$target_dir/$triple/fuzz-ci/$target" "$corpus" "seeds/$target" \
        -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="artifacts/$target/" -print_final_stats=1 \
        >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz: $target crashed; its input is in fuzz/artifacts/$target/"
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $target ran ${seconds}s, $runs inputs, no crash"
done
echo "fuzz: $(wc -w <<<"$targets") targets, no crash, $((SECONDS - start))s in all"
