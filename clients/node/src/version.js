// version.js — owns the package version reported as `clientInfo.version` (kept equal to
// package.json's "version"; a test checks it).
export const VERSION = '0.1.0';
