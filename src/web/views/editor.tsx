// The editor: Title, Content (CodeMirror, its own chunk), metadata (a record's type form), a live
// Preview, Save with baseVersion. A 409 shows both versions and a merge; a draft survives reloads.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, get, pageApi, put } from '../api/client.ts';
import type { FieldDef } from '../../model.ts';
import type { Page, RevisionSummary, Template } from '../api/types.ts';
import type { Issue, Metadata } from '../../model.ts';
import { FieldError, fieldProps, issueFor } from '../components/field-error.tsx';
import { FreeMetadata } from '../components/free-metadata.tsx';
import { ContentField, useReplace } from '../components/markdown-editor.tsx';
import { uploader, type AttachEvents } from '../lib/attachments.ts';
import { titleSource } from '../lib/title-source.ts';
import { LivePreview } from '../components/preview.tsx';
import { RecordForm } from '../components/record-form.tsx';
import { AsyncView, Breadcrumbs, ErrorBox, useTitle } from '../components/ui.tsx';
import { ConflictPanel } from '../components/conflict-panel.tsx';
import { clearDraft, readDraft, writeDraft, type Draft } from '../lib/drafts.ts';
import { relativeTime } from '../lib/format.ts';
import { fromRaw, fromRows, initialRaw, toRows, type FreeRow, type RawValues } from '../lib/metadata-form.ts';
import { PreviewFeed } from '../lib/use-preview.ts';
import { whenQuiet } from '../lib/when-quiet.ts';
import { useAsync } from '../lib/use-async.ts';
import { useLiveChanges } from '../lib/live.ts';
import { useSession } from '../session.ts';
import { href, navigate } from '../router.ts';
import { pageCrumbs } from './page-view.tsx';

async function loadFields(space: string, template: string | null): Promise<FieldDef[] | null> {
  if (!template) return null;
  const i = template.indexOf(':');
  const [s, name] = i >= 0 ? [template.slice(0, i), template.slice(i + 1)] : [space, template];
  const list = await get<Template[]>(`/templates?space=${encodeURIComponent(s)}`).catch(() => [] as Template[]);
  return list.find((t) => t.name === name)?.fields ?? null;
}

export function EditorView({ space, path }: { space: string; path: string }) {
  const data = useAsync(async () => {
    const page = await get<Page>(pageApi(space, path));
    return { page, fields: await loadFields(space, page.template) };
  }, [space, path]);
  return (
    <AsyncView value={data} what="page">
      {({ page, fields }) => <Editor page={page} fields={fields} />}
    </AsyncView>
  );
}

function Editor({ page, fields }: { page: Page; fields: FieldDef[] | null }) {
  const draftId = `${page.space}/${page.path}`;
  // Where the page is: its address when opened, and where a move made while editing took it (saves,
  // the merge and the way back go there; the draft keeps the address it was opened at).
  const [at, setAt] = useState({ space: page.space, path: page.path });
  const { space, path } = at;
  useTitle(`Edit ${page.title}`);
  const fieldKeys = fields?.map((f) => f.key) ?? [];
  const [base, setBase] = useState(page);
  const [title, setTitle] = useState(page.title);
  // What the Content editor holds is read from it when it is needed (a save, a draft, the preview),
  // through the preview's feed, not kept in state: a keystroke renders nothing here. The editor is
  // only written through `replaceText`.
  const [feed] = useState(() => new PreviewFeed(page.content));
  const content = (): string => feed.current();
  const [replaceReq, replaceContent] = useReplace();
  const replaceText = (text: string): void => {
    feed.text(() => text);
    replaceContent(text);
  };
  const [raw, setRaw] = useState<RawValues>(() => initialRaw(fields ?? [], page.metadata));
  const [rows, setRows] = useState<FreeRow[]>(() => toRows(page.metadata, fields ? [...fieldKeys, 'template'] : []));
  const [issues, setIssues] = useState<Issue[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [conflict, setConflict] = useState<Page | null>(null);
  // A save made without a connection, waiting for it to return.
  const [waiting, setWaiting] = useState(false);
  const [offered, setOffered] = useState<Draft | null>(() => {
    const d = readDraft(draftId);
    return d && (d.title !== page.title || d.content !== page.content || d.baseVersion !== page.version) ? d : null;
  });
  // The editor reads these once, when it mounts: they find the page where a move took it.
  const atNow = useRef(at);
  atNow.current = at;
  const [wikilinks] = useState(() => titleSource(() => atNow.current.space));
  const files = (on: AttachEvents): ((file: File) => Promise<string>) => {
    let made: { at: typeof at; upload: (file: File) => Promise<string> } | null = null;
    return (file) => {
      const a = atNow.current;
      if (made?.at !== a) made = { at: a, upload: uploader(a.space, a.path, on) }; // one per address: it keeps the names taken
      return made.upload(file);
    };
  };

  const metadata = (): Metadata => {
    if (!fields) return fromRows(rows);
    const extras = fromRows(rows);
    return { ...extras, ...fromRaw(fields, raw), ...(page.metadata.template !== undefined ? { template: page.metadata.template } : {}) };
  };

  // Keep what is typed: a draft per page, written shortly after each change. What the last render
  // holds (title, metadata, the offered draft) is read through a ref set during render; the text
  // from the editor.
  const dirty = (): boolean => title !== base.title || content() !== base.content;
  // Set once a save has gone through (the view is left for the page).
  const savedRef = useRef(false);
  const leaving = useRef(() => {});
  leaving.current = () => {
    if (!offered && dirty()) writeDraft(draftId, { title, content: content(), metadata: metadata(), baseVersion: base.version });
  };
  const [drafts] = useState(() => whenQuiet(300, () => leaving.current()));
  const draftSoon = (): void => drafts.poke();
  useEffect(draftSoon, [title, raw, rows, offered]);
  // Leaving the editor within the app (a link, the back button) before the timer fired: the draft
  // is written then, unless the text was saved.
  useEffect(
    () => () => {
      drafts.cancel();
      if (!savedRef.current) leaving.current();
    },
    [],
  );
  // The conflict panel shows the text as it is typed.
  const [, setTyped] = useState(0);
  const onContent = (text: () => string): void => {
    feed.text(text);
    draftSoon();
    if (conflict) setTyped((n) => n + 1);
  };
  // Left or hidden before the draft's timer fired (a reload, a closed tab, a phone switching apps):
  // the draft is written at once.
  useEffect(() => {
    const flush = (): void => leaving.current();
    const onVisibility = (): void => {
      if (document.visibilityState === 'hidden') flush();
    };
    window.addEventListener('pagehide', flush);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.removeEventListener('pagehide', flush);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, []);
  const isDirty = useRef(dirty);
  isDirty.current = dirty;
  useEffect(() => {
    const warn = (e: BeforeUnloadEvent): void => {
      if (isDirty.current()) e.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, []);

  const inFlight = useRef(false);
  const save = async (over?: { content?: string; title?: string; baseVersion?: number }): Promise<void> => {
    // A ref, not the `saving` state: two Ctrl-S before a render must not send two PUTs (the second a 409).
    if (inFlight.current) return;
    inFlight.current = true;
    setSaving(true);
    setError(null);
    setWaiting(false);
    const body = {
      title: over?.title ?? title,
      content: over?.content ?? content(),
      metadata: metadata(),
      baseVersion: over?.baseVersion ?? base.version,
    };
    try {
      await put<Page>(pageApi(space, path), body);
      savedRef.current = true;
      clearDraft(draftId);
      navigate(href.page(space, path));
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.code === 'version_conflict') {
        writeDraft(draftId, { title: body.title, content: body.content, metadata: body.metadata, baseVersion: body.baseVersion });
        try {
          setConflict(await get<Page>(pageApi(space, path)));
        } catch (e2) {
          setError(e2);
        }
      } else if (err instanceof ApiError && err.status === 0) {
        // No connection: the edit stays here (a draft) and is sent again when the connection returns.
        writeDraft(draftId, { title: body.title, content: body.content, metadata: body.metadata, baseVersion: body.baseVersion });
        setWaiting(true);
      } else {
        setIssues(err instanceof ApiError ? err.issues : []);
        setError(err);
      }
    } finally {
      inFlight.current = false;
      setSaving(false);
    }
  };

  // Live (lib/live.ts): someone else's save of this page shows as "Updated by <name>" (a status a
  // screen reader announces); the typed text stays as it is, and Save then meets the 409 and its
  // merge. A move or a delete of the page is said too.
  const { principal } = useSession();
  const [live, setLive] = useState<string | null>(null);
  useLiveChanges((batch) => {
    if (inFlight.current || savedRef.current) return; // this editor's own save
    const c = [...batch]
      .reverse()
      .find(
        (x) => x.event.startsWith('page.') && ((x.space === space && x.path === path) || (x.from?.space === space && x.from.path === path)),
      );
    if (!c) return;
    if (c.event === 'page.moved' && !(c.space === space && c.path === path)) {
      setAt({ space: c.space, path: c.path });
      setLive(`This page has just been moved to ${c.space}/${c.path}. Your text is kept; saving writes it there.`);
      return;
    }
    if (c.event === 'page.deleted') {
      setLive('This page has just been deleted. Your text is kept; saving writes it as the page again.');
      return;
    }
    if (c.version !== undefined && c.version <= base.version) return;
    const say = (name: string): void =>
      setLive(`Updated by ${name}${c.version !== undefined ? ` (version ${c.version})` : ''}. Your text is kept; saving merges the two.`);
    if (c.actor.id === principal.id) {
      say('you, in another window');
      return;
    }
    get<{ revisions: RevisionSummary[] }>(`${pageApi(space, path)}/revisions?limit=1`).then(
      (r) => say(r.revisions[0]?.author.name ?? 'someone else'),
      () => say('someone else'),
    );
  });

  // Ctrl/⌘-S saves what the last render holds. The listener is bound once and reads `save` from a
  // ref set during render: a listener re-bound in a plain effect (run after the next frame) saved
  // the state from before the last keys when Ctrl-S followed them at once (a key lost in CI).
  const saveRef = useRef(save);
  saveRef.current = save;
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's' && !e.defaultPrevented) {
        e.preventDefault();
        void saveRef.current();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // The connection is back: the waiting save goes now, with the version it started from (a 409
  // shows the merge, as for any save).
  useEffect(() => {
    if (!waiting) return;
    const retry = (): void => {
      void saveRef.current();
    };
    window.addEventListener('online', retry);
    // The browser may say it is online while the server is out of reach: try again now and then.
    const timer = navigator.onLine ? setTimeout(retry, 10_000) : undefined;
    return () => {
      window.removeEventListener('online', retry);
      clearTimeout(timer);
    };
  }, [waiting]);

  const restoreDraft = (d: Draft): void => {
    setTitle(d.title);
    replaceText(d.content);
    if (d.metadata) {
      if (fields) setRaw(initialRaw(fields, d.metadata));
      setRows(toRows(d.metadata, fields ? [...fieldKeys, 'template'] : []));
    }
    if (d.baseVersion !== undefined && d.baseVersion !== base.version) setBase({ ...base, version: d.baseVersion });
    setOffered(null);
  };
  const titleIssue = issueFor(issues, 'title');
  const contentIssue = issueFor(issues, 'content');
  const metaIssues = useMemo(() => issues.filter((i) => i.key.startsWith('metadata')), [issues]);

  return (
    <div class="editor-view">
      <Breadcrumbs items={[...pageCrumbs(space, space, path, page.title), { label: 'Edit' }]} />
      <h1 class="sr-only">Edit {page.title}</h1>
      <form
        class="editor-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        aria-label={`Edit ${page.title}`}
      >
        {offered && (
          <div class="notice" role="status">
            <p>You have unsaved changes from {relativeTime(offered.savedAt)}.</p>
            <div class="actions">
              <button type="button" class="button primary small" onClick={() => restoreDraft(offered)}>
                Restore draft
              </button>
              <button
                type="button"
                class="button small ghost"
                onClick={() => {
                  clearDraft(draftId);
                  setOffered(null);
                }}
              >
                Discard draft
              </button>
            </div>
          </div>
        )}
        <div role="status" class={live && !conflict ? 'notice' : 'sr-only'}>
          {conflict ? '' : live}
        </div>
        {conflict && (
          <ConflictPanel
            base={base}
            mine={{ title, content: content() }}
            theirs={conflict}
            saving={saving}
            onSave={(merged) => {
              replaceText(merged.content);
              setTitle(merged.title);
              void save({ ...merged, baseVersion: conflict.version }).then(() => undefined);
            }}
            onTakeTheirs={() => {
              clearDraft(draftId);
              navigate(href.page(space, path));
            }}
          />
        )}
        {waiting && (
          <p class="notice" role="status">
            Not saved yet: there is no connection. Your changes are kept on this device and saved when the connection returns.
          </p>
        )}
        {error !== null && !(error instanceof ApiError && error.issues.length > 0) && <ErrorBox error={error} />}
        {error instanceof ApiError && error.issues.length > 0 && (
          <p class="error-box" role="alert">
            Not saved: {error.issues.length === 1 ? 'a field needs' : `${error.issues.length} fields need`} attention.
          </p>
        )}
        <div class="editor-top">
          <label class="field grow">
            <span class="label">Title</span>
            <input
              class="title-input"
              value={title}
              onInput={(e) => setTitle(e.currentTarget.value)}
              {...fieldProps('ed-title', titleIssue)}
            />
            <FieldError id="ed-title" issue={titleIssue} />
          </label>
          <div class="actions">
            <a class="button ghost" href={href.page(space, path)}>
              Cancel
            </a>
            <button type="submit" class="button primary" disabled={saving} aria-keyshortcuts="Control+S Meta+S">
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
        </div>
        <div class="split">
          <ContentField
            id="ed-content"
            initial={page.content}
            replace={replaceReq}
            onChange={onContent}
            onSave={() => void save()}
            describedBy={contentIssue ? 'ed-content-error' : undefined}
            wikilinks={wikilinks}
            files={files}
            onCursor={(b) => feed.cursor(b)}
          >
            <FieldError id="ed-content" issue={contentIssue} />
          </ContentField>
          <LivePreview space={space} path={path} feed={feed} />
        </div>
        <section class="panel" aria-labelledby="ed-meta-title">
          <h2 id="ed-meta-title">{fields ? `Record: ${page.template}` : 'Metadata'}</h2>
          {fields && (
            <RecordForm
              fields={fields}
              values={raw}
              issues={metaIssues}
              idPrefix="ed-f"
              onChange={(k, v) => setRaw((r) => ({ ...r, [k]: v }))}
            />
          )}
          {(!fields || rows.length > 0) && <FreeMetadata rows={rows} onChange={setRows} issues={metaIssues} />}
        </section>
        <p class="muted small">
          Saving writes version {base.version + 1}. <kbd>Ctrl</kbd>/<kbd>⌘</kbd>+<kbd>S</kbd> saves.
        </p>
      </form>
    </div>
  );
}
