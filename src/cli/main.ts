// `simt <command> [options]`: the command-line entry point.
import { readFileSync } from 'node:fs';
import { UsageError, withSpelling, type ParsedArgs } from './args.js';
import { commands } from './commands/index.js';
import type { Command, CommandIO } from './command.js';
import { COMMON_OPTIONS, formatHelp, parseOptions } from './options.js';
import { resolveName, suggest } from './suggest.js';
import { SimtError } from '../errors.js';

/** The package's version (package.json beside dist/ or src/). */
export function packageVersion(): string {
  for (const up of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'simt' && pkg.version) return pkg.version;
    } catch {
      // try the next folder up
    }
  }
  return 'unknown';
}

function overview(io: CommandIO): void {
  io.out('usage: simt <command> [options]\n');
  io.out('commands:');
  for (const c of commands) io.out(`  ${c.name.padEnd(12)} ${c.summary}`);
  io.out('\noptions:\n  -h, --help     this list (simt <command> --help: a command\'s options)\n  --version      print the version');
  io.out('\nConventions (--out, --seed, --workers, --json, …): docs/cli.md.');
}

export async function main(argv: readonly string[], io: CommandIO = defaultIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') { io.out(packageVersion()); return 0; }
  if (name === 'help' && rest[0] !== undefined) return main([rest[0], '--help'], io);
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    overview(io);
    return name ? 0 : 1;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    const near = suggest(name, commands.map((c) => c.name));
    io.err(`simt: unknown command '${name}'${near ? ` (did you mean ${near}?)` : ''}; simt --help lists the commands`);
    return 2;
  }
  const specs = [...(cmd.options ?? []), ...COMMON_OPTIONS];
  let args: ParsedArgs | undefined;
  try {
    const parsed = parseOptions(rest, specs);
    args = withSpelling(parsed);
    if (args.options.help) { io.out(formatHelp({ ...cmd, options: specs, examples: cmd.examples ?? [] })); return 0; }
    for (const note of parsed.notes) io.err(`simt ${name}: ${note}`);
    const first = args.positionals[0];
    if (cmd.jobNames && first !== undefined && !cmd.subcommands?.includes(first)) args.positionals[0] = await resolveJob(cmd, first);
    return await cmd.run(args, io);
  } catch (e) {
    // Every error is one line: what was wrong, with which file or flag. Exit code 2 for a
    // usage error, 1 for anything else; --verbose adds the stack.
    const verbose = !!args?.options.verbose || rest.includes('--verbose');
    if (e instanceof UsageError) {
      io.err(`simt ${name}: ${firstLine(e.message)} (simt ${name} --help shows the options)`);
      if (verbose && e.stack) io.err(e.stack);
      return 2;
    }
    io.err(`simt ${name}: ${describe(e)}${verbose ? '' : e instanceof SimtError ? '' : ' (--verbose shows the stack)'}`);
    if (verbose && e instanceof Error && e.stack) io.err(e.stack);
    return 1;
  }
}

async function resolveJob(cmd: Command, typed: string): Promise<string> {
  const known = await cmd.jobNames!();
  const { name, hint } = resolveName(typed, known);
  if (name) return name;
  throw new UsageError(`no job '${typed}'${hint ? ` (${hint})` : ''}; ${cmd.jobList ?? `simt ${cmd.name} --list`} shows them`);
}

function firstLine(s: string): string {
  const k = s.indexOf('\n');
  return k < 0 ? s : `${s.slice(0, k)} …`;
}

/** `Name: message` on one line (a Node system error is already named by its code in the message). */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return firstLine(String(e));
  const code = (e as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && e.message.startsWith(code)) return firstLine(e.message);
  return firstLine(`${e.name}: ${e.message}`);
}

let pipesHandled = false;

/**
 * stdout and stderr of the process. A reader that goes away (`simt … --json | head -1`) ends
 * the process quietly with status 0, as `head` asked for no more: no EPIPE error, no stack.
 */
export function defaultIO(): CommandIO {
  if (!pipesHandled) {
    pipesHandled = true;
    for (const s of [process.stdout, process.stderr]) {
      s.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EPIPE') process.exit(0);
        throw e;
      });
    }
  }
  return {
    out: (l) => { if (!process.stdout.destroyed) process.stdout.write(l + '\n'); },
    err: (l) => { if (!process.stderr.destroyed) process.stderr.write(l + '\n'); },
    tty: !!process.stdout.isTTY,
  };
}
