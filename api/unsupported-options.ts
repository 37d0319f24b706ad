/**
 * Options Trawl accepts in the schema but cannot honour in this deployment fail here, before a
 * workflow starts, with a 4xx that names the option. Never a silent partial result.
 */
import type { ScrapeOptions } from './schemas/scrape-options.js';
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
    if (format.type === 'changeTracking') {
      throw httpError('UNSUPPORTED_OPTION', 'The changeTracking format is not supported yet', {
        option: 'formats.changeTracking',
      });
    }
  }
  if (options.actions?.length) {
    throw httpError('UNSUPPORTED_OPTION', 'actions are not supported yet', { option: 'actions' });
  }
  if (options.threatProtection) {
    throw httpError('FORBIDDEN', 'Forbidden: threat protection is not enabled for this team', {
      option: 'threatProtection',
    });
  }
}
