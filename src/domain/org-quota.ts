// The storage quota of an organisation (SERVICE_ORG_QUOTA_BYTES, docs/operations.md "Limits for
// a server on a network"): what its live pages and its files store (store/org-usage.ts). A write
// that makes it store more than the quota is refused in its own transaction (413 naming the
// setting, nothing written); a write that stores less, or as much, always passes, so deleting a
// file or a page frees room even past the quota.
import type { Services } from '../services.ts';
import { orgUsage } from '../store/org-usage.ts';
import { AppError } from './errors.ts';

/** 413: `adding` more bytes to the `used` of an organisation would pass its quota. */
function orgQuotaExceeded(quota: number, used: number, adding: number): AppError {
  return new AppError(
    'payload_too_large',
    `your organisation stores ${used} bytes of pages and files; ${adding} more would pass its quota of ${quota} (SERVICE_ORG_QUOTA_BYTES)`,
    [{ key: 'SERVICE_ORG_QUOTA_BYTES', code: 'max', message: `at most ${quota} bytes of pages and files an organisation` }],
    { setting: 'SERVICE_ORG_QUOTA_BYTES', limit: quota, used },
  );
}

/**
 * Runs `write` (inside a transaction) and refuses it when it grew what organisation `orgId`
 * stores past the quota: the error rolls the write back with its transaction.
 */
export function withinOrgQuota<T>(svc: Services, orgId: number, write: () => T): T {
  const quota = svc.config.limits.orgQuotaBytes;
  if (quota === 0) return write();
  const before = orgUsage(svc.db, orgId);
  const out = write();
  const after = orgUsage(svc.db, orgId);
  if (after > before && after > quota) throw orgQuotaExceeded(quota, before, after - before);
  return out;
}

/** Before an import writes anything: 413 when `bytes` more would pass the quota (the whole import is refused). */
export function checkOrgRoom(svc: Services, orgId: number, bytes: number): void {
  const quota = svc.config.limits.orgQuotaBytes;
  if (quota === 0) return;
  const used = orgUsage(svc.db, orgId);
  if (used + bytes > quota) throw orgQuotaExceeded(quota, used, bytes);
}
