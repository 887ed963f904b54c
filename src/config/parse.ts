// Reading settings: the error a bad one raises, and the number rules every part of the config uses.

/** A setting that cannot be used; `kspace serve` prints its message and exits 2. */
export class ConfigError extends Error {}

export function toInt(name: string, raw: string | number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name}: '${raw}' is not a whole number from ${min} to ${max}`);
  }
  return n;
}
