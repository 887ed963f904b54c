import type { BackgroundJob } from '../../server.ts';
import type { Services } from '../../services.ts';
import { localTemplates } from './local.ts';
import { refreshRemoteCatalog, remoteTemplates, stopRemoteCatalog } from './remote.ts';

/**
 * Reads the local catalog at start (so a broken SERVICE_SPACE_TEMPLATES_PATH shows in the log at
 * once) and refreshes the remote one at start and every SERVICE_SPACE_TEMPLATES_REFRESH_SECONDS.
 */
export function spaceTemplatesJob(svc: Services): BackgroundJob {
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      localTemplates(svc);
      if (!svc.config.spaceTemplates.url) return;
      remoteTemplates(svc); // serves the copy on disk until the first refresh lands
      void refreshRemoteCatalog(svc);
      timer = setInterval(() => void refreshRemoteCatalog(svc), svc.config.spaceTemplates.refreshSeconds * 1000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await stopRemoteCatalog(svc);
    },
  };
}
