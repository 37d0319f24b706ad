/** spawnManaged (scripts/managed-process.ts): one exit hook per process, however often the module is evaluated. */
import { describe, expect, it, vi } from 'vitest';

describe('spawnManaged', () => {
  it('installs one exit hook per process when the module is evaluated again, as for each test file in one fork', async () => {
    const before = process.listenerCount('exit');
    for (let i = 0; i < 3; i++) {
      vi.resetModules();
      const { spawnManaged } = await import('../../../scripts/managed-process.js');
      const child = await spawnManaged({ name: `true-${i}`, command: 'true', args: [], log: () => undefined });
      await child.exited;
    }
    expect(process.listenerCount('exit') - before).toBeLessThanOrEqual(1);
  });
});
