// Times kept in epoch milliseconds in the database (schema.sql says which columns) are ISO 8601
// strings everywhere else: SQL to convert a column either way. Both are exact for every
// millisecond of the years 1970–9999 (an ISO string of toISOString's form back and forth).

/** An ISO 8601 time (SQL over `col`) in epoch milliseconds. */
export const epochMs = (col: string): string => `CAST(round(unixepoch(${col}, 'subsec') * 1000) AS INTEGER)`;

/** Epoch milliseconds (SQL over `col`) as the ISO 8601 string toISOString makes. */
export const isoTime = (col: string): string => `strftime('%Y-%m-%dT%H:%M:%fZ', ${col} / 1000.0, 'unixepoch')`;
