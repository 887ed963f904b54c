// undici from npm as the single executable carries it: a bundle of its own (an asset, see
// VENDOR_BUNDLES in src/sea-wrap.ts), evaluated when guarded-fetch.ts first loads it. It was
// nearly half of the program's bundle, which every start deserializes and runs the top level of.
import * as undici from 'undici';

export const modules: Record<string, object> = { undici };
