/**
 * An extract job's answer from its pages' answers. Pages are taken in the order they were
 * requested (then discovered), and merged as chunks of one page are (`mergeAnswers`): arrays
 * concatenated without duplicates, objects key by key, a scalar from the first page that states
 * it. Sources name, for each top-level field, the pages whose answers are in it.
 */
import { mergeAnswers } from './page-features.js';

export interface PageAnswer {
  url: string;
  answer: unknown;
}

export interface MergedExtraction {
  data: unknown;
  /** Top-level field → URLs of the pages whose answers are in its merged value. */
  sources: Record<string, string[]>;
}

export function mergeExtraction(pages: readonly PageAnswer[]): MergedExtraction {
  let data: unknown = undefined;
  const sources: Record<string, string[]> = {};
  for (const { url, answer } of pages) {
    const before = data;
    data = mergeAnswers(data, answer);
    if (!isRecord(answer) || !isRecord(data)) continue;
    // A page is a field's source when it changed the field: a scalar it stated first, items it added.
    for (const [field, value] of Object.entries(answer)) {
      if (value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
      const previous = isRecord(before) ? before[field] : undefined;
      if (JSON.stringify(previous) === JSON.stringify(data[field])) continue;
      (sources[field] ??= []).push(url);
    }
  }
  return { data: data ?? {}, sources };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
