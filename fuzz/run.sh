#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each (default 60).
# Usage: fuzz/run.sh [SECONDS]
# Uses the nightly toolchain with the address sanitizer when it is installed, and
# the stable toolchain without a sanitizer (`-s none`) otherwise.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly); sanitizer=(-s address)
else
    toolchain=(); sanitizer=(-s none)
fi
targets=$(cargo "${toolchain[@]}" fuzz list)
for target in $targets; do
    echo "fuzz: $target for ${seconds}s"
    mkdir -p "corpus/$target" "seeds/$target"
    cargo "${toolchain[@]}" fuzz run "${sanitizer[@]}" "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 2>&1 | tail -n 12
done
echo "fuzz: every target ran ${seconds}s with no crash"
