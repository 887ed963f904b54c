import { Command, CommanderError, Option } from 'commander';
import { registerAclCommands } from './acl.ts';
import { registerBundleCommands } from './bundles.ts';
import { DEFAULT_URL, finishClientOptions } from './client.ts';
import { finishPagingOptions } from './paging.ts';
import { exitQuietlyOnEpipe, reportError } from './exit-error.ts';
import { registerFileCommands } from './files.ts';
import { registerLinkCommands } from './links.ts';
import { registerMcpCommand } from './mcp.ts';
import { registerMetaCommands } from './meta.ts';
import { registerPageCommands } from './pages.ts';
import { registerRecordCommands } from './records.ts';
import { registerSearchCommands } from './search.ts';
import { registerServeCommands } from './serve.ts';
import { registerSpaceCommands } from './spaces.ts';
import { registerSpaceTemplateCommands } from './space-templates.ts';
import { registerWebhookCommands } from './webhooks.ts';
import { registerHistoryCommands } from './history.ts';
import { registerPeopleCommands } from './people.ts';
import { registerCompletionCommand } from './completion.ts';
import { registerSyncCommand } from './sync/command.ts';
import { registerChangesCommand } from './changes.ts';

export { ExitError } from './exit-error.ts';

/** Command groups in help order; each adds its own nouns. */
export const commandModules: Array<(program: Command) => void> = [
  registerPageCommands,
  registerMetaCommands,
  registerAclCommands,
  registerSearchCommands,
  registerRecordCommands,
  registerLinkCommands,
  registerSpaceCommands,
  registerSpaceTemplateCommands,
  registerBundleCommands,
  registerWebhookCommands,
  registerServeCommands,
  registerMcpCommand,
  registerHistoryCommands,
  registerPeopleCommands,
  registerCompletionCommand,
  registerFileCommands,
  registerSyncCommand,
  registerChangesCommand,
];

const FOOTER = `
Client commands talk to a running server: SERVICE_URL (default ${DEFAULT_URL}) and
SERVICE_API_KEY, or --url and --key (before the noun or after the command). --json on any client
command prints the API's JSON. Exit codes: 0 success, 2 input rejected (each issue is printed),
1 anything else.

Examples:
  export SERVICE_API_KEY=ks_...
  kspace spaces create wiki --name Wiki
  kspace page put wiki welcome --title Welcome --file welcome.md
  kspace page get wiki welcome
  kspace search "onboarding checklist"
  kspace query --where 'stage in todo,doing' --where 'points>=3' --order-by due
  kspace <command> --help`;

export function buildProgram(): Command {
  const program = new Command('kspace')
    .description('kspace: a self-hosted knowledge space — Markdown pages, typed metadata, record types, search, links and webhooks.')
    .usage('<command> [options]')
    .version('0.1.0', '-V, --version', 'print the version')
    // Options before the noun belong to kspace itself; after it, to the command (webhooks create has its own --url).
    .enablePositionalOptions()
    .addOption(new Option('--url <url>', `server URL (default: $SERVICE_URL or ${DEFAULT_URL})`).helpGroup('Global options:'))
    .addOption(new Option('--key <key>', 'API key (default: $SERVICE_API_KEY)').helpGroup('Global options:'))
    .addOption(new Option('--json', "print the API's JSON instead of tables").helpGroup('Global options:'))
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError()
    .addHelpText('after', FOOTER)
    .exitOverride();
  for (const register of commandModules) register(program);
  finishPagingOptions();
  finishClientOptions();
  return program;
}

/** Runs the CLI and returns the process exit code: 0 ok, 2 input rejected, 1 anything else. */
export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnEpipe();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    return reportError(err);
  }
}
