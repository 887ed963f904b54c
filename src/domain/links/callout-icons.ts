// The callout types of Obsidian's Markdown (docs/markdown.md "Callouts"): each type and its
// aliases, the kind it renders as (its colour in the web app's styles.css) and its icon, an inline
// SVG that ships with kspace (simple strokes in currentColor, no style attribute, so the app's
// Content-Security-Policy lets it draw). A type that is none of these is a neutral callout.

/** Each kind of callout: its own name first, then its aliases. */
const KINDS: Record<string, string[]> = {
  note: ['note'],
  abstract: ['abstract', 'summary', 'tldr'],
  info: ['info'],
  todo: ['todo'],
  tip: ['tip', 'hint', 'important'],
  success: ['success', 'check', 'done'],
  question: ['question', 'help', 'faq'],
  warning: ['warning', 'caution', 'attention'],
  failure: ['failure', 'fail', 'missing'],
  danger: ['danger', 'error'],
  bug: ['bug'],
  example: ['example'],
  quote: ['quote', 'cite'],
};

const KIND_OF = new Map<string, string>();
for (const [kind, names] of Object.entries(KINDS)) for (const n of names) KIND_OF.set(n, kind);

/** The kind a (lower-cased) callout type renders as; `custom` for a type kspace does not know. */
export function calloutKind(type: string): string {
  return KIND_OF.get(type) ?? 'custom';
}

const PATHS: Record<string, string> = {
  note: '<path d="M12 20h9"/><path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z"/>',
  abstract:
    '<rect x="8" y="2" width="8" height="4" rx="1"/><path d="M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2"/><path d="M12 11h4M12 16h4M8 11h.01M8 16h.01"/>',
  info: '<circle cx="12" cy="12" r="10"/><path d="M12 16v-4M12 8h.01"/>',
  todo: '<circle cx="12" cy="12" r="10"/><path d="m9 12 2 2 4-4"/>',
  tip: '<path d="M12 2c1 4 5 6 5 11a5 5 0 0 1-10 0c0-2 1-3.5 2-4.5 0 2 1 3 2 3 0-3-1-5 1-9.5Z"/>',
  success: '<path d="M20 6 9 17l-5-5"/>',
  question: '<circle cx="12" cy="12" r="10"/><path d="M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01"/>',
  warning: '<path d="m21.7 18-8-14a2 2 0 0 0-3.4 0l-8 14A2 2 0 0 0 4 21h16a2 2 0 0 0 1.7-3Z"/><path d="M12 9v4M12 17h.01"/>',
  failure: '<path d="M18 6 6 18M6 6l12 12"/>',
  danger: '<path d="M13 2 3 14h9l-1 8 10-12h-9l1-8Z"/>',
  bug: '<rect x="8" y="6" width="8" height="14" rx="4"/><path d="M12 20v-9M20 13h-4M4 13h4M19 7l-3 2M5 7l3 2M19 19l-3-2M5 19l3-2M10 4l1 2M14 4l-1 2"/>',
  example: '<path d="M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"/>',
  quote: '<path d="M3 21c3 0 7-1 7-8V5H3v7h4c0 4-2 5-4 5ZM14 21c3 0 7-1 7-8V5h-7v7h4c0 4-2 5-4 5Z"/>',
  custom: '<path d="M12 20h9"/><path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z"/>',
};

/** The icon of a callout kind, decorative (the title says what the callout is). */
export function calloutIcon(kind: string): string {
  return `<svg class="callout-icon" aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${PATHS[kind] ?? PATHS.custom}</svg>`;
}
