// The CLI's entry (bin/kspace.ts, src/sea-main.ts). A plain `kspace serve [--data d] [--host h]
// [--port p]` starts the server without loading commander and every command's module (the
// executable's cold start; docs/performance.md, Cold start); anything else goes to commander
// (cli/main.ts), which also parses those flags the same way.
import { exitQuietlyOnEpipe, reportError } from './exit-error.ts';
import { plainServeFlags, runServe } from './serve-run.ts';

/** Runs the CLI and returns the process exit code: 0 ok, 2 input rejected, 1 anything else. */
export async function run(argv: string[]): Promise<number> {
  const flags = plainServeFlags(argv);
  if (!flags) return (await import('./main.ts')).main(argv);
  exitQuietlyOnEpipe();
  try {
    await runServe(flags);
    return 0;
  } catch (err) {
    return reportError(err);
  }
}
