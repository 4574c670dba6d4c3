import {
  AGENT_STATUSES,
  AGENT_TRANSITIONS,
  AgentStatus,
  canMoveAgent,
  canMoveWorkspace,
  isAgentStatus,
  isWorkspaceStatus,
  mayTransact,
  unavailableReason,
  WORKSPACE_STATUSES,
  WORKSPACE_TRANSITIONS,
  WorkspaceStatus,
} from '../../../src/accounts/party-lifecycle';

/** src/accounts/party-lifecycle.ts: the states, the moves as data, and the one predicate. */
describe('party lifecycle', () => {
  it('names the states of a workspace and of an agent', () => {
    expect([...WORKSPACE_STATUSES]).toEqual(['active', 'suspended', 'closed']);
    expect([...AGENT_STATUSES]).toEqual(['active', 'suspended', 'disabled']);
    expect(isWorkspaceStatus('closed')).toBe(true);
    expect(isWorkspaceStatus('disabled')).toBe(false);
    expect(isAgentStatus('disabled')).toBe(true);
    expect(isAgentStatus('closed')).toBe(false);
    expect(isAgentStatus(undefined)).toBe(false);
  });

  it('lets a workspace be suspended, reinstated and closed, and never leave closed', () => {
    expect(canMoveWorkspace('active', 'suspended')).toBe(true);
    expect(canMoveWorkspace('suspended', 'active')).toBe(true);
    expect(canMoveWorkspace('active', 'closed')).toBe(true);
    expect(canMoveWorkspace('suspended', 'closed')).toBe(true);
    for (const to of WORKSPACE_STATUSES) {
      expect(canMoveWorkspace('closed', to)).toBe(false);
      // Staying put is not a move.
      expect(canMoveWorkspace(to, to)).toBe(false);
    }
  });

  it('lets an agent be suspended, reinstated and disabled, and never leave disabled', () => {
    expect(canMoveAgent('active', 'suspended')).toBe(true);
    expect(canMoveAgent('suspended', 'active')).toBe(true);
    expect(canMoveAgent('active', 'disabled')).toBe(true);
    for (const to of AGENT_STATUSES) {
      expect(canMoveAgent('disabled', to)).toBe(false);
      expect(canMoveAgent(to, to)).toBe(false);
    }
  });

  it('lists only known states as targets', () => {
    for (const tos of Object.values(WORKSPACE_TRANSITIONS)) {
      for (const to of tos) {
        expect(isWorkspaceStatus(to)).toBe(true);
      }
    }
    for (const tos of Object.values(AGENT_TRANSITIONS)) {
      for (const to of tos) {
        expect(isAgentStatus(to)).toBe(true);
      }
    }
  });

  it('lets only an active agent of an active workspace pay or be paid', () => {
    for (const agentStatus of AGENT_STATUSES) {
      for (const workspaceStatus of WORKSPACE_STATUSES) {
        const p = { agentStatus, workspaceStatus };
        const ok = agentStatus === 'active' && workspaceStatus === 'active';
        expect(mayTransact(p)).toBe(ok);
        expect(unavailableReason('seller', p) === null).toBe(ok);
      }
    }
  });

  it('says why in words, the workspace first', () => {
    const p = (w: WorkspaceStatus, a: AgentStatus) => ({ workspaceStatus: w, agentStatus: a });
    expect(unavailableReason('seller', p('closed', 'disabled'))).toBe(
      'The seller closed their account; no payment can be made to or from it.',
    );
    expect(unavailableReason('buyer', p('suspended', 'active'))).toMatch(
      /^The buyer's account is suspended/,
    );
    expect(unavailableReason('seller', p('active', 'disabled'))).toMatch(/agent is disabled/);
    expect(unavailableReason('seller', p('active', 'suspended'))).toMatch(/agent is suspended/);
  });
});
