//! The neighbour search as the run needs it: pages in URL order (a deterministic tie-break),
//! destinations and sources by eligibility, page-type groups and their scope, and the calls
//! into [`crate::neighbors`]: each destination's most similar sources.

use std::collections::{BTreeMap, HashMap};

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::eligibility::GroupScope;
use crate::languages::Languages;
use crate::neighbors::{self, Matrix, Neighbor, SearchReport};
use crate::progress::Progress;

use super::pages::Page;

/// The pages compared, in URL order, and their roles.
pub(super) struct Compared {
    /// Page ids with a vector, in URL order: the matrix's row order.
    pub(super) order: Vec<u32>,
    /// Page id → row in `order`, [`NO_ROW`] for a page without a vector: a table, as page ids
    /// are dense (the ranking looks up both ends of each of a large site's millions of body
    /// links).
    row_of: Vec<u32>,
    /// Eligible destinations, in URL order.
    pub(super) targets: Vec<u32>,
    /// Eligible sources, in URL order.
    pub(super) sources: Vec<u32>,
    /// Page id → page-type group (empty without `--group-by`).
    pub(super) group_of: HashMap<u32, String>,
    /// Each page's language and its translations (hreflang alternates).
    pub(super) languages: Languages,
    /// Whether pages are compared only within their language.
    pub(super) per_language: bool,
}

/// [`Compared::row_of`] for a page that has no row.
const NO_ROW: u32 = u32::MAX;

impl Compared {
    /// The pages with a vector, in URL order, with their roles and groups.
    pub(super) fn new(config: &RunConfig, pages: &BTreeMap<u32, Page>, crawl: &Crawl) -> Self {
        let urls = &crawl.urls;
        let mut order: Vec<u32> = pages
            .iter()
            .filter(|(_, p)| p.vector.is_some())
            .map(|(&f, _)| f)
            .collect();
        order.sort_by(|a, b| urls.url(*a).cmp(urls.url(*b)));
        let mut row_of = vec![NO_ROW; urls.len()];
        for (i, &f) in order.iter().enumerate() {
            row_of[f as usize] = i as u32;
        }
        let targets: Vec<u32> = order
            .iter()
            .copied()
            .filter(|f| pages[f].decision.destination.is_ok())
            .collect();
        let sources: Vec<u32> = order
            .iter()
            .copied()
            .filter(|f| pages[f].decision.source.is_ok())
            .collect();
        let group_of: HashMap<u32, String> = match &config.groups {
            Some((rule, _)) => pages
                .keys()
                .map(|&f| {
                    let segment = crawl
                        .internal
                        .as_ref()
                        .and_then(|i| crawl.crawled.get(&f).map(|&r| i.urls[r].segment.as_str()))
                        .unwrap_or("");
                    (f, rule.group(urls.url(f), segment))
                })
                .collect(),
            None => HashMap::new(),
        };
        let languages = Languages::build(pages.keys().copied(), crawl);
        let per_language = !config.cross_language && languages.is_multilingual();
        Compared {
            order,
            row_of,
            targets,
            sources,
            group_of,
            languages,
            per_language,
        }
    }
}

/// The neighbour lists: ids in them are rows of [`Compared::order`].
pub(super) struct Found {
    /// For each target (same order as `targets`), its most similar sources: as many as the
    /// ranking considers, until [`Found::truncate`] cuts them to `--top-k`.
    pub(super) inbound: Vec<Vec<Neighbor>>,
    /// How each search ran (exact or approximate, recall).
    pub(super) reports: Vec<SearchReport>,
}

impl Found {
    /// Each target's list by matrix row (empty for pages that are not targets), taken out of
    /// `inbound`; [`Found::put_back`] returns them.
    pub(super) fn by_row(&mut self, compared: &Compared) -> Vec<Vec<Neighbor>> {
        let mut rows = vec![Vec::new(); compared.order.len()];
        for (t, list) in compared.targets.iter().zip(&mut self.inbound) {
            rows[compared.row_of[*t as usize] as usize] = std::mem::take(list);
        }
        rows
    }

    /// The lists back in target order, cut to the `k` the sheets show.
    pub(super) fn put_back(&mut self, compared: &Compared, mut rows: Vec<Vec<Neighbor>>, k: usize) {
        for (t, list) in compared.targets.iter().zip(&mut self.inbound) {
            *list = std::mem::take(&mut rows[compared.row_of[*t as usize] as usize]);
            list.truncate(k);
            list.shrink_to_fit();
        }
    }
}

/// Neighbours searched per page: the `--top-k` the sheets show, or the ranking's candidate
/// count if larger.
fn search_k(config: &RunConfig) -> usize {
    config.top_k.max(config.ranking.neighbors)
}

/// One partition of the search: its queries and its candidates (page ids).
type Partition = (Vec<u32>, Vec<u32>);

impl Compared {
    /// Page `f`'s matrix row, if it has a vector.
    pub(super) fn row(&self, f: u32) -> Option<u32> {
        self.row_of
            .get(f as usize)
            .copied()
            .filter(|&r| r != NO_ROW)
    }

    /// Whether a link from page `s` to page `d` stays within the run's scope: the same group
    /// with `--group-scope same`, the same language unless `--cross-language`, and never
    /// between translations of one page. The ranking's graph evidence can bring in pairs the
    /// search never compared; this keeps them to the same rules.
    pub(super) fn allowed(&self, config: &RunConfig, s: u32, d: u32) -> bool {
        let by_group = matches!(&config.groups, Some((_, GroupScope::Same)));
        if by_group && self.group_of.get(&s) != self.group_of.get(&d) {
            return false;
        }
        if self.per_language && self.languages.language(s) != self.languages.language(d) {
            return false;
        }
        !self.languages.alternates(s, d)
    }
}

/// Searches `queries` against `candidates` (page ids) in `matrix` (rows in URL order), one
/// partition per group when links stay within groups.
struct Searcher<'a> {
    config: &'a RunConfig,
    compared: &'a Compared,
    matrix: &'a [f32],
    dim: usize,
    progress: Progress,
    reports: Vec<SearchReport>,
}

impl Searcher<'_> {
    /// One partition per group (with `--group-scope same`) and per language (unless
    /// `--cross-language`, on a site with two or more languages; pages of unknown language
    /// are one more partition).
    fn partitions(&self, queries: &[u32], candidates: &[u32]) -> Vec<(Vec<u32>, Vec<u32>)> {
        let by_group = matches!(&self.config.groups, Some((_, GroupScope::Same)));
        let by_language = self.compared.per_language;
        if !by_group && !by_language {
            return vec![(queries.to_vec(), candidates.to_vec())];
        }
        let (group_of, languages) = (&self.compared.group_of, &self.compared.languages);
        let key = |f: &u32| {
            (
                if by_group { group_of[f].as_str() } else { "" },
                if by_language {
                    languages.language(*f)
                } else {
                    ""
                },
            )
        };
        let mut by_key: BTreeMap<(&str, &str), Partition> = BTreeMap::new();
        for q in queries {
            by_key.entry(key(q)).or_default().0.push(*q);
        }
        for c in candidates {
            by_key.entry(key(c)).or_default().1.push(*c);
        }
        by_key.into_values().collect()
    }

    /// Neighbours searched per query: k, plus room for the translations that are dropped.
    fn depth(&self) -> usize {
        let languages = &self.compared.languages;
        if languages.has_alternates() {
            search_k(self.config) + languages.max_cluster - 1
        } else {
            search_k(self.config)
        }
    }

    /// Drop a query's translations (hreflang alternates) from its list and keep k.
    fn without_translations(&self, query: u32, mut list: Vec<Neighbor>) -> Vec<Neighbor> {
        let languages = &self.compared.languages;
        if languages.has_alternates() {
            let order = &self.compared.order;
            list.retain(|n| !languages.alternates(query, order[n.id as usize]));
            list.truncate(search_k(self.config));
        }
        list
    }

    /// All pages in URL order are the matrix itself; a subset is gathered.
    fn gather(&self, ranks: &[u32]) -> Option<Vec<f32>> {
        let dim = self.dim;
        if ranks.len() * dim == self.matrix.len() {
            return None;
        }
        let mut data = Vec::with_capacity(ranks.len() * dim);
        for &r in ranks {
            data.extend_from_slice(&self.matrix[r as usize * dim..(r as usize + 1) * dim]);
        }
        Some(data)
    }

    fn search(
        &mut self,
        queries: &[u32],
        candidates: &[u32],
        what: &str,
    ) -> HashMap<u32, Vec<Neighbor>> {
        let rank = |f: &u32| self.compared.row_of[*f as usize];
        let bar = self.progress.items(what, queries.len() as u64);
        let mut out = HashMap::with_capacity(queries.len());
        let mut done = 0u64;
        for (group_queries, group_candidates) in &self.partitions(queries, candidates) {
            if group_queries.is_empty() {
                continue;
            }
            let query_ranks: Vec<u32> = group_queries.iter().map(rank).collect();
            let cand_ranks: Vec<u32> = group_candidates.iter().map(rank).collect();
            let query_data = self.gather(&query_ranks);
            // Equal sets share one buffer, which lets the kernel form each pair once.
            let same = group_queries == group_candidates;
            let cand_data = if same { None } else { self.gather(&cand_ranks) };
            let query_slice = query_data.as_deref().unwrap_or(self.matrix);
            let cand_slice = if same {
                query_slice
            } else {
                cand_data.as_deref().unwrap_or(self.matrix)
            };
            let base = done;
            let (found, searched) = neighbors::search(
                Matrix {
                    data: query_slice,
                    rows: group_queries.len(),
                    dim: self.dim,
                },
                &query_ranks,
                Matrix {
                    data: cand_slice,
                    rows: group_candidates.len(),
                    dim: self.dim,
                },
                &cand_ranks,
                self.depth(),
                self.config.index,
                self.config.recall_sample,
                &|rows| bar.set_position(base + rows as u64),
            );
            self.reports.push(searched);
            done += group_queries.len() as u64;
            out.extend(
                group_queries
                    .iter()
                    .copied()
                    .zip(found)
                    .map(|(q, list)| (q, self.without_translations(q, list))),
            );
        }
        bar.finish_and_clear();
        out
    }
}

/// For each destination, its most similar sources (the Moz view, and the ranking's
/// candidates by similarity).
pub(super) fn neighbours(
    config: &RunConfig,
    compared: &Compared,
    matrix: &[f32],
    dim: usize,
    progress: Progress,
) -> Found {
    let mut searcher = Searcher {
        config,
        compared,
        matrix,
        dim,
        progress,
        reports: Vec::new(),
    };
    let targets = &compared.targets;
    let mut inbound = searcher.search(targets, &compared.sources, "Ranking similar pages");
    Found {
        inbound: targets
            .iter()
            .map(|t| inbound.remove(t).unwrap_or_default())
            .collect(),
        reports: searcher.reports,
    }
}

/// How the neighbours were found, with the approximate index's measured recall.
pub(super) fn description(reports: &[SearchReport]) -> String {
    let sampled: usize = reports
        .iter()
        .filter(|r| r.approximate)
        .map(|r| r.sample)
        .sum();
    let notes: Vec<&str> = reports.iter().filter_map(|r| r.note.as_deref()).collect();
    let mut text = if reports.iter().any(|r| r.approximate) {
        let weighted: f64 = reports
            .iter()
            .filter(|r| r.approximate)
            .map(|r| r.recall.unwrap_or(1.0) * r.sample as f64)
            .sum();
        format!(
            "cosine of the page vectors; approximate: an inverted-file index (k-means lists, exact scores inside the probed lists); recall@k {:.4} against exact search on {sampled} sampled pages",
            if sampled > 0 {
                weighted / sampled as f64
            } else {
                1.0
            }
        )
    } else {
        "cosine of the page vectors; exact: every pair compared".to_string()
    };
    for note in notes {
        text.push_str("; ");
        text.push_str(note);
    }
    text
}
