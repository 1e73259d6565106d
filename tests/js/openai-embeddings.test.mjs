import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import {
  assertClose, closedPort, configure, csvCollector, onlyData, onlyError, ENGLISH_PARAGRAPH, CJK_PARAGRAPH, estimateTokens, expectedAverage, fakeVector,
  longPage, parseOutput, readFixture, readSnippet, redirectingFetch, runSnippet, SENTINELS_OUT, startFakeApi,
} from './harness.mjs';

const FILE = 'openai-embeddings.js';
const ORIGINAL = readSnippet(FILE);
const csv = csvCollector(FILE, 'linkgap OpenAI embeddings');

let api;
let fetchToFake;
before(async () => {
  api = await startFakeApi();
  fetchToFake = redirectingFetch({ 'https://api.openai.com': api.base });
});
after(async () => {
  csv.write();
  await api.close();
});

function snippet(settings = {}) {
  return configure(ORIGINAL, { apiKey: "'sk-test-ok'", retryBaseDelayMs: '1', ...settings });
}

async function run(source, html) {
  api.reset();
  return runSnippet(source, { html, fetch: fetchToFake });
}

describe('openai-embeddings.js', () => {
  test('embeds the main content only and returns the contract string', async () => {
    const calls = await run(snippet(), readFixture('article.html'));
    const out = onlyData(calls);
    csv.add('https://www.example.com/blog/plan-a-vegetable-garden/', calls);

    assert.equal(out.model, 'text-embedding-3-small');
    assert.equal(out.dims, 1536);
    assert.match(calls[0].value, /^model=text-embedding-3-small;dims=1536;-?\d/);

    assert.equal(api.requests.length, 1);
    const req = api.requests[0];
    assert.equal(req.path, '/v1/embeddings');
    assert.equal(req.headers.authorization, 'Bearer sk-test-ok');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.deepEqual(Object.keys(req.body).sort(), ['dimensions', 'encoding_format', 'input', 'model']);
    assert.equal(req.body.model, 'text-embedding-3-small');
    assert.equal(req.body.dimensions, 1536);
    assert.equal(req.body.encoding_format, 'float');
    assert.equal(req.body.input.length, 1);

    const sent = req.body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL How to plan a vegetable garden'), 'the article title is kept');
    assert.ok(sent.includes('Successional sowing of salads'), 'the last paragraph is kept');
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
    assert.ok(!sent.includes('Accept all'), 'cookie banner buttons must not be sent');
    assert.ok(!/ {2}/.test(sent), 'whitespace is collapsed');

    // One chunk: the result is that chunk's vector, re-normalised.
    assertClose(out.values, fakeVector(req.body.input[0], 1536), 1e-7);
  });

  test('falls back to <body> minus header, nav, footer and cookie banner', async () => {
    const calls = await run(snippet(), readFixture('no-main.html'));
    const out = onlyData(calls);
    csv.add('https://www.example.com/services/technical-seo-audit/', calls);
    assert.equal(out.dims, 1536);
    const sent = api.requests[0].body.input.join('\n');
    assert.ok(sent.includes('MAIN-CONTENT-SENTINEL Technical SEO audit'));
    assert.ok(sent.includes('buried too deep'));
    for (const s of SENTINELS_OUT) assert.ok(!sent.includes(s), `${s} must not be sent`);
  });

  test('splits a long page into chunks of at most 8,192 estimated tokens and averages them', async () => {
    const html = longPage(400, ENGLISH_PARAGRAPH); // ~120,000 characters
    const calls = await run(snippet(), html);
    const out = onlyData(calls);
    csv.add('https://www.example.com/guides/companion-planting-complete/', calls);

    assert.equal(api.requests.length, 1, 'all chunks fit in one request (300,000 tokens)');
    const inputs = api.requests[0].body.input;
    assert.ok(inputs.length >= 5, `expected several chunks, got ${inputs.length}`);
    for (const input of inputs) {
      assert.ok(estimateTokens(input) <= 8192, `chunk of ${estimateTokens(input)} estimated tokens`);
      assert.ok(input.length > 0.7 * 8192 * 3 || input === inputs.at(-1), 'chunks are not needlessly small');
    }
    // Nothing is lost or duplicated, and cuts fall on paragraph boundaries.
    const all = inputs.join('\n');
    for (let i = 0; i < 400; i++) {
      assert.equal(all.split(`(para-${i}-end)`).length, 2, `paragraph ${i} appears exactly once`);
    }
    for (const input of inputs.slice(0, -1)) assert.ok(input.endsWith('end).'), 'chunk ends at a paragraph end');
    for (const s of SENTINELS_OUT) assert.ok(!all.includes(s), `${s} must not be sent`);

    // Length-weighted average of the chunk vectors, unit length.
    const expected = expectedAverage(inputs, 1536);
    assertClose(out.values, expected, 1e-7);
    const norm = Math.hypot(...out.values);
    assert.ok(Math.abs(norm - 1) < 1e-6, `norm ${norm}`);
  });

  test('counts non-ASCII text as 2 tokens per character when chunking', async () => {
    const calls = await run(snippet(), longPage(300, CJK_PARAGRAPH)); // ~25,000 CJK characters
    onlyData(calls);
    const inputs = api.requests[0].body.input;
    assert.ok(inputs.length >= 6, `expected several chunks, got ${inputs.length}`);
    for (const input of inputs) assert.ok(estimateTokens(input) <= 8192, `chunk of ${estimateTokens(input)} estimated tokens`);
  });

  test('splits chunks over several requests within the per-request limits', async () => {
    const source = snippet({ maxTokensPerInput: '1000', maxTokensPerRequest: '2500', maxInputsPerRequest: '2' });
    const calls = await run(source, longPage(60, ENGLISH_PARAGRAPH));
    const out = onlyData(calls);
    assert.ok(api.requests.length >= 4, `expected several requests, got ${api.requests.length}`);
    const inputs = [];
    for (const req of api.requests) {
      const batch = req.body.input;
      assert.ok(batch.length <= 2);
      assert.ok(batch.reduce((n, s) => n + estimateTokens(s), 0) <= 2500);
      for (const s of batch) assert.ok(estimateTokens(s) <= 1000);
      inputs.push(...batch);
    }
    assertClose(out.values, expectedAverage(inputs, 1536), 1e-7);
  });

  test('honours the dimensions and model settings', async () => {
    const calls = await run(snippet({ model: "'text-embedding-3-large'", dimensions: '256' }), readFixture('article.html'));
    const out = onlyData(calls);
    assert.equal(out.model, 'text-embedding-3-large');
    assert.equal(out.dims, 256);
    assert.equal(api.requests[0].body.dimensions, 256);

    const native = onlyData(await run(snippet({ model: "'text-embedding-3-large'", dimensions: 'null' }), readFixture('article.html')));
    assert.equal(native.dims, 3072);
    assert.ok(!('dimensions' in api.requests[0].body), 'dimensions: null is not sent');
  });

  test('401: the OpenAI error message arrives through seoSpider.error', async () => {
    const calls = await run(snippet({ apiKey: "'sk-test-wrong-key-123456'" }), readFixture('article.html'));
    const msg = onlyError(calls);
    csv.add('https://www.example.com/blog/broken-key/', calls);
    assert.match(msg, /^linkgap-embed error: OpenAI 401 unauthorized: Incorrect API key provided: sk-test\*\*\*456\./);
    assert.ok(!msg.includes('sk-test-wrong-key-123456'), 'the API key is not echoed');
    assert.equal(api.requests.length, 1, '401 is not retried');
  });

  test('429: retried, then reported as rate limited', async () => {
    const calls = await run(snippet({ apiKey: "'sk-test-ratelimit'" }), readFixture('article.html'));
    const msg = onlyError(calls);
    assert.match(msg, /^linkgap-embed error: OpenAI 429 rate limited: Rate limit reached for text-embedding-3-small/);
    assert.equal(api.requests.length, 3, 'one request and two retries');
  });

  test('429 once: the retry succeeds', async () => {
    const calls = await run(snippet({ apiKey: "'sk-test-flaky'" }), readFixture('article.html'));
    assert.equal(onlyData(calls).dims, 1536);
    assert.equal(api.requests.length, 2);
  });

  test('malformed JSON is reported', async () => {
    const msg = onlyError(await run(snippet({ apiKey: "'sk-test-garbage'" }), readFixture('article.html')));
    assert.match(msg, /^linkgap-embed error: OpenAI returned malformed JSON: \{"object": "list"/);
  });

  test('network failure is reported after retries', async () => {
    const source = snippet();
    const calls = await runSnippet(source, {
      html: readFixture('article.html'),
      fetch: redirectingFetch({ 'https://api.openai.com': `http://127.0.0.1:${await closedPort()}` }),
    });
    const msg = onlyError(calls);
    assert.match(msg, /^linkgap-embed error: OpenAI network error \(is https:\/\/api\.openai\.com\/v1\/embeddings reachable from the crawled page\?\): /);
  });

  test('an unedited snippet asks for the API key and sends nothing', async () => {
    const calls = await run(configure(ORIGINAL, {}), readFixture('article.html'));
    assert.equal(onlyError(calls), 'linkgap-embed error: set your OpenAI API key (apiKey) at the top of the snippet');
    assert.equal(api.requests.length, 0);
  });

  test('a page without text is reported', async () => {
    const msg = onlyError(await run(snippet(), '<html><body><nav>NAV-SENTINEL</nav><main></main></body></html>'));
    assert.equal(msg, 'linkgap-embed error: no text content found on the page');
    assert.equal(api.requests.length, 0);
  });

  test('does not change the page', async () => {
    const dom = parseHTML(readFixture('article.html'));
    const before = dom.document.toString();
    onlyData(await runSnippet(snippet(), { dom, fetch: fetchToFake }));
    assert.equal(dom.document.toString(), before);
  });
});
