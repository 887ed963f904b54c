// ISO 8601 dates and date-times as metadata values: `YYYY-MM-DD`, `YYYY-MM-DDThh:mm`,
// `YYYY-MM-DDThh:mm:ss.sssZ`, `YYYY-MM-DDThh:mm:ss+hh:mm`. Calendar-checked (no 30th of February).
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch milliseconds of an ISO 8601 date or date-time, or null when `s` is not one. */
export function parseIsoDate(s: string): number | null {
  if (s.length < 10 || s.length > 40) return null;
  const m = ISO_DATE.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = sec === undefined ? 0 : Number(sec);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (year < 100) t = new Date(t).setUTCFullYear(year);
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offH = Number(digits.slice(0, 2)),
      offM = Number(digits.slice(2));
    if (offH > 23 || offM > 59) return null;
    t -= sign * (offH * 60 + offM) * 60_000;
  }
  return t;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
