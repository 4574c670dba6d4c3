/**
 * A party's lifecycle (docs/architecture.md "Party lifecycle"): the states of a workspace and of an
 * agent, the moves between them, and the one predicate the payment pipeline asks before any rupee
 * moves. Pure: no I/O. The states are stored in `workspaces.status` and `agents.status` (migration
 * 1764000001700-PartyLifecycle); the dates `workspaces.erased_at` and `agents.disabled_at` stay as
 * the moments of the last move.
 */

/** `closed` is final: the workspace's last person erased their data (src/personal-data). */
export const WORKSPACE_STATUSES = ['active', 'suspended', 'closed'] as const;
export type WorkspaceStatus = (typeof WORKSPACE_STATUSES)[number];

/** `disabled` is final: the agent's credential no longer signs in and its name is erased. */
export const AGENT_STATUSES = ['active', 'suspended', 'disabled'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The moves each state allows, as data (a state absent from a list cannot be reached from it). */
export const WORKSPACE_TRANSITIONS: Readonly<Record<WorkspaceStatus, readonly WorkspaceStatus[]>> =
  {
    active: ['suspended', 'closed'],
    suspended: ['active', 'closed'],
    closed: [],
  };

export const AGENT_TRANSITIONS: Readonly<Record<AgentStatus, readonly AgentStatus[]>> = {
  active: ['suspended', 'disabled'],
  suspended: ['active', 'disabled'],
  disabled: [],
};

export function isWorkspaceStatus(x: unknown): x is WorkspaceStatus {
  return typeof x === 'string' && (WORKSPACE_STATUSES as readonly string[]).includes(x);
}

export function isAgentStatus(x: unknown): x is AgentStatus {
  return typeof x === 'string' && (AGENT_STATUSES as readonly string[]).includes(x);
}

/** True when a workspace may move `from` → `to` (staying put is not a move). */
export function canMoveWorkspace(from: WorkspaceStatus, to: WorkspaceStatus): boolean {
  return WORKSPACE_TRANSITIONS[from].includes(to);
}

/** True when an agent may move `from` → `to` (staying put is not a move). */
export function canMoveAgent(from: AgentStatus, to: AgentStatus): boolean {
  return AGENT_TRANSITIONS[from].includes(to);
}

/** A party to a payment as the pipeline reads it: the agent's state and its workspace's. */
export interface PartyState {
  agentStatus: AgentStatus;
  workspaceStatus: WorkspaceStatus;
}

/**
 * The one predicate "may this party pay or be paid": only an active agent of an active workspace.
 * Asked by pay() for both sides (src/payments/payments.service.ts, partyRefusal) and by every
 * place that offers a payment beforehand (a quote's pay page, a pay link, a checkout session).
 */
export function mayTransact(p: PartyState): boolean {
  return p.agentStatus === 'active' && p.workspaceStatus === 'active';
}

/** Why a party may not transact, in words a counterparty can read; null when it may. */
export function unavailableReason(side: 'seller' | 'buyer', p: PartyState): string | null {
  if (mayTransact(p)) {
    return null;
  }
  const who = side === 'seller' ? 'The seller' : 'The buyer';
  if (p.workspaceStatus === 'closed') {
    return `${who} closed their account; no payment can be made to or from it.`;
  }
  if (p.workspaceStatus === 'suspended') {
    return `${who}'s account is suspended; payments are paused until it is reinstated.`;
  }
  if (p.agentStatus === 'disabled') {
    return `${who}'s agent is disabled; it can no longer pay or be paid.`;
  }
  return `${who}'s agent is suspended; payments are paused until it is reinstated.`;
}
