/**
 * One convention for every command's usage errors and help, as kubectl's: a usage error (unknown flag or command, a
 * bad or missing value, flags that exclude each other) prints one `error:` line and where the help is, never the
 * whole help, and exits 2; `--help` exits 0; a long flag puts its description on the lines below it, so the help
 * keeps to the width of the terminal (80 columns when it is not one).
 */
import { Help, type Command, type CommanderError } from 'commander';
import { escapeControl } from '../src/util/control-chars.ts';
import { ConfigError } from './rows.ts';

/** The exit code of a usage error, for every command (1 means findings: invalid input, a failed analysis). */
export const USAGE_EXIT = 2;

/** `Run 'aeraki render --help' for usage.` (kubectl's `See 'kubectl get -h' for help and examples.`). */
export function usageHint(command: Command): string {
  const path: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) path.unshift(c.name());
  return `Run '${path.join(' ')} --help' for usage.`;
}

/** The one error line and the hint, then exit 2. */
export function usageError(command: Command, message: string): never {
  process.stderr.write(`error: ${escapeControl(message)}\n${usageHint(command)}\n`);
  process.exit(USAGE_EXIT);
}

/** `resolve()`, or on a ConfigError (a bad flag or variable) the usage error; other errors are bugs and go on. */
export function configOrUsage<T>(command: Command, resolve: () => T): T {
  try {
    return resolve();
  } catch (err) {
    if (err instanceof ConfigError) usageError(command, err.message);
    throw err;
  }
}

/** Commander's own errors (unknown option, missing value, a parser's refusal) exit 2; help and version exit 0. */
function exitOf(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : USAGE_EXIT);
}

/** Terms wider than this are written on their own line, with the description below them. */
const TERM_COLUMN = 30;

/**
 * Commander aligns every description after the widest flag; serve's widest (`--proxy-status-istiod-address
 * <host:port>`) leaves too little room, and commander then does not wrap at all. Here the column is at most
 * TERM_COLUMN wide, and a wider term stands alone on its line.
 */
const HELP_LAYOUT: Partial<Help> = {
  padWidth(cmd: Command, helper: Help): number {
    return Math.min(Help.prototype.padWidth.call(this, cmd, helper), TERM_COLUMN);
  },
  formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    if (!description || helper.displayWidth(term) <= termWidth)
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    const indent = ' '.repeat(2 + termWidth + 2);
    const width = (helper.helpWidth ?? 80) - indent.length;
    const lines = helper.boxWrap(description, width).split('\n');
    return `  ${term}\n${lines.map((l) => indent + l).join('\n')}`;
  },
};

/** The program's settings, inherited by the commands added after it: exit codes and help layout. */
export function configureProgram(program: Command): Command {
  return program
    .exitOverride(exitOf)
    .configureHelp(HELP_LAYOUT)
    .configureOutput({ outputError: (text, write) => write(`${escapeControl(text.trimEnd())}\n`) })
    .showHelpAfterError(usageHint(program));
}

/** A command's own hint after a usage error (set after `program.command(...)`, which copies the program's). */
export function withUsage(command: Command): Command {
  return command.showHelpAfterError(usageHint(command));
}
