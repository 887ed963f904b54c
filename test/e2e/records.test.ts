// A record table filtered with `in` and sorted, matching the API's answer; full-text search with
// highlighted snippets; the metadata query builder.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type AppServer, checkA11y, recordType, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows.
const POLL = { timeout: 15_000, interval: 100 };
const TASKS: [string, string, string, number][] = [
  ['a', 'Alpha', 'todo', 3],
  ['b', 'Bravo', 'doing', 8],
  ['c', 'Charlie', 'done', 5],
  ['d', 'Delta', 'todo', 1],
  ['e', 'Echo', 'doing', 13],
  ['f', 'Foxtrot <b>bold</b> & co', 'todo', 2],
];

const t = useBrowserFixture({
  user: { name: 'rita' },
  spaces: [['eng', 'Engineering']],
  pages: [
    recordType('eng', 'task', 'Task', [
      { key: 'stage', type: 'select', options: ['todo', 'doing', 'done'], required: true, label: 'Stage' },
      { key: 'points', type: 'number', label: 'Points' },
    ]),
    ...TASKS.map(
      ([p, title, stage, points]): Parameters<AppServer['putPage']> => [
        'eng',
        `tasks/${p}`,
        { title, content: `The ${title} task is about habitat restoration.`, template: 'task', metadata: { stage, points } },
      ],
    ),
  ],
});

const titlesIn = (page: Page) => page.locator('table tbody tr td:first-child').allTextContents();

describe('records and search', { timeout: 90_000 }, () => {
  it('filters a record table with `in`, sorts it, keeps both in the address, and matches the API', async () => {
    const page = await t.open();
    await page.goto('/app/s/eng');
    await page.getByRole('region', { name: 'Record types' }).getByRole('link', { name: 'task' }).click();
    await page.getByRole('heading', { level: 1, name: 'task' }).waitFor();
    await expect.poll(() => titlesIn(page), POLL).toHaveLength(6);
    await page.getByText('Filters', { exact: true }).click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 key').fill('stage');
    await page.getByLabel('Filter 1 operator').selectOption('in');
    await page.getByLabel('Filter 1 value').fill('todo, doing');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => titlesIn(page), POLL).toHaveLength(5);
    await page.getByRole('button', { name: 'Points' }).click(); // ascending
    await page.getByRole('button', { name: 'Points' }).click(); // descending
    await expect.poll(() => page.getByRole('columnheader', { name: /Points/ }).getAttribute('aria-sort'), POLL).toBe('descending');
    const url = new URL(page.url());
    expect(JSON.parse(url.searchParams.get('filters') ?? '')).toEqual([{ key: 'stage', op: 'in', value: ['todo', 'doing'] }]);
    expect(url.searchParams.get('orderBy')).toBe('points');
    expect(url.searchParams.get('order')).toBe('desc');
    const api = await t.app.admin.get(
      `/spaces/eng/records/task?filters=${encodeURIComponent(url.searchParams.get('filters') ?? '')}&orderBy=points&order=desc`,
    );
    const expected = (api.body.pages as { title: string }[]).map((p) => p.title);
    expect(expected).toEqual(['Echo', 'Bravo', 'Alpha', 'Foxtrot <b>bold</b> & co', 'Delta']);
    await expect.poll(() => titlesIn(page), POLL).toEqual(expected);
    await checkA11y(page);
    // The address alone restores the view.
    await page.reload();
    await expect.poll(() => titlesIn(page), POLL).toEqual(expected);
  });

  it('searches with highlighted snippets and escapes everything else', async () => {
    const page = await t.open();
    await page.goto('/app/');
    await page.getByRole('heading', { name: 'Spaces' }).waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('habitat');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “habitat”' }).waitFor();
    const hits = page.locator('.hit');
    await expect.poll(() => hits.count(), POLL).toBe(6);
    expect(await page.locator('.snippet mark').first().textContent()).toBe('habitat');
    // A title with markup is shown as text.
    await page.getByRole('link', { name: 'Foxtrot <b>bold</b> & co' }).waitFor();
    expect(await page.locator('.hit b').count()).toBe(0);
    await checkA11y(page);
    // The metadata query builder offers discovered keys and keeps its filters in the address.
    expect(await page.locator('#mq-keys option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining(['points', 'stage']),
    );
    const mq = page.getByRole('region', { name: 'Metadata query' });
    await mq.getByRole('button', { name: 'Add filter' }).click();
    await mq.getByLabel('Filter 1 key').fill('points');
    await mq.getByLabel('Filter 1 operator').selectOption('gte');
    await mq.getByLabel('Filter 1 value').fill('8');
    await mq.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Metadata query' }).getByRole('listitem').count(), POLL).toBe(2);
    expect(new URL(page.url()).searchParams.get('filters')).toBe(JSON.stringify([{ key: 'points', op: 'gte', value: 8 }]));
  });
});
