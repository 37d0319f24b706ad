/**
 * The json change-tracking mode's report: for each top-level field of the two extractions whose
 * value differs, `{previous, current}` (a field missing on one side is null there). Pure.
 */
export type JsonChanges = Record<string, { previous: unknown; current: unknown }>;

export function jsonChanges(previous: unknown, current: unknown): JsonChanges {
  const before = asRecord(previous);
  const after = asRecord(current);
  const changes: JsonChanges = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[field] ?? null;
    const now = after[field] ?? null;
    if (stableJson(was) !== stableJson(now)) changes[field] = { previous: was, current: now };
  }
  return changes;
}

function asRecord(value: unknown): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  // A schema whose answer is not an object still has one field to compare: the answer.
  return value === undefined ? {} : { value };
}

/** Key order is the model's whim, not a change. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
