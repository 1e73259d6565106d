// Checks that apply to every snippet file: shared code in sync, Screaming
// Frog's function-body form, settings at the top, and the CSV export format.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import {
  EMBEDDING_SNIPPETS, regionsOf, splitShared, syncShared, SNIPPETS,
} from '../../templates/screaming-frog/dev/sync-shared.mjs';
import { CONTRACT, readSnippet, writeCustomJsCsv } from './harness.mjs';

describe('snippet files', () => {
  test('the shared code is identical in all snippets (dev/sync-shared.mjs --check)', () => {
    assert.deepEqual(syncShared({ check: true }), [], 'run: node templates/screaming-frog/dev/sync-shared.mjs');
    const content = SNIPPETS.map((name) => splitShared(readSnippet(name), name, 'content').shared);
    for (const s of content) assert.equal(s, content[0]);
    assert.match(content[0], /const CONTENT = \{/, 'the content region holds the main-content selection');
    const embeddings = EMBEDDING_SNIPPETS.map((name) => splitShared(readSnippet(name), name, 'embeddings').shared);
    for (const s of embeddings) assert.equal(s, embeddings[0]);
    assert.ok(embeddings[0].length > 5000, 'the embeddings region holds the API code');
    assert.deepEqual(regionsOf('page-text.js'), ['content']);
    assert.throws(() => splitShared(readSnippet('page-text.js'), 'page-text.js', 'embeddings'), /expected exactly one/);
  });

  test('page-text.js: a Screaming Frog function body that returns the seoSpider promise chain', () => {
    const source = readSnippet('page-text.js');
    assert.throws(() => new vm.Script(source), /Illegal return/);
    assert.doesNotThrow(() => new Function('seoSpider', source));
    assert.match(source, /\nreturn Promise\.resolve\(\)\n {2}\.then\(\(\) => seoSpider\.data\(linkgapPageText\(\)\)\)\n {2}\.catch\(\(err\) => seoSpider\.error\(linkgapPageTextError\(err\)\)\);\n$/);
    assert.doesNotMatch(source, /\brequire\(|^import |\bprocess\.|\bawait import\(|\bfetch\(/m, 'no Node.js APIs and no network');
    assert.ok(source.startsWith('// linkgap: '), 'starts with a description');
    const settingsAt = source.indexOf('const SETTINGS = {');
    assert.ok(settingsAt > 0 && source.slice(0, settingsAt).split('\n').length < 40, 'SETTINGS near the top');
    const block = source.slice(settingsAt, source.indexOf('\n};', settingsAt));
    for (const line of ['maxCellChars: 32000', 'maxCells: 20', 'absoluteLinks: true']) {
      assert.ok(block.includes(`  ${line},`), `page-text.js has ${line}`);
    }
    assert.ok(32000 < 32767, 'a cell stays under Excel\'s limit');
  });

  for (const name of EMBEDDING_SNIPPETS) {
    test(`${name}: a Screaming Frog function body that returns the seoSpider promise chain`, () => {
      const source = readSnippet(name);
      assert.throws(() => new vm.Script(source), /Illegal return/, 'uses a top-level return, like the library snippets');
      assert.doesNotThrow(() => new Function('seoSpider', source));
      assert.match(source, /\nreturn linkgapEmbedPage\(\)\n {2}\.then\(\(value\) => seoSpider\.data\(value\)\)\n {2}\.catch\(\(err\) => seoSpider\.error\(linkgapErrorText\(err\)\)\);\n/);
      assert.doesNotMatch(source, /\brequire\(|^import |\bprocess\.|\bawait import\(/m, 'no Node.js APIs');
      assert.ok(source.startsWith('// linkgap: '), 'starts with a description');
    });

    test(`${name}: settings come first and have the documented defaults`, () => {
      const source = readSnippet(name);
      const settingsAt = source.indexOf('const SETTINGS = {');
      assert.ok(settingsAt > 0 && settingsAt < source.indexOf('const PROVIDER'), 'SETTINGS before any code');
      assert.ok(source.slice(0, settingsAt).split('\n').length < 40, 'SETTINGS near the top');
      const block = source.slice(settingsAt, source.indexOf('\n};', settingsAt));
      const expected = {
        'openai-embeddings.js': ["apiKey: 'YOUR-API-KEY'", "model: 'text-embedding-3-small'", 'dimensions: 1536',
          "endpoint: 'https://api.openai.com/v1/embeddings'", 'maxTokensPerInput: 8192', 'maxTokensPerRequest: 300000',
          'maxInputsPerRequest: 2048', 'asciiCharsPerToken: 3'],
        'ollama-embeddings.js': ["baseUrl: 'http://localhost:11434'", "model: 'nomic-embed-text'", 'dimensions: null',
          'maxTokensPerInput: 2048', 'asciiCharsPerToken: 3'],
        'openai-compatible-embeddings.js': ["baseUrl: 'https://YOUR-SERVER/v1'", "apiKey: ''", "model: 'YOUR-MODEL'",
          'dimensions: null', 'asciiCharsPerToken: 3'],
      }[name];
      for (const line of expected) assert.ok(block.includes(`  ${line},`), `${name} has ${line}`);
      const content = source.slice(source.indexOf('const CONTENT = {'));
      assert.match(content, /selectors: \['main', '\[role="main"\]', 'article'\]/);
    });
  }

  test('the output contract pattern', () => {
    assert.match('model=text-embedding-3-small;dims=3;-0.0069560823,0.0121,1.2e-7', CONTRACT);
    assert.match('model=nomic-embed-text:latest;dims=1;1', CONTRACT);
    for (const bad of ['model=m;dims=2;[0.1,0.2]', 'model=m;dims=2;0.1, 0.2', 'dims=2;0.1,0.2', 'model=m;dims=2;0.1,',
      'model=a b;dims=1;1', 'model=m;dims=1;1E-7', 'model=m;dims=1;+1']) {
      assert.doesNotMatch(bad, CONTRACT, bad);
    }
  });

  test('the Custom JavaScript CSV export is written like Screaming Frog writes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'linkgap-csv-'));
    try {
      const path = writeCustomJsCsv(dir, 'x-custom_javascript_all.csv', 'linkgap OpenAI embeddings', [
        { address: 'https://www.example.com/a/', value: 'model=m;dims=2;0.6,-0.8' },
        { address: 'https://www.example.com/b/', value: 'linkgap-embed error: OpenAI 401 unauthorized: say "hi"' },
      ]);
      const bytes = readFileSync(path);
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
      assert.equal(bytes.subarray(3).toString('utf8'), [
        '"Address","Content Type","Status Code","Status","linkgap OpenAI embeddings 1"',
        '"https://www.example.com/a/","text/html; charset=utf-8","200","OK","model=m;dims=2;0.6,-0.8"',
        '"https://www.example.com/b/","text/html; charset=utf-8","200","OK","linkgap-embed error: OpenAI 401 unauthorized: say ""hi"""',
        '',
      ].join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
