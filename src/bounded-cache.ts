// A bounded memo: the value kept under `key`, made on a miss; past `max` entries the least
// recently used one goes. Pure, no I/O; for caches of statements, parsed queries and keys.

/**
 * `cache`'s value for `key` (now the most recently used), or `make()`'s, which is kept unless
 * `keep` says not to (the value is then returned and the cache left as it was).
 */
export function cached<K, V>(cache: Map<K, V>, key: K, max: number, make: () => V, keep: (value: V) => boolean = () => true): V {
  let value = cache.get(key);
  if (value !== undefined) cache.delete(key);
  else {
    value = make();
    if (!keep(value)) return value;
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, value);
  return value;
}
