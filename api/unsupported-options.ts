/**
 * Options Trawl accepts in the schema but cannot honour in this deployment fail here, before a
 * workflow starts, with a 4xx that names the option. Never a silent partial result.
 */
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { schemaProblem } from '../llm/json-schema.js';
import { httpError } from './errors.js';

export interface DeploymentFeatures {
  llmConfigured: boolean;
}

export function assertScrapeOptionsSupported(options: ScrapeOptions, features: DeploymentFeatures): void {
  for (const format of options.formats) {
    if ((format.type === 'json' || format.type === 'summary') && !features.llmConfigured) {
      throw httpError(
        'LLM_NOT_CONFIGURED',
        `The ${format.type} format needs a language model; set OPENAI_API_KEY (and OPENAI_BASE_URL) or OLLAMA_BASE_URL`,
        { option: `formats.${format.type}` },
      );
    }
    if (format.type === 'json' && format.schema) {
      const problem = schemaProblem(format.schema);
      if (problem) throw httpError('INVALID_JSON_SCHEMA', problem, { option: 'formats.json.schema' });
    }
    if (format.type === 'changeTracking' && format.modes.includes('json')) {
      const option = 'formats.changeTracking.modes.json';
      if (!features.llmConfigured) {
        throw httpError('LLM_NOT_CONFIGURED', 'changeTracking.modes.json needs a language model; set OPENAI_API_KEY (and OPENAI_BASE_URL) or OLLAMA_BASE_URL', { option });
      }
      const problem = format.schema && schemaProblem(format.schema);
      if (problem) throw httpError('INVALID_JSON_SCHEMA', problem, { option: 'formats.changeTracking.schema' });
    }
  }
}
