// page-text.js: the main content as inner HTML for linkgap's page-text reader
// (src/input/page_text.rs). It must choose the same content as the embedding
// snippets, keep links, drop noise and stay under Excel's cell limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import {
  cellValues, configure, csvCollector, ENGLISH_PARAGRAPH, longPage, readFixture, readSnippet, redirectingFetch,
  runSnippet, SENTINELS_OUT, startFakeApi, writeCustomJsExport,
} from './harness.mjs';

const FILE = 'page-text.js';
const NAME = 'linkgap page text';
const ORIGINAL = readSnippet(FILE);
const csv = csvCollector(FILE, NAME);
const EMBED = 'linkgap OpenAI embeddings';
const combined = []; // rows of a crawl that ran both snippets

// What linkgap's reader does with the cells: trim each, join with a line break.
const joined = (value) => cellValues(value).map((c) => c.trim()).filter((c) => c).join('\n');
// The visible characters of some HTML, whitespace removed (to compare texts).
const chars = (html) => parseHTML(`<html><body>${html}</body></html>`).document.body.textContent.replace(/\s+/g, '');

let api;
let fetchToFake;
before(async () => {
  api = await startFakeApi();
  fetchToFake = redirectingFetch({ 'https://api.openai.com': api.base });
});
after(async () => {
  csv.write();
  const dir = process.env.LINKGAP_SNIPPET_OUT_DIR;
  if (dir && combined.length) writeCustomJsExport(dir, 'combined-custom_javascript_all.csv', [EMBED, NAME], combined);
  await api.close();
});

async function run(html, settings = {}) {
  return runSnippet(configure(ORIGINAL, settings), { html, fetch: () => Promise.reject(new Error('no network')) });
}

function onlyValue(calls) {
  assert.equal(calls.length, 1, `expected one seoSpider call, got ${JSON.stringify(calls).slice(0, 300)}`);
  assert.equal(calls[0].type, 'data', `got error: ${calls[0].value}`);
  const cells = cellValues(calls[0].value);
  for (const cell of cells) {
    assert.equal(typeof cell, 'string');
    assert.ok(cell.length <= 32000, `cell of ${cell.length} characters`);
    assert.equal(cell, cell.trim(), 'cells are trimmed');
  }
  return calls[0].value;
}

// The text the OpenAI snippet sends for the same page.
async function embeddedText(html, address) {
  api.reset();
  const source = configure(readSnippet('openai-embeddings.js'), { apiKey: "'sk-test-ok'", retryBaseDelayMs: '1' });
  const calls = await runSnippet(source, { html, fetch: fetchToFake });
  assert.equal(calls[0].type, 'data', calls[0].value);
  if (address) combined.push({ address, values: { [EMBED]: calls[0].value } });
  return api.requests.flatMap((r) => r.body.input).join('\n');
}

async function page(address, html, settings) {
  const calls = await run(html, settings);
  const value = onlyValue(calls);
  csv.add(address, calls);
  const sent = await embeddedText(html, address);
  combined.at(-1).values[NAME] = value;
  return { value, html: joined(value), sent };
}

describe('page-text.js', () => {
  test('returns the main content as HTML: links kept and absolute, noise and attributes dropped', async () => {
    const { value, html, sent } = await page('https://docs.example.com/guide/partitioning.html', readFixture('docs-page.html'));
    assert.equal(typeof value, 'string', 'a short page fills one cell');
    assert.ok(html.startsWith('<h1>MAIN-CONTENT-SENTINEL Table partitioning</h1>'), html.slice(0, 80));
    for (const s of [...SENTINELS_OUT, 'COMMENT-SENTINEL', 'IMAGE-SENTINEL', 'INPUT-SENTINEL', 'BUTTON-SENTINEL']) {
      assert.ok(!html.includes(s), `${s} must not be in the page text`);
    }
    // Links, resolved against <base href> as the browser does.
    assert.ok(html.includes('<a href="https://docs.example.com/guide/indexes.html#btree">the index chapter</a>'), html);
    assert.ok(html.includes('<a href="https://docs.example.com/reference/create-table/">CREATE TABLE</a>'));
    assert.ok(html.includes('<a href="https://other.example.org/blog/">an outside post</a>'));
    assert.ok(html.includes('<a href="https://docs.example.com/perf/pruning.html">partition pruning</a>'));
    assert.ok(html.includes('<a href="https://docs.example.com/guide/diagram.html"><img></a>'), 'an image link stays a link');
    assert.ok(html.includes('<a>with a script link</a>'), 'a javascript: link loses its href, keeps its words');
    // Only hrefs remain as attributes.
    assert.deepEqual([...html.matchAll(/<[a-z][a-z0-9]*\s+([a-z-]+)=/gi)].map((m) => m[1]).filter((a) => a !== 'href'), []);
    assert.ok(!html.includes('<!--'), 'no comments');
    // Block structure for linkgap's splitter.
    for (const tag of ['<p>', '<ul>', '<li>', '<dl><dt>Range</dt><dd>', '<table>', '<td>', '<pre>']) assert.ok(html.includes(tag), tag);
    assert.ok(html.includes('measurement (\n    logdate date not null\n)'), '<pre> keeps its line breaks');
    assert.ok(!/ {2}/.test(html.replace(/<pre>[\s\S]*?<\/pre>/g, '<pre></pre>')), 'whitespace is collapsed outside <pre>');
    // The same content the embedding snippets embed.
    assert.equal(chars(html), sent.replace(/\s+/g, ''));
  });

  test('the article page: <main> chosen, the aside inside it dropped, same text as the embedding', async () => {
    const { html, sent } = await page('https://www.example.com/blog/plan-a-vegetable-garden/', readFixture('article.html'));
    assert.ok(html.includes('MAIN-CONTENT-SENTINEL How to plan a vegetable garden'));
    assert.ok(html.includes('Successional sowing of salads'));
    for (const s of SENTINELS_OUT) assert.ok(!html.includes(s), `${s} must not be in the page text`);
    assert.ok(!html.includes('compost/'), 'the related-posts link was in the aside');
    assert.equal(chars(html), sent.replace(/\s+/g, ''));
  });

  test('no <main>: falls back to <body> without header, nav, footer and cookie banner', async () => {
    const { html, sent } = await page('https://www.example.com/services/technical-seo-audit/', readFixture('no-main.html'));
    assert.ok(html.includes('<h1>MAIN-CONTENT-SENTINEL Technical SEO audit</h1>'));
    assert.ok(html.includes('buried too deep'));
    for (const s of SENTINELS_OUT) assert.ok(!html.includes(s), `${s} must not be in the page text`);
    assert.equal(chars(html), sent.replace(/\s+/g, ''));
  });

  test('a huge page fills several cells under Excel\'s limit, cut between blocks, nothing lost', async () => {
    const source = longPage(1000, (i) => `<a href="/p/${i}">${ENGLISH_PARAGRAPH(i)}</a>`); // ~330,000 characters
    const { value, html, sent } = await page('https://www.example.com/guides/companion-planting-complete/', source);
    assert.ok(Array.isArray(value), 'several cells');
    assert.ok(value.length >= 10 && value.length <= 20, `${value.length} cells`);
    for (const cell of value.slice(1)) assert.match(cell, /^<\/?(p|h[1-6]|article|header)\b/, 'a cell starts at a block tag');
    for (let i = 0; i < 1000; i++) {
      assert.equal(html.split(`(para-${i}-end)`).length, 2, `paragraph ${i} appears exactly once`);
    }
    assert.ok(html.includes('<a href="/p/999">'), 'links kept (the test page has no URL to resolve them against)');
    assert.equal(chars(html), sent.replace(/\s+/g, ''), 'the cells joined read back as the whole content');
  });

  test('one block longer than a cell is cut at spaces', async () => {
    const words = Array.from({ length: 4000 }, (_, i) => `word${i}`).join(' ');
    const value = onlyValue(await run(`<html><body><main><p>${words}</p></main></body></html>`, { maxCellChars: '5000' }));
    assert.ok(Array.isArray(value) && value.length >= 7, `${cellValues(value).length} cells`);
    assert.equal(joined(value).replace(/\s+/g, ' '), `<p>${words}</p>`);
  });

  test('a page over maxCells cells is cut at a block boundary and says so', async () => {
    const value = onlyValue(await run(longPage(3000, ENGLISH_PARAGRAPH))); // ~900,000 characters
    assert.equal(value.length, 20);
    const html = joined(value);
    assert.ok(html.includes('(para-0-end)'));
    assert.ok(!html.includes('(para-2999-end)'));
    assert.match(html, /<\/p>\n<!-- linkgap: page text cut at maxCells \(\d+ characters\) -->$/);
  });

  test('a page without text is reported; bad settings are reported', async () => {
    const calls = await run('<html><body><nav>NAV-SENTINEL</nav><main></main></body></html>');
    assert.deepEqual(calls, [{ type: 'error', value: 'linkgap-page-text error: no text content found on the page' }]);
    const bad = await run(readFixture('article.html'), { maxCells: '0' });
    assert.equal(bad[0].type, 'error');
    assert.match(bad[0].value, /^linkgap-page-text error: maxCellChars must be at least 1000/);
  });

  test('absoluteLinks: false keeps hrefs as written', async () => {
    const html = joined(onlyValue(await run(readFixture('docs-page.html'), { absoluteLinks: 'false' })));
    assert.ok(html.includes('<a href="indexes.html#btree">'));
    assert.ok(html.includes('<a href="../perf/pruning.html">'));
  });

  test('does not change the page and calls no API', async () => {
    const dom = parseHTML(readFixture('docs-page.html'));
    const before = dom.document.toString();
    let fetched = 0;
    const calls = await runSnippet(ORIGINAL, { dom, fetch: () => { fetched++; return Promise.reject(new Error('no')); } });
    onlyValue(calls);
    assert.equal(dom.document.toString(), before);
    assert.equal(fetched, 0);
  });
});
