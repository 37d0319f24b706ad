/**
 * A workflow interceptor bundled into the e2e stacks' workflows only (global-setup.ts): every
 * activity that has a heartbeat timeout gets a shorter one. A SIGKILLed worker's pages are retried
 * once their heartbeat timeout passes, so the durability and agent tests that kill workers wait
 * this long instead of the 20 s production uses (workflows/activities.ts). Activities heartbeat
 * every 2 s (activities/page/signal.ts) and the SDK sends one at most every 80 % of the timeout,
 * so 10 s keeps a 2 s margin, as 20 s keeps 4.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const TEST_HEARTBEAT_TIMEOUT = '10s';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) =>
        next(input.options.heartbeatTimeout === undefined ? input : { ...input, options: { ...input.options, heartbeatTimeout: TEST_HEARTBEAT_TIMEOUT } }),
    },
  ],
});
