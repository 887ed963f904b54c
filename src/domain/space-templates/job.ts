import type { BackgroundJob, Services } from '../../services.ts';
import { localTemplates } from './local.ts';
import { refreshRemoteCatalog, remoteTemplates, stopRemoteCatalog } from './remote.ts';

// The local catalog is read this long after start, once the server answers: reading and checking
// it is not on a cold start's path to its first answer. A request that needs it first reads it.
const LOCAL_READ_DELAY_MS = 200;

/**
 * Reads the local catalog just after start (so a broken SERVICE_SPACE_TEMPLATES_PATH shows in the
 * log at once) and refreshes the remote one at start and every SERVICE_SPACE_TEMPLATES_REFRESH_SECONDS.
 */
export function spaceTemplatesJob(svc: Services): BackgroundJob {
  let timer: NodeJS.Timeout | null = null;
  let localRead: NodeJS.Timeout | null = null;
  return {
    start() {
      localRead = setTimeout(() => localTemplates(svc), LOCAL_READ_DELAY_MS);
      localRead.unref();
      if (!svc.config.spaceTemplates.url) return;
      remoteTemplates(svc); // serves the copy on disk until the first refresh lands
      void refreshRemoteCatalog(svc);
      timer = setInterval(() => void refreshRemoteCatalog(svc), svc.config.spaceTemplates.refreshSeconds * 1000);
      timer.unref();
    },
    async stop() {
      if (localRead) clearTimeout(localRead);
      if (timer) clearInterval(timer);
      await stopRemoteCatalog(svc);
    },
  };
}
