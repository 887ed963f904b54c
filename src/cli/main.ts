import { Command, CommanderError } from 'commander';
import { AppError } from '../domain/errors.ts';
import { registerServeCommands } from './serve.ts';

/** Client command groups register here (spaces, pages, search, …); each adds its own nouns. */
export const commandModules: Array<(program: Command) => void> = [registerServeCommands];

export class ExitError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

export function buildProgram(): Command {
  const program = new Command('kspace')
    .description('kspace: a self-hosted knowledge space — Markdown pages, typed metadata, record types, search, links and webhooks.')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commandModules) register(program);
  return program;
}

/** Runs the CLI and returns the process exit code: 0 ok, 2 input rejected, 1 anything else. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof ExitError) {
      if (err.message) process.stderr.write(`kspace: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof AppError) {
      process.stderr.write(`kspace: ${err.message}\n`);
      return err.status === 400 ? 2 : 1;
    }
    process.stderr.write(`kspace: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
