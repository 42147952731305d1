/**
 * Process entry: `aeraki render` and `aeraki version`. The only module that touches process (argv, env, exit
 * code, stdout/stderr). Exit code 0 when the input is valid, 1 for input errors (everything valid is still
 * rendered) or bad flags.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { render } from '../src/app.ts';
import { formatIssue } from '../src/model/result.ts';
import { addOptions, ConfigError, RENDER_ROWS, renderConfig } from './config.ts';

function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const v = (pkg as { version?: unknown }).version;
  return typeof v === 'string' ? v : 'unknown';
}

const program = new Command('aeraki')
  .description('Protocol-extension controller for Istio (MetaProtocol, Dubbo, Thrift)')
  .showHelpAfterError();

const renderCommand = addOptions(
  program
    .command('render')
    .description(
      'render the EnvoyFilters (or, with --routes, the MetaProtocol routes) for a set of config files',
    ),
  RENDER_ROWS,
).action(() => {
  let options;
  try {
    options = renderConfig(renderCommand, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 1;
    return;
  }
  const result = render(options);
  process.stdout.write(result.stdout);
  for (const i of result.issues) process.stderr.write(`error: ${formatIssue(i)}\n`);
  process.exitCode = result.issues.length > 0 ? 1 : 0;
});

program
  .command('version')
  .description('print the version')
  .action(() => {
    process.stdout.write(`aeraki ${packageVersion()}\n`);
  });

program.parse(process.argv);
