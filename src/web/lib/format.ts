// Small formatting helpers shared by the views.
//
// The first Intl formatter a page makes loads the browser's locale data (25-80 ms in Chromium), so
// none is made while a view first renders: relative times are written here in the app's English,
// and the locale's full date and time (`fullTime`, for tooltips and tables) is made on first use.

let dtf: Intl.DateTimeFormat | null = null;

/** The date and time in the person's locale ("29 Nov 2026, 14:05"). */
export function fullTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  dtf ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return dtf.format(d);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function ago(n: number, unit: string): string {
  const abs = Math.abs(n);
  const amount = `${abs} ${unit}${abs === 1 ? '' : 's'}`;
  return n < 0 ? `${amount} ago` : `in ${amount}`;
}

/** "3 minutes ago", "yesterday"; dates a week or more away are the day ("12 Mar 2026"). */
export function relativeTime(iso: string, now = Date.now()): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return 'just now';
  if (abs < 3600) return ago(Math.round(s / 60), 'minute');
  if (abs < 86400) return ago(Math.round(s / 3600), 'hour');
  if (abs < 7 * 86400) {
    const days = Math.round(s / 86400);
    return days === -1 ? 'yesterday' : days === 1 ? 'tomorrow' : ago(days, 'day');
  }
  const d = new Date(t);
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Alphabetical order of names for lists (accents and case aside, then as written), without
 * `localeCompare`: its first call loads the locale's collation data (10-60 ms), on the path of the
 * page view's first paint when the sidebar's tree arrives.
 */
export function compareText(a: string, b: string): number {
  const x = fold(a);
  const y = fold(b);
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(formatValue).join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
