#!/usr/bin/env bash
# Folds a campaign's corpus into the committed one: `fuzz/minimize.sh
# TARGET...` keeps every file of fuzz/seeds/<target> (the hand-written
# seeds and what earlier merges kept) and adds the inputs of
# fuzz/corpus/<target> that reach coverage the seeds do not (libFuzzer's
# -merge=1), so that CI (fuzz/run.sh) replays what the long campaigns
# found before it fuzzes. Uses the campaign build of fuzz/campaign.sh
# (CAMPAIGN_TARGET_DIR, default fuzz/target-campaign).
set -euo pipefail
cd "$(dirname "$0")"
bin="${CAMPAIGN_TARGET_DIR:-target-campaign}/x86_64-unknown-linux-gnu/release"
for t in "$@"; do
  test -x "$bin/$t" || { echo "minimize: build $t first (fuzz/campaign.sh)" >&2; exit 2; }
  mkdir -p "seeds/$t" "corpus/$t"
  before=$(ls "seeds/$t" | wc -l)
  "$bin/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    "seeds/$t" "corpus/$t" >/dev/null 2>&1
  echo "$t: seeds $before -> $(ls "seeds/$t" | wc -l) files, $(du -sh "seeds/$t" | cut -f1)"
done
