/**
 * Composition root: wires sources, the store, the generator registry and the outputs. `render` is the offline
 * path (src/app/render.ts); `startServe` runs the whole controller in one process (src/app/serve.ts).
 * cmd/ imports only this module.
 */
export { loadStore, render, type OutputFormat, type RenderOptions, type RenderResult } from './render.ts';
export { startServe, type ServeDeps, type RunningServe } from './serve.ts';
export { needsKube, type ServeOptions, type ConfigSourceKind, type OutputKind } from './options.ts';
export { ensureDevCertificates, type DevCertPaths } from '../tools/dev-certs.ts';
export { watchRoutes, type WatchRoutesOptions } from '../tools/route-watcher.ts';
