// The one browser fixture of a test file: its kspace, its Chromium, its person signed in once, and
// a new guarded tab per call. `useBrowserFixture` registers the file's beforeAll/afterAll; the
// fields are there once beforeAll has run (inside the tests).
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { type AppServer, startAppServer } from './app-server.ts';
import { type Guard, guard, openBrowser, type Session, signedInSession } from './browser.ts';

type SpaceArgs = Parameters<AppServer['createSpace']>;
type PageArgs = Parameters<AppServer['putPage']>;
type User = { id: string; name: string; password: string };

export type BrowserFixtureOptions = {
  /** `SERVICE_*` settings of the server. */
  env?: Record<string, string>;
  /** The person the tests act as: made before the spaces, and signed in once (`session`) unless `signIn: false`. */
  user?: { name: string; password?: string; orgAdmin?: boolean; signIn?: boolean };
  /** More people, each made after `user` and signed in once: `sessions[name]`, `open({ as: name })`. */
  people?: Array<{ name: string; password?: string; orgAdmin?: boolean }>;
  /** Spaces made by the admin, as `createSpace`'s arguments; the first is `openEditor`'s default. */
  spaces?: SpaceArgs[];
  /** Pages written by the admin, as `putPage`'s arguments. */
  pages?: PageArgs[];
  /** Anything else to set up once the spaces and pages are there, before the person signs in. */
  setup?: (app: AppServer) => Promise<void>;
};

export type OpenOptions = {
  /** An app address the new tab goes to before it is handed over. */
  at?: string;
  /** Console errors the test provokes on purpose (see guard). */
  allowConsole?: RegExp[];
  viewport?: { width: number; height: number };
  /** false: a signed-out context, without the file's session. */
  signedIn?: boolean;
  /** Signed in as this one of `people` instead of `user`. */
  as?: string;
  /** false: no guard (a test that visits another origin on purpose). */
  guarded?: boolean;
  /** 'block': without the app's service worker (page.route() does not see the requests it makes). */
  serviceWorkers?: 'allow' | 'block';
};

export type BrowserFixture = {
  app: AppServer;
  browser: Browser;
  /** The person of `user`, if any. */
  user: User;
  /** The person's signed-in storage state, if `user` was signed in. */
  session: Session | undefined;
  /** The signed-in storage state of `user` and each of `people`, by name. */
  sessions: Record<string, Session>;
  /** A new browser context and tab on the app (signed in when the file has a session), guarded; closed after the test. */
  open(opts?: OpenOptions): Promise<Page>;
  /** `open`, with the tab's guard (its check() fails the test on a console error and the like). */
  openGuarded(opts?: OpenOptions): Promise<{ page: Page; g: Guard }>;
  /** Opens page `path` of `space` (default: the first of `spaces`) in the editor, once CodeMirror has loaded. */
  openEditor(page: Page, path: string, space?: string): Promise<void>;
};

/**
 * A record type for `pages`: the template page `templates/<name>` of `space` whose metadata schema
 * has `fields` (and `additionalKeys`), with `content` and more `frontmatter` when given.
 */
export function recordType(
  space: string,
  name: string,
  title: string,
  fields: Array<Record<string, unknown>>,
  more: { content?: string; frontmatter?: Record<string, unknown>; additionalKeys?: 'reject' } = {},
): PageArgs {
  const metadataSchema = more.additionalKeys ? { additionalKeys: more.additionalKeys, fields } : { fields };
  return [space, `templates/${name}`, { title, content: more.content ?? '', frontmatter: { ...more.frontmatter, metadataSchema } }];
}

/** Presses `keys` on the keyboard one after another. */
export async function pressKeys(page: Page, ...keys: string[]): Promise<void> {
  for (const k of keys) await page.keyboard.press(k);
}

/** The editor's text as drawn: its lines, in order. */
export const editorText = (page: Page): Promise<string> =>
  page.locator('.cm-content .cm-line').evaluateAll((lines) => lines.map((l) => l.textContent ?? '').join('\n'));

export function useBrowserFixture(opts: BrowserFixtureOptions = {}): BrowserFixture {
  const t = {
    user: undefined as unknown as User,
    session: undefined,
    sessions: {},
    async open(o: OpenOptions = {}) {
      return (await t.openGuarded(o)).page;
    },
    async openGuarded(o: OpenOptions = {}) {
      const signedIn = o.signedIn ?? true;
      const ctx = await t.browser.newContext({
        baseURL: t.app.url,
        storageState: !signedIn ? undefined : o.as ? t.sessions[o.as] : t.session,
        serviceWorkers: o.serviceWorkers ?? 'allow',
        ...(o.viewport ? { viewport: o.viewport } : {}),
      });
      // Registered before the guard's: the last registered runs first, so the guard still reads the open page.
      onTestFinished(() => ctx.close());
      const page = await ctx.newPage();
      const g = o.guarded === false ? { problems: [], check() {} } : guard(page, t.app.url, { allowConsole: o.allowConsole ?? [] });
      if (o.at) await page.goto(o.at);
      return { page, g };
    },
    async openEditor(page: Page, path: string, space = opts.spaces?.[0]?.[0]) {
      await page.goto(`/app/p/${space}/${path}?edit`);
      await page.locator('.cm-content').waitFor(); // CodeMirror's chunk has loaded
    },
  } as BrowserFixture;

  beforeAll(async () => {
    t.app = await startAppServer(opts.env ?? {});
    t.browser = await openBrowser();
    if (opts.user) t.user = await t.app.createUser(opts.user.name, opts.user.password, { orgAdmin: opts.user.orgAdmin });
    const people = [];
    for (const p of opts.people ?? []) people.push(await t.app.createUser(p.name, p.password, { orgAdmin: p.orgAdmin }));
    for (const s of opts.spaces ?? []) await t.app.createSpace(...s);
    for (const p of opts.pages ?? []) await t.app.putPage(...p);
    await opts.setup?.(t.app);
    if (opts.user && opts.user.signIn !== false) t.sessions[t.user.name] = t.session = await signedInSession(t.browser, t.app.url, t.user);
    for (const p of people) t.sessions[p.name] = await signedInSession(t.browser, t.app.url, p);
  }, 120_000); // a server, a browser and a sign-in or two: past the default 30 s on a loaded two-core machine
  afterAll(async () => {
    await t.browser?.close();
    await t.app?.close();
  });
  return t;
}
