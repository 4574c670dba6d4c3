import { Injectable } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { OutboxRepository } from '../outbox/outbox.repository';

/** The event each counterparty of a closed workspace hears (src/webhooks/webhook-event-types.ts). */
export const PARTY_CLOSED_EVENT = 'party.closed';

/** The code and words every cancellation by a closure carries (docs/architecture.md "Party lifecycle"). */
export const CLOSED_SELLER = {
  code: 'seller_unavailable',
  reason: 'The seller closed their account',
} as const;
export const CLOSED_BUYER = {
  code: 'buyer_unavailable',
  reason: 'The buyer closed their account',
} as const;

/** A workspace being closed, in the closing transaction. */
export interface ClosingWorkspace {
  workspaceId: string;
  now: Date;
}

/** Something a step ended, and the other side of it, who is told. */
export interface EndedForClosure {
  /** What ended: `quote`, `recurring_charge`, `checkout_session`, `payment_intent`. */
  kind: string;
  id: string;
  /** The counterparty: the other side's workspace and agent (null: nobody to tell by event). */
  counterparty: { workspaceId: string; agentId: string } | null;
  /** What the counterparty reads about it. */
  words: string;
}

/** One owner's part of a closure: ends its open things of the workspace, in the caller's transaction. */
export type ClosureStep = (w: ClosingWorkspace) => Promise<EndedForClosure[]>;

/**
 * The lifecycle owner's closing cascade (docs/architecture.md "Party lifecycle"): when a workspace
 * closes (PersonalDataService.erase, its last person erased), each owner of something open between
 * two parties ends it with its own cancel path — waiting payments, quotes and their pay links,
 * checkout sessions, recurring charges (as seller and as buyer) — registered here by the owner at
 * start (`register`, lowest `order` first: a source's payment waiting for a person is declined
 * before its source is canceled). Then each counterparty hears `party.closed` with what ended, in
 * words. All in the closing transaction, so the closure and its cascade commit together, before
 * the workspace and its agents change status (sources are locked first: the lock order).
 */
@Injectable()
export class PartyClosure {
  private readonly steps: { name: string; order: number; step: ClosureStep }[] = [];

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditLog,
  ) {}

  register(name: string, order: number, step: ClosureStep): void {
    this.steps.push({ name, order, step });
    this.steps.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }

  /** Ends everything open of the workspace and tells each counterparty; in the caller's transaction. */
  async close(workspaceId: string, now: Date): Promise<EndedForClosure[]> {
    const ended: EndedForClosure[] = [];
    for (const s of this.steps) {
      ended.push(...(await s.step({ workspaceId, now })));
    }
    const byParty = new Map<
      string,
      { to: { workspaceId: string; agentId: string }; list: EndedForClosure[] }
    >();
    for (const e of ended) {
      const to = e.counterparty;
      if (!to || to.workspaceId === workspaceId) {
        continue;
      }
      const key = `${to.workspaceId}/${to.agentId}`;
      const entry = byParty.get(key) ?? { to, list: [] };
      entry.list.push(e);
      byParty.set(key, entry);
    }
    for (const { to, list } of byParty.values()) {
      await this.outbox.add({
        workspaceId: to.workspaceId,
        agentId: to.agentId,
        type: PARTY_CLOSED_EVENT,
        subjectId: workspaceId,
        data: {
          workspace_id: workspaceId,
          closed_at: now.toISOString(),
          message:
            'A party you deal with closed their account: what was open between you has ended and no payment will be made.',
          ended: list.map((e) => ({ kind: e.kind, id: e.id, words: e.words })),
        },
      });
    }
    await this.audit.record(
      workspaceId,
      { type: 'system', id: 'lifecycle' },
      'workspace.closed',
      workspaceId,
      {
        ended: ended.map((e) => ({ kind: e.kind, id: e.id })),
      },
    );
    return ended;
  }
}
