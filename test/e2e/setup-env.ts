/**
 * Runs in every e2e test process before its file: stacks a file starts (startStack passes its
 * own environment on to the API and workers) load the workflow bundle the global setup built.
 */
import { inject } from 'vitest';

process.env.WORKFLOW_BUNDLE = inject('workflowBundle');
