#!/usr/bin/env bash
# A long fuzz campaign: `fuzz/campaign.sh RUNS TARGET...` runs each target
# until it has executed RUNS inputs (libFuzzer's -runs, the corpus load
# included) and appends one line per target to fuzz/campaigns.log:
#   <date> <target> <commit> sanitizer=<s> runs=<n> seconds=<t> exec/s=<r> rss=<MB> result=<ok|FINDING>
# The targets are built without a sanitizer by default (SANITIZER=none):
# softhal's decoding and execution code is safe Rust, built here with
# overflow checks and debug assertions on, and a sanitizer would cost a
# factor of 3–5 in executions. The unsafe code (the C ABI, the pipeline's
# simd module) is fuzzed under AddressSanitizer by fuzz/run.sh in CI and by
# SANITIZER=address here. The same per-input limits as fuzz/run.sh apply
# (10 s, 2 GiB RSS, 512 MiB per allocation). The corpus grows in
# fuzz/corpus/<target>; a finding stops the target, its input is in
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:?usage: fuzz/campaign.sh RUNS TARGET...}"
shift
sanitizer="${SANITIZER:-none}"
target_dir="${CAMPAIGN_TARGET_DIR:-target-campaign}"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
for t in "$@"; do
  cargo +nightly fuzz build -O --debug-assertions -s "$sanitizer" --target-dir "$target_dir" "$t" >&2
done
bin="$target_dir/x86_64-unknown-linux-gnu/release"
# Shader targets take shader tokens (dict/shader.dict); the others DP2
# commands, captures and C-ABI calls (dict/dp2.dict).
dict_for() {
  case "$1" in
    shader_*) echo dict/shader.dict ;;
    *) echo dict/dp2.dict ;;
  esac
}
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
for t in "$@"; do
  mkdir -p "corpus/$t" "seeds/$t" "artifacts/$t"
  log="$(mktemp)"
  start=$(date +%s)
  result=ok
  "$bin/$t" "corpus/$t" "seeds/$t" -runs="$runs" -dict="$(dict_for "$t")" -max_len=4096 \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || result=FINDING
  secs=$(( $(date +%s) - start ))
  n=$(grep -oE 'stat::number_of_executed_units: +[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  rss=$(grep -oE 'stat::peak_rss_mb: +[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  line="$(date -u +%FT%TZ) $t $commit sanitizer=$sanitizer runs=$n seconds=$secs exec/s=$(( n / (secs > 0 ? secs : 1) )) rss=${rss}MB result=$result"
  echo "$line" | tee -a campaigns.log
  if [ "$result" != ok ]; then
    grep -E "ERROR|panicked|SUMMARY|Test unit written" "$log" | head -20 >&2
  fi
  rm -f "$log"
done
