"""Nested holdout: fit a logistic regression on the inner level, score the outer level, apply the
budget, count hidden links in the first N; compare with the fixed formula. usage: rank_eval_lr.py DUMPDIR PAGES.tsv (DUMPDIR from `rank_eval DIR --dump DUMPDIR`)"""
import os, sys, glob, collections, numpy as np
d, pages_path = sys.argv[1], sys.argv[2]
folders = [l.rstrip('\n').split('\t')[3] for l in open(pages_path)]
def load(path):
    lines = open(path).read().splitlines()
    n = int(lines[0].split()[2])
    a = np.array([[float(x) for x in l.split('\t')] for l in lines[2:]]) if len(lines) > 2 else np.zeros((0, 7))
    return n, a
def edges(path):
    out, inn = collections.defaultdict(set), collections.defaultdict(set)
    for l in open(path):
        s, t = map(int, l.split()); out[s].add(t); inn[t].add(s)
    return out, inn
def feats(a, g):
    out, inn = g
    s, t = a[:, 0].astype(int), a[:, 1].astype(int)
    cocit = np.array([len(inn[x] & inn[y]) for x, y in zip(s, t)])      # pages linking to both
    coref = np.array([len(out[x] & out[y]) for x, y in zip(s, t)])      # pages both link to
    same = np.array([folders[x] == folders[y] for x, y in zip(s, t)], float)
    sout = np.array([len(out[x]) for x in s]); tin = np.array([len(inn[y]) for y in t])
    return np.column_stack([a[:, 2], a[:, 3], np.log1p(a[:, 4]), np.log1p(a[:, 5]),
                            np.log1p(cocit), np.log1p(coref), same, np.log1p(sout), np.log1p(tin)])
def fit(X, y, l2=1e-3, iters=300):
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.column_stack([np.ones(len(X)), (X - mu) / sd]); w = np.zeros(Z.shape[1])
    for _ in range(iters):  # Newton
        p = 1 / (1 + np.exp(-Z @ w)); g = Z.T @ (p - y) + l2 * w
        H = (Z * (p * (1 - p))[:, None]).T @ Z + l2 * np.eye(len(w)); w -= np.linalg.solve(H, g)
    return lambda X2: np.column_stack([np.ones(len(X2)), (X2 - mu) / sd]) @ w
def hits(a, score, n, cap_d=5, cap_s=10):
    order = np.lexsort((a[:, 0], a[:, 1], -score))
    to, fr, kept = collections.Counter(), collections.Counter(), []
    for i in order:
        s, t = int(a[i, 0]), int(a[i, 1])
        if cap_d and to[t] >= cap_d: continue
        if cap_s and fr[s] >= cap_s: continue
        to[t] += 1; fr[s] += 1; kept.append(i)
        if len(kept) >= n: break
    return int(a[kept, 6].sum())
fixed = lambda a: a[:, 2] + 0.5 * a[:, 3] + 0.25 * np.log1p(a[:, 4]) + 0.25 * np.log1p(a[:, 5])
for budget in [(5, 10), (None, None)]:
  for seed in sorted({os.path.basename(p).split('_')[1].split('.')[0] for p in glob.glob(f'{d}/outer_*[0-9].tsv')}):
    n, outer = load(f'{d}/outer_{seed}.tsv'); _, inner = load(f'{d}/inner_{seed}.tsv')
    Xi = feats(inner, edges(f'{d}/inner_{seed}_edges.tsv')); Xo = feats(outer, edges(f'{d}/outer_{seed}_edges.tsv'))
    base = fixed(outer)
    r = {'fixed': hits(outer, base, n, *budget)}
    for name, cols in [('lr4', [0, 1, 2, 3]), ('lr+cocit', [0, 1, 2, 3, 4, 5]), ('lr_all', list(range(9)))]:
        m = fit(Xi[:, cols], inner[:, 6]); r[name] = hits(outer, m(Xo[:, cols]), n, *budget)
    print('budget', budget, 'seed', seed, 'N', n, 'hidden-in-cands', int(outer[:, 6].sum()), r)
