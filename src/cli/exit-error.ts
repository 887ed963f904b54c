import { AppError } from '../domain/errors.ts';
import { ParseError } from './values.ts';

/**
 * Ends a CLI command with an exit code: 2 when the input was rejected (locally or by a 400),
 * 1 for anything else. `message` is the one line printed after `kspace: `; `details` follow it,
 * one a line (e.g. each validation issue).
 */
export class ExitError extends Error {
  readonly exitCode: number;
  readonly details: string[];
  /** The HTTP status when the error is a server's answer. */
  readonly status: number | undefined;
  constructor(message: string, exitCode = 1, details: string[] = [], status?: number) {
    super(message);
    this.exitCode = exitCode;
    this.details = details;
    this.status = status;
  }
}

/** Bad usage noticed before any request is sent: exit 2 like a 400. */
export const usageError = (message: string) => new ExitError(message, 2);

/** Runs a local parse (JSON, key=value, --where) and turns its mistakes into exit code 2. */
export function parsed<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ParseError || e instanceof SyntaxError) throw usageError(e.message);
    throw e;
  }
}

/** Prints a command's error after `kspace: ` and returns its exit code: 2 input rejected, 1 anything else. */
export function reportError(err: unknown): number {
  if (err instanceof ExitError) {
    if (err.message) process.stderr.write(`kspace: ${err.message}\n`);
    for (const d of err.details) process.stderr.write(`  ${d}\n`);
    return err.exitCode;
  }
  if (err instanceof AppError) {
    process.stderr.write(`kspace: ${err.message}\n`);
    return err.status === 400 ? 2 : 1;
  }
  process.stderr.write(`kspace: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

/** `kspace pages wiki | head`: a reader that stops early is not an error. */
export function exitQuietlyOnEpipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
