"""Turn a Screaming Frog crawl into pages.tsv / edges.tsv / vectors.f32 for examples/rank_eval.rs (offline only).
usage: rank_eval_prep.py OUTDIR INLINKS INTERNAL [EMBEDDINGS]"""
import csv, sys, struct, collections, os, re
from urllib.parse import urlsplit, urlunsplit, parse_qsl, urlencode
csv.field_size_limit(1 << 30)
out, inl, internal = sys.argv[1:4]
emb = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(out, exist_ok=True)
TRACK = re.compile(r'^(utm_.*|gclid|fbclid|msclkid|_ga|_gl)$')
def norm(u):
    try:
        p = urlsplit(u.strip())
    except ValueError:
        return None
    if p.scheme.lower() not in ('http', 'https'):
        return None
    q = [(k, v) for k, v in parse_qsl(p.query, keep_blank_values=True) if not TRACK.match(k)]
    return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path or '/', urlencode(q), ''))
def rows(f):
    with open(f, encoding='utf-8-sig', newline='') as fh:
        yield from csv.DictReader(fh)
info, nxt = {}, {}
for r in rows(internal):
    u = norm(r['Address'])
    if not u: continue
    info[u] = r
    red = r.get('Redirect URL', '')
    can = r.get('Canonical Link Element 1', '')
    if r['Status Code'].startswith('3') and red:
        nxt[u] = norm(red)
    elif can and norm(can) and norm(can) != u:
        nxt[u] = norm(can)
links = []
for r in rows(inl):
    s, d = norm(r['Source']), norm(r['Destination'])
    if not s or not d: continue
    if r['Type'] == 'HTTP Redirect':
        nxt.setdefault(s, d); continue
    if r['Type'] != 'Hyperlink': continue
    links.append((s, d, r['Link Position'], r['Link Path']))
def resolve(u):
    seen = set()
    while u in nxt and u not in seen and len(seen) < 20:
        seen.add(u); u = nxt[u]
    return u
vec = {}
if emb:
    for r in rows(emb):
        u = norm(r['Address']); col = [k for k in r if 'mbedding' in k][0]
        try:
            v = [float(x) for x in r[col].strip('[] ').split(',')]
        except ValueError:
            continue
        if len(v) < 16: continue
        if resolve(u) == u: vec[u] = v
# pages: HTML 200 pages of Internal: All that are not redirected/canonicalised (and have a vector if any)
pages = [u for u, r in info.items() if resolve(u) == u and r['Status Code'] == '200'
         and 'html' in r['Content Type'] and (not emb or u in vec)]
pages.sort()
pid = {u: i for i, u in enumerate(pages)}
def words(r):
    try: return int(r.get('Word Count') or 0)
    except ValueError: return 0
with open(f'{out}/pages.tsv', 'w') as fh:
    for u in pages:
        r = info[u]; robots = (r.get('Meta Robots 1') or '').lower()
        thin = 'Word Count' in r and r['Word Count'] != '' and words(r) < 50
        src = not thin and 'nofollow' not in robots
        dst = not thin and r['Indexability'] != 'Non-Indexable' and 'noindex' not in robots
        folder = urlsplit(u).path.rsplit('/', 1)[0]
        fh.write(f'{u}\t{int(src)}\t{int(dst)}\t{folder}\n')
# body links with the template-block rule (same Link Path to same page on >=20% and >=5 linking pages)
linking = {resolve(s) for s, _, _, _ in links}
block = collections.Counter()
for s, d, pos, path in set((resolve(s), resolve(d), pos, path) for s, d, pos, path in links):
    if pos == 'Content' and path: block[(path, d)] += 1
floor = max(5, -(-int(0.2 * len(linking) * 1000) // 1000))
edges = set()
for s, d, pos, path in links:
    s, d = resolve(s), resolve(d)
    if pos != 'Content' or block[(path, d)] >= floor: continue
    if s in pid and d in pid and s != d: edges.add((pid[s], pid[d]))
with open(f'{out}/edges.tsv', 'w') as fh:
    for s, d in sorted(edges): fh.write(f'{s}\t{d}\n')
dim = len(next(iter(vec.values()))) if vec else 0
with open(f'{out}/vectors.f32', 'wb') as fh:
    for u in pages:
        v = vec.get(u, [])
        n = sum(x * x for x in v) ** 0.5 or 1.0
        fh.write(struct.pack(f'{len(v)}f', *[x / n for x in v]))
print(out, 'pages', len(pages), 'edges', len(edges), 'dim', dim, 'src', sum(1 for u in pages), 'template floor', floor)
