/**
 * Every migration, in order. Listed explicitly (not read from the folder) so the same list runs
 * under tsx, vitest and any bundler. Add a migration by adding its file and a line here; names
 * are timestamps and must never change once released.
 */
import type { Migration } from 'kysely/migration';
import * as teamsKeysJobsDocuments from './2026_11_22_000001_teams_keys_jobs_documents.js';
import * as crawlFrontier from './2026_11_22_000002_crawl_frontier.js';
import * as teamWebhookSecret from './2026_11_22_000003_team_webhook_secret.js';
import * as crawlClaimsAndRobots from './2026_11_22_000004_crawl_claims_and_robots.js';
import * as plansLedgerLimits from './2026_11_22_000005_plans_ledger_limits.js';
import * as media from './2026_11_22_000006_media.js';
import * as pageCacheAndChangeHistory from './2026_11_22_000007_page_cache_and_change_history.js';
import * as resultRetention from './2026_11_24_000050_result_retention.js';
import * as webhookFailures from './2026_11_24_000060_webhook_failures.js';
import * as tokenLedger from './2026_11_25_000010_token_ledger.js';
import * as changeSnapshotExtraction from './2026_11_25_000020_change_snapshot_extraction.js';
import * as searchIndex from './2026_11_25_000100_search_index.js';
import * as searchIndexInline from './2026_11_25_000100_search_index_inline.js';
import * as teamThreatPolicies from './2026_11_25_000200_team_threat_policies.js';
import * as agentRuns from './2026_11_25_000300_agent_runs.js';
import * as agentSubagents from './2026_11_25_000400_agent_subagents.js';
import * as monitors from './2026_11_26_000110_monitors.js';
import * as dashboard from './2026_11_26_000170_dashboard.js';
import * as serverSecrets from './2026_11_30_000100_server_secrets.js';
import * as abuseLimits from './2026_11_30_000200_abuse_limits.js';
import * as monitorWebhookFailures from './2026_11_30_000300_monitor_webhook_failures.js';
import * as zeroDataRetention from './2026_12_01_000100_zero_data_retention.js';
import * as jobApiVersion from './2026_12_01_000200_job_api_version.js';
import * as agentThreads from './2026_12_01_000300_agent_threads.js';
import * as parseUploads from './2026_12_01_000400_parse_uploads.js';
import * as browserSessions from './2026_12_01_000600_browser_sessions.js';
import * as crawlFocus from './2026_12_02_000100_crawl_focus.js';
import * as pageCacheTotals from './2026_11_27_000100_page_cache_totals.js';
import * as crawlClaimIndex from './2026_11_28_000100_crawl_claim_index.js';
import * as lz4Documents from './2026_11_28_000200_lz4_documents.js';
import * as searchTsvOnce from './2026_11_28_000300_search_tsv_once.js';
import * as searchWordsFromWriters from './2026_11_29_000100_search_words_from_writers.js';
import * as settleInOneStatement from './2026_11_29_000200_settle_in_one_statement.js';

export const migrations: Record<string, Migration> = {
  '2026_11_22_000001_teams_keys_jobs_documents': teamsKeysJobsDocuments,
  '2026_11_22_000002_crawl_frontier': crawlFrontier,
  '2026_11_22_000003_team_webhook_secret': teamWebhookSecret,
  '2026_11_22_000004_crawl_claims_and_robots': crawlClaimsAndRobots,
  '2026_11_22_000005_plans_ledger_limits': plansLedgerLimits,
  '2026_11_22_000006_media': media,
  '2026_11_22_000007_page_cache_and_change_history': pageCacheAndChangeHistory,
  '2026_11_24_000050_result_retention': resultRetention,
  '2026_11_24_000060_webhook_failures': webhookFailures,
  '2026_11_25_000010_token_ledger': tokenLedger,
  '2026_11_25_000020_change_snapshot_extraction': changeSnapshotExtraction,
  '2026_11_25_000100_search_index': searchIndex,
  '2026_11_25_000100_search_index_inline': searchIndexInline,
  '2026_11_25_000200_team_threat_policies': teamThreatPolicies,
  '2026_11_25_000300_agent_runs': agentRuns,
  '2026_11_25_000400_agent_subagents': agentSubagents,
  '2026_11_26_000110_monitors': monitors,
  '2026_11_26_000170_dashboard': dashboard,
  '2026_11_27_000100_page_cache_totals': pageCacheTotals,
  '2026_11_28_000100_crawl_claim_index': crawlClaimIndex,
  '2026_11_28_000200_lz4_documents': lz4Documents,
  '2026_11_28_000300_search_tsv_once': searchTsvOnce,
  '2026_11_29_000100_search_words_from_writers': searchWordsFromWriters,
  '2026_11_29_000200_settle_in_one_statement': settleInOneStatement,
  '2026_11_30_000100_server_secrets': serverSecrets,
  '2026_11_30_000200_abuse_limits': abuseLimits,
  '2026_11_30_000300_monitor_webhook_failures': monitorWebhookFailures,
  '2026_12_01_000100_zero_data_retention': zeroDataRetention,
  '2026_12_01_000200_job_api_version': jobApiVersion,
  '2026_12_01_000300_agent_threads': agentThreads,
  '2026_12_01_000400_parse_uploads': parseUploads,
  '2026_12_01_000600_browser_sessions': browserSessions,
  '2026_12_02_000100_crawl_focus': crawlFocus,
};
