#!/usr/bin/env bash
# Fuzz every target (`cargo fuzz list`) for a bounded time (FUZZ_SECONDS
# each, default 60), starting from the committed seeds plus the local
# corpus. Built with overflow checks and debug assertions on; each input is
# bounded in time (10 s), the process in memory (2 GiB RSS) and any single
# allocation to 512 MiB (a bigger one is a finding: every cap is checked
# before allocating, docs/limits.md). Exit non-zero on any finding
# (libFuzzer writes the input to fuzz/artifacts/<target>/). Known findings
# in crates not fixed yet are in fuzz/regressions/ (see its README).
# Needs a nightly toolchain (cargo-fuzz uses sanitizers); installs cargo-fuzz.
# CI (.ci/run) uses FUZZ_SECONDS=30: 9 targets ≈ 4.5 min plus one build.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain on this machine; skipping (cargo-fuzz needs one)"
  exit 0
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
# A narrow LeakSanitizer suppression (see fuzz/lsan.supp: glibc's
# thread_local destructor list of worker threads, not softhal's heap).
export LSAN_OPTIONS="suppressions=$(pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cargo +nightly fuzz build -O --debug-assertions
for target in $(cargo +nightly fuzz list); do
  mkdir -p "corpus/$target"
  echo "== fuzz $target for ${seconds}s"
  mkdir -p "seeds/$target"
  cargo +nightly fuzz run "$target" -O --debug-assertions "corpus/$target" "seeds/$target" -- \
    -max_total_time="$seconds" -dict=dict/dp2.dict -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 2>&1 \
    | grep -E "Done [0-9]+ runs|ERROR|SUMMARY|stat::number_of_executed_units"
done
