/**
 * Who is looking, and what they may see. An admin-scoped key of the operators' team
 * (DASHBOARD_ADMIN_TEAM) manages every team, as the admin CLI does; an admin-scoped key of any
 * other team sees and manages its own team only: its keys, usage and jobs, and its plan read-only.
 * With AUTH=none the dashboard is the operator's.
 */
import type { Db } from '../../db/connect.js';
import { listTeams } from '../../db/repositories/teams.js';

export interface Viewer {
  operator: boolean;
  /** The signed-in key's team; null with AUTH=none. */
  teamId: string | null;
  teamName: string | null;
  keyPrefix: string | null;
  csrfToken: string;
  /** Identifies the session row (sha256 of the cookie). */
  tokenHash: string;
}

export function canSeeTeam(viewer: Viewer, teamId: string): boolean {
  return viewer.operator || viewer.teamId === teamId;
}

/** The ids of the teams the viewer may see. */
export async function visibleTeamIds(db: Db, viewer: Viewer): Promise<string[]> {
  if (!viewer.operator) return viewer.teamId ? [viewer.teamId] : [];
  return (await listTeams(db)).map((t) => t.id);
}
