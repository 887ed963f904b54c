// New Page: a Template chooser (every readable template in the organisation, grouped by space),
// Space, Path, Title, Content, and for a record type a form generated from its schema.
// Issues from the server appear beside their fields; nothing typed is lost on an error.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, get, pageApi, problemOf, put } from '../api/client.ts';
import type { Page, Space, Template } from '../api/types.ts';
import type { Issue } from '../../model.ts';
import { Field, fieldProps, issueFor } from '../components/field-error.tsx';
import { ContentField, useReplace } from '../components/markdown-editor.tsx';
import { RecordForm } from '../components/record-form.tsx';
import { slugify } from '../../text/slug.ts';
import { Breadcrumbs, ErrorBox, Loading, NotFound, useTitle } from '../components/ui.tsx';
import { fromRaw, initialRaw, type RawValues } from '../lib/metadata-form.ts';
import { FileQueue } from '../lib/attachments.ts';
import { titleSource } from '../lib/title-source.ts';
import { useAsync } from '../lib/use-async.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { loadAllSpaces, orderSpaces } from './home.tsx';

const tid = (t: Template): string => `${t.space}:${t.name}`;

function groupBySpace(templates: Template[]): [string, Template[]][] {
  const m = new Map<string, Template[]>();
  for (const t of templates) m.set(t.space, [...(m.get(t.space) ?? []), t]);
  return [...m];
}

export function NewPage(props: { space: string; template: string; path: string }) {
  useTitle('New page');
  const data = useAsync(async () => {
    const [spaces, templates] = await Promise.all([loadAllSpaces(), get<Template[]>('/templates?includeContent=true')]);
    return { spaces, templates };
  }, []);
  if (data.status === 'error' && !data.data) return <ErrorBox error={data.error} retry={data.reload} />;
  if (!data.data) return <Loading />;
  const { spaces, templates } = data.data;
  if (props.template && !templates.some((t) => tid(t) === props.template || (t.space === props.space && t.name === props.template))) {
    return <NotFound what="template" />;
  }
  return <NewPageForm {...props} spaces={spaces} templates={templates} />;
}

function NewPageForm(props: { space: string; template: string; path: string; spaces: Space[]; templates: Template[] }) {
  const { principal } = useSession();
  const spaces = orderSpaces(props.spaces, principal.name);
  const initialTemplate = props.templates.find((t) => tid(t) === props.template || (t.space === props.space && t.name === props.template));
  const [templateId, setTemplateId] = useState(initialTemplate ? tid(initialTemplate) : '');
  const [space, setSpace] = useState(props.space || spaces[0]?.slug || '');
  const [path, setPath] = useState(props.path);
  const [title, setTitle] = useState('');
  // Until the person edits the path, it follows the title: its slug in the current folder.
  const [pathEdited, setPathEdited] = useState(props.path !== '' && !props.path.endsWith('/'));
  const onTitle = (value: string): void => {
    setTitle(value);
    if (!pathEdited) setPath((p) => p.slice(0, p.lastIndexOf('/') + 1) + slugify(value));
  };
  const [content, setContent] = useState('');
  const [replaceReq, replaceContent] = useReplace();
  const [raw, setRaw] = useState<RawValues>({});
  const [issues, setIssues] = useState<Issue[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // What the last template filled in, so choosing another replaces only untouched values.
  const filled = useRef({ title: '', content: '', path: props.path });
  const template = useMemo(() => props.templates.find((t) => tid(t) === templateId), [templateId]);
  // Files pasted or dropped before the page exists wait here; they are attached once it is created.
  const [queue] = useState(() => new FileQueue());
  const spaceNow = useRef(space);
  spaceNow.current = space;
  const [wikilinks] = useState(() => titleSource(() => spaceNow.current));
  // The page was created but some of its files could not be attached: say so, and link the page.
  const [partly, setPartly] = useState<{ page: Page; failed: string[] } | null>(null);

  const applyTemplate = (t: Template | undefined): void => {
    const f = filled.current;
    const next = { title: t && !t.recordType ? t.title : '', content: t?.content ?? '', path: f.path };
    if (title === f.title) setTitle(next.title);
    if (content === f.content) {
      setContent(next.content);
      replaceContent(next.content);
    }
    if (t?.defaultPathPrefix && (path === '' || path === f.path)) {
      next.path = t.defaultPathPrefix.endsWith('/') ? t.defaultPathPrefix : `${t.defaultPathPrefix}/`;
      setPath(next.path);
    }
    filled.current = next;
    setRaw(t?.fields ? initialRaw(t.fields, {}, t.metadataDefaults) : {});
    setIssues([]);
  };
  useEffect(() => {
    if (initialTemplate) applyTemplate(initialTemplate);
  }, []);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { content, baseVersion: 0 };
    if (title.trim()) body.title = title;
    if (template) body.template = template.space === space ? template.name : tid(template);
    if (template?.fields) body.metadata = fromRaw(template.fields, raw);
    try {
      if (!space)
        throw new ApiError(
          problemOf(400, {
            title: 'Choose a space',
            detail: 'Choose a space',
            issues: [{ key: 'space', code: 'required', message: 'choose a space' }],
          }),
        );
      if (!path.trim() || path.endsWith('/'))
        throw new ApiError(
          problemOf(400, {
            title: 'The path is missing',
            detail: 'Give the page a path',
            issues: [{ key: 'path', code: 'required', message: 'give the page a path, e.g. guides/setup' }],
          }),
        );
      const page = await put<Page>(pageApi(space, path.trim()), body);
      const failed = queue.size > 0 ? await queue.uploadAll(page.space, page.path, content) : [];
      if (failed.length > 0) {
        setPartly({ page, failed });
        setBusy(false);
        return;
      }
      navigate(href.page(page.space, page.path));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 409) {
        setIssues([{ key: 'path', code: 'conflict', message: 'a page exists at this path already' }]);
        setError(null);
        return;
      }
      setIssues(err instanceof ApiError ? err.issues : []);
      setError(err);
    }
  };
  const known = (i: Issue): boolean =>
    ['space', 'path', 'title', 'content', 'template'].some((k) => i.key === k) ||
    (Boolean(template?.fields) && i.key.startsWith('metadata.') && template!.fields!.some((f) => i.key.startsWith(`metadata.${f.key}`)));
  const other = issues.filter((i) => !known(i));
  const templateIssue = issueFor(issues, 'template');
  const pathIssue = issueFor(issues, 'path');
  const titleIssue = issueFor(issues, 'title');
  const spaceIssue = issueFor(issues, 'space');

  return (
    <div class="content-wide">
      <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: 'New page' }]} />
      <h1>New page</h1>
      <form class="new-page stack" noValidate onSubmit={submit} aria-label="New page">
        {issues.length > 0 && (
          <p class="error-box" role="alert">
            Nothing was created: {issues.length === 1 ? 'one field needs' : `${issues.length} fields need`} attention.
          </p>
        )}
        {error !== null && issues.length === 0 && <ErrorBox error={error} />}
        <div class="grid-2">
          <Field
            id="np-template"
            label="Template"
            issue={templateIssue}
            help={
              template
                ? `${template.recordType ? 'Record type' : 'Template'} from ${template.space}${template.description ? ` — ${template.description}` : ''}`
                : 'Start from a template, or from a blank page.'
            }
          >
            <select
              {...fieldProps('np-template', templateIssue, 'np-template-help')}
              value={templateId}
              onChange={(e) => {
                const id = e.currentTarget.value;
                setTemplateId(id);
                applyTemplate(props.templates.find((t) => tid(t) === id));
              }}
            >
              <option value="">Blank page</option>
              {groupBySpace(props.templates).map(([s, list]) => (
                <optgroup key={s} label={props.spaces.find((x) => x.slug === s)?.name ?? s}>
                  {list.map((t) => (
                    <option key={tid(t)} value={tid(t)}>
                      {t.title}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </Field>
          <Field id="np-space" label="Space" issue={spaceIssue}>
            <select {...fieldProps('np-space', spaceIssue)} value={space} onChange={(e) => setSpace(e.currentTarget.value)}>
              {!space && <option value="">Choose a space…</option>}
              {spaces.map((s) => (
                <option key={s.slug} value={s.slug}>
                  {s.name} ({s.slug})
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div class="grid-2">
          <Field id="np-path" label="Path" issue={pathIssue} help="Where the page lives in the space; segments separated by “/”.">
            <input
              {...fieldProps('np-path', pathIssue, 'np-path-help')}
              value={path}
              required
              aria-required="true"
              placeholder="guides/setup"
              onInput={(e) => {
                setPathEdited(true);
                setPath(e.currentTarget.value);
              }}
            />
          </Field>
          <Field id="np-title" label="Title" issue={titleIssue}>
            <input
              {...fieldProps('np-title', titleIssue)}
              value={title}
              required={!template?.recordType}
              aria-required={template?.recordType ? undefined : 'true'}
              onInput={(e) => onTitle(e.currentTarget.value)}
            />
          </Field>
        </div>
        {template?.fields && (
          <fieldset class="panel">
            <legend>{template.title} fields</legend>
            <RecordForm
              fields={template.fields}
              values={raw}
              issues={issues}
              idPrefix="np-f"
              onChange={(k, v) => setRaw((r) => ({ ...r, [k]: v }))}
            />
          </fieldset>
        )}
        <ContentField
          id="np-content"
          initial=""
          replace={replaceReq}
          onChange={(text) => setContent(text())}
          placeholder="Write in Markdown…"
          wikilinks={wikilinks}
          files={(on) => queue.attachWith(on)}
        />
        {other.length > 0 && (
          <ul class="error-list" aria-label="Other problems">
            {other.map((i) => (
              <li key={i.key}>
                <span class="mono">{i.key}</span>: {i.message}
              </li>
            ))}
          </ul>
        )}
        {partly ? (
          <div class="error-box" role="alert">
            <p>The page was created, but not every file was attached:</p>
            <ul>
              {partly.failed.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
            <p>
              <a href={href.page(partly.page.space, partly.page.path)}>Open the page</a> ·{' '}
              <a href={href.edit(partly.page.space, partly.page.path)}>Edit it</a>
            </p>
          </div>
        ) : (
          <div class="actions">
            <button type="submit" class="button primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create'}
            </button>
          </div>
        )}
      </form>
    </div>
  );
}
