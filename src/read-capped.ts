// A web stream read whole through its reader, with a cap: past `maxBytes` the stream is cancelled
// and `tooLarge()` is thrown, so no more than the cap (and one chunk) is ever held. For request
// bodies (http/body.ts) and the answers of outbound fetches (domain/net/guarded-fetch.ts).

/** A stream's reader: the global ReadableStream's, or node:stream/web's (undici's answers). */
type ByteReader = { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };

export async function readCapped(
  reader: ByteReader,
  maxBytes: number,
  tooLarge: () => Error,
  onChunk?: (chunk: Uint8Array) => void,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done || !value) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    onChunk?.(value);
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
