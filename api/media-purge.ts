/**
 * Deletes stored media past MEDIA_RETENTION_HOURS. Reads already refuse expired files; this only
 * gives the space back. It runs in the API process, which has the setting; with several API
 * processes each purges, and the deletes simply find less to do.
 */
import type { Db } from '../db/connect.js';
import { deleteExpiredMedia } from '../db/repositories/media.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/log.js';

const PURGE_EVERY_MS = 10 * 60 * 1000;

export function startMediaPurge(deps: { db: Db; config: Readonly<Config>; log: Logger }): { stop(): void } {
  let running: Promise<void> | undefined;
  const purge = (): void => {
    // One purge at a time: a slow delete must not pile up behind itself.
    running ??= deleteExpiredMedia(deps.db, deps.config.media.retentionHours)
      .then((deleted) => {
        if (deleted > 0) deps.log.info({ deleted }, 'media-purge: deleted expired media');
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'media-purge: failed; trying again later'))
      .finally(() => {
        running = undefined;
      });
  };
  purge();
  const timer = setInterval(purge, PURGE_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
