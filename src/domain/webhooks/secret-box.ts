import type { Config } from '../../config/config.ts';
import type { Services } from '../../services.ts';
import { AppError } from '../errors.ts';
import { createSecretBox, type SecretBox } from '../secrets.ts';

const boxes = new WeakMap<Config, { key: string; box: SecretBox }>();

/** The box sealing webhook secrets, or null when SERVICE_SETTINGS_ENCRYPTION_KEY is not set. */
export function secretBox(svc: Services): SecretBox | null {
  const key = svc.config.encryptionKey;
  if (key === undefined) return null;
  let cached = boxes.get(svc.config);
  if (cached?.key !== key) boxes.set(svc.config, (cached = { key, box: createSecretBox(key) }));
  return cached.box;
}

export function requireSecretBox(svc: Services): SecretBox {
  const box = secretBox(svc);
  if (!box)
    throw new AppError(
      'not_configured',
      'webhooks need the setting SERVICE_SETTINGS_ENCRYPTION_KEY (at least 32 characters) to store signing secrets',
    );
  return box;
}
