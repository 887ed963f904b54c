// One headless Chromium per test file (the one @sparticuz/chromium ships), a fresh context per test.
import chromium from '@sparticuz/chromium';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium as pw, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, onTestFinished } from 'vitest';

// @sparticuz/chromium's arguments are made for AWS Lambda. Left out here: those that would weaken
// what the security tests check (same-origin policy, mixed content), and single-process mode,
// in which the browser dies when a test closes its context and the next opens one.
const LEFT_OUT = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
  '--no-zygote',
  '--in-process-gpu',
]);

// Also left out: GL through SwiftShader (a GPU process emulating a GPU on the CPU). With `--disable-gpu`
// Chromium composites in software, and the browser tests take about a third less time on two cores.
const GPU = /^--(use-gl|use-angle|enable-unsafe-swiftshader|ignore-gpu-blocklist)(=|$)/;

export async function openBrowser(): Promise<Browser> {
  const executablePath = process.env.KSPACE_CHROMIUM_PATH ?? (await chromium.executablePath());
  const args = chromium.args.filter((a) => !LEFT_OUT.has(a) && !GPU.test(a));
  return pw.launch({ executablePath, args: [...args, '--disable-gpu'], headless: true });
}

/** A signed-in session (cookies and storage) for `baseUrl`, signed in once through the form; each test's context starts from it. */
export type Session = Awaited<ReturnType<BrowserContext['storageState']>>;
export async function signedInSession(browser: Browser, baseUrl: string, user: { name: string; password: string }): Promise<Session> {
  const ctx = await browser.newContext({ baseURL: baseUrl });
  try {
    const page = await ctx.newPage();
    await page.goto('/app/');
    await signIn(page, user.name, user.password);
    return await ctx.storageState();
  } finally {
    await ctx.close();
  }
}

/** Signs in through the sign-in view as a person would, and waits for the signed-in header. */
export async function signIn(page: Page, name: string, password: string, opts: { baseUrl?: string } = {}): Promise<void> {
  const here = page.url();
  // On an app address the app itself moves to sign-in (keeping the way back); wait for that.
  if (here.startsWith('http') && !opts.baseUrl)
    await page.waitForURL((u) => u.pathname === '/app/sign-in', { timeout: 10_000 }).catch(() => {});
  if (!page.url().includes('/app/sign-in')) {
    const base = opts.baseUrl ?? (here.startsWith('http') ? new URL(here).origin : null);
    if (!base) throw new Error('signIn: open an app address first or pass baseUrl');
    await page.goto(`${base}/app/sign-in`);
  }
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export type Guard = { problems: string[]; check(): void };

/**
 * Fails the test (when it finishes) on any console error, uncaught exception, Content-Security-
 * Policy violation, or request to another origin than `origin` (default: the first page's origin;
 * data: and blob: are local).
 * `allowConsole` lists console errors a test provokes on purpose (e.g. a 401 it expects).
 */
export function guard(page: Page, origin?: string, opts: { allowConsole?: RegExp[] } = {}): Guard {
  const problems: string[] = [];
  let appOrigin = origin; // without one, the origin of the first page the test opens
  const allowed = (text: string) => (opts.allowConsole ?? []).some((re) => re.test(text));
  page.on('console', (m) => {
    if (m.type() !== 'error' || allowed(m.text())) return;
    // Chromium logs every 4xx answer as "Failed to load resource"; an API answering 401 (not signed
    // in) or 409 (conflict) is the app working. A failed app asset (/app/…) still counts.
    const from = m.location().url;
    if (
      /^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()) &&
      from &&
      !new URL(from).pathname.startsWith('/app/')
    )
      return;
    problems.push(`console error: ${m.text()}${from ? ` (${from})` : ''}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (u.startsWith('data:') || u.startsWith('blob:') || u === 'about:blank') return;
    appOrigin ??= new URL(u).origin;
    if (new URL(u).origin !== appOrigin) problems.push(`request to another origin: ${r.method()} ${u}`);
  });
  // Chromium reports violations as console errors too; the event names the directive.
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolations: string[] }).__cspViolations ??= [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const g: Guard = {
    problems,
    check() {
      expect(problems, problems.join('\n')).toEqual([]);
    },
  };
  onTestFinished(async () => {
    if (!page.isClosed()) {
      const csp = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []).catch(() => []);
      for (const v of csp) problems.push(`CSP violation: ${v}`);
    }
    g.check();
  });
  return g;
}

/** Runs axe on the page as it is now; fails on serious or critical violations. */
export async function checkA11y(page: Page, label = page.url()): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help} (${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')})`,
  );
  expect(report, `axe on ${label}:\n${report.join('\n')}`).toEqual([]);
}
