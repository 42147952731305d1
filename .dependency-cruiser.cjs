// The import rules of DESIGN.md ("which folder may import which"), checked in CI by `npm run depcheck`.
//   util <- model <- kit <- controller, registry, envoyfilter, reconcile, leader, bootstrap, vip, xds-rds, ops,
//                           webhook, status, identity, proxy-status, analyze, tools                   (the features)
//                 <- kit <- plugins/sdk <- plugins/*    (plugins: model, kit, util and plugins/sdk only)
//   tools also reads the RDS wire definitions (xds-rds/protos.ts)
//   everything <- app/ <- cmd/
// util holds no domain, model the object model, kit the machinery every controller and server shares. The
// features never import each other: they meet in model and kit and are wired together in app/.
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

const PEERS = [
  'controller',
  'registry',
  'envoyfilter',
  'reconcile',
  'leader',
  'bootstrap',
  'vip',
  'xds-rds',
  'ops',
  'webhook',
  'status',
  'identity',
  'proxy-status',
  'analyze',
  'waypoint',
];

module.exports = {
  forbidden: [
    layer('util', []),
    layer('model', ['util/']),
    layer('kit', ['util/', 'model/']),
    ...PEERS.map((peer) => layer(peer, ['util/', 'model/', 'kit/'])),
    layer('plugins/sdk', ['util/', 'model/', 'kit/']),
    layer('tools', ['util/', 'model/', 'kit/', 'xds-rds/protos\\.ts$']),
    {
      name: 'plugins-imports',
      severity: 'error',
      comment: 'plugins import model, kit, util and plugins/sdk only; never another plugin',
      from: { path: '^src/plugins/(?!sdk/)([^/]+)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/plugins/$1/', '^src/util/', '^src/model/', '^src/kit/', '^src/plugins/sdk/'],
      },
    },
    {
      name: 'registry-imports',
      severity: 'error',
      comment: 'the generator registry lists plugins; it imports plugins, model, kit and util only',
      from: { path: '^src/plugins/registry\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/plugins/', '^src/model/', '^src/kit/', '^src/util/'] },
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
      comment: 'src/app/ is the composition root; nothing else in src imports it',
      from: { path: '^src/', pathNot: '^src/app/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'no-stray-folders',
      severity: 'error',
      comment: 'every source file lives in one of the folders of DESIGN.md',
      from: {
        path: '^src/',
        pathNot:
          '^src/(app|util|model|kit|controller|registry|envoyfilter|plugins|reconcile|leader|bootstrap|vip|xds-rds|ops|webhook|status|identity|proxy-status|analyze|tools|waypoint)/',
      },
      to: {},
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
