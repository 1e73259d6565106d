// linkgap: the page's main content as HTML, for linkgap's passage suggestions
//
// A Screaming Frog SEO Spider "Custom JavaScript" snippet (type: Extraction,
// content type: text/html). Add it under Configuration > Custom > Custom
// JavaScript, next to a linkgap embedding snippet, and turn on JavaScript
// rendering (Configuration > Spider > Rendering), which custom JavaScript needs.
//
// For every crawled page it writes the inner HTML of the page's main content:
// the same part of the page the linkgap embedding snippets embed (same
// selectors, same fallback to <body>, same removal of navigation, asides,
// footers, scripts and cookie banners). Links stay in (<a href>, written as
// absolute URLs): linkgap uses them to know where links already are. Every
// other attribute, comments, form fields and media elements are dropped.
//
// linkgap reads the export as page text (linkgap run --page-text FILE, or
// found in an exports folder by its header) and splits it into paragraphs,
// list items, table cells... No API is called and nothing leaves the crawl.
//
// A long page fills several cells, "<snippet name> 1", "<snippet name> 2"...,
// each under Excel's 32,767-character cell limit, cut between elements;
// linkgap joins them again. Export as CSV all the same.
// Setup guide: docs/screaming-frog-setup.md in the linkgap repository.

// ======================= SETTINGS: edit these =======================
const SETTINGS = {
  maxCellChars: 32000, // characters per cell: keep it under Excel's 32,767-character limit
  maxCells: 20, // cells per page (640,000 characters); a longer page is cut at an element boundary
  absoluteLinks: true, // write each href as the absolute URL the browser resolves (honours <base href>)
};
// ====================================================================

// Also dropped from the HTML, on top of CONTENT.remove: form fields, media
// and metadata elements, which hold no place for a link.
const PAGE_TEXT = {
  remove: ['input', 'textarea', 'video', 'audio', 'source', 'track', 'map', 'link', 'meta'],
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

// Strips what linkgap does not read from a cleaned copy, in place: comments,
// every attribute except a link's href, runs of whitespace outside <pre>.
function linkgapStrip(node, inPre) {
  for (let c = node.firstChild; c; ) {
    const next = c.nextSibling;
    if (c.nodeType === 8) {
      c.remove();
    } else if (c.nodeType === 3) {
      if (!inPre) c.nodeValue = c.nodeValue.replace(/\s+/g, ' ');
    } else if (c.nodeType === 1) {
      const tag = String(c.tagName).toLowerCase();
      const href = tag === 'a' ? c.getAttribute('href') : null;
      for (const attr of Array.from(c.attributes || [])) c.removeAttribute(attr.name);
      if (href !== null) {
        const url = linkgapHref(href);
        if (url !== null) c.setAttribute('href', url);
      }
      linkgapStrip(c, inPre || tag === 'pre' || tag === 'textarea');
    }
    c = next;
  }
}

// The href to write: absolute when it can be resolved, null for a javascript: link.
function linkgapHref(raw) {
  const href = String(raw).trim();
  if (/^javascript:/i.test(href)) return null;
  if (!SETTINGS.absoluteLinks || !href) return href;
  const base = document.baseURI || (document.location && document.location.href);
  try {
    return base && typeof URL === 'function' ? new URL(href, base).href : href;
  } catch (e) {
    return href;
  }
}

// Block-level tags: a cell preferably ends just before one of these opens or closes.
const LINKGAP_CUT_BEFORE = /<\/?(?:address|article|aside|blockquote|caption|dd|details|div|dl|dt|figcaption|figure|footer|h[1-6]|header|hr|li|main|ol|p|pre|section|summary|table|tbody|td|tfoot|th|thead|tr|ul)\b/gi;

// Where a piece of html starting at `start` and at most `limit` long ends:
// before a block-level tag in its second half, else at a space, else before
// any tag, else at the limit (never inside a surrogate pair). linkgap trims
// each cell and joins them with a line break, so a cut at a space or between
// blocks reads back exactly as the uncut HTML.
function linkgapCut(html, start, limit) {
  const end = start + limit;
  if (end >= html.length) return html.length;
  const earliest = start + Math.floor(limit / 2);
  const window = html.slice(earliest, end);
  let at = -1;
  LINKGAP_CUT_BEFORE.lastIndex = 0;
  for (let m = LINKGAP_CUT_BEFORE.exec(window); m; m = LINKGAP_CUT_BEFORE.exec(window)) at = m.index;
  if (at < 0) at = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'));
  if (at < 0) at = window.lastIndexOf('<');
  if (at >= 0) return earliest + at;
  const code = html.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

// The main content's HTML, cut into cells of at most maxCellChars.
function linkgapPageText() {
  if (!(SETTINGS.maxCellChars >= 1000) || !(SETTINGS.maxCells >= 1)) {
    throw linkgapFail('maxCellChars must be at least 1000 and maxCells at least 1');
  }
  const { copies, text } = linkgapMainContent();
  if (!text) throw linkgapFail('no text content found on the page');
  const parts = [];
  for (const copy of copies) {
    for (const selector of PAGE_TEXT.remove) {
      for (const el of linkgapSelectAll(copy, selector)) el.remove();
    }
    if (copy.normalize) copy.normalize(); // merge the text nodes the removals left side by side
    linkgapStrip(copy, false);
    const html = copy.innerHTML.trim();
    if (html) parts.push(html);
  }
  const html = parts.join('\n');
  const cells = [];
  for (let start = 0; start < html.length; ) {
    let end = linkgapCut(html, start, SETTINGS.maxCellChars);
    let note = '';
    if (cells.length === SETTINGS.maxCells - 1 && end < html.length) {
      note = '<!-- linkgap: page text cut at maxCells (' + html.length + ' characters) -->';
      end = linkgapCut(html, start, SETTINGS.maxCellChars - note.length - 1);
    }
    const cell = html.slice(start, end).trim();
    if (cell || note) cells.push(note ? (cell + '\n' + note).trim() : cell);
    if (note) break;
    start = end;
  }
  return cells.length === 1 ? cells[0] : cells;
}

function linkgapPageTextError(err) {
  const detail = err instanceof LinkgapError ? err.message : 'unexpected ' + ((err && err.name) || 'error') + ': ' + ((err && err.message) || err);
  const s = ('linkgap-page-text error: ' + detail).replace(/\s+/g, ' ').trim();
  return s.length > 200 ? s.slice(0, 197).trimEnd() + '...' : s;
}

return Promise.resolve()
  .then(() => seoSpider.data(linkgapPageText()))
  .catch((err) => seoSpider.error(linkgapPageTextError(err)));
