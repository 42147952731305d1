// The import rules of DESIGN.md ("which folder may import which"), checked in CI by `npm run depcheck`.
//   util <- model <- controller
//                 <- envoyfilter <- plugins  (plugins: model, util, envoyfilter/patch-builders only)
//                 <- xds-rds
//                 <- ops
//   everything <- app.ts, app/ <- cmd/
const layer = (from, allowed) => ({
  name: `${from}-imports`,
  severity: 'error',
  comment: `src/${from} may import only: ${allowed.join(', ') || 'nothing in src'}`,
  from: { path: `^src/${from}/` },
  to: {
    path: '^src/',
    pathNot: [`^src/${from}/`, ...allowed.map((a) => `^src/${a}`)],
  },
});

module.exports = {
  forbidden: [
    layer('util', []),
    layer('model', ['util/']),
    layer('controller', ['util/', 'model/']),
    layer('xds-rds', ['util/', 'model/']),
    layer('envoyfilter', ['util/', 'model/']),
    // ops: the admin HTTP server and the metrics; wired to the components in app.ts through injected providers.
    layer('ops', ['util/', 'model/']),
    {
      name: 'plugins-imports',
      severity: 'error',
      comment: 'plugins import model, util and envoyfilter/patch-builders only; never another plugin',
      from: { path: '^src/plugins/([^/]+)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/plugins/$1/', '^src/util/', '^src/model/', '^src/envoyfilter/patch-builders'],
      },
    },
    {
      name: 'registry-imports',
      severity: 'error',
      from: { path: '^src/plugins/registry\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/plugins/', '^src/model/', '^src/util/'] },
    },
    {
      name: 'no-src-to-cmd',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^cmd/' },
    },
    {
      name: 'only-app-imports-everything',
      severity: 'error',
      comment: 'src/app.ts and src/app/ are the composition root; nothing else in src imports them',
      from: { path: '^src/', pathNot: '^src/app(\\.ts$|/)' },
      to: { path: '^src/app(\\.ts$|/)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
