/** README.md lists the fields Trawl accepts but cannot do; this keeps that table and contracts/cloud-only.ts in step. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_NOT_DONE } from '../../../contracts/cloud-only.js';

const doc = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('### Accepted but not done'), doc.indexOf('## How it is built'));

/** First two cells of each table row: the field (its first code span) → where. */
const rows = new Map(
  section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '').trim()))
    .map((cells) => [/`([^`]+)`/.exec(cells[0]!)![1]!, cells[1]!] as const),
);

/** An entry's field as the table's code span spells it: `name` or `name: value`, without the notes after it. */
const codeName = (field: string) => /^[^(: ]+(: [^ (]+)?/.exec(field)![0];
const entries = Object.values(ACCEPTED_NOT_DONE).flat();

describe('README.md "Accepted but not done"', () => {
  it('lists every field of ACCEPTED_NOT_DONE, where the code accepts it', () => {
    for (const entry of entries) {
      const where = rows.get(codeName(entry.field));
      expect(where, entry.field).toBeDefined();
      expect(where!.split(', '), entry.field).toContain(entry.where);
    }
  });

  it('lists nothing the code does not accept', () => {
    const fields = new Set(entries.map((e) => codeName(e.field)));
    for (const field of rows.keys()) expect(fields, field).toContain(field);
  });
});
