#!/usr/bin/env python3
"""Turn a folder of static HTML pages into the three exports the passage harness reads
(`examples/passage_eval.rs`): `internal_all.csv` (Address, Indexability and its Status from
`<meta name="robots">` (noindex or none), Title 1, H1-1),
`all_inlinks.csv` (hyperlinks with their anchors and positions) and
`custom_extraction_all.csv` (the inner HTML of each page's main content), with Screaming
Frog's headers and quoting. It gives the harness a second real site beside postgres15 from
any documentation built to HTML (Asciidoctor, Sphinx, mdBook, Javadoc...), without a crawl.

usage: static_site_exports.py HTML_DIR OUT_DIR [--base URL] [--main SELECTOR] [--dim N]

SELECTOR names the main-content element: `id=content` (Asciidoctor, the default),
`role=main` (Sphinx), `tag=main`, `tag=article`, `class=NAME`. Links inside it are Content
links, the others Navigation. Only links between pages of the folder are kept.
Standard library only.
"""

import csv
import hashlib
import html
import math
import os
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urljoin, urldefrag

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "param", "source", "track", "wbr"}


class Page(HTMLParser):
    def __init__(self, selector):
        super().__init__(convert_charrefs=True)
        self.key, self.value = selector.split("=", 1)
        self.title, self.h1 = "", ""
        self.in_title = self.in_h1 = False
        self.h1_done = False
        self.depth = 0  # open elements inside the main content (0: outside)
        self.main = []  # inner HTML of the main content
        self.text = []  # its visible text
        self.links = []  # (href, anchor, in_main)
        self.anchor = None  # (href, [text], in_main) of the open <a>
        self.noindex = False  # <meta name="robots" content="noindex">, as Screaming Frog reads it

    def matches(self, tag, attrs):
        a = dict(attrs)
        if self.key == "tag":
            return tag == self.value
        if self.key == "class":
            return self.value in (a.get("class") or "").split()
        return a.get(self.key) == self.value

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.main.append(self.get_starttag_text())
            if tag not in VOID:
                self.depth += 1
        elif self.matches(tag, attrs) and not self.main:
            self.depth = 1
        if tag == "title":
            self.in_title = True
        self.robots(tag, attrs)
        if tag == "h1" and not self.h1_done:
            self.in_h1 = True
        if tag == "a":
            href = dict(attrs).get("href")
            self.anchor = (href, [], self.depth > 0) if href else None

    def handle_startendtag(self, tag, attrs):
        if self.depth:
            self.main.append(self.get_starttag_text())
        self.robots(tag, attrs)

    def robots(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (a.get("name") or "").lower() == "robots" \
                and re.search(r"\b(noindex|none)\b", (a.get("content") or "").lower()):
            self.noindex = True

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
            if self.depth:
                self.main.append(f"</{tag}>")
        if tag == "title":
            self.in_title = False
        if tag == "h1" and self.in_h1:
            self.in_h1, self.h1_done = False, True
        if tag == "a" and self.anchor:
            href, text, in_main = self.anchor
            self.links.append((href, " ".join("".join(text).split()), in_main))
            self.anchor = None

    def handle_data(self, data):
        if self.depth:
            self.main.append(html.escape(data, quote=False))
            self.text.append(data)
        if self.in_title:
            self.title += data
        if self.in_h1:
            self.h1 += data
        if self.anchor:
            self.anchor[1].append(data)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    src, out = args[0], args[1]
    base = "https://docs.example.org/"
    selector = "id=content"
    if "--base" in args:
        base = args[args.index("--base") + 1]
    if "--main" in args:
        selector = args[args.index("--main") + 1]
    dim = int(args[args.index("--dim") + 1]) if "--dim" in args else 0
    words_of = {}
    files = sorted(
        os.path.relpath(os.path.join(d, f), src)
        for d, _, fs in os.walk(src)
        for f in fs
        if f.endswith(".html")
    )
    urls = {base + f.replace(os.sep, "/") for f in files}
    os.makedirs(out, exist_ok=True)
    q = dict(quoting=csv.QUOTE_ALL, lineterminator="\n")
    with open(os.path.join(out, "internal_all.csv"), "w", encoding="utf-8-sig", newline="") as fi, \
            open(os.path.join(out, "all_inlinks.csv"), "w", encoding="utf-8-sig", newline="") as fl, \
            open(os.path.join(out, "custom_extraction_all.csv"), "w", encoding="utf-8-sig", newline="") as fc:
        wi, wl, wc = csv.writer(fi, **q), csv.writer(fl, **q), csv.writer(fc, **q)
        wi.writerow(["Address", "Content Type", "Status Code", "Status", "Indexability",
                     "Indexability Status", "Title 1", "H1-1"])
        wl.writerow(["Type", "Source", "Destination", "Size (Bytes)", "Alt Text", "Anchor",
                     "Status Code", "Status", "Follow", "Target", "Rel", "Path Type",
                     "Link Path", "Link Position", "Link Origin"])
        wc.writerow(["Address", "Status Code", "Status", "Main Content 1"])
        pages = links = 0
        for f in files:
            url = base + f.replace(os.sep, "/")
            p = Page(selector)
            with open(os.path.join(src, f), encoding="utf-8", errors="replace") as h:
                p.feed(h.read())
            p.close()
            title, h1 = " ".join(p.title.split()), " ".join(p.h1.split())
            indexability = ("Non-Indexable", "noindex") if p.noindex else ("Indexable", "")
            wi.writerow([url, "text/html; charset=utf-8", "200", "OK", *indexability, title, h1])
            if p.main:
                wc.writerow([url, "200", "OK", "".join(p.main)])
            words_of[url] = Counter(re.findall(r"\w+", " ".join([title, h1] + p.text).lower()))
            pages += 1
            for href, anchor, in_main in p.links:
                dest = urldefrag(urljoin(url, href))[0]
                if dest not in urls:
                    continue
                links += 1
                wl.writerow(["Hyperlink", url, dest, "0", "", anchor, "200", "OK", "true", "",
                             "", "Relative", "", "Content" if in_main else "Navigation", "HTML"])
    if dim:
        write_vectors(os.path.join(out, "custom_javascript_all.csv"), words_of, dim)
    print(f"{pages} pages, {links} internal links -> {out}", file=sys.stderr)


def write_vectors(path, words_of, dim):
    """Each page's tf-idf word weights hashed into `dim` signed dimensions, unit length."""
    df = Counter(w for counts in words_of.values() for w in counts)
    n = len(words_of)
    slot = {}
    for w in df:
        h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
        slot[w] = (h % dim, 1.0 if (h >> 32) & 1 else -1.0)
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        out = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        out.writerow(["Address", "Content Type", "Status Code", "Status",
                      "Embeddings from page text 1"])
        for url, counts in words_of.items():
            v = [0.0] * dim
            for w, c in counts.items():
                i, sign = slot[w]
                v[i] += sign * (1 + math.log(c)) * math.log(n / df[w])
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.writerow([url, "text/html; charset=utf-8", "200", "OK",
                          ",".join(f"{x / norm:.6g}" for x in v)])


if __name__ == "__main__":
    main()
