/** Values the e2e global setup provides to every test file. */
import { inject } from 'vitest';

export interface E2eContext {
  apiUrl: string;
  apiKey: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** The workflow bundle every e2e worker loads (WORKFLOW_BUNDLE). */
  workflowBundle: string;
}

declare module 'vitest' {
  // Declaration merging needs an interface; its members are E2eContext's.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  export interface ProvidedContext extends E2eContext {}
}

export function e2eContext(): E2eContext {
  return {
    apiUrl: inject('apiUrl'),
    apiKey: inject('apiKey'),
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    taskQueue: inject('taskQueue'),
    workflowBundle: inject('workflowBundle'),
  };
}
