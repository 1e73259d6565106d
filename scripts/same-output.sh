#!/usr/bin/env bash
# Show that a change leaves every sheet's CSV byte-identical: run a baseline linkgap binary
# and the current tree's on the same exports and compare each sheet, less the rows that
# change from run to run (run date, stage times).
#
#   scripts/same-output.sh BASELINE_BINARY [EXPORT_FOLDER...]
#
# Build the baseline from an earlier commit first, e.g.
#   git worktree add /tmp/base REV && cargo build --release --manifest-path /tmp/base/Cargo.toml
# Folders default to samples/ and, when present, ../shared/corpora/postgres15.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/same-output.sh BASELINE_BINARY [EXPORT_FOLDER...]}
shift
folders=("$@")
if [ ${#folders[@]} -eq 0 ]; then
  folders=(samples)
  [ -d ../shared/corpora/postgres15 ] && folders+=(../shared/corpora/postgres15)
fi
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for folder in "${folders[@]}"; do
  name=$(basename "$folder")
  for side in base new; do
    bin=$base
    [ "$side" = new ] && bin=target/release/linkgap
    "$bin" run "$folder" --out "$work/$side-$name.xlsx" --csv-dir "$work/$side-$name" --quiet \
      >/dev/null 2>&1 || true
    # Run date, stage times and the Summary's run date differ on every run.
    for f in "$work/$side-$name"/*.csv; do
      grep -v -E '^(Run date|"?Time: )' "$f" >"$f.cmp" || true
    done
  done
  for f in "$work/base-$name"/*.csv.cmp; do
    sheet=$(basename "$f" .csv.cmp)
    if cmp -s "$f" "$work/new-$name/$sheet.csv.cmp"; then
      echo "same      $name / $sheet"
    else
      echo "DIFFERENT $name / $sheet"
      diff "$f" "$work/new-$name/$sheet.csv.cmp" | head -5 || true
      status=1
    fi
  done
  for f in "$work/new-$name"/*.csv.cmp; do
    [ -e "$work/base-$name/$(basename "$f")" ] || { echo "NEW SHEET $name / $(basename "$f" .csv.cmp)"; status=1; }
  done
done
exit $status
