// `node scripts/screenshots.ts`: seeds a realistic space on a fresh server, signs in in the
// headless browser and captures the main views at 1280 px (and the page view at 390 px) into
// docs/screenshots/*.png. Run `npm run build:web` first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as pw, type Page, type Request } from 'playwright-core';
import { loadConfig } from '../src/config/config.ts';
import { serve } from '../src/server.ts';

const ADMIN_KEY = 'ks_screenshots_admin_key_0123456789';
const out = path.resolve(import.meta.dirname, '../docs/screenshots');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-shots-'));
const running = await serve(loadConfig({ data: dataDir, port: 0 }, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY }), {
  log: { info() {}, warn() {}, error: (m) => console.error(m) },
});
const base = running.url;

async function api(method: string, p: string, body?: unknown): Promise<unknown> {
  const r = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const page = (space: string, p: string, body: Record<string, unknown>): Promise<unknown> => api('PUT', `/pages/${space}/${p}`, body);
async function putFile(space: string, p: string, name: string, bytes: Buffer, type: string): Promise<void> {
  const r = await fetch(`${base}/files/${space}/${p}/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': type },
    body: new Uint8Array(bytes),
  });
  if (!r.ok) throw new Error(`PUT file ${name}: ${r.status} ${await r.text()}`);
}
/** One second of a 440 Hz tone, 8 kHz mono 16-bit PCM. */
function toneWav(): Buffer {
  const rate = 8000;
  const b = Buffer.alloc(44 + rate * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + rate * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(rate * 2, 40);
  for (let i = 0; i < rate; i++) b.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return b;
}

await api('POST', '/admin/principals', { name: 'alice', kind: 'user', password: 'correct horse battery', orgAdmin: true });
const bot = (await api('POST', '/admin/principals', { name: 'build-bot', kind: 'agent' })) as { id: string };
const botKey = ((await api('POST', `/admin/principals/${bot.id}/keys`)) as { key: string }).key;
await api('POST', '/spaces', {
  slug: 'handbook',
  name: 'Team handbook',
  description: 'How the platform team works: onboarding, runbooks, decisions and tasks.',
});
await api('POST', '/spaces', { slug: 'design', name: 'Design system', description: 'Tokens, components and review notes.' });
await page('handbook', 'index', {
  title: 'Welcome to the platform team',
  content: `Start with [onboarding](people/onboarding), then set up your machine with the [development setup](engineering/setup).

## What we own

- The deploy pipeline — see the [[Deploy runbook]] (a wikilink, found by its title)
- The internal API gateway and its [on-call guide](engineering/on-call)
- Shared CI runners

> Ask in #platform when something is unclear; every question makes this handbook better.

| Day | Meeting |
| --- | --- |
| Monday | Planning |
| Thursday | Demo |
`,
  frontmatter: { tags: ['start', 'team'] },
  metadata: { owner: 'alice', reviewed: '2026-11-02', audience: ['new joiners', 'everyone'] },
});
await page('handbook', 'people/onboarding', {
  title: 'Onboarding checklist',
  content:
    'Back to the [handbook](../index).\n\n- [x] Get a laptop\n- [x] Read the [development setup](../engineering/setup)\n- [ ] Pair on a deploy (see the [runbook](../engineering/runbooks/deploy))\n- [ ] Join the on-call rota\n\n> [!tip] First week\n> Pick one ==small task== from the board and ship it.\n',
  metadata: { owner: 'alice', weeks: 2 },
});
await page('handbook', 'drafts/old-plan', { title: 'Old migration plan', content: 'Superseded by the gateway rewrite.' });
await api('DELETE', '/pages/handbook/drafts/old-plan');
await page('handbook', 'engineering/setup', {
  title: 'Development setup',
  content:
    'Clone the repository and run `npm ci`.\n\n```sh\ngit clone git@example.com:platform/gateway.git\nnpm ci && npm test\n```\n\nBack to [onboarding](../people/onboarding).',
  metadata: { os: ['linux', 'macos'] },
});
await page('handbook', 'engineering/runbooks/deploy', {
  title: 'Deploy runbook',
  content: 'Deploys run from CI. Roll back with `kspace deploy --rollback`.\n\nSee also [incident response](incident-response).',
  metadata: { severity: 'high', lastDrill: '2026-10-14' },
});
await page('handbook', 'templates/meeting', {
  title: 'Meeting notes',
  content: '## Agenda\n\n## Decisions\n\n## Action items\n',
  frontmatter: { description: 'Notes of one meeting', metadataDefaults: { kind: 'meeting' }, defaultPathPrefix: 'meetings/' },
});
await page('handbook', 'templates/task', {
  title: 'Task',
  content: '## What\n\n## Why\n',
  frontmatter: {
    description: 'A unit of work',
    defaultPathPrefix: 'tasks/',
    metadataSchema: {
      additionalKeys: 'reject',
      fields: [
        { key: 'stage', type: 'select', options: ['todo', 'doing', 'done'], required: true, default: 'todo', label: 'Stage' },
        { key: 'owner', type: 'string', required: true, label: 'Owner', description: 'Who drives it' },
        { key: 'points', type: 'number', min: 1, max: 13, label: 'Points' },
        { key: 'due', type: 'date', label: 'Due' },
        { key: 'spec', type: 'url', label: 'Spec' },
        { key: 'labels', type: 'multiselect', options: ['bug', 'ux', 'infra'], label: 'Labels' },
        { key: 'blocked', type: 'boolean', label: 'Blocked' },
        { key: 'notes', type: 'text', label: 'Notes' },
        { key: 'checklist', type: 'list', label: 'Checklist' },
      ],
    },
  },
});
const tasks: [string, string, Record<string, unknown>][] = [
  [
    'tasks/rotate-certs',
    'Rotate gateway certificates',
    { stage: 'doing', owner: 'alice', points: 3, due: '2026-12-01', labels: ['infra'] },
  ],
  ['tasks/faster-ci', 'Cut CI time in half', { stage: 'todo', owner: 'bob', points: 8, due: '2026-12-15', labels: ['infra'] }],
  ['tasks/login-bug', 'Login loop on Safari', { stage: 'todo', owner: 'carol', points: 2, labels: ['bug', 'ux'] }],
  ['tasks/dark-mode', 'Dark mode for the status page', { stage: 'done', owner: 'dan', points: 5, labels: ['ux'] }],
  ['tasks/runbook-review', 'Review every runbook', { stage: 'doing', owner: 'alice', points: 1, due: '2026-11-30' }],
];
for (const [p, title, metadata] of tasks)
  await page('handbook', p, { title, content: `## What\n\n${title}.\n`, template: 'task', metadata });
await page('handbook', 'index', {
  title: 'Welcome to the platform team',
  content: ((await api('GET', '/pages/handbook/index')) as { content: string }).content.replace(
    'Shared CI runners',
    'Shared CI runners and their caches',
  ),
  baseVersion: 1,
});
await page('design', 'tokens', { title: 'Colour tokens', content: 'Our palette. Used by the [handbook](/pages/handbook/index).' });

const browser = await pw.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args.filter((a) => a !== '--single-process'),
});
// Requests in flight per page, but the change feed's stream (open as long as the page is):
// Playwright's networkidle would wait for it forever.
const inFlight = new WeakMap<Page, Set<Request>>();
function track(p: Page): void {
  const open = new Set<Request>();
  inFlight.set(p, open);
  p.on('request', (r) => {
    if (!r.url().includes('/changes/stream')) open.add(r);
  });
  p.on('requestfinished', (r) => open.delete(r));
  p.on('requestfailed', (r) => open.delete(r));
}
/** The page has loaded and made no request (but the stream) for 500 ms. */
async function quiet(p: Page): Promise<void> {
  await p.waitForLoadState('load');
  const open = inFlight.get(p) ?? new Set();
  for (let still = Date.now(); Date.now() - still < 500; ) {
    if (open.size) still = Date.now();
    await p.waitForTimeout(50);
  }
}
async function shot(p: Page, name: string): Promise<void> {
  await quiet(p);
  await p.waitForTimeout(150);
  const file = process.argv.includes('--narrow') ? path.join(os.tmpdir(), `${name}-390.png`) : path.join(out, `${name}.png`);
  await p.screenshot({ path: file });
  console.log(`${name}.png ${(fs.statSync(file).size / 1024).toFixed(0)} KB`);
}
async function signedIn(width: number, height: number): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: 'light' });
  const p = await ctx.newPage();
  track(p);
  p.on('console', (m) => {
    if (m.type() === 'error') console.error('console:', m.text());
  });
  await p.goto(`${base}/app/sign-in`);
  await p.getByLabel('Name').fill('alice');
  await p.getByLabel('Password').fill('correct horse battery');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('button', { name: 'Sign out' }).waitFor();
  return p;
}
try {
  fs.mkdirSync(out, { recursive: true });
  // `--narrow`: every view at 390 px into the temp dir, to look at (not for the docs).
  const narrow = process.argv.includes('--narrow');
  const only = process.argv.slice(2).filter((a) => a !== '--narrow');
  const want = (n: string): boolean => only.length === 0 || only.includes(n);
  {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await ctx.newPage();
    track(p);
    await p.goto(`${base}/app/sign-in`);
    if (want('sign-in')) await shot(p, 'sign-in');
    await ctx.close();
  }
  const p = narrow ? await signedIn(390, 844) : await signedIn(1280, 800);
  // A favourite, so the home view shows its Favourites region.
  await p.goto(`${base}/app/p/handbook/engineering/runbooks/deploy`);
  await p.getByRole('button', { name: 'Favourite' }).click();
  await p.waitForTimeout(300);
  const views: [string, string][] = [
    ['home', '/app/'],
    ['space', '/app/s/handbook'],
    ['page', '/app/p/handbook/index'],
    ['editor', '/app/p/handbook/people/onboarding?edit'],
    ['new-page', '/app/new?space=handbook&template=handbook:task'],
    [
      'records',
      `/app/s/handbook/records/task?filters=${encodeURIComponent(JSON.stringify([{ key: 'stage', op: 'in', value: ['todo', 'doing'] }]))}&orderBy=points&order=desc`,
    ],
    ['search', '/app/search?q=deploy'],
    ['history', '/app/p/handbook/index?diff=1..2'],
    ['record-editor', '/app/p/handbook/tasks/rotate-certs?edit'],
    ['broken-links', '/app/s/handbook/links/broken'],
    ['gallery', '/app/gallery'],
    ['tasks', '/app/p/handbook/people/onboarding'],
    ['trash', '/app/s/handbook/trash'],
    ['admin', '/app/admin'],
  ];
  for (const [name, url] of views) {
    if (!want(name)) continue;
    await p.goto(base + url);
    if (name === 'editor' || name === 'record-editor') {
      await p.locator('.cm-content').waitFor();
      await p.waitForTimeout(600);
    }
    await shot(p, name);
  }
  if (want('switcher')) {
    await p.goto(`${base}/app/p/handbook/index`);
    await p.getByRole('heading', { level: 1 }).first().waitFor();
    await p.keyboard.press('Control+k');
    await p.getByRole('dialog', { name: 'Go to page' }).waitFor();
    await p.keyboard.type('de');
    await p.getByRole('option', { name: /Deploy runbook/ }).waitFor();
    await p.waitForTimeout(300);
    await shot(p, 'switcher');
    await p.keyboard.press('Escape');
  }
  if (want('completion')) {
    await p.goto(`${base}/app/p/handbook/index?edit`);
    await p.locator('.cm-content').waitFor();
    await p.locator('.cm-content').click();
    await p.keyboard.press('Control+End');
    await p.keyboard.type('\n\nSee [[Dep');
    await p.getByRole('listbox').first().waitFor();
    await p.waitForTimeout(400);
    await shot(p, 'completion');
  }
  if (want('updated-by')) {
    // An open editor when someone else saves the page (docs/web.md, "Live updates").
    const streaming = p.waitForResponse((r) => r.url().includes('/changes/stream') && r.status() === 200);
    await p.goto(`${base}/app/p/handbook/engineering/setup?edit`);
    await streaming;
    await p.locator('.cm-content').waitFor();
    await p.locator('.cm-content').click();
    await p.keyboard.press('Control+End');
    await p.keyboard.type('\n\nOn a Mac, install the command line tools first.');
    const r = await fetch(`${base}/pages/handbook/engineering/setup`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${botKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content:
          'Clone the repository and run `npm ci` (Node 24).\n\n```sh\ngit clone git@example.com:platform/gateway.git\nnpm ci && npm test\n```\n\nBack to [onboarding](../people/onboarding).',
      }),
    });
    if (!r.ok) throw new Error(`PUT by build-bot: ${r.status}`);
    await p.getByRole('status').filter({ hasText: 'Updated by build-bot' }).waitFor();
    await p.waitForTimeout(300);
    await shot(p, 'updated-by');
  }
  if (want('obsidian')) {
    // Obsidian's dialect: callouts (one folded), a highlight, a note embed, an audio and a video file.
    const blank = await browser.newPage();
    const webm = await blank.evaluate(async () => {
      const c = document.createElement('canvas');
      c.width = 480;
      c.height = 270;
      const g = c.getContext('2d')!;
      const rec = new MediaRecorder(c.captureStream(25), { mimeType: 'video/webm' });
      const parts: Blob[] = [];
      rec.ondataavailable = (e) => parts.push(e.data);
      const stopped = new Promise((r) => {
        rec.onstop = r;
      });
      rec.start();
      for (let i = 0; i < 25; i++) {
        g.fillStyle = `hsl(${205 + i} 55% 38%)`;
        g.fillRect(0, 0, 480, 270);
        g.fillStyle = '#fff';
        g.font = '30px sans-serif';
        g.fillText('Deploy walkthrough', 40, 145);
        await new Promise((r) => setTimeout(r, 40));
      }
      rec.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(parts, { type: 'video/webm' }).arrayBuffer());
      let text = '';
      for (const b of bytes) text += String.fromCharCode(b);
      return btoa(text);
    });
    await blank.close();
    const notes = 'engineering/field-notes';
    await page('handbook', notes, { title: 'Field notes', content: 'Notes from the deploy.' });
    await putFile('handbook', notes, 'walkthrough.webm', Buffer.from(webm, 'base64'), 'video/webm');
    await putFile('handbook', notes, 'standup.wav', toneWav(), 'audio/wav');
    await page('handbook', notes, {
      title: 'Field notes',
      content:
        '> [!warning] Before you deploy\n> Check the ==error budget== first; the [runbook](runbooks/deploy) says how.\n\n' +
        '> [!note]- What changed in the gateway\n> Timeouts are now per route.\n\n' +
        'From the onboarding checklist:\n\n![[Onboarding checklist]]\n\n' +
        '## Recordings\n\nThe stand-up: ![[standup.wav]]\n\n![[walkthrough.webm|480]]\n',
    });
    await p.setViewportSize({ width: 1280, height: 1180 });
    await p.goto(`${base}/app/p/handbook/${notes}`);
    await p.getByRole('heading', { level: 1, name: 'Field notes', exact: true }).waitFor();
    await shot(p, 'obsidian');
    await p.setViewportSize({ width: 1280, height: 800 });
  }
  if (want('page-dark')) {
    const ctx = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      colorScheme: 'dark',
      storageState: await p.context().storageState(),
    });
    const d = await ctx.newPage();
    track(d);
    await d.goto(`${base}/app/p/handbook/index`);
    await shot(d, 'page-dark');
  }
  if (want('page-mobile')) {
    const m = await signedIn(390, 844);
    await m.goto(`${base}/app/p/handbook/index`);
    await shot(m, 'page-mobile');
  }
} finally {
  await browser.close();
  await running.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
