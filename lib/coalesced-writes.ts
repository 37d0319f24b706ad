/**
 * Counter writes that many requests make at once, folded per key: at most one write is in flight
 * for a key, and what arrives meanwhile is summed into the next one. A burst of refused requests
 * then costs a couple of statements, not one row-locked upsert each holding a pool connection.
 * Callers never wait; a failed write loses its count (`onError` hears of it).
 */
export function coalescedWrites(write: (key: string, count: number) => Promise<void>, onError: (err: unknown) => void = () => undefined) {
  const pending = new Map<string, number>();
  const busy = new Set<string>();

  async function drain(key: string): Promise<void> {
    busy.add(key);
    try {
      for (let count = pending.get(key); count; count = pending.get(key)) {
        pending.delete(key);
        await write(key, count).catch(onError);
      }
    } finally {
      busy.delete(key);
    }
  }

  return (key: string, count = 1): void => {
    pending.set(key, (pending.get(key) ?? 0) + count);
    if (!busy.has(key)) void drain(key);
  };
}
