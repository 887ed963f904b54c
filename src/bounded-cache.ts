// A bounded memo: the value kept under `key`, made on a miss; past `max` entries the least
// recently used one goes. Pure, no I/O; for caches of statements, parsed queries and keys.

/** `cache`'s value for `key` (now the most recently used), or `make()`'s, which is kept. */
export function cached<K, V>(cache: Map<K, V>, key: K, max: number, make: () => V): V {
  let value = cache.get(key);
  if (value !== undefined) cache.delete(key);
  else {
    value = make();
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, value);
  return value;
}
