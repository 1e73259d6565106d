// Test harness for the linkgap Screaming Frog snippets.
//
// - runSnippet() runs a snippet file's text the way Screaming Frog does: as
//   the body of a function (the snippets use a top-level `return`), with
//   `seoSpider`, `document` and `window` in scope, and `fetch` pointed at a
//   local fake API server.
// - startFakeApi() is that server: it imitates OpenAI's POST /v1/embeddings
//   and Ollama's POST /api/embed, including error and rate-limit answers.
// - writeCustomJsCsv() writes a Screaming Frog "Custom JavaScript" export.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { parseHTML } from 'linkedom';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = join(HERE, '..', '..');
export const SNIPPET_DIR = join(REPO, 'templates', 'screaming-frog');
export const FIXTURES = join(HERE, 'fixtures');

export const SENTINELS_OUT = ['NAV-SENTINEL', 'HEADER-SENTINEL', 'FOOTER-SENTINEL', 'COOKIE-SENTINEL',
  'ASIDE-SENTINEL', 'SCRIPT-SENTINEL', 'STYLE-SENTINEL'];

export function readSnippet(name) {
  return readFileSync(join(SNIPPET_DIR, name), 'utf8');
}

export function readFixture(name) {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

// Edit settings at the top of a snippet, as a user would: each key is a
// property of the SETTINGS object, each value the JavaScript source text of
// the new value, e.g. { apiKey: "'sk-test-ok'", maxRetries: '0' }.
export function configure(source, settings) {
  const start = source.indexOf('const SETTINGS = {');
  const end = source.indexOf('\n};', start);
  if (start < 0 || end < 0) throw new Error('no SETTINGS block found');
  let block = source.slice(start, end);
  for (const [key, value] of Object.entries(settings)) {
    const re = new RegExp(`^([ \\t]*${key}: ).*?,([ \\t]*//.*)?$`, 'm');
    if (!re.test(block)) throw new Error(`setting ${key} not found`);
    block = block.replace(re, (_, head) => `${head}${value},`);
  }
  return source.slice(0, start) + block + source.slice(end);
}

// Runs a snippet against an HTML page (or an already parsed `dom`). Resolves
// to the list of seoSpider calls: [{ type: 'data' | 'error', value }].
//
// Like Screaming Frog, the snippet text is the body of a plain function (the
// snippets `return` a promise at the top level). It runs in a fresh global
// scope that has only browser APIs: document, window, fetch, timers,
// AbortController, console and seoSpider; no Node.js require or process.
export async function runSnippet(source, { html, dom, fetch: fetchImpl }) {
  const { document, window } = dom || parseHTML(html);
  const calls = [];
  const seoSpider = {
    data(value) {
      calls.push({ type: 'data', value });
      return value;
    },
    error(value) {
      calls.push({ type: 'error', value });
      return value;
    },
  };
  const context = vm.createContext({
    seoSpider, document, window, fetch: fetchImpl, console,
    setTimeout, clearTimeout, AbortController, TextEncoder, URL,
  });
  const snippet = vm.runInContext(`(function () {\n${source}\n})`, context, { filename: 'snippet.js' });
  const result = snippet();
  if (!result || typeof result.then !== 'function') throw new Error('snippet did not return a promise');
  await result;
  return calls;
}

// A fetch that sends requests for the real API hosts to the fake server.
export function redirectingFetch(rewrites) {
  return (url, init) => {
    let target = String(url);
    for (const [from, to] of Object.entries(rewrites)) {
      if (target.startsWith(from)) {
        target = to + target.slice(from.length);
        break;
      }
    }
    if (!target.startsWith('http://127.0.0.1:')) throw new Error(`test fetch refused a non-local URL: ${target}`);
    return fetch(target, init);
  };
}

// A local port with nothing listening on it (connection refused).
export async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// ---- deterministic fake embeddings ----

function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h || 1;
}

// A unit vector that depends only on the text, rounded to float32 like real APIs.
export function fakeVector(text, dims) {
  let x = hash32(text);
  const v = [];
  for (let i = 0; i < dims; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    v.push(x / 0x100000000 - 0.5);
  }
  const norm = Math.hypot(...v);
  return v.map((y) => Math.fround(y / norm));
}

// What the snippets must produce: the chunk vectors averaged with weights =
// chunk length, then scaled to unit length.
export function expectedAverage(inputs, dims) {
  const sum = new Array(dims).fill(0);
  for (const input of inputs) {
    const v = fakeVector(input, dims);
    for (let j = 0; j < dims; j++) sum[j] += input.length * v[j];
  }
  const norm = Math.hypot(...sum);
  return sum.map((x) => x / norm);
}

// ---- the fake API server ----

const OPENAI_MODELS = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072 };

// OpenAI-style scenarios are chosen by API key, Ollama scenarios by model name.
export async function startFakeApi() {
  const requests = [];
  const seen = new Map(); // scenario -> number of requests
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as null
      }
      if (req.method !== 'OPTIONS') requests.push({ method: req.method, path: req.url, headers: req.headers, body });
      // CORS, as the snippets call the API from the crawled page's origin.
      const cors = {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Expose-Headers': 'retry-after, retry-after-ms',
      };
      const send = (status, payload, headers = {}) => {
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
        res.writeHead(status, { 'Content-Type': 'application/json', ...cors, ...headers });
        res.end(text);
      };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'POST' });
        return res.end();
      }
      if (req.method !== 'POST') return send(405, { error: 'method not allowed' });
      if (req.url === '/v1/embeddings' || req.url === '/compat/v1/embeddings') {
        return openAiRoute(req, body, send, seen, req.url.startsWith('/compat/'));
      }
      if (req.url === '/api/embed') return ollamaRoute(body, send, seen);
      return send(404, '404 page not found');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    requests,
    reset() {
      requests.length = 0;
      seen.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function count(seen, key) {
  const n = (seen.get(key) || 0) + 1;
  seen.set(key, n);
  return n;
}

function openAiRoute(req, body, send, seen, compatible) {
  const auth = req.headers.authorization || '';
  const key = auth.replace(/^Bearer /, '');
  if (!compatible || key) {
    if (key === 'sk-test-ratelimit') {
      return send(429, {
        error: {
          message: 'Rate limit reached for text-embedding-3-small in organization org-test on requests per min (RPM): Limit 3000, Used 3000, Requested 1. Please try again in 20ms.',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      }, { 'retry-after-ms': '5' });
    }
    if (key === 'sk-test-flaky' && count(seen, 'flaky') === 1) {
      return send(429, { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
        { 'retry-after': '0' });
    }
    if (key === 'sk-test-garbage') return send(200, '{"object": "list", "data": [{"embedding": [0.1, ');
    if (!['sk-test-ok', 'sk-test-flaky', 'sk-test-compat'].includes(key)) {
      const shown = key.length > 10 ? `${key.slice(0, 7)}***${key.slice(-3)}` : key;
      return send(401, {
        error: {
          message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
  }
  if (!body || typeof body.model !== 'string') {
    return send(400, { error: { message: "'model' is a required property", type: 'invalid_request_error', param: null, code: null } });
  }
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  if (inputs.some((s) => typeof s !== 'string' || s === '')) {
    return send(400, { error: { message: "'$.input' is invalid.", type: 'invalid_request_error', param: null, code: null } });
  }
  // 'fixed-size-model' ignores `dimensions`, as some servers do.
  const dims = body.model === 'fixed-size-model' ? 384 : body.dimensions || OPENAI_MODELS[body.model] || (compatible ? 384 : null);
  if (!dims) {
    return send(404, { error: { message: `The model \`${body.model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } });
  }
  return send(200, {
    object: 'list',
    // reversed on purpose: clients must order by `index`
    data: inputs.map((s, index) => ({ object: 'embedding', index, embedding: fakeVector(s, dims) })).reverse(),
    model: body.model,
    usage: { prompt_tokens: 1, total_tokens: 1 },
  });
}

function ollamaRoute(body, send, seen) {
  const model = body && body.model;
  if (model === 'missing-model') {
    return send(404, { error: `model "${model}" not found, try pulling it first` });
  }
  if (model === 'busy-model') {
    return send(503, { error: 'server busy, please try again.  maximum pending requests exceeded' });
  }
  if (model === 'ratelimited-model') {
    count(seen, 'ollama-429');
    return send(429, { error: 'too many requests' });
  }
  if (model === 'garbage-model') return send(200, 'not json at all');
  if (model === 'wrong-count-model') return send(200, { model, embeddings: [] });
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const dims = body.dimensions || (model === 'mxbai-embed-large' ? 1024 : 768);
  return send(200, { model, embeddings: inputs.map((s) => fakeVector(s, dims)), total_duration: 1, load_duration: 1, prompt_eval_count: 1 });
}

// ---- output contract ----

const NUMBER = '-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:e[+-]\\d+)?';
export const CONTRACT = new RegExp(`^model=([^;,=\\s]+);dims=([1-9]\\d*);(${NUMBER}(?:,${NUMBER})*)$`);

// -> { model, dims, values } or throws when the string breaks the contract.
export function parseOutput(value) {
  if (typeof value !== 'string') throw new Error(`output is a ${typeof value}, not a string`);
  const m = CONTRACT.exec(value);
  if (!m) throw new Error(`output does not match the contract: ${value.slice(0, 120)}`);
  const values = m[3].split(',').map(Number);
  if (values.length !== Number(m[2])) throw new Error(`dims=${m[2]} but ${values.length} values`);
  for (const part of m[3].split(',')) {
    if (String(Number(part)) !== part) throw new Error(`${part} is not in Number.prototype.toString() form`);
  }
  return { model: m[1], dims: Number(m[2]), values };
}

// Estimated tokens as the snippets document it: 3 ASCII characters = 1 token,
// any other UTF-16 code unit = 2 tokens.
export function estimateTokens(text) {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3 + other * 2);
}

// ---- assertions shared by the snippet tests ----

// The single seoSpider.error call; checks the message is readable.
export function onlyError(calls) {
  assert.equal(calls.length, 1, `expected one seoSpider call, got ${JSON.stringify(calls).slice(0, 200)}`);
  assert.equal(calls[0].type, 'error');
  const msg = calls[0].value;
  assert.equal(typeof msg, 'string');
  assert.ok(msg.startsWith('linkgap-embed error: '), msg);
  assert.ok(!/[\r\n]/.test(msg), 'message must be one line');
  assert.ok(msg.length <= 200, `message too long (${msg.length}): ${msg}`);
  return msg;
}

export function onlyData(calls) {
  assert.equal(calls.length, 1, `expected one seoSpider call, got ${JSON.stringify(calls).slice(0, 300)}`);
  assert.equal(calls[0].type, 'data', `got error: ${calls[0].value}`);
  return parseOutput(calls[0].value);
}

export function assertClose(actual, expected, tolerance) {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < actual.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `value ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

// ---- Screaming Frog "Custom JavaScript" CSV export ----

function csvField(value) {
  return `"${String(value).replace(/"/g, '""')}"`;
}

// What one seoSpider.data(value) call fills: Screaming Frog writes a single
// value to "<snippet name> 1" and an array's items to "<snippet name> 1",
// "<snippet name> 2"...
export function cellValues(value) {
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

// Writes `<dir>/<file>` the way Screaming Frog writes CSV exports: UTF-8 with
// BOM, every field double-quoted, "" escaping, LF line ends.
// rows: [{ address, value }], value being what the snippet returned.
export function writeCustomJsCsv(dir, file, snippetName, rows) {
  return writeCustomJsExport(dir, file, [snippetName], rows.map((row) => ({
    address: row.address, values: { [snippetName]: row.value },
  })));
}

// The same for a crawl that ran several snippets: one block of numbered
// columns per snippet, as many as its longest value needs, in `snippets` order.
// rows: [{ address, values: { <snippet name>: value } }].
export function writeCustomJsExport(dir, file, snippets, rows) {
  mkdirSync(dir, { recursive: true });
  const widths = snippets.map((name) => Math.max(1, ...rows.map((row) =>
    row.values[name] === undefined ? 0 : cellValues(row.values[name]).length)));
  const header = ['Address', 'Content Type', 'Status Code', 'Status'];
  snippets.forEach((name, i) => {
    for (let n = 1; n <= widths[i]; n++) header.push(`${name} ${n}`);
  });
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) {
    const fields = [row.address, 'text/html; charset=utf-8', '200', 'OK'];
    snippets.forEach((name, i) => {
      const cells = row.values[name] === undefined ? [] : cellValues(row.values[name]);
      for (let n = 0; n < widths[i]; n++) fields.push(cells[n] === undefined ? '' : cells[n]);
    });
    lines.push(fields.map(csvField).join(','));
  }
  const path = join(dir, file);
  writeFileSync(path, '\uFEFF' + lines.join('\n') + '\n', 'utf8');
  return path;
}

// Collects one CSV row per page across a test file and writes the export at
// the end if LINKGAP_SNIPPET_OUT_DIR is set.
export function csvCollector(snippetFile, snippetName) {
  const rows = [];
  return {
    rows,
    add(address, calls) {
      if (calls.length === 1) rows.push({ address, value: calls[0].value });
    },
    write() {
      const dir = process.env.LINKGAP_SNIPPET_OUT_DIR;
      if (!dir || !rows.length) return null;
      return writeCustomJsCsv(dir, `${snippetFile.replace(/\.js$/, '')}-custom_javascript_all.csv`, snippetName, rows);
    },
  };
}

// A long article page: the fixture with `paragraphs` extra paragraphs in the article.
export function longPage(paragraphs, makeParagraph) {
  const html = readFixture('article.html');
  const extra = [];
  for (let i = 0; i < paragraphs; i++) extra.push(`      <p>${makeParagraph(i)}</p>`);
  return html.replace('    </article>', `${extra.join('\n')}\n    </article>`);
}

export const ENGLISH_PARAGRAPH = (i) =>
  `Paragraph ${i}: companion planting pairs crops that help each other. Basil near tomatoes, ` +
  `marigolds along the edge of the bed and onions between carrots are classic combinations that ` +
  `gardeners have used for generations to confuse pests and make better use of space (para-${i}-end).`;

export const CJK_PARAGRAPH = (i) =>
  `第${i}段：菜园的规划从选址开始。选择每天至少有六个小时直射阳光、排水良好并且靠近水龙头的地方。` +
  `把土壤翻松到一铲深，清除多年生杂草并加入大量堆肥。按作物科属分组，以便每年轮作。`;
