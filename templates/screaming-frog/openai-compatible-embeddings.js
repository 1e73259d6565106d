// linkgap: embeddings of the page's main content from any OpenAI-compatible API
//
// A Screaming Frog SEO Spider "Custom JavaScript" snippet (type: Extraction,
// content type: text/html). Add it under Configuration > Custom > Custom
// JavaScript, and turn on JavaScript rendering (Configuration > Spider >
// Rendering), which custom JavaScript needs.
//
// Works with any server that implements OpenAI's POST <baseUrl>/embeddings
// (hosted providers, LM Studio, vLLM, LocalAI, Ollama's /v1, ...). For every
// crawled page it embeds the main content (not the navigation, header, footer
// or cookie banner) and writes ONE cell that linkgap reads:
//
//   model=<model>;dims=<n>;<n comma-separated numbers>
//
// Long pages are split into chunks; the chunk vectors are averaged (weighted
// by chunk length) and scaled back to unit length. Errors are written to the
// cell as "linkgap-embed error: ...".
//
// IMPORTANT: an API key is stored in plain text in your SEO Spider
// configuration. Remove it before you share this snippet or the configuration.
// The server must allow cross-origin (CORS) requests, because the call is made
// from the crawled page. Setup guide: docs/screaming-frog-setup.md in the
// linkgap repository.

// ======================= SETTINGS: edit these =======================
const SETTINGS = {
  providerName: 'Embeddings API', // used in error messages
  baseUrl: 'https://YOUR-SERVER/v1', // the URL before /embeddings
  apiKey: '', // leave '' if the server needs no key
  model: 'YOUR-MODEL', // the model name the server expects
  dimensions: null, // null = the model's own size; a number only if the model supports it
  encodingFormat: 'float', // null if the server rejects the encoding_format field

  // Set maxTokensPerInput to your model's context length (tokens per input).
  maxTokensPerInput: 2048,
  maxTokensPerRequest: 16384,
  maxInputsPerRequest: 32,
  maxChunks: 100, // text beyond 100 chunks (~600,000 characters) is not embedded

  // Token estimate (no tokenizer in the browser), deliberately on the high side:
  // 3 ASCII characters = 1 token, every other character = 2 tokens.
  asciiCharsPerToken: 3,
  nonAsciiTokensPerChar: 2,

  maxRetries: 2, // extra attempts after HTTP 429, 5xx or a network failure
  retryBaseDelayMs: 2000, // 2 s, then 4 s, unless the API sends a Retry-After header
  requestTimeoutMs: 60000,
};
// ====================================================================

// How to talk to an OpenAI-compatible /embeddings endpoint.
const PROVIDER = {
  checkSettings() {
    if (!/^https?:\/\//.test(SETTINGS.baseUrl) || SETTINGS.baseUrl.indexOf('YOUR-SERVER') >= 0) {
      return 'set baseUrl (e.g. https://api.example.com/v1) at the top of the snippet';
    }
    if (SETTINGS.model === 'YOUR-MODEL') return 'set the model name at the top of the snippet';
    return null;
  },
  request(inputs) {
    const body = { model: SETTINGS.model, input: inputs };
    if (SETTINGS.encodingFormat) body.encoding_format = SETTINGS.encodingFormat;
    if (SETTINGS.dimensions) body.dimensions = SETTINGS.dimensions;
    const headers = { 'Content-Type': 'application/json' };
    if (SETTINGS.apiKey) headers.Authorization = 'Bearer ' + SETTINGS.apiKey;
    return { url: SETTINGS.baseUrl.replace(/\/+$/, '') + '/embeddings', headers, body };
  },
  // -> one vector per input, in input order
  vectors(json) {
    if (!json || !Array.isArray(json.data)) return null;
    return json.data
      .map((item, i) => ({ at: item && typeof item.index === 'number' ? item.index : i, v: item && item.embedding }))
      .sort((a, b) => a.at - b.at)
      .map((item) => item.v);
  },
};

// ---- BEGIN linkgap shared code (content): identical in every linkgap snippet. Edit it in openai-embeddings.js and run `node templates/screaming-frog/dev/sync-shared.mjs`. ----

// Which part of the page is embedded. The first selector that matches with at
// least minChars of text wins (several matches, e.g. many <article>s, are
// joined). If none does, the whole <body> is used. The "remove" selectors are
// always cut out of the chosen content; "fallbackRemove" is also cut when the
// whole <body> is used.
const CONTENT = {
  selectors: ['main', '[role="main"]', 'article'],
  minChars: 200,
  remove: [
    'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed',
    'nav', '[role="navigation"]', 'aside', '[role="complementary"]', 'footer', '[role="contentinfo"]',
    'button', 'select', 'dialog', '[role="dialog"]', '[role="alertdialog"]', '[hidden]',
    // cookie and consent banners (common consent platforms and generic names)
    '#onetrust-consent-sdk', '#onetrust-banner-sdk', '#CybotCookiebotDialog', '#usercentrics-root',
    '#didomi-host', '.qc-cmp2-container', '#truste-consent-track', '#BorlabsCookieBox',
    '#cookie-law-info-bar', '.cky-consent-container', '#cmplz-cookiebanner-container', '.cmplz-cookiebanner',
    '#moove_gdpr_cookie_info_bar', '.cc-window', '#cookie-notice', '.cookie-notice',
    '#cookie-banner', '.cookie-banner', '#cookie-consent', '.cookie-consent', '#cookies-banner', '.cookies-banner',
    '#consent-banner', '.consent-banner', '[aria-label="cookie banner" i]', '[aria-label="cookie consent" i]',
  ],
  fallbackRemove: ['header', '[role="banner"]'],
};

const LINKGAP_BLOCK_TAGS = new Set(('address article aside blockquote body br dd details dialog div dl dt ' +
  'fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section ' +
  'summary table tbody td tfoot th thead tr ul').split(' '));

class LinkgapError extends Error {}

function linkgapFail(message) {
  return new LinkgapError(message);
}

// Text of a node, with line breaks around block elements (like innerText, but
// it also works on detached copies).
function linkgapNodeText(node) {
  const parts = [];
  const walk = (n) => {
    if (n.nodeType === 3) {
      parts.push(n.nodeValue.replace(/\s+/g, ' ')); // source line breaks are just spaces
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    const block = n.nodeType === 1 && LINKGAP_BLOCK_TAGS.has(String(n.tagName).toLowerCase());
    if (block) parts.push('\n');
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
    if (block) parts.push('\n');
  };
  walk(node);
  return parts.join('')
    .split('\n')
    .map((line) => line.replace(/[ \u200b]+/g, ' ').trim())
    .filter((line) => line)
    .join('\n');
}

function linkgapSelectAll(root, selector) {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch (e) {
    throw linkgapFail('invalid CSS selector in the snippet settings: ' + selector);
  }
}

// A copy of one element without the parts matched by removeSelectors, so the
// page itself is not changed.
function linkgapCleanCopy(element, removeSelectors) {
  const copy = element.cloneNode(true);
  for (const selector of removeSelectors) {
    for (const el of linkgapSelectAll(copy, selector)) el.remove();
  }
  return copy;
}

function linkgapInsideRemoved(element, removeSelectors) {
  for (const selector of removeSelectors) {
    try {
      if (element.parentNode && element.parentNode.closest && element.parentNode.closest(selector)) return true;
    } catch (e) {
      // an invalid selector is reported by linkgapSelectAll
    }
  }
  return false;
}

// The page's main content, chosen as CONTENT says: { copies, text } where
// copies are cleaned copies of the chosen elements (those with text, in page
// order) and text is their text joined by line breaks.
function linkgapMainContent() {
  if (!document.body) throw linkgapFail('the page has no <body>');
  for (const selector of CONTENT.selectors) {
    const found = linkgapSelectAll(document, selector)
      .filter((el) => !linkgapInsideRemoved(el, CONTENT.remove));
    const outermost = found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
    const copies = [];
    const texts = [];
    for (const el of outermost) {
      const copy = linkgapCleanCopy(el, CONTENT.remove);
      const text = linkgapNodeText(copy);
      if (text) {
        copies.push(copy);
        texts.push(text);
      }
    }
    const text = texts.join('\n');
    if (text.length >= CONTENT.minChars) return { copies, text };
  }
  const copy = linkgapCleanCopy(document.body, CONTENT.remove.concat(CONTENT.fallbackRemove));
  return { copies: [copy], text: linkgapNodeText(copy) };
}

function linkgapMainText() {
  return linkgapMainContent().text;
}

// ---- END linkgap shared code (content) ----

// ---- BEGIN linkgap shared code (embeddings): identical in every linkgap embedding snippet. Edit it in openai-embeddings.js and run `node templates/screaming-frog/dev/sync-shared.mjs`. ----

// Conservative token estimate, in units of 1/asciiCharsPerToken token.
function linkgapCharCost(code) {
  return code < 128 ? 1 : SETTINGS.asciiCharsPerToken * SETTINGS.nonAsciiTokensPerChar;
}

function linkgapEstimateTokens(text) {
  let cost = 0;
  for (let i = 0; i < text.length; i++) cost += linkgapCharCost(text.charCodeAt(i));
  return Math.ceil(cost / SETTINGS.asciiCharsPerToken);
}

// Split text into chunks of at most maxTokensPerInput estimated tokens,
// preferring to cut at a line break, then a sentence end, then a space, in
// the last quarter of the chunk.
function linkgapChunks(text) {
  const budget = SETTINGS.maxTokensPerInput * SETTINGS.asciiCharsPerToken;
  const chunks = [];
  let start = 0;
  while (start < text.length) {
    let end = start;
    let cost = 0;
    while (end < text.length) {
      const add = linkgapCharCost(text.charCodeAt(end));
      if (cost + add > budget) break;
      cost += add;
      end++;
    }
    if (end === start) throw linkgapFail('maxTokensPerInput is too small');
    if (end < text.length) {
      const earliest = start + Math.floor((end - start) * 0.75);
      for (const sep of ['\n', '. ', '\u3002', ' ']) {
        const at = text.lastIndexOf(sep, end - sep.length);
        if (at >= earliest) {
          end = at + sep.length;
          break;
        }
      }
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff && end - start > 1) end--; // keep surrogate pairs whole
    }
    const chunk = text.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    start = end;
  }
  return chunks;
}

// Group chunks into requests within maxTokensPerRequest and maxInputsPerRequest.
function linkgapBatches(chunks) {
  const batches = [];
  let batch = [];
  let tokens = 0;
  for (const chunk of chunks) {
    const t = linkgapEstimateTokens(chunk);
    if (batch.length && (tokens + t > SETTINGS.maxTokensPerRequest || batch.length >= SETTINGS.maxInputsPerRequest)) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(chunk);
    tokens += t;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

function linkgapOneLine(text, max) {
  let s = String(text).replace(/\s+/g, ' ').trim();
  const key = SETTINGS.apiKey;
  if (key && key.length >= 8) s = s.split(key).join('***');
  return s.length > max ? s.slice(0, max - 3).trimEnd() + '...' : s;
}

// The human-readable part of an API error body (OpenAI, Ollama, FastAPI, ...).
function linkgapApiMessage(bodyText) {
  try {
    const json = JSON.parse(bodyText);
    const e = json && (json.error !== undefined ? json.error : json.detail !== undefined ? json.detail : json.message);
    if (typeof e === 'string' && e) return e;
    if (e && typeof e.message === 'string' && e.message) return e.message;
  } catch (err) {
    // not JSON: use the raw text
  }
  return String(bodyText || '').trim() || '(empty response)';
}

const LINKGAP_STATUS_LABELS = {
  400: 'bad request', 401: 'unauthorized', 403: 'forbidden', 404: 'not found', 408: 'timeout',
  413: 'request too large', 422: 'invalid request', 429: 'rate limited', 500: 'server error',
  502: 'bad gateway', 503: 'unavailable', 504: 'gateway timeout',
};

function linkgapSleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function linkgapRetryDelay(response, attempt) {
  const fallback = SETTINGS.retryBaseDelayMs * Math.pow(2, attempt);
  if (!response) return fallback;
  const ms = parseFloat(response.headers.get('retry-after-ms'));
  if (ms >= 0) return Math.min(ms, 30000);
  const s = parseFloat(response.headers.get('retry-after'));
  if (s >= 0) return Math.min(s * 1000, 30000);
  return fallback;
}

// One API call with retries; -> one vector per input.
async function linkgapEmbedBatch(inputs) {
  const name = SETTINGS.providerName;
  for (let attempt = 0; ; attempt++) {
    const req = PROVIDER.request(inputs);
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    const timer = controller ? setTimeout(() => controller.abort(), SETTINGS.requestTimeoutMs) : null;
    let response;
    let bodyText;
    try {
      response = await fetch(req.url, {
        method: 'POST',
        headers: req.headers,
        body: JSON.stringify(req.body),
        signal: controller ? controller.signal : undefined,
      });
      bodyText = await response.text();
    } catch (e) {
      if (e && e.name === 'AbortError') {
        throw linkgapFail(name + ' request timed out after ' + Math.round(SETTINGS.requestTimeoutMs / 1000) + ' s');
      }
      if (attempt < SETTINGS.maxRetries) {
        await linkgapSleep(linkgapRetryDelay(null, attempt));
        continue;
      }
      const hint = PROVIDER.networkHint || 'is ' + req.url + ' reachable from the crawled page?';
      throw linkgapFail(name + ' network error (' + hint + '): ' + ((e && e.message) || e));
    } finally {
      if (timer) clearTimeout(timer);
    }

    if (!response.ok) {
      if ((response.status === 429 || response.status >= 500) && attempt < SETTINGS.maxRetries) {
        await linkgapSleep(linkgapRetryDelay(response, attempt));
        continue;
      }
      const label = LINKGAP_STATUS_LABELS[response.status] || 'HTTP error';
      throw linkgapFail(name + ' ' + response.status + ' ' + label + ': ' + linkgapApiMessage(bodyText));
    }

    let json;
    try {
      json = JSON.parse(bodyText);
    } catch (e) {
      throw linkgapFail(name + ' returned malformed JSON: ' + linkgapOneLine(bodyText, 60));
    }
    const vectors = PROVIDER.vectors(json);
    if (!Array.isArray(vectors) || vectors.length !== inputs.length) {
      throw linkgapFail(name + ' response has ' + (Array.isArray(vectors) ? vectors.length : 'no') +
        ' embeddings for ' + inputs.length + ' inputs');
    }
    for (const v of vectors) {
      if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === 'number' && isFinite(x))) {
        throw linkgapFail(name + ' response has an embedding that is not a list of numbers');
      }
    }
    return vectors;
  }
}

// Average of the chunk vectors weighted by chunk length, scaled to unit length.
function linkgapAverage(chunks, vectors) {
  const dims = vectors[0].length;
  const sum = new Array(dims).fill(0);
  vectors.forEach((v, i) => {
    if (v.length !== dims) throw linkgapFail('embeddings of one page have different lengths (' + dims + ' and ' + v.length + ')');
    const w = chunks[i].length;
    for (let j = 0; j < dims; j++) sum[j] += w * v[j];
  });
  const norm = Math.sqrt(sum.reduce((acc, x) => acc + x * x, 0));
  if (!(norm > 0) || !isFinite(norm)) throw linkgapFail('the averaged embedding has zero or invalid length');
  return sum.map((x) => x / norm);
}

async function linkgapEmbedPage() {
  const problem = PROVIDER.checkSettings();
  if (problem) throw linkgapFail(problem);
  if (!SETTINGS.model || /[;,=\s]/.test(SETTINGS.model)) {
    throw linkgapFail('model name must be set and must not contain ; , = or spaces');
  }
  const text = linkgapMainText();
  if (!text) throw linkgapFail('no text content found on the page');
  const chunks = linkgapChunks(text).slice(0, SETTINGS.maxChunks);
  const vectors = [];
  for (const batch of linkgapBatches(chunks)) {
    vectors.push(...(await linkgapEmbedBatch(batch)));
  }
  if (SETTINGS.dimensions && vectors[0].length !== SETTINGS.dimensions) {
    throw linkgapFail('expected ' + SETTINGS.dimensions + ' dimensions, ' + SETTINGS.providerName + ' returned ' + vectors[0].length);
  }
  // 8 significant digits: as precise as the float32 values the APIs return, and shorter.
  const values = linkgapAverage(chunks, vectors).map((x) => Number(x.toPrecision(8)).toString());
  return 'model=' + SETTINGS.model + ';dims=' + values.length + ';' + values.join(',');
}

function linkgapErrorText(err) {
  const detail = err instanceof LinkgapError ? err.message : 'unexpected ' + ((err && err.name) || 'error') + ': ' + ((err && err.message) || err);
  return linkgapOneLine('linkgap-embed error: ' + detail, 200);
}

return linkgapEmbedPage()
  .then((value) => seoSpider.data(value))
  .catch((err) => seoSpider.error(linkgapErrorText(err)));

// ---- END linkgap shared code (embeddings) ----
