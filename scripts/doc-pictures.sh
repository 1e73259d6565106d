#!/usr/bin/env bash
# Regenerate the pictures in docs/images/ from the demo site: run linkgap on samples/, have
# LibreOffice print the workbook to PDF, and crop the top of each sheet's first page.
# Needs LibreOffice (soffice) and poppler-utils (pdftoppm).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo run --quiet --release -- run samples --out "$tmp/demo.xlsx" --client "Demo Garden Co" --quiet || [ $? -eq 1 ]
soffice --headless --norestore "-env:UserInstallation=file://$tmp/profile" --convert-to pdf --outdir "$tmp" "$tmp/demo.xlsx" >/dev/null
# Page numbers follow the sheet order: Summary, Opportunities, Queue, Near Duplicates, Pages, ...
crop() { # page name x y width height dpi
  pdftoppm -r "$7" -png -singlefile -f "$1" -l "$1" -x "$3" -y "$4" -W "$5" -H "$6" "$tmp/demo.pdf" "docs/images/$2"
}
crop 1 summary 80 80 1500 700 150
crop 2 opportunities 80 100 1150 420 200
crop 3 queue 60 80 1650 330 150
pages=$(pdftotext "$tmp/demo.pdf" - | grep -n "Resolved URL" | head -1 >/dev/null; pdfinfo "$tmp/demo.pdf" | awk '/^Pages/ {print $2}')
echo "wrote docs/images/*.png from a $pages-page PDF"
