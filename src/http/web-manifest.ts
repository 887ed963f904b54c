// Shared by scripts/build-web.ts (writes dist/web) and the server (reads it): no imports here.

/** The server swaps this for the per-response CSP nonce in index.html. */
export const NONCE_PLACEHOLDER = '__KSPACE_CSP_NONCE__';

/** dist/web/manifest.json. */
export type WebManifest = {
  /** Every file under dist/web, relative to it (the single executable cannot list its assets). */
  files: string[];
  /** JS the page view loads (entry + its static imports), bytes raw and gzipped. */
  pageJs: { files: string[]; bytes: number; gzipBytes: number };
  /** Each dynamically imported chunk with what it adds beyond the page view's JS. */
  lazyChunks: { entry: string; files: string[]; bytes: number; gzipBytes: number; editor: boolean }[];
  css: { files: string[]; bytes: number; gzipBytes: number };
};
