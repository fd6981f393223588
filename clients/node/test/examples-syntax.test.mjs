// examples-syntax.test.mjs — every example file, and every JavaScript block of this README and of
// the Node adapters' migration pages, parses on the Node running the tests (CI: Node 20, the
// oldest `engines` allows) with `node --check`; and none uses `using` declarations, which Node 20
// cannot parse, even when the tests run on a newer Node that can.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { PACKAGE_ROOT, REPO_ROOT, tempDir } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

// `using x = …` / `await using x = …` at the start of a statement.
const USING_DECLARATION = /(^|[;{}]\s*)(await\s+)?using\s+[\p{L}_$][\p{L}\p{N}_$]*\s*=/mu;

/** `{name, code}` of every example file and every ```js block of the pages that show Node code. */
function sources() {
  const examples = join(PACKAGE_ROOT, 'examples');
  const files = readdirSync(examples)
    .filter((f) => /\.m?js$/.test(f))
    .map((f) => ({ name: `examples/${f}`, code: readFileSync(join(examples, f), 'utf8') }));
  const adapters = join(REPO_ROOT, 'docs', 'adapters');
  const pages = [join(PACKAGE_ROOT, 'README.md'), ...readdirSync(adapters).filter((f) => f.endsWith('.md')).map((f) => join(adapters, f))];
  const blocks = pages.flatMap((page) =>
    [...readFileSync(page, 'utf8').matchAll(/^```(?:js|javascript|mjs)\n([\s\S]*?)^```/gm)].map((m, i) => ({
      name: `${page.slice(REPO_ROOT.length)} block ${i + 1}`,
      code: m[1],
    })),
  );
  return { files, blocks };
}

test('every example and README code block parses on this Node, without `using`', async () => {
  const { files, blocks } = sources();
  assert.ok(files.length >= 2, `examples found: ${files.map((f) => f.name)}`);
  assert.ok(blocks.length >= 10, `README code blocks found: ${blocks.length}`);
  for (const [i, { name, code }] of [...files, ...blocks].entries()) {
    assert.doesNotMatch(code, USING_DECLARATION, `${name}: \`using\` declarations are a syntax error on Node 20`);
    const path = join(tmp.dir, `source-${i}.mjs`); // ESM, as the package is: top-level await and imports parse
    writeFileSync(path, code);
    await promisify(execFile)(process.execPath, ['--check', path]).catch((err) => {
      assert.fail(`${name} does not parse on Node ${process.version}:\n${err.stderr}`);
    });
  }
});

test('the `using` check catches both spellings and leaves the word alone elsewhere', () => {
  assert.match('await using client = await start();', USING_DECLARATION);
  assert.match('{\n  using lock = take();\n}', USING_DECLARATION);
  assert.doesNotMatch('// close it, using try/finally\nconst using = 1;', USING_DECLARATION);
});
