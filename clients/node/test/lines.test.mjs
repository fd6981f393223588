// lines.test.mjs — the bounded line reader: splitting across chunks, CRLF, blank lines,
// multi-byte characters split between chunks, the final unterminated line, and the bound
// (fail mode for stdout, truncate mode for stderr).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineReader } from '../src/lines.js';

function collect(options = {}) {
  const lines = [];
  const overflows = [];
  const reader = new LineReader({
    maxLineBytes: 16,
    onLine: (l) => lines.push(l),
    ...(options.fail ? { onOverflow: (n) => overflows.push(n) } : {}),
    ...options.reader,
  });
  return { reader, lines, overflows };
}

test('splits lines across chunks, drops \\r and blank lines, keeps multi-byte characters whole', () => {
  const { reader, lines } = collect({ reader: { maxLineBytes: 1024 } });
  const bytes = Buffer.from('{"a":1}\r\n\n   \n{"b":"h\u00e9llo \u{1F600}"}\n{"c"');
  for (let i = 0; i < bytes.length; i += 3) reader.push(bytes.subarray(i, i + 3));
  reader.push(Buffer.from(':3}'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":"h\u00e9llo \u{1F600}"}']);
  reader.end();
  assert.deepEqual(lines.at(-1), '{"c":3}');
});

test('a line exactly at the bound passes; one byte more fails once and stops reading', () => {
  const { reader, lines, overflows } = collect({ fail: true });
  reader.push(Buffer.from(`${'a'.repeat(16)}\n`));
  reader.push(Buffer.from('b'.repeat(10)));
  reader.push(Buffer.from('b'.repeat(7)));
  reader.push(Buffer.from('\nafter\n'));
  assert.deepEqual(lines, ['a'.repeat(16)]);
  assert.deepEqual(overflows, [17]);
  assert.equal(reader.failed, true);
});

test('the bound holds within one chunk and with a pending partial line', () => {
  const one = collect({ fail: true });
  one.reader.push(Buffer.from(`ok\n${'x'.repeat(40)}\nlater\n`));
  assert.deepEqual(one.lines, ['ok']);
  assert.deepEqual(one.overflows, [40]);
  const two = collect({ fail: true });
  two.reader.push(Buffer.from('x'.repeat(10)));
  two.reader.push(Buffer.from(`${'x'.repeat(10)}\n`));
  assert.deepEqual(two.overflows, [20]);
});

test('truncate mode keeps the first maxLineBytes of an over-long line and goes on', () => {
  const { reader, lines } = collect();
  reader.push(Buffer.from('y'.repeat(10)));
  reader.push(Buffer.from('y'.repeat(20)));
  reader.push(Buffer.from('yyy\nnext\n'));
  reader.push(Buffer.from(`${'z'.repeat(30)}\nlast`));
  reader.end();
  assert.deepEqual(lines, ['y'.repeat(16), 'next', 'z'.repeat(16), 'last']);
});

test('rejects a bad bound', () => {
  assert.throws(() => new LineReader({ maxLineBytes: 0, onLine() {} }), /positive integer/);
});

test('fail mode drops an over-long partial line without joining it (it never costs more than the bound)', () => {
  const concat = Buffer.concat;
  let joined = 0;
  Buffer.concat = (...args) => {
    const out = concat(...args);
    joined += out.length;
    return out;
  };
  try {
    for (const tail of ['', '\n']) {
      let overflowed = null;
      const reader = new LineReader({ maxLineBytes: 2048, onLine: () => {}, onOverflow: (bytes) => (overflowed = bytes) });
      reader.push(Buffer.alloc(1024, 120));
      reader.push(Buffer.alloc(1024, 120));
      reader.push(Buffer.from('x'.repeat(1024) + tail));
      assert.equal(overflowed, 3072);
      assert.equal(reader.pieces.length, 0);
    }
  } finally {
    Buffer.concat = concat;
  }
  assert.equal(joined, 0, 'an over-long line was joined before it was dropped');
});

test('decodeRuns hands out the same lines as line-by-line decoding, however the bytes are split', () => {
  const text = '{"a":1}\r\n\n \t \n{"b":"h\u00e9llo \u{1F600}"}\r\n\r\n{"c":3}\n{"d":"\u00e9"}\n{"tail"';
  const bytes = Buffer.from(text);
  const read = (decodeRuns, cut) => {
    const lines = [];
    const reader = new LineReader({ maxLineBytes: 1024, decodeRuns, onLine: (l) => lines.push(l), onOverflow: () => {} });
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
    reader.end();
    return lines;
  };
  const expected = ['{"a":1}', '{"b":"h\u00e9llo \u{1F600}"}', '{"c":3}', '{"d":"\u00e9"}', '{"tail"'];
  for (let cut = 0; cut <= bytes.length; cut += 1) {
    assert.deepEqual(read(true, cut), expected, `split at byte ${cut}`);
    assert.deepEqual(read(false, cut), expected, `split at byte ${cut}`);
  }
});

test('decodeRuns keeps the bound: a chunk whose lines pass it together still fails on the one too long', () => {
  const lines = [];
  const overflows = [];
  const reader = new LineReader({ maxLineBytes: 16, decodeRuns: true, onLine: (l) => lines.push(l), onOverflow: (n) => overflows.push(n) });
  reader.push(Buffer.from(`${'a'.repeat(16)}\nok\n${'x'.repeat(17)}\nlater\n`));
  assert.deepEqual(lines, ['a'.repeat(16), 'ok']);
  assert.deepEqual(overflows, [17]);
});
