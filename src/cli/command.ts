import type { ParsedArgs } from './args.js';
import type { OptionSpec } from './options.js';

export interface Command {
  name: string;
  /** One line for `simt help`. */
  summary: string;
  /** The synopsis line of `--help`. */
  usage: string;
  /**
   * Every option the command takes (besides COMMON_OPTIONS); anything else is a usage error.
   * Required in the command list (commands/index.ts; a test checks every command has options
   * and an example); optional here so a command's options may be declared beside it.
   */
  options?: readonly OptionSpec[];
  /** Command lines `--help` shows (at least one). */
  examples?: readonly string[];
  /** More lines for `--help`: what the output is, with and without --json. */
  details?: string;
  /**
   * The names the first positional argument can take (a job): main resolves it ignoring case,
   * '-' and '_', and an unknown one is a usage error with the closest name.
   */
  jobNames?(): Promise<readonly string[]>;
  /** First positional arguments that name a subcommand (`simt explore merge …`), not a job. */
  subcommands?: readonly string[];
  /** The command that lists the jobs (default `simt <name> --list`). */
  jobList?: string;
  run(args: ParsedArgs, io: CommandIO): Promise<number>;
}

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** True when stdout is a terminal (progress bars only then). */
  tty: boolean;
}
