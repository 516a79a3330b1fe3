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
    if (e instanceof UsageError) { io.err(`simt ${name}: ${e.message} (simt ${name} --help shows the usage)`); return 2; }
    if (e instanceof SimtError) { io.err(`simt ${name}: ${e.name}: ${e.message}`); return 1; }
    throw e;
  }
}

export function defaultIO(): CommandIO {
  return {
    out: (l) => process.stdout.write(l + '\n'),
    err: (l) => process.stderr.write(l + '\n'),
    tty: !!process.stdout.isTTY,
  };
}
