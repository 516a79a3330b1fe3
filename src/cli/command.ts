import type { ParsedArgs } from './args.js';

export interface Command {
  name: string;
  /** One line for `simt help`. */
  summary: string;
  usage: string;
  run(args: ParsedArgs, io: CommandIO): Promise<number>;
}

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** True when stdout is a terminal (progress bars only then). */
  tty: boolean;
}
