// A conflicting save: the person's version and the one saved meanwhile side by side, and an
// editable merge of the two (three-way, from the version the person started from).
import { useEffect, useState } from 'preact/hooks';
import { get, pageApi } from '../api/client.ts';
import type { Page, Revision } from '../api/types.ts';
import { mergeThreeWay } from '../../text/line-merge.ts';

interface Props {
  base: Page;
  mine: { title: string; content: string };
  theirs: Page;
  saving: boolean;
  onSave: (merged: { title: string; content: string }) => void;
  onTakeTheirs: () => void;
}

export function ConflictPanel({ base, mine, theirs, saving, onSave, onTakeTheirs }: Props) {
  const [merged, setMerged] = useState<string | null>(null);
  const [conflicts, setConflicts] = useState(0);
  useEffect(() => {
    let live = true;
    // The version the person started from is the merge base (a restored draft may be older than `base`).
    get<Revision>(`${pageApi(base.space, base.path)}/revisions/${base.version}`)
      .then(
        (r) => r.content,
        () => base.content,
      )
      .then((baseContent) => {
        if (!live) return;
        const m = mergeThreeWay(baseContent, mine.content, theirs.content, `version ${theirs.version}`);
        setMerged(m.text);
        setConflicts(m.conflicts);
      });
    return () => {
      live = false;
    };
  }, [theirs.version]);
  const title = mine.title !== base.title ? mine.title : theirs.title;
  return (
    <section class="conflict" aria-labelledby="conflict-title">
      <div role="alert">
        <h2 id="conflict-title">This page was changed while you were editing</h2>
      </div>
      <p>
        Version {theirs.version} was saved after the version {base.version} you started from. Nothing you typed is lost: compare the two,
        edit the merged text, and save it.
      </p>
      <div class="conflict-cols">
        <section aria-labelledby="c-mine">
          <h3 id="c-mine">Your version</h3>
          <pre class="code" tabIndex={0}>
            {mine.content}
          </pre>
        </section>
        <section aria-labelledby="c-theirs">
          <h3 id="c-theirs">Version {theirs.version} (saved meanwhile)</h3>
          <pre class="code" tabIndex={0}>
            {theirs.content}
          </pre>
        </section>
      </div>
      <label class="field">
        <span class="label">Merged content</span>
        <textarea
          class="merged"
          rows={10}
          value={merged ?? ''}
          onInput={(e) => setMerged(e.currentTarget.value)}
          aria-describedby="merge-help"
        />
        <span class="help" id="merge-help">
          {conflicts === 0
            ? 'Both sets of changes were combined.'
            : `${conflicts} place${conflicts === 1 ? '' : 's'} changed on both sides: both versions are kept between <<<<<<< and >>>>>>> lines; edit them as you like.`}
        </span>
      </label>
      <div class="actions">
        <button
          type="button"
          class="button primary"
          disabled={saving || merged === null}
          onClick={() => onSave({ title, content: merged ?? mine.content })}
        >
          Save merged version
        </button>
        <button type="button" class="button" disabled={saving} onClick={() => onSave({ title: mine.title, content: mine.content })}>
          Keep mine
        </button>
        <button type="button" class="button ghost" onClick={onTakeTheirs}>
          Discard mine
        </button>
      </div>
    </section>
  );
}
