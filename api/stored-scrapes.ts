/**
 * Synchronous scrapes waiting for their Document, and searches without scraping for their
 * results. The transaction that stores a scrape's Document (or a search's results) and completes
 * its job also notifies the job id (db/repositories/documents.ts), so the API can
 * answer as soon as that commits, instead of after the worker has reported the workflow task, the
 * Temporal server has recorded the completion and the result long-poll has come back (about 10 ms
 * on a 2-core machine). The notice is only a shortcut: callers race it with the workflow's result,
 * which stays the answer for failures and for whenever the listening connection was down.
 */
import { listen } from '../db/listen.js';
import { SCRAPE_STORED_CHANNEL } from '../db/repositories/documents.js';
import type { Logger } from '../lib/log.js';

export interface StoredScrapes {
  /** Resolves when job `jobId`'s result is stored; call `cancel` when no longer waiting. */
  wait(jobId: string): { stored: Promise<void>; cancel(): void };
  close(): Promise<void>;
}

export function listenForStoredScrapes(databaseUrl: string, log: Logger): StoredScrapes {
  const waiting = new Map<string, () => void>();
  const listener = listen(
    databaseUrl,
    SCRAPE_STORED_CHANNEL,
    (jobId) => waiting.get(jobId)?.(),
    (err) => log.warn({ err }, 'stored scrapes: listening connection lost; answers wait for Temporal meanwhile'),
  );
  return {
    wait(jobId) {
      const stored = new Promise<void>((resolve) => waiting.set(jobId, resolve));
      return { stored, cancel: () => waiting.delete(jobId) };
    },
    close: () => listener.close(),
  };
}
