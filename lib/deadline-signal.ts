/**
 * A signal that aborts when `parent` does or when `ms` have passed. Unlike
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])`, the timer here is held by the event loop
 * until `clear()`: a timeout signal referenced only by an `any()` composite can be collected
 * before it fires, and the composite then never aborts (seen as a browser `waitFor` that ran past
 * its deadline under load).
 */
export interface DeadlineSignal {
  signal: AbortSignal;
  clear(): void;
}

/** `parent` may be absent: then only the deadline aborts it. */
export function deadlineSignal(parent: AbortSignal | undefined, ms: number): DeadlineSignal {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException('The deadline passed', 'TimeoutError')), Math.max(0, ms));
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
