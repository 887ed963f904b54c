// New Page: a plain template pre-fills title and content (its metadataDefaults applied); a record
// type's form shows each server issue beside its field, creates nothing, then creates the record.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { checkA11y, useBrowserFixture } from './support/index.ts';

// The machine may be busy: wait up to 15 s for what a page shows.
const POLL = { timeout: 15_000, interval: 100 };
const t = useBrowserFixture({
  user: { name: 'nora' },
  spaces: [
    ['team', 'Team'],
    ['ops', 'Operations'],
  ],
  pages: [
    [
      'team',
      'templates/meeting',
      {
        title: 'Meeting notes',
        content: '## Agenda\n\n## Decisions\n',
        frontmatter: { description: 'Notes of one meeting', metadataDefaults: { kind: 'meeting', attendees: ['nora'] } },
      },
    ],
    [
      'ops',
      'templates/task',
      {
        title: 'Task',
        content: '## What\n',
        frontmatter: {
          description: 'A unit of work',
          defaultPathPrefix: 'tasks/',
          metadataSchema: {
            additionalKeys: 'reject',
            fields: [
              { key: 'stage', type: 'select', options: ['todo', 'doing', 'done'], required: true, default: 'todo', label: 'Stage' },
              { key: 'owner', type: 'string', required: true, label: 'Owner', description: 'Who drives it' },
              { key: 'points', type: 'number', min: 1, max: 13, label: 'Points' },
              { key: 'spec', type: 'url', label: 'Spec' },
              { key: 'due', type: 'date' },
              { key: 'urgent', type: 'boolean', label: 'Urgent' },
              { key: 'labels', type: 'multiselect', options: ['bug', 'ux'], label: 'Labels' },
              { key: 'steps', type: 'list', label: 'Steps' },
              { key: 'notes', type: 'text', label: 'Notes' },
            ],
          },
        },
      },
    ],
  ],
});

/** The text of the elements a control names with aria-describedby. */
async function description(control: Locator): Promise<string> {
  const ids = (await control.getAttribute('aria-describedby'))?.split(/\s+/) ?? [];
  const page = control.page();
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

describe('the New Page form', { timeout: 90_000 }, () => {
  it('lists templates grouped by space and pre-fills from a plain template', async () => {
    const page = await t.open();
    await page.goto('/app/new?space=team');
    const chooser = page.getByLabel('Template');
    await chooser.waitFor();
    expect(
      await chooser
        .locator('optgroup')
        .evaluateAll((gs) =>
          gs.map((g) => `${g.getAttribute('label')}: ${[...g.querySelectorAll('option')].map((o) => o.textContent).join(', ')}`),
        ),
    ).toEqual(['Operations: Task', 'Team: Meeting notes']);
    await chooser.selectOption({ label: 'Meeting notes' });
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue(), POLL).toBe('Meeting notes');
    await page.locator('.cm-content').waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: 'Content' }).textContent(), POLL).toContain('## Agenda');
    await page.getByLabel('Path').fill('meetings/2026-11-25');
    await page.getByLabel('Title', { exact: true }).fill('Weekly sync, 25 November');
    await checkA11y(page);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekly sync, 25 November' }).waitFor();
    const created = await t.app.admin.get('/pages/team/meetings/2026-11-25');
    expect(created.body).toMatchObject({
      title: 'Weekly sync, 25 November',
      content: '## Agenda\n\n## Decisions\n',
      metadata: { kind: 'meeting', attendees: ['nora'] },
    });
  });

  it('shows each issue of a record beside its field, creates nothing, then creates it once fixed', async () => {
    const page = await t.open({ allowConsole: [/status of 400/] });
    await page.goto(`/app/new?space=ops&template=${encodeURIComponent('ops:task')}`);
    const owner = page.getByLabel('Owner', { exact: true });
    await owner.waitFor();
    // Defaults filled, the type's path prefix proposed, required marked, help shown.
    expect(await page.getByLabel('Stage', { exact: true }).inputValue()).toBe('todo');
    expect(await page.getByLabel('Path').inputValue()).toBe('tasks/');
    expect(await owner.getAttribute('aria-required')).toBe('true');
    expect(await description(owner)).toContain('Who drives it');
    // One control per field type.
    expect(await page.getByLabel('Points', { exact: true }).getAttribute('type')).toBe('number');
    expect(await page.getByLabel('Points', { exact: true }).getAttribute('max')).toBe('13');
    expect(await page.getByLabel('Spec', { exact: true }).getAttribute('type')).toBe('url');
    expect(await page.getByLabel('due', { exact: true }).getAttribute('type')).toBe('date');
    expect(await page.getByLabel('Urgent', { exact: true }).getAttribute('type')).toBe('checkbox');
    expect(await page.getByRole('group', { name: 'Labels' }).getByRole('checkbox').count()).toBe(2);
    expect(await page.getByLabel('Steps', { exact: true }).evaluate((e) => e.tagName)).toBe('TEXTAREA');
    expect(await page.getByLabel('Notes', { exact: true }).evaluate((e) => e.tagName)).toBe('TEXTAREA');

    await page.getByLabel('Path').fill('tasks/rotate-certs');
    await page.getByLabel('Title', { exact: true }).fill('Rotate certificates');
    await page.getByLabel('Points', { exact: true }).fill('99');
    await page.getByLabel('Spec', { exact: true }).fill('javascript:alert(1)');
    await page.getByLabel('Steps', { exact: true }).fill('renew\ndeploy');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was created' }).waitFor();
    for (const [label, text] of [
      ['Owner', 'required'],
      ['Points', '13'],
      ['Spec', ''],
    ] as const) {
      const control = page.getByLabel(label, { exact: true });
      expect(await control.getAttribute('aria-invalid'), label).toBe('true');
      const said = await description(control);
      expect(said.length, label).toBeGreaterThan(0);
      expect(said, label).toContain(text);
    }
    expect((await t.app.admin.get('/pages/ops/tasks/rotate-certs')).status).toBe(404);
    // Nothing typed was lost.
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('Rotate certificates');
    expect(await page.getByLabel('Steps', { exact: true }).inputValue()).toBe('renew\ndeploy');
    await checkA11y(page);

    await page.getByLabel('Owner', { exact: true }).fill('nora');
    await page.getByLabel('Points', { exact: true }).fill('5');
    await page.getByLabel('Spec', { exact: true }).fill('https://example.com/spec');
    await page.getByRole('group', { name: 'Labels' }).getByRole('checkbox', { name: 'ux' }).check();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rotate certificates' }).waitFor();
    const created = await t.app.admin.get('/pages/ops/tasks/rotate-certs');
    expect(created.body.metadata).toEqual({
      stage: 'todo',
      owner: 'nora',
      points: 5,
      spec: 'https://example.com/spec',
      urgent: false,
      labels: ['ux'],
      steps: ['renew', 'deploy'],
      template: 'task',
    });
    expect(created.body.template).toBe('task');
  });
});
