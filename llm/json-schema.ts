/** JSON Schema checks for model answers and user schemas, with ajv. */
import { Ajv, type ValidateFunction } from 'ajv';

export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction & { errorsText(): string }>();

/** A validator for `schema`, with its last errors as one readable line. */
export function validatorFor(schema: JsonSchema): ValidateFunction & { errorsText(): string } {
  let validate = compiled.get(schema);
  if (!validate) {
    const fn = ajv.compile(schema);
    validate = Object.assign(fn, { errorsText: () => ajv.errorsText(fn.errors, { dataVar: 'answer' }) });
    compiled.set(schema, validate);
  }
  return validate;
}

/** A message for a 400 when a user's schema is not a usable JSON Schema, else undefined. */
export function schemaProblem(schema: JsonSchema): string | undefined {
  try {
    ajv.compile(schema);
    return undefined;
  } catch (err) {
    return `Invalid JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
}
