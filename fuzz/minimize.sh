#!/usr/bin/env bash
# Folds a campaign's corpus into the committed one: `fuzz/minimize.sh
# TARGET...` keeps every input of fuzz/corpora/<target>.tar.gz and adds the
# inputs of fuzz/seeds/<target> and fuzz/corpus/<target> that reach
# coverage it does not (libFuzzer's -merge=1), then writes the archive
# back. CI (fuzz/run.sh) unpacks it into fuzz/corpus/<target> and replays
# it before fuzzing, so every run starts from what the long campaigns
# found. Uses the campaign build of fuzz/campaign.sh (CAMPAIGN_TARGET_DIR,
# default fuzz/target-campaign).
set -euo pipefail
cd "$(dirname "$0")"
bin="${CAMPAIGN_TARGET_DIR:-target-campaign}/x86_64-unknown-linux-gnu/release"
mkdir -p corpora
for t in "$@"; do
  test -x "$bin/$t" || { echo "minimize: build $t first (fuzz/campaign.sh)" >&2; exit 2; }
  mkdir -p "seeds/$t" "corpus/$t"
  tmp="$(mktemp -d)"
  if [ -f "corpora/$t.tar.gz" ]; then tar -xzf "corpora/$t.tar.gz" -C "$tmp"; fi
  before=$(ls "$tmp" | wc -l)
  "$bin/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    "$tmp" "seeds/$t" "corpus/$t" >/dev/null 2>&1
  # Sorted names and fixed metadata: the archive changes only with its inputs.
  (cd "$tmp" && ls | LC_ALL=C sort | tar --owner=0 --group=0 --mtime=@0 -cf - -T - | gzip -n) \
    >"corpora/$t.tar.gz"
  echo "$t: $before -> $(ls "$tmp" | wc -l) inputs, $(du -h --apparent-size "corpora/$t.tar.gz" | cut -f1) compressed"
  rm -rf "$tmp"
done
