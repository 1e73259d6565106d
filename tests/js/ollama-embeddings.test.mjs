import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertClose, closedPort, configure, csvCollector, ENGLISH_PARAGRAPH, estimateTokens, expectedAverage, longPage,
  onlyData, onlyError, readFixture, readSnippet, redirectingFetch, runSnippet, SENTINELS_OUT, startFakeApi,
} from './harness.mjs';

const FILE = 'ollama-embeddings.js';
const ORIGINAL = readSnippet(FILE);
const csv = csvCollector(FILE, 'linkgap Ollama embeddings');

let api;
let fetchToFake;
before(async () => {
  api = await startFakeApi();
  // The snippet is used unchanged: its default baseUrl is sent to the fake server.
  fetchToFake = redirectingFetch({ 'http://localhost:11434': api.base });
});
after(async () => {
  csv.write();
  await api.close();
});

function snippet(settings = {}) {
  return configure(ORIGINAL, { retryBaseDelayMs: '1', ...settings });
}

async function run(source, html) {
  api.reset();
  return runSnippet(source, { html, fetch: fetchToFake });
}

describe('ollama-embeddings.js', () => {
  test('works unedited against a local Ollama: POST /api/embed {model, input}', async () => {
    const calls = await run(ORIGINAL, readFixture('article.html'));
    const out = onlyData(calls);
    csv.add('https://www.example.com/blog/plan-a-vegetable-garden/', calls);
    assert.equal(out.model, 'nomic-embed-text');
    assert.equal(out.dims, 768);
    assert.match(calls[0].value, /^model=nomic-embed-text;dims=768;-?\d/);

    assert.equal(api.requests.length, 1);
    const req = api.requests[0];
    assert.equal(req.path, '/api/embed');
    assert.equal(req.headers.authorization, undefined, 'no API key is sent');
    assert.deepEqual(Object.keys(req.body).sort(), ['input', 'model']);
    assert.equal(req.body.model, 'nomic-embed-text');
    assert.ok(Array.isArray(req.body.input));
    const sent = req.body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL How to plan a vegetable garden'));
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
    assertClose(out.values, expectedAverage(req.body.input, 768), 1e-7);
  });

  test('falls back to <body> without header, nav, footer and cookie banner', async () => {
    const calls = await run(snippet(), readFixture('no-main.html'));
    onlyData(calls);
    csv.add('https://www.example.com/services/technical-seo-audit/', calls);
    const sent = api.requests[0].body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL Technical SEO audit'));
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
  });

  test('long page: chunks of at most 2,048 estimated tokens, 16 per request, averaged', async () => {
    const calls = await run(snippet(), longPage(400, ENGLISH_PARAGRAPH));
    const out = onlyData(calls);
    csv.add('https://www.example.com/guides/companion-planting-complete/', calls);
    assert.ok(api.requests.length >= 2, `expected several requests, got ${api.requests.length}`);
    const inputs = [];
    for (const req of api.requests) {
      assert.ok(req.body.input.length <= 16);
      for (const s of req.body.input) assert.ok(estimateTokens(s) <= 2048, `chunk of ${estimateTokens(s)} estimated tokens`);
      inputs.push(...req.body.input);
    }
    assert.ok(inputs.length >= 18);
    const all = inputs.join('\n');
    for (let i = 0; i < 400; i++) assert.equal(all.split(`(para-${i}-end)`).length, 2, `paragraph ${i} appears once`);
    assertClose(out.values, expectedAverage(inputs, 768), 1e-7);
    assert.ok(Math.abs(Math.hypot(...out.values) - 1) < 1e-6);
  });

  test('other model and dimensions settings', async () => {
    const out = onlyData(await run(snippet({ model: "'mxbai-embed-large'" }), readFixture('article.html')));
    assert.equal(out.model, 'mxbai-embed-large');
    assert.equal(out.dims, 1024);
    const cut = onlyData(await run(snippet({ dimensions: '256' }), readFixture('article.html')));
    assert.equal(cut.dims, 256);
    assert.equal(api.requests[0].body.dimensions, 256);
  });

  test('a model tag with a colon is kept as written', async () => {
    const out = onlyData(await run(snippet({ model: "'nomic-embed-text:latest'" }), readFixture('article.html')));
    assert.equal(out.model, 'nomic-embed-text:latest');
  });

  test('404 model not found arrives through seoSpider.error', async () => {
    const calls = await run(snippet({ model: "'missing-model'" }), readFixture('article.html'));
    const msg = onlyError(calls);
    csv.add('https://www.example.com/blog/missing-model/', calls);
    assert.equal(msg, 'linkgap-embed error: Ollama 404 not found: model "missing-model" not found, try pulling it first');
    assert.equal(api.requests.length, 1);
  });

  test('429 and 503 are retried twice, then reported', async () => {
    const limited = onlyError(await run(snippet({ model: "'ratelimited-model'" }), readFixture('article.html')));
    assert.equal(limited, 'linkgap-embed error: Ollama 429 rate limited: too many requests');
    assert.equal(api.requests.length, 3);
    const busy = onlyError(await run(snippet({ model: "'busy-model'" }), readFixture('article.html')));
    assert.equal(busy, 'linkgap-embed error: Ollama 503 unavailable: server busy, please try again. maximum pending requests exceeded');
    assert.equal(api.requests.length, 3);
  });

  test('malformed JSON and a wrong number of embeddings are reported', async () => {
    const garbage = onlyError(await run(snippet({ model: "'garbage-model'" }), readFixture('article.html')));
    assert.equal(garbage, 'linkgap-embed error: Ollama returned malformed JSON: not json at all');
    const wrong = onlyError(await run(snippet({ model: "'wrong-count-model'" }), readFixture('article.html')));
    assert.equal(wrong, 'linkgap-embed error: Ollama response has 0 embeddings for 1 inputs');
  });

  test('Ollama not running: a network error with a hint', async () => {
    const calls = await runSnippet(snippet(), {
      html: readFixture('article.html'),
      fetch: redirectingFetch({ 'http://localhost:11434': `http://127.0.0.1:${await closedPort()}` }),
    });
    const msg = onlyError(calls);
    assert.match(msg, /^linkgap-embed error: Ollama network error \(is Ollama running at http:\/\/localhost:11434, with OLLAMA_ORIGINS allowing this site\?\): /);
  });

  test('a model name that would break the output format is refused', async () => {
    const msg = onlyError(await run(snippet({ model: "'bad;name'" }), readFixture('article.html')));
    assert.equal(msg, 'linkgap-embed error: model name must be set and must not contain ; , = or spaces');
    assert.equal(api.requests.length, 0);
  });
});
