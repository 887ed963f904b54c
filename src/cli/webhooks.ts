import type { Command } from 'commander';
import { addClientOptions, apiOf, collectList, enc, wantsJson } from './client.ts';
import { ExitError, usageError } from './exit-error.ts';
import { printFields, printJson, printLine, printListOf } from './format.ts';
import { addPagingOptions, fetchList, type PagingOptions } from './paging.ts';

type Webhook = {
  id: string;
  url: string;
  events: string[];
  spaceSlug?: string | null;
  description?: string | null;
  enabled: boolean;
  secret?: string;
};
type Delivery = {
  id: string;
  event: string;
  attempt: number;
  at: string;
  outcome: string;
  status?: number;
  error?: string;
  durationMs: number;
};
type TestResult = { outcome: string; status?: number; error?: string; durationMs: number };

const EVENTS = 'page.created, page.updated, page.deleted, page.metadata.updated';

function printWebhook(w: Webhook): void {
  printFields([
    ['id', w.id],
    ['url', w.url],
    ['events', w.events],
    ['space', w.spaceSlug ?? 'all shared spaces'],
    ['description', w.description ?? ''],
    ['enabled', w.enabled],
    ...(w.secret ? [['secret', w.secret] as [string, unknown]] : []),
  ]);
  if (w.secret) process.stderr.write('The signing secret is shown only now; keep it.\n');
}

async function setEnabled(id: string, enabled: boolean, cmd: Command): Promise<void> {
  const w = await apiOf(cmd).json<Webhook>('PATCH', `/admin/webhooks/${enc(id)}`, { body: { enabled } });
  if (wantsJson(cmd)) return printJson(w);
  printLine(`webhook ${w.id} ${w.enabled ? 'enabled' : 'disabled'}`);
}

/** `kspace webhooks …`: outbound webhook subscriptions (org admins). */
export function registerWebhookCommands(program: Command): void {
  const hooks = program.command('webhooks').description('outbound webhooks (org admins)').helpGroup('Webhooks:');

  addClientOptions(hooks.command('list').description('the subscriptions')).action(async (_opts: unknown, cmd: Command) => {
    const list = await apiOf(cmd).get<Webhook[]>('/admin/webhooks');
    printListOf(
      cmd,
      list,
      ['ID', 'URL', 'EVENTS', 'SPACE', 'ENABLED', 'DESCRIPTION'],
      () => list.map((w) => [w.id, w.url, w.events, w.spaceSlug ?? '*', w.enabled ? 'yes' : 'no', w.description]),
      { empty: 'no webhooks' },
    );
  });

  // Here --url is the receiver's URL; the server's comes from SERVICE_URL or `kspace --url U webhooks create …`.
  addClientOptions(hooks.command('create').description('subscribe a URL to events; prints the signing secret once'), { serverUrl: false })
    .requiredOption('--url <url>', 'the receiver (https unless the server allows http)')
    .requiredOption('--event <name>', `an event to send (repeatable or comma-separated): ${EVENTS}`, collectList)
    .option('--space <slug>', 'only events of this space (default: all shared spaces)')
    .option('--description <text>', 'what it is for')
    .option('--disabled', 'create it switched off')
    .addHelpText(
      'after',
      '\nThe server URL comes from SERVICE_URL or goes before the noun: kspace --url http://host:8080 webhooks create …\n\nExample:\n  kspace webhooks create --url https://example.com/hook --event page.created --event page.updated --space wiki\n',
    )
    .action(async (opts: { url: string; event: string[]; space?: string; description?: string; disabled?: boolean }, cmd: Command) => {
      if (opts.event.length === 0) throw usageError('give at least one --event');
      const w = await apiOf(cmd).json<Webhook>('POST', '/admin/webhooks', {
        body: {
          url: opts.url,
          events: opts.event,
          spaceSlug: opts.space,
          description: opts.description,
          ...(opts.disabled ? { enabled: false } : {}),
        },
      });
      if (wantsJson(cmd)) return printJson(w);
      printWebhook(w);
    });

  addClientOptions(hooks.command('get').argument('<id>').description('show one subscription')).action(
    async (id: string, _opts: unknown, cmd: Command) => {
      const w = await apiOf(cmd).get<Webhook>(`/admin/webhooks/${enc(id)}`);
      if (wantsJson(cmd)) return printJson(w);
      printWebhook(w);
    },
  );

  addClientOptions(hooks.command('enable').argument('<id>').description('start sending deliveries')).action(
    (id: string, _opts: unknown, cmd: Command) => setEnabled(id, true, cmd),
  );
  addClientOptions(hooks.command('disable').argument('<id>').description('stop sending deliveries')).action(
    (id: string, _opts: unknown, cmd: Command) => setEnabled(id, false, cmd),
  );

  addClientOptions(
    hooks.command('rotate').argument('<id>').description('issue a new signing secret (printed once); the old one stops working'),
  ).action(async (id: string, _opts: unknown, cmd: Command) => {
    const w = await apiOf(cmd).json<Webhook>('POST', `/admin/webhooks/${enc(id)}/rotate-secret`);
    if (wantsJson(cmd)) return printJson(w);
    printWebhook(w);
  });

  addClientOptions(
    hooks.command('test').argument('<id>').description('send a webhook.test delivery now; exits 1 unless it was delivered'),
  ).action(async (id: string, _opts: unknown, cmd: Command) => {
    const r = await apiOf(cmd).json<TestResult>('POST', `/admin/webhooks/${enc(id)}/test`);
    if (wantsJson(cmd)) printJson(r);
    else
      printFields([
        ['outcome', r.outcome],
        ['status', r.status ?? ''],
        ['error', r.error ?? ''],
        ['duration', `${r.durationMs} ms`],
      ]);
    if (r.outcome !== 'delivered')
      throw new ExitError(
        `the test delivery was not delivered (${r.outcome}${r.status ? ` ${r.status}` : ''}${r.error ? `: ${r.error}` : ''})`,
      );
  });

  addPagingOptions(
    addClientOptions(hooks.command('deliveries').argument('<id>').description("a subscription's delivery log, newest first")),
    'attempts',
  ).action(async (id: string, opts: PagingOptions, cmd: Command) => {
    const r = await fetchList<Delivery>(apiOf(cmd), `/admin/webhooks/${enc(id)}/deliveries`, 'deliveries', {}, opts);
    printListOf(
      cmd,
      r.body,
      ['AT', 'EVENT', 'ATTEMPT', 'OUTCOME', 'STATUS', 'MS', 'ERROR'],
      () => r.items.map((d) => [d.at, d.event, d.attempt, d.outcome, d.status ?? '', d.durationMs, d.error ?? '']),
      { empty: 'no deliveries yet', more: r.nextCursor },
    );
  });

  addClientOptions(hooks.command('delete').argument('<id>').description('remove a subscription')).action(
    async (id: string, _opts: unknown, cmd: Command) => {
      await apiOf(cmd).send('DELETE', `/admin/webhooks/${enc(id)}`);
      if (wantsJson(cmd)) return printJson({ ok: true });
      printLine(`deleted webhook ${id}`);
    },
  );
}
