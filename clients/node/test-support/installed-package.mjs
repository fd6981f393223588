// installed-package.mjs — owns running the suite against an installed copy of the package
// instead of this checkout's: `node --test --import ./test-support/installed-package.mjs test/`
// with MCP_SIDECAR_TEST_INSTALLED naming the installed package's directory (a project's
// node_modules/mcp-sidecar). Every import of this package's own files (src/, bin/, generated.js,
// package.json) then loads the installed file; the tests and test-support stay the checkout's.
// A file the installed package lacks fails the import, as it would for a user.

import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

const CHECKOUT = new URL('..', import.meta.url).href;
const SHIPPED = ['src/', 'bin/', 'generated.js', 'package.json'];

/** The module loader's resolve hook (runs in the loader thread). */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const installed = process.env.MCP_SIDECAR_TEST_INSTALLED;
  if (!resolved.url.startsWith(CHECKOUT)) return resolved;
  const relative = resolved.url.slice(CHECKOUT.length);
  if (!SHIPPED.some((prefix) => relative === prefix || relative.startsWith(prefix))) return resolved;
  return { ...resolved, url: new URL(relative, `${pathToFileURL(installed).href}/`).href };
}

if (isMainThread) {
  if (!process.env.MCP_SIDECAR_TEST_INSTALLED) {
    throw new Error('installed-package.mjs needs MCP_SIDECAR_TEST_INSTALLED (the installed package directory)');
  }
  register(import.meta.url);
}
