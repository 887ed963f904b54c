// The pure rules of attachments: which names are allowed, what the bytes are (sniffing), how a
// file is served (inline or as a download) and which part a Range header asks for. Table-driven
// tests: test/unit/file-rules.test.ts.
import type { Issue } from '../model.ts';
import { findInvisible } from './paths.ts';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `name` is not a valid attachment name (one path segment), or null. Checks its NFC form. */
export function checkFileName(raw: unknown, key = 'name'): Issue | null {
  if (typeof raw !== 'string' || raw.length === 0) return { key, code: 'required', message: 'a file name is required' };
  if (!raw.isWellFormed()) return { key, code: 'format', message: 'a file name must be well-formed Unicode' };
  const name = raw.normalize('NFC');
  if (name.length > 255) return { key, code: 'format', message: 'a file name has at most 255 characters' };
  if (name.includes('/') || name.includes('\\')) return { key, code: 'format', message: "a file name may not contain '/' or '\\'" };
  if (name === '.' || name === '..') return { key, code: 'format', message: "a file name may not be '.' or '..'" };
  if (CONTROL.test(name)) return { key, code: 'format', message: 'a file name may not contain control characters' };
  const invisible = findInvisible(name);
  if (invisible) return { key, code: 'format', message: `a file name may not contain invisible characters (${invisible})` };
  return null;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The bare media type of a Content-Type header (lowercase, no parameters), or null when it is none. */
function bareMediaType(header: string | null | undefined): string | null {
  if (!header) return null;
  const t = header.split(';')[0].trim().toLowerCase();
  return MEDIA_TYPE.test(t) ? t : null;
}

const startsWith = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (b: Buffer, s: string, at = 0) => b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;

/** What the leading bytes say the content is, or null when they say nothing certain. */
function sniffBytes(b: Buffer): string | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(b, 'GIF87a') || ascii(b, 'GIF89a')) return 'image/gif';
  if (ascii(b, 'RIFF') && ascii(b, 'WEBP', 8)) return 'image/webp';
  if (ascii(b, 'ftypavif', 4) || ascii(b, 'ftypavis', 4)) return 'image/avif';
  if (ascii(b, 'ftyp', 4)) return 'video/mp4';
  if (startsWith(b, [0x42, 0x4d]) && b.length > 14) return 'image/bmp';
  if (startsWith(b, [0x00, 0x00, 0x01, 0x00])) return 'image/x-icon';
  if (ascii(b, '%PDF-')) return 'application/pdf';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (startsWith(b, [0x1f, 0x8b, 0x08])) return 'application/gzip';
  if (ascii(b, 'ID3') || startsWith(b, [0xff, 0xfb])) return 'audio/mpeg';
  if (ascii(b, 'OggS')) return 'audio/ogg';
  if (ascii(b, 'RIFF') && ascii(b, 'WAVE', 8)) return 'audio/wav';
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  const markup = sniffMarkup(b);
  if (markup) return markup;
  return null;
}

// Markup a browser would run: HTML (the WHATWG sniffing patterns) and SVG, after leading
// whitespace and a byte order mark, case-insensitive.
const HTML_TAGS = [
  '<!doctype html',
  '<html',
  '<head',
  '<script',
  '<iframe',
  '<h1',
  '<div',
  '<font',
  '<table',
  '<a',
  '<style',
  '<title',
  '<b',
  '<body',
  '<br',
  '<p',
  '<!--',
];

function sniffMarkup(b: Buffer): string | null {
  let text = b.toString('utf8', 0, Math.min(b.length, 1024));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.trimStart().toLowerCase();
  if (!text.startsWith('<')) return null;
  if (/^<svg[\s>]/.test(text) || (text.startsWith('<?xml') && text.includes('<svg'))) return 'image/svg+xml';
  if (text.startsWith('<?xml')) return 'application/xml';
  for (const tag of HTML_TAGS) {
    if (text.startsWith(tag)) {
      const next = text[tag.length];
      if (tag === '<!--' || next === undefined || next === ' ' || next === '>' || next === '\t' || next === '\n' || next === '\r')
        return 'text/html';
    }
  }
  return null;
}

/** Text: valid UTF-8 with no NUL in the first 8 KiB. */
function looksLikeText(b: Buffer): boolean {
  const head = b.subarray(0, 8192);
  if (head.includes(0)) return false;
  // A multi-byte character cut at the 8 KiB boundary is not a reason to call it binary.
  const s = new TextDecoder('utf-8', { fatal: false }).decode(head);
  const bad = s.indexOf('\ufffd');
  return bad === -1 || bad >= s.length - 2;
}

// Types a browser runs as code or as a document of this origin: every JavaScript type of the
// WHATWG MIME Sniffing list, WebAssembly, HTML, XHTML and XML (which may carry XHTML or an XSLT
// sheet). A file of such a type is stored, and served, as application/octet-stream, so that
// `<script src>`, a module import or a worker of this origin refuses it (nosniff) whoever
// uploaded it. SVG keeps its type: `<img>` needs it to draw a picture, and an image runs no
// script; it is a download with the sandbox CSP like every non-media file.
const ACTIVE = new Set([
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
  'application/wasm',
  'text/html',
  'application/xhtml+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'application/xslt+xml',
]);

/** Whether `contentType` is one a browser would run as script or render as a document of this origin. */
function isActiveType(contentType: string): boolean {
  return ACTIVE.has(bareMediaType(contentType) ?? '');
}

/**
 * The stored content type: what the bytes are when they say so (a declared type never wins over
 * the bytes); otherwise the declared type; otherwise text/plain for text and
 * application/octet-stream for the rest. A script or HTML type, sniffed or declared, becomes
 * application/octet-stream (ACTIVE above).
 */
export function sniffContentType(data: Buffer, declared: string | null | undefined): string {
  const t = storedType(data, declared);
  return isActiveType(t) ? 'application/octet-stream' : t;
}

function storedType(data: Buffer, declared: string | null | undefined): string {
  const sniffed = sniffBytes(data);
  if (sniffed) return sniffed;
  const claimed = bareMediaType(declared);
  if (claimed && claimed !== 'application/octet-stream') {
    return claimed.startsWith('text/') ? `${claimed}; charset=utf-8` : claimed;
  }
  return looksLikeText(data) ? 'text/plain; charset=utf-8' : 'application/octet-stream';
}

/** The Content-Type a stored file is served with: its stored type, an active one (stored before that rule) as octet-stream. */
export function servedType(stored: string): string {
  return isActiveType(stored) ? 'application/octet-stream' : stored;
}

// Shown in the browser (img, audio, video, plain text); everything else, HTML and SVG first, is a
// download. (PDF too: the sandbox CSP every file is served with keeps browsers' PDF viewers out.)
const INLINE = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
  'video/webm',
  'text/plain',
]);

export function servedInline(contentType: string): boolean {
  return INLINE.has(bareMediaType(contentType) ?? '');
}

/** The Content-Disposition header: `inline` or `attachment`, with an ASCII fallback and the RFC 5987 UTF-8 name. */
export function contentDisposition(name: string, inline: boolean): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

type ByteRange = { start: number; end: number };

/**
 * The part of a `size`-byte file a Range header asks for: null for the whole file (no header, a
 * unit other than bytes, several ranges, or a malformed one: RFC 9110 lets a server ignore
 * those), 'unsatisfiable' when it starts past the end, else inclusive start and end.
 */
export function parseRange(header: string | null | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null; // last < first: invalid, ignored
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Whether an If-None-Match header matches the strong ETag `etag` (quoted). */
export function etagMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
