import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertClose, configure, csvCollector, ENGLISH_PARAGRAPH, estimateTokens, expectedAverage, longPage, onlyData,
  onlyError, readFixture, readSnippet, redirectingFetch, runSnippet, SENTINELS_OUT, startFakeApi,
} from './harness.mjs';

const FILE = 'openai-compatible-embeddings.js';
const ORIGINAL = readSnippet(FILE);
const csv = csvCollector(FILE, 'linkgap OpenAI-compatible embeddings');

let api;
before(async () => {
  api = await startFakeApi();
});
after(async () => {
  csv.write();
  await api.close();
});

// The base URL is a setting here, so it points straight at the fake server.
function snippet(settings = {}) {
  return configure(ORIGINAL, {
    baseUrl: `'${api.base}/compat/v1/'`,
    model: "'bge-small-en-v1.5'",
    retryBaseDelayMs: '1',
    ...settings,
  });
}

async function run(source, html) {
  api.reset();
  return runSnippet(source, { html, fetch: redirectingFetch({}) });
}

describe('openai-compatible-embeddings.js', () => {
  test('no key: POST <baseUrl>/embeddings without Authorization', async () => {
    const calls = await run(snippet(), readFixture('article.html'));
    const out = onlyData(calls);
    csv.add('https://www.example.com/blog/plan-a-vegetable-garden/', calls);
    assert.equal(out.model, 'bge-small-en-v1.5');
    assert.equal(out.dims, 384);
    assert.equal(api.requests.length, 1);
    const req = api.requests[0];
    assert.equal(req.path, '/compat/v1/embeddings', 'trailing slash of baseUrl is handled');
    assert.equal(req.headers.authorization, undefined);
    assert.deepEqual(Object.keys(req.body).sort(), ['encoding_format', 'input', 'model']);
    const sent = req.body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL'));
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
    assertClose(out.values, expectedAverage(req.body.input, 384), 1e-7);
  });

  test('with key, dimensions and without encoding_format', async () => {
    const calls = await run(snippet({ apiKey: "'sk-test-compat'", dimensions: '512', encodingFormat: 'null' }),
      readFixture('no-main.html'));
    const out = onlyData(calls);
    assert.equal(out.dims, 512);
    const req = api.requests[0];
    assert.equal(req.headers.authorization, 'Bearer sk-test-compat');
    assert.deepEqual(Object.keys(req.body).sort(), ['dimensions', 'input', 'model']);
  });

  test('falls back to <body> without header, nav, footer and cookie banner', async () => {
    const calls = await run(snippet(), readFixture('no-main.html'));
    onlyData(calls);
    csv.add('https://www.example.com/services/technical-seo-audit/', calls);
    const sent = api.requests[0].body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL Technical SEO audit'));
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
  });

  test('long page: chunks and requests within the configured limits', async () => {
    const calls = await run(snippet(), longPage(400, ENGLISH_PARAGRAPH));
    const out = onlyData(calls);
    csv.add('https://www.example.com/guides/companion-planting-complete/', calls);
    const inputs = [];
    for (const req of api.requests) {
      assert.ok(req.body.input.length <= 32);
      assert.ok(req.body.input.reduce((n, s) => n + estimateTokens(s), 0) <= 16384);
      for (const s of req.body.input) assert.ok(estimateTokens(s) <= 2048);
      inputs.push(...req.body.input);
    }
    assert.ok(api.requests.length >= 2);
    assertClose(out.values, expectedAverage(inputs, 384), 1e-7);
  });

  test('401 from the server arrives through seoSpider.error', async () => {
    const calls = await run(snippet({ apiKey: "'sk-test-revoked-0000'", providerName: "'Together'" }), readFixture('article.html'));
    const msg = onlyError(calls);
    csv.add('https://www.example.com/blog/revoked-key/', calls);
    assert.match(msg, /^linkgap-embed error: Together 401 unauthorized: Incorrect API key provided: sk-test\*\*\*000\./);
  });

  test('429 is retried, then reported', async () => {
    const msg = onlyError(await run(snippet({ apiKey: "'sk-test-ratelimit'" }), readFixture('article.html')));
    assert.match(msg, /^linkgap-embed error: Embeddings API 429 rate limited: Rate limit reached/);
    assert.equal(api.requests.length, 3);
  });

  test('a server that ignores the dimensions setting is reported', async () => {
    const msg = onlyError(await run(snippet({ model: "'fixed-size-model'", dimensions: '1536' }), readFixture('article.html')));
    assert.equal(msg, 'linkgap-embed error: expected 1536 dimensions, Embeddings API returned 384');
  });

  test('unedited placeholders are reported without a request', async () => {
    const msg = onlyError(await run(ORIGINAL, readFixture('article.html')));
    assert.equal(msg, 'linkgap-embed error: set baseUrl (e.g. https://api.example.com/v1) at the top of the snippet');
    const noModel = onlyError(await run(configure(ORIGINAL, { baseUrl: `'${api.base}/compat/v1'` }), readFixture('article.html')));
    assert.equal(noModel, 'linkgap-embed error: set the model name at the top of the snippet');
    assert.equal(api.requests.length, 0);
  });
});
