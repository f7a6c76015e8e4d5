#!/usr/bin/env bash
# Fuzz every target for a bounded time (FUZZ_SECONDS each, default 60),
# starting from the committed seeds plus the local corpus. Exit non-zero on
# any finding (libFuzzer writes the input to fuzz/artifacts/<target>/).
# Needs a nightly toolchain (cargo-fuzz uses sanitizers); installs cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain on this machine; skipping (cargo-fuzz needs one)"
  exit 0
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo +nightly fuzz build -O
for target in $(cargo +nightly fuzz list); do
  mkdir -p "corpus/$target"
  echo "== fuzz $target for ${seconds}s"
  cargo +nightly fuzz run "$target" -O "corpus/$target" "seeds/$target" -- \
    -max_total_time="$seconds" -dict=dict/dp2.dict -max_len=4096 -print_final_stats=1 2>&1 \
    | grep -E "Done [0-9]+ runs|ERROR|SUMMARY|stat::number_of_executed_units"
done
