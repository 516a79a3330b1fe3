// `simt <command> [options]`: the command-line entry point.
import { parseArgs, UsageError } from './args.js';
import { commands } from './commands/index.js';
import type { CommandIO } from './command.js';
import { SimtError } from '../errors.js';

export async function main(argv: readonly string[], io: CommandIO = defaultIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.out('usage: simt <command> [options]\n');
    for (const c of commands) io.out(`  ${c.name.padEnd(12)} ${c.summary}`);
    io.out('\nsimt <command> --help for a command\'s options.');
    return name ? 0 : 1;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) { io.err(`simt: unknown command '${name}' (try simt help)`); return 2; }
  const args = parseArgs(rest);
  if (args.options.help) { io.out(`usage: ${cmd.usage}`); return 0; }
  try {
    return await cmd.run(args, io);
  } catch (e) {
    // Every error is one line: what was wrong, with which file or flag. Exit code 2 for a
    // usage error, 1 for anything else; --verbose adds the stack.
    if (e instanceof UsageError) {
      io.err(`simt ${name}: ${firstLine(e.message)} (simt ${name} --help shows the usage)`);
      if (args.options.verbose && e.stack) io.err(e.stack);
      return 2;
    }
    io.err(`simt ${name}: ${describe(e)}${args.options.verbose ? '' : e instanceof SimtError ? '' : ' (--verbose shows the stack)'}`);
    if (args.options.verbose && e instanceof Error && e.stack) io.err(e.stack);
    return 1;
  }
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

export function defaultIO(): CommandIO {
  return {
    out: (l) => process.stdout.write(l + '\n'),
    err: (l) => process.stderr.write(l + '\n'),
    tty: !!process.stdout.isTTY,
  };
}
