// Typing at 30 ms a key while a second context of the same person keeps loading the same editor:
// the load that once scrambled the text (the cursor jumping to the top, later keys reversed). The
// editor, the preview and the saved version must each equal the modelled text exactly. 250 keys:
// the scramble showed within the first few dozen, and each key here costs a round trip of a busy
// machine on top of its 30 ms.
import { describe, expect, it } from 'vitest';
import { useTypingFixture } from './support/typing-fixture.ts';

const KEYS_SLOW = 250;
const t = useTypingFixture();

describe('typing in the editor while it is busy', { timeout: 240_000 }, () => {
  it('keeps every key typed at 30 ms a key while a second context keeps loading the editor', async () => {
    await t.typeAndCheck('t30', 3, KEYS_SLOW, { delay: 30 }, async (stop) => {
      const second = await t.open();
      let loads = 0;
      while (!stop()) {
        await t.openEditor(second, 't30');
        loads++;
      }
      expect(loads).toBeGreaterThan(0);
      await second.context().close();
    });
  });
});
