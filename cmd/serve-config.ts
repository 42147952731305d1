/** The validated options of `aeraki serve`: the row table (serve-rows.ts) plus cross-field checks, nested per part. */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { needsKube, type ServeOptions } from '../src/app/options.ts';
import { outputOf, outputsWith } from '../src/app/outputs.ts';
import type { CertProviderKind } from '../src/identity/types.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../src/model/proxy-images.ts';
import type { ServeFlags, ServeValues } from './serve-flags.ts';
import { certProviderOfFlags } from './serve-rows-identity.ts';
import { dirStateFileOf } from './serve-rows-source.ts';
import { ConfigError, resolveConfig, type Env } from './rows.ts';
import { SERVE_ROWS, serveOptionsOf } from './serve-rows.ts';

export { SERVE_ROWS } from './serve-rows.ts';

/** The validated, frozen options of `aeraki serve` (each part's object frozen too); cross-field problems are ConfigErrors. */
export function serveConfig(command: Command, env: Env, version: string): ServeOptions {
  const c = resolveConfig(SERVE_ROWS, command, env);
  const problems: string[] = [];
  if (c.configSource === 'dir' && c.configDir === '') problems.push('--config-source dir needs --config-dir');
  if (c.output === 'dir' && c.outputDir === '') problems.push('--output dir needs --output-dir');
  const output = outputOf(c.output);
  if (c.leaderElect === true && !output.electsLeader) {
    problems.push(
      `--leader-elect needs --output ${outputsWith('electsLeader')} (the Lease lives in the Kubernetes API)`,
    );
  }
  if (c.allocateVips === true && !output.clusterWriters) {
    problems.push(
      `--allocate-vips needs --output ${outputsWith('clusterWriters')} (the VIPs are written into ServiceEntries)`,
    );
  }
  const certProvider = certProviderOfFlags(c);
  problems.push(...certProblems(c, certProvider));
  const webhookFiles = c.webhookCertFile !== '' && c.webhookKeyFile !== '';
  if (c.webhookAddress && c.devCertsDir === '' && !webhookFiles) {
    problems.push(
      '--webhook-address needs --webhook-cert-file and --webhook-key-file (or --dev-certs <dir>)',
    );
  }
  const registries = { specs: c.registries, output: c.registryOutput };
  if (
    needsKube(c.configSource, outputOf(c.output), registries) &&
    c.kubeconfig === '' &&
    !env['KUBERNETES_SERVICE_HOST']
  ) {
    const registries =
      c.registries.length > 0 && c.registryOutput === 'kube' ? ' and --registry-output kube' : '';
    problems.push(
      `--config-source ${c.configSource} with --output ${c.output}${registries} needs the Kubernetes API: pass --kubeconfig (or KUBECONFIG) outside a cluster`,
    );
  }
  const files: [string, string][] = [
    ['--config-dir', c.configDir],
    ['--kubeconfig', c.kubeconfig],
    ['--istiod-root-cert-file', c.istiodRootCertFile],
    ['--istiod-token-file', c.istiodTokenFile],
    ...(c.webhookAddress && c.devCertsDir === ''
      ? ([
          ['--webhook-cert-file', c.webhookCertFile],
          ['--webhook-key-file', c.webhookKeyFile],
        ] as [string, string][])
      : []),
    ...(certProvider === 'files'
      ? ([
          ['--tls-cert-file', c.tlsCertFile],
          ['--tls-key-file', c.tlsKeyFile],
          ['--client-ca-file', c.clientCaFile || c.caRootCertFile],
        ] as [string, string][])
      : []),
  ];
  for (const [flag, file] of files) {
    if (file !== '' && !existsSync(file)) problems.push(`${flag} ${file}: no such file or directory`);
  }
  if (c.renewDeadlineMs >= c.leaseDurationMs)
    problems.push('--renew-deadline must be shorter than --lease-duration');
  if (c.retryPeriodMs <= 0) problems.push('--retry-period must be positive');
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  const values: ServeValues = {
    ...c,
    leaderElect: c.leaderElect ?? output.electsLeader,
    namespaceBootstrap: c.namespaceBootstrap && output.clusterWriters,
    allocateVips: c.allocateVips ?? output.clusterWriters,
    podName: c.podName || hostname(),
    dirStateFile: dirStateFileOf(c),
    xdsServiceAddress: c.xdsServiceAddress || `aeraki.${c.rootNamespace}`,
    certProvider,
    caAddress: c.caAddress || `${c.istiodAddress.replace(/:\d+$/, '')}:15012`,
    podNamespace: c.podNamespace || c.rootNamespace,
    metaProtocolImages: [...DEFAULT_META_PROTOCOL_IMAGES, ...c.metaProtocolImages],
    version,
  };
  const nested = serveOptionsOf(values);
  for (const part of Object.values(nested)) if (typeof part === 'object') Object.freeze(part);
  return Object.freeze(nested);
}

/** What the chosen certificate provider needs from the other options. */
function certProblems(c: ServeFlags, provider: CertProviderKind | undefined): string[] {
  if (provider === 'files' && (c.tlsCertFile === '' || c.tlsKeyFile === '')) {
    return ['--cert-provider files needs --tls-cert-file and --tls-key-file'];
  }
  if (provider === 'dev' && c.devCertsDir === '') return ['--cert-provider dev needs --dev-certs <dir>'];
  return [];
}
