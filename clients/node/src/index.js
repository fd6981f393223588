// index.js — the package entry point: re-exports the public API (types in ../index.d.ts).
export { SidecarClient, start } from './client.js';
export { SidecarError, HandlerError, RPC_CODES, CLIENT_CODES } from './errors.js';
export { findBinary, executableName, PLATFORM_PACKAGES, ENV_VAR } from './binary.js';
export { VERSION } from './version.js';
