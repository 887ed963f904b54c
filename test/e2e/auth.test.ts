import { expect, it } from 'vitest';
import { checkA11y, signIn, useBrowserFixture } from './support/index.ts';

// Sign-in and sign-out through the app, as a person does it, against kspace from source. The
// single executable's serving of the app and its session cookie are tested over HTTP in
// test/binary.test.ts.

const t = useBrowserFixture({
  user: { name: 'ann', password: 'ann password 1', signIn: false },
  spaces: [['team', 'Team']],
  pages: [
    ['team', 'welcome', { title: 'Welcome aboard', content: '# Hello\n\nSee [the plan](plan).' }],
    ['team', 'plan', { title: 'The plan', content: 'Links back to [welcome](welcome).' }],
  ],
});

it('signs in with Name and Password, sets an HttpOnly SameSite=Lax cookie, and signs out', async () => {
  const page = await t.open({ signedIn: false });
  await page.goto(`${t.app.url}/app/`);
  await page.waitForURL((u) => u.pathname === '/app/sign-in');
  await checkA11y(page, 'sign-in');
  await signIn(page, 'ann', 'ann password 1');
  await page.waitForURL((u) => u.pathname === '/app/');
  const cookies = await page.context().cookies(t.app.url);
  const session = cookies.find((c) => c.name === 'kspace_session');
  expect(session).toBeDefined();
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
  expect(await page.evaluate(() => document.cookie)).not.toContain('kspace_session');
  await checkA11y(page, 'home');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect((await page.context().cookies(t.app.url)).find((c) => c.name === 'kspace_session')).toBeUndefined();
  // The old session is over on the server too: reloading the app lands on sign-in again.
  await page.goto(`${t.app.url}/app/`);
  await page.waitForURL((u) => u.pathname === '/app/sign-in');
});

it('shows an error for a wrong password and stays signed out', async () => {
  const page = await t.open({ signedIn: false });
  await page.goto(`${t.app.url}/app/sign-in`);
  await page.getByLabel('Name').fill('ann');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /wrong name or password/i })
    .waitFor();
  expect((await page.context().cookies(t.app.url)).find((c) => c.name === 'kspace_session')).toBeUndefined();
  await checkA11y(page, 'sign-in with an error');
});

it('goes back to the address that sent the person to sign in, and shows the page with its backlinks', async () => {
  const page = await t.open({ signedIn: false });
  await page.goto(`${t.app.url}/app/p/team/plan`);
  await page.waitForURL((u) => u.pathname === '/app/sign-in');
  await signIn(page, 'ann', 'ann password 1');
  await page.waitForURL((u) => u.pathname === '/app/p/team/plan');
  await page.getByRole('heading', { name: 'The plan', level: 1 }).waitFor();
  const backlinks = page.getByRole('region', { name: 'Backlinks' });
  await backlinks.getByRole('link', { name: 'Welcome aboard' }).waitFor();
  await checkA11y(page, 'page view');
});
