#!/usr/bin/env node
// Copies the shared parts of the linkgap Screaming Frog snippets from
// openai-embeddings.js (the source of truth) into the other snippets.
//
// Screaming Frog runs each custom JavaScript snippet as one self-contained
// file, so the shared code cannot be imported; it is stamped into every file
// between BEGIN/END marker lines instead. There are two shared regions:
//
//   content     which part of the page is the main content (CONTENT, the
//               selection and cleaning code): in every snippet, so the page
//               text snippet reads exactly what the embedding snippets embed
//   embeddings  chunking, API calls, retries, averaging: in the embedding
//               snippets only
//
//   node templates/screaming-frog/dev/sync-shared.mjs           rewrite the copies
//   node templates/screaming-frog/dev/sync-shared.mjs --check   exit 1 if a copy is out of date
//
// The Node tests (tests/js) run the --check.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SNIPPET_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE = 'openai-embeddings.js';
export const EMBEDDING_SNIPPETS = [SOURCE, 'ollama-embeddings.js', 'openai-compatible-embeddings.js'];
export const SNIPPETS = [...EMBEDDING_SNIPPETS, 'page-text.js'];
export const REGIONS = {
  content: SNIPPETS,
  embeddings: EMBEDDING_SNIPPETS,
};
// Every file the source's regions are copied into.
export const COPIES = SNIPPETS.filter((name) => name !== SOURCE);

const begin = (region) => `// ---- BEGIN linkgap shared code (${region})`;
const end = (region) => `// ---- END linkgap shared code (${region}) ----`;

// -> { before, shared, after } where shared runs from the region's BEGIN line
// through its END line.
export function splitShared(text, name = 'snippet', region = 'content') {
  const BEGIN = begin(region);
  const END = end(region);
  const b = text.indexOf(BEGIN);
  const e = text.indexOf(END);
  if (b < 0 || e < 0 || e < b || text.indexOf(BEGIN, b + 1) >= 0 || text.indexOf(END, e + 1) >= 0) {
    throw new Error(`${name}: expected exactly one "${BEGIN}" line followed by one "${END}" line`);
  }
  const stop = e + END.length;
  return { before: text.slice(0, b), shared: text.slice(b, stop), after: text.slice(stop) };
}

// The regions a snippet file carries.
export function regionsOf(name) {
  return Object.keys(REGIONS).filter((region) => REGIONS[region].includes(name));
}

// -> names of the copies that differ from the source (and rewrites them unless check).
export function syncShared({ check = false } = {}) {
  const source = readFileSync(join(SNIPPET_DIR, SOURCE), 'utf8');
  const stale = [];
  for (const name of COPIES) {
    const path = join(SNIPPET_DIR, name);
    const current = readFileSync(path, 'utf8');
    let wanted = current;
    for (const region of regionsOf(name)) {
      const { shared } = splitShared(source, SOURCE, region);
      const parts = splitShared(wanted, name, region);
      wanted = parts.before + shared + parts.after;
    }
    for (const region of Object.keys(REGIONS)) {
      if (!REGIONS[region].includes(name) && wanted.includes(begin(region))) {
        throw new Error(`${name}: must not carry the shared ${region} code`);
      }
    }
    if (wanted !== current) {
      stale.push(name);
      if (!check) writeFileSync(path, wanted);
    }
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = syncShared({ check });
  if (check && stale.length) {
    console.error(`out of date: ${stale.join(', ')}; run: node templates/screaming-frog/dev/sync-shared.mjs`);
    process.exit(1);
  }
  console.log(stale.length ? `${check ? 'out of date' : 'updated'}: ${stale.join(', ')}` : 'shared code is up to date');
}
