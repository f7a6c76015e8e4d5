#!/usr/bin/env bash
# Fuzz every target (`cargo fuzz list`) for a bounded time (FUZZ_SECONDS
# each, default 60), after replaying the committed seeds (fuzz/seeds/) and
# corpus (fuzz/corpora/<target>.tar.gz, unpacked into fuzz/corpus/).
# Built with overflow checks and debug assertions on; each input is
# bounded in time (10 s), the process in memory (2 GiB RSS) and any single
# allocation to 512 MiB (a bigger one is a finding: every cap is checked
# before allocating, docs/limits.md). Exit non-zero on any finding
# (libFuzzer writes the input to fuzz/artifacts/<target>/). Known findings
# in crates not fixed yet are in fuzz/regressions/ (see its README).
# Installs cargo-fuzz (and a nightly toolchain when it can: see below).
# CI (.ci/run) uses FUZZ_SECONDS=60: 11 targets ≈ 11 min plus the corpus
# replays and one build.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
# cargo-fuzz passes -Z flags (sanitizers): a nightly toolchain, installed
# if missing; where none can be fetched, the stable toolchain with
# RUSTC_BOOTSTRAP=1 (its rust-std ships the sanitizer runtimes).
toolchain=+nightly
if ! cargo +nightly --version >/dev/null 2>&1 &&
  ! rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain can be installed; using stable with RUSTC_BOOTSTRAP=1"
  toolchain=+stable
  export RUSTC_BOOTSTRAP=1
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
# No LeakSanitizer suppressions: a driver joins every thread it started
# before softhal_driver_destroy returns, so nothing is still winding down
# when LSan checks.
# Shader targets take shader tokens (dict/shader.dict); the others DP2
# commands, captures and C-ABI calls (dict/dp2.dict).
dict_for() {
  case "$1" in
    shader_*) echo dict/shader.dict ;;
    *) echo dict/dp2.dict ;;
  esac
}
cargo $toolchain fuzz build -O --debug-assertions
for target in $(cargo $toolchain fuzz list); do
  mkdir -p "corpus/$target"
  # The committed corpus of the long campaigns (fuzz/minimize.sh).
  if [ -f "corpora/$target.tar.gz" ]; then tar -xzf "corpora/$target.tar.gz" -C "corpus/$target"; fi
  echo "== fuzz $target for ${seconds}s"
  mkdir -p "seeds/$target"
  cargo $toolchain fuzz run "$target" -O --debug-assertions "corpus/$target" "seeds/$target" -- \
    -max_total_time="$seconds" -dict="$(dict_for "$target")" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 2>&1 \
    | grep -E "Done [0-9]+ runs|ERROR|SUMMARY|stat::number_of_executed_units"
done
