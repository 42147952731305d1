/**
 * Process entry: `aeraki render | validate | analyze | serve | certs | routes | proxy-status | version`. The only
 * module that touches process (argv, env, signals, exit code, stdout/stderr). Exit codes (README, CLI):
 * - every command: 2 for a usage error (one `error:` line and `Run 'aeraki <cmd> --help'`, usage.ts);
 * - render and validate: 0 valid (warnings allowed, unless `validate --strict`), 1 input errors;
 * - analyze: 0, 1 a message at or above `--fail-on`, 3 the cluster cannot be read;
 * - serve: 0 after a graceful stop (SIGTERM, SIGINT), 1 when it cannot start;
 * - routes and proxy-status: as routes-command.ts and proxy-status-command.ts say.
 * Each command imports the app module it runs when it runs (`import()`), so `version`, `render`, `validate` and
 * offline `analyze` never load the Kubernetes client, gRPC or the servers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { hasErrors, issueLine } from '../src/model/result.ts';
import { ANALYZE_ROWS, analyzeConfig, isLive } from './analyze-config.ts';
import { printServeBanner, printSyncedBanner } from './banner.ts';
import { RENDER_ROWS, renderConfig } from './render-config.ts';
import { runProxyStatus } from './proxy-status-command.ts';
import { PROXY_STATUS_ROWS, proxyStatusConfig } from './proxy-status-config.ts';
import { runRoutes } from './routes-command.ts';
import { routesConfig, ROUTES_ROWS } from './routes-config.ts';
import { addOptions } from './rows.ts';
import { SERVE_ROWS, serveConfig } from './serve-config.ts';
import { configOrUsage, configureProgram, withUsage } from './usage.ts';
import { VALIDATE_ROWS, validateConfig } from './validate-config.ts';

/** The version in package.json: next to cmd/ when run from source, two levels up when run from dist/cmd/. */
function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (!existsSync(url)) continue;
    const pkg: unknown = JSON.parse(readFileSync(url, 'utf8'));
    const v = (pkg as { version?: unknown }).version;
    if (typeof v === 'string') return v;
  }
  return 'unknown';
}

/** The directory holding package.json (the repository, or the installed package), as a file: URL ending in `/`. */
function packageRoot(): URL {
  for (const rel of ['../', '../../']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(new URL('package.json', url))) return url;
  }
  return new URL('../', import.meta.url);
}

function fail(message: string, code: number): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

const program = configureProgram(new Command('aeraki'))
  .description('Protocol-extension controller for Istio (MetaProtocol, Dubbo, Thrift)')
  .version(`aeraki ${packageVersion()}`, '-v, --version', 'print the version');

const renderCommand = addOptions(
  withUsage(program.command('render')).description(
    'render the EnvoyFilters (or, with --routes, the MetaProtocol routes) for a set of config files',
  ),
  RENDER_ROWS,
).action(async () => {
  const options = configOrUsage(renderCommand, () => renderConfig(renderCommand, process.env));
  const { renderTo } = await import('../src/app/render.ts');
  // Written in pieces of about 64 KiB as it is made (synchronous for files and pipes).
  let pending = '';
  const issues = renderTo(options, (chunk) => {
    pending += chunk;
    if (pending.length < 65_536) return;
    process.stdout.write(pending);
    pending = '';
  });
  process.stdout.write(pending);
  for (const i of issues) process.stderr.write(`${issueLine(i)}\n`);
  process.exitCode = hasErrors(issues) ? 1 : 0;
});

const validateCommand = addOptions(
  withUsage(program.command('validate')).description(
    'check config files offline as render and the validating webhook do (errors and warnings, no output)',
  ),
  VALIDATE_ROWS,
).action(async () => {
  const options = configOrUsage(validateCommand, () => validateConfig(validateCommand, process.env));
  const { validateFiles } = await import('../src/app/validate.ts');
  const issues = validateFiles(options);
  for (const i of issues) process.stderr.write(`${issueLine(i)}\n`);
  process.exitCode = hasErrors(issues) || (options.strict && issues.length > 0) ? 1 : 0;
});

const analyzeCommand = addOptions(
  withUsage(program.command('analyze')).description(
    'analyze config files (-f) or a cluster (--kubeconfig, -A) for problems with stable codes (AER0001...), as istioctl analyze does for Istio',
  ),
  ANALYZE_ROWS,
).action(async () => {
  const options = configOrUsage(analyzeCommand, () => analyzeConfig(analyzeCommand, process.env));
  const { analyzeFiles, formatAnalysis } = await import('../src/app/analyze.ts');
  const { atLeast } = await import('../src/analyze/codes.ts');
  const { namespace, ...rest } = options;
  const o = { ...rest, ...(namespace !== undefined ? { namespace } : {}) };
  let messages;
  if (isLive(options)) {
    // Live: the cluster (read only) and any files; the Kubernetes client is loaded only here.
    const { analyzeCluster } = await import('../src/app/analyze-cluster.ts');
    try {
      messages = await analyzeCluster(o);
    } catch (err) {
      fail(`cannot read the cluster: ${err instanceof Error ? err.message : String(err)}`, 3);
    }
  } else {
    messages = analyzeFiles(o);
  }
  const root = packageRoot();
  process.stdout.write(
    formatAnalysis(
      messages,
      options.output,
      { version: packageVersion(), informationUri: root.href, baseDirectory: process.cwd() },
      namespace,
    ),
  );
  process.exitCode = messages.some((m) => atLeast(m.code.severity, options.failOn)) ? 1 : 0;
});

const serveCommand = addOptions(
  withUsage(program.command('serve')).description(
    'run the controller: config source, EnvoyFilter reconciler, RDS server, admin server',
  ),
  SERVE_ROWS,
).action(async () => {
  const options = configOrUsage(serveCommand, () => serveConfig(serveCommand, process.env, packageVersion()));
  const { startServe } = await import('../src/app/serve.ts');
  let running;
  try {
    running = await startServe(options);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), 1);
  }
  const server = running;
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    process.stderr.write(`received ${signal}, stopping\n`);
    const force = setTimeout(() => fail('graceful stop took longer than 20 s', 1), 20_000);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => fail(`stop failed: ${String(err)}`, 1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  printServeBanner(options, server, (s) => process.stdout.write(s));
  await server.synced;
  printSyncedBanner(options, server, (s) => process.stdout.write(s));
});

const certsCommand = withUsage(program.command('certs'))
  .description('write development certificates for the RDS server (CA, server and client pairs)')
  .requiredOption('--out <dir>', 'output directory')
  .option(
    '--namespace <ns>',
    "namespace of the controller's Service (server certificate SANs)",
    'istio-system',
  )
  .action(async () => {
    const opts = certsCommand.opts<{ out: string; namespace: string }>();
    const { ensureDevCertificates } = await import('../src/tools/dev-certs.ts');
    const { paths } = await ensureDevCertificates(opts.out, { namespace: opts.namespace, force: true });
    for (const [what, file] of Object.entries(paths)) process.stdout.write(`${what}: ${file}\n`);
  });

const routesCommand = addOptions(
  withUsage(program.command('routes'))
    .description(
      'watch MetaProtocol routes on an RDS server, as a proxy would (prints the routes after each response)',
    )
    .argument('<route-name...>', 'RouteConfiguration names to subscribe to'),
  ROUTES_ROWS,
).action(async (names: string[]) => {
  const o = configOrUsage(routesCommand, () => routesConfig(routesCommand, process.env));
  await runRoutes(names, o);
});

/** `aeraki proxy-status --help` points at the page the same listener serves. */
const PROXY_STATUS_PAGE_HINT = [
  '',
  'The same listener serves a page to look at in a browser:',
  'http://<debug-address>/debug/ (npm start: http://127.0.0.1:15090/debug/):',
  'services by protocol with their EnvoyFilters, routes and proxies, and what is',
  'held or rejected, with the listener rejections istiod reports.',
].join('\n');

const proxyStatusCommand = addOptions(
  withUsage(program.command('proxy-status'))
    .description(
      "print, per source object, how many proxies acknowledged, wait for or reject what the controller made (reads a running controller's /debug/proxies)",
    )
    .argument('[proxy]', "one proxy's details: its id or <pod>.<namespace>")
    .addHelpText('after', PROXY_STATUS_PAGE_HINT),
  PROXY_STATUS_ROWS,
).action(async (proxy: string | undefined) => {
  const o = configOrUsage(proxyStatusCommand, () => proxyStatusConfig(proxyStatusCommand, process.env));
  process.exitCode = await runProxyStatus(proxy, o);
});

withUsage(program.command('version'))
  .description('print the version')
  .action(() => {
    process.stdout.write(`aeraki ${packageVersion()}\n`);
  });

await program.parseAsync(process.argv);
