/** Custom search attributes; the dev server registers them at boot (scripts/temporal-server.ts). */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const TeamIdAttribute = defineSearchAttributeKey('TeamId', SearchAttributeType.KEYWORD);
export const JobKindAttribute = defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD);
/** Set on zero-data-retention jobs only, so the purge finds their closed histories to delete. */
export const ZeroDataRetentionAttribute = defineSearchAttributeKey('ZeroDataRetention', SearchAttributeType.BOOL);
