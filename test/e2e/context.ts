/** Values the e2e global setup provides to every test file. */
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    apiKey: string;
    databaseUrl: string;
    temporalAddress: string;
    taskQueue: string;
  }
}

export function e2eContext() {
  return {
    apiUrl: inject('apiUrl'),
    apiKey: inject('apiKey'),
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    taskQueue: inject('taskQueue'),
  };
}
