// Optional: runs the snippets in real headless Chromium, the browser engine
// Screaming Frog renders with. The page and the fake API are on different
// origins, so CORS and the browser's fetch are exercised too.
//
// Skipped unless LINKGAP_CHROMIUM names a Chromium binary, e.g.
//   LINKGAP_CHROMIUM=chromium node --test tests/js/
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configure, ENGLISH_PARAGRAPH, estimateTokens, expectedAverage, longPage, parseOutput, readFixture, readSnippet,
  SENTINELS_OUT, startFakeApi,
} from './harness.mjs';

const CHROMIUM = process.env.LINKGAP_CHROMIUM;

describe('snippets in headless Chromium', { skip: CHROMIUM ? false : 'set LINKGAP_CHROMIUM to run' }, () => {
  let api;
  let pageServer;
  let pageBase;
  let profiles;
  const pages = new Map(); // path -> { html, source, resolve }

  before(async () => {
    api = await startFakeApi();
    profiles = mkdtempSync(join(tmpdir(), 'linkgap-chromium-'));
    pageServer = createServer((req, res) => {
      const entry = pages.get(req.url.replace(/\/result$/, ''));
      if (!entry) {
        res.writeHead(404);
        return res.end();
      }
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          res.end('ok');
          entry.resolve(JSON.parse(body));
        });
        return;
      }
      // The snippet text becomes the body of a function, as in Screaming Frog.
      const runner = `<script>window.addEventListener('load', function () {
        var report = function (type, value) {
          return fetch(location.pathname + '/result', { method: 'POST', body: JSON.stringify({ type: type, value: value }) });
        };
        var seoSpider = { data: function (v) { return report('data', v); }, error: function (e) { return report('error', e); } };
        new Function('seoSpider', ${JSON.stringify(entry.source).replace(/</g, '\\u003c')})(seoSpider);
      });</script>`;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(entry.html.replace('</body>', `${runner}</body>`));
    });
    await new Promise((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageBase = `http://127.0.0.1:${pageServer.address().port}`;
  });

  after(async () => {
    await api.close();
    pageServer.closeAllConnections();
    await new Promise((resolve) => pageServer.close(resolve));
    rmSync(profiles, { recursive: true, force: true });
  });

  // Opens the page in Chromium; resolves to the seoSpider call.
  async function inChromium(name, source, html) {
    api.reset();
    const path = `/${name}`;
    const result = new Promise((resolve) => pages.set(path, { html, source, resolve }));
    const chrome = spawn(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', '--virtual-time-budget=20000',
      `--user-data-dir=${join(profiles, name)}`, `${pageBase}${path}`,
    ], { stdio: 'ignore', detached: true });
    let timer;
    try {
      return await Promise.race([
        result,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no result from Chromium within 30 s')), 30000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      try {
        process.kill(-chrome.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  // The API is on "localhost", the page on "127.0.0.1": a cross-origin call.
  const apiUrl = () => `http://localhost:${new URL(api.base).port}`;

  test('openai-embeddings.js: long page, chunked and averaged', async () => {
    const source = configure(readSnippet('openai-embeddings.js'), {
      apiKey: "'sk-test-ok'", endpoint: `'${apiUrl()}/v1/embeddings'`,
    });
    const call = await inChromium('openai-long', source, longPage(400, ENGLISH_PARAGRAPH));
    assert.equal(call.type, 'data', call.value);
    const out = parseOutput(call.value);
    const inputs = api.requests.flatMap((r) => r.body.input);
    assert.ok(inputs.length >= 5);
    for (const s of inputs) assert.ok(estimateTokens(s) <= 8192);
    for (const s of SENTINELS_OUT) assert.ok(!inputs.join('\n').includes(s), `${s} must not be sent`);
    const expected = expectedAverage(inputs, 1536);
    assert.ok(out.values.every((v, i) => Math.abs(v - expected[i]) <= 1e-7));
  });

  test('openai-embeddings.js: 401 arrives through seoSpider.error', async () => {
    const source = configure(readSnippet('openai-embeddings.js'), {
      apiKey: "'sk-test-wrong-key-123456'", endpoint: `'${apiUrl()}/v1/embeddings'`,
    });
    const call = await inChromium('openai-401', source, readFixture('article.html'));
    assert.equal(call.type, 'error');
    assert.match(call.value, /^linkgap-embed error: OpenAI 401 unauthorized: Incorrect API key provided/);
  });

  test('ollama-embeddings.js: fallback page', async () => {
    const source = configure(readSnippet('ollama-embeddings.js'), { baseUrl: `'${apiUrl()}'` });
    const call = await inChromium('ollama', source, readFixture('no-main.html'));
    assert.equal(call.type, 'data', call.value);
    assert.equal(parseOutput(call.value).dims, 768);
    assert.ok(!api.requests[0].body.input.join('\n').includes('NAV-SENTINEL'));
  });

  test('page-text.js: a long page in several cells, links made absolute against the page URL', async () => {
    const html = longPage(1000, (i) => `<a href="/p/${i}">${ENGLISH_PARAGRAPH(i)}</a>`);
    const call = await inChromium('page-text', readSnippet('page-text.js'), html);
    assert.equal(call.type, 'data', call.value);
    assert.ok(Array.isArray(call.value) && call.value.length >= 10, 'several cells');
    for (const cell of call.value) assert.ok(cell.length <= 32000);
    const joined = call.value.join('\n');
    assert.ok(joined.includes(`<a href="${pageBase}/p/999">`), 'hrefs resolved by the browser');
    for (const s of SENTINELS_OUT) assert.ok(!joined.includes(s), `${s} must not be in the page text`);
    assert.equal(api.requests.length, 0, 'no API call');
  });

  test('ollama-embeddings.js: server down gives a network error', async () => {
    const source = configure(readSnippet('ollama-embeddings.js'), { baseUrl: "'http://localhost:1'", retryBaseDelayMs: '1' });
    const call = await inChromium('ollama-down', source, readFixture('article.html'));
    assert.equal(call.type, 'error');
    assert.match(call.value, /^linkgap-embed error: Ollama network error \(is Ollama running at http:\/\/localhost:1, /);
  });
});
