#!/usr/bin/env bash
# Quality benchmark: the hidden-truth harness (issues 13 and 16) on a real crawl and on generated
# sites. For each site and seed: hide 10% of the body links (linkgap-eval hide), run linkgap on
# what is left, and score the Queue against the hidden links (linkgap-eval score). One table.
#
# usage: benches/quality.sh [POSTGRES15_DIR] [-- extra linkgap run args]
#   POSTGRES15_DIR defaults to ../shared/corpora/postgres15 (skipped when absent).
#   SEEDS="1 2" SHARE=0.1 override the hold-out seeds and share.
#   EXTRA="name=DIR ..." adds crawl folders, e.g. a static documentation site made into
#   exports by benches/static_site_exports.py (docs/quality.md: git's manual pages).
#   The Cargo book, the Rust Reference, Rust by Example and The Rust Programming Language are
#   added when the toolchain has its docs.
# Columns: hidden links; N = similarity-only proposals (Opportunities "Not found");
# sim@N / queue@N = hidden links among them / among the Queue's first N rows by Priority;
# ratio = queue@N / sim@N; queue = hidden links anywhere in the Queue; rows = Queue rows;
# passage / anchor = hit rates on hidden pairs in the Queue; coverage = Queue rows with a
# passage; inel. = Queue rows touching a non-200 / noindex page (must be 0).
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${1:-../shared/corpora/postgres15}
shift $(( $# < 1 ? $# : 1 )) || true
[ "${1:-}" = "--" ] && shift
SEEDS=${SEEDS:-"1 2"}
SHARE=${SHARE:-0.1}
OUT=target/quality
cargo build --release --quiet --bin linkgap --bin linkgap-gen --bin linkgap-eval
BIN=./target/release
mkdir -p "$OUT"

sites=()
if [ -f "$PG/all_inlinks.csv" ]; then sites+=("postgres15=$PG"); else echo "($PG not found: postgres15 skipped)" >&2; fi
for e in ${EXTRA:-}; do sites+=("$e"); done
# Generated sites with page text: sizes and seeds differ, nothing tuned to one of them.
for g in "gen-2k-s11:2000:8:4:11" "gen-6k-s23:6000:16:6:23"; do
  IFS=: read -r name pages topics links seed <<<"$g"
  dir=$OUT/$name/crawl
  if [ ! -f "$dir/custom_extraction_all.csv" ]; then
    $BIN/linkgap-gen "$dir" --pages "$pages" --dim 128 --topics "$topics" --body-links "$links" --seed "$seed" --page-text 2>/dev/null
  fi
  sites+=("$name=$dir")
done

# Four real documentation sites from the Rust toolchain's own docs, when its rust-docs component
# is installed: the Cargo book, the Rust Reference, Rust by Example and The Rust Programming
# Language (mdBook; the main content is <main>). Rust by Example is written in nine languages,
# three of them Chinese, Japanese and Korean, which the tokenizer cuts into pairs of
# characters. The Rust Programming Language ships its first, second and 2018 editions as stub
# pages that link each chapter's current version.
# benches/static_site_exports.py makes their exports, so no crawl is needed; the figures move
# with the toolchain's version of the books.
DOCS=$(rustc --print sysroot 2>/dev/null || true)/share/doc/rust/html
for b in cargo:cargobook reference:rustref rust-by-example:rbe book:trpl; do
  book=${b%%:*}; name=${b#*:}
  [ -d "$DOCS/$book" ] || { echo "($DOCS/$book not found: $name skipped)" >&2; continue; }
  command -v python3 >/dev/null || { echo "(no python3 for static_site_exports.py: $name skipped)" >&2; continue; }
  dir=$OUT/$name/crawl
  # Made again when the exporter changed since (it learnt meta robots on 2026-12-07).
  if [ ! -f "$dir/custom_extraction_all.csv" ] || [ benches/static_site_exports.py -nt "$dir/internal_all.csv" ]; then
    rm -rf "$OUT/$name/html" "$dir"; mkdir -p "$OUT/$name"
    cp -r "$DOCS/$book" "$OUT/$name/html"
    # The whole book on one page, and the table of contents, are not pages of the site (nor
    # are each translation's).
    find "$OUT/$name/html" \( -name print.html -o -name toc.html \) -delete
    python3 benches/static_site_exports.py "$OUT/$name/html" "$dir" --base "https://$name.example/" --main tag=main --dim 256 >/dev/null
  fi
  sites+=("$name=$dir")
done

$BIN/linkgap-eval row-header
for s in "${sites[@]}"; do
  name=${s%%=*}; crawl=${s#*=}
  for seed in $SEEDS; do
    run=$OUT/$name/seed$seed
    rm -rf "$run"; mkdir -p "$run"
    $BIN/linkgap-eval hide "$crawl" --out "$run/crawl" --share "$SHARE" --seed "$seed" 2>"$run.hide.log" || { cat "$run.hide.log" >&2; exit 2; }
    rc=0
    $BIN/linkgap run "$run/crawl" --out "$run/report.xlsx" --csv-dir "$run/csv" -q "$@" 2>"$run.run.log" || rc=$?
    [ "$rc" -le 1 ] || { cat "$run.run.log" >&2; exit 2; }
    $BIN/linkgap-eval score "$run/crawl" --queue "$run/csv" --row "$name seed $seed"
  done
done
