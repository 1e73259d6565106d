#!/usr/bin/env node
// Copies the shared part of the linkgap Screaming Frog snippets from
// openai-embeddings.js (the source of truth) into the other snippets.
//
// Screaming Frog runs each custom JavaScript snippet as one self-contained
// file, so the shared code cannot be imported; it is stamped into every file
// between the BEGIN/END marker lines instead.
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
export const COPIES = ['ollama-embeddings.js', 'openai-compatible-embeddings.js'];
export const SNIPPETS = [SOURCE, ...COPIES];

const BEGIN = '// ---- BEGIN linkgap shared code';
const END = '// ---- END linkgap shared code ----';

// -> { before, shared, after } where shared runs from the BEGIN line through the END line.
export function splitShared(text, name = 'snippet') {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < 0 || end < begin || text.indexOf(BEGIN, begin + 1) >= 0 || text.indexOf(END, end + 1) >= 0) {
    throw new Error(`${name}: expected exactly one "${BEGIN}" line followed by one "${END}" line`);
  }
  const stop = end + END.length;
  return { before: text.slice(0, begin), shared: text.slice(begin, stop), after: text.slice(stop) };
}

// -> names of the copies that differ from the source (and rewrites them unless check).
export function syncShared({ check = false } = {}) {
  const { shared } = splitShared(readFileSync(join(SNIPPET_DIR, SOURCE), 'utf8'), SOURCE);
  const stale = [];
  for (const name of COPIES) {
    const path = join(SNIPPET_DIR, name);
    const current = readFileSync(path, 'utf8');
    const parts = splitShared(current, name);
    const wanted = parts.before + shared + parts.after;
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
