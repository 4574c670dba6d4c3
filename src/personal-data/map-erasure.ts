import type { EntityManager } from 'typeorm';

import type { PersonalRowStore, PersonScope, StoredColumnType } from '../database/personal-rows';
import { DATA_MAP, MappedTable, PersonalColumn, walkedColumns } from './data-map';
import type { IdentifierMatcher } from './identifiers';
import { ROW_STORES } from './row-stores';

/**
 * Erasure driven by the map (docs/personal-data.md "How erasure finds the person"): for every
 * table with a `replace`, `clear` or `matching` column, the owner's store reads the rows in the
 * person's scope, the person's identifiers are found in code (normalised: IdentifierMatcher), and
 * only changed columns are written back. Adding a personal column to the map is what makes
 * erasure cover it.
 */

/**
 * Tables in the lock order of docs/architecture.md "Lock order" (sources, token, buyer agent,
 * mandate, intent, approval), then the rest by name; a deadlock with a payment is retried by Tx.
 */
const FIRST = [
  'checkout_sessions',
  'quotes',
  'recurring_charges',
  'delegated_tokens',
  'agents',
  'mandates',
  'mandate_amendments',
  'payment_intents',
  'refunds',
  'approvals',
];

export function walkOrder(): MappedTable[] {
  const rank = (t: string) => (FIRST.includes(t) ? FIRST.indexOf(t) : FIRST.length);
  return DATA_MAP.filter((t) => walkedColumns(t).length > 0).sort(
    (a, b) => rank(a.table) - rank(b.table) || a.table.localeCompare(b.table),
  );
}

export function storeOf(table: string): PersonalRowStore {
  const store = ROW_STORES[table];
  if (!store) {
    throw new Error(`personal-data map: ${table} has walked columns but no store in row-stores.ts`);
  }
  return store;
}

function holds(matcher: IdentifierMatcher, type: StoredColumnType, v: unknown): boolean {
  if (v === null || v === undefined) {
    return false;
  }
  if (type === 'text') {
    return typeof v === 'string' && matcher.matches(v);
  }
  return type === 'bytea' ? false : matcher.matchesJson(v);
}

function redacted(matcher: IdentifierMatcher, type: StoredColumnType, v: unknown): unknown {
  if (v === null || v === undefined || type === 'bytea') {
    return v;
  }
  if (type === 'text') {
    return typeof v === 'string' ? redactText(matcher, v) : v;
  }
  return matcher.redactJson(v);
}

/**
 * A text column holding JSON (a stored idempotency answer) is redacted as JSON, so the answer a
 * retry replays stays valid JSON; any other text as text.
 */
function redactText(matcher: IdentifierMatcher, v: string): string {
  if (/^\s*[[{]/.test(v)) {
    try {
      const parsed: unknown = JSON.parse(v);
      const out = matcher.redactJson(parsed);
      return JSON.stringify(out) === JSON.stringify(parsed) ? v : JSON.stringify(out);
    } catch {
      // Not JSON after all: redacted as text below.
    }
  }
  return matcher.redact(v);
}

export interface WalkCount {
  table: string;
  redacted: number;
  deleted: number;
}

/** Walks the map for one person; returns per table how many rows changed or went. */
export async function eraseByMap(
  m: EntityManager,
  scope: PersonScope,
  matcher: IdentifierMatcher,
): Promise<WalkCount[]> {
  const counts: WalkCount[] = [];
  if (matcher.empty) {
    return counts;
  }
  for (const t of walkOrder()) {
    const cols = walkedColumns(t);
    const store = storeOf(t.table);
    const rows = await store.read(
      m,
      scope,
      cols.map((c) => c.column),
    );
    const count = { table: t.table, redacted: 0, deleted: 0 };
    const by = (pred: (c: PersonalColumn) => boolean) => cols.filter(pred);
    const deleting = by((c) => c.erasure.action === 'delete');
    const clearing = by((c) => c.erasure.action === 'redact' && c.erasure.how === 'clear');
    const replacing = by((c) => c.erasure.action === 'redact' && c.erasure.how === 'replace');
    for (const row of rows) {
      const hit = (c: PersonalColumn) => holds(matcher, c.type, row.values[c.column]);
      if (deleting.some(hit)) {
        await store.remove(m, row.key);
        count.deleted++;
        continue;
      }
      const changes: { column: string; type: StoredColumnType; value: unknown }[] = [];
      // The contact columns of a row go together: one of them naming the person makes them all theirs.
      if (clearing.some(hit)) {
        for (const c of clearing.filter((x) => row.values[x.column] !== null)) {
          changes.push({ column: c.column, type: c.type, value: null });
        }
      }
      for (const c of replacing) {
        const before = row.values[c.column];
        const after = redacted(matcher, c.type, before);
        if (JSON.stringify(after) !== JSON.stringify(before)) {
          changes.push({ column: c.column, type: c.type, value: after });
        }
      }
      if (changes.length > 0) {
        await store.write(m, row.key, changes);
        count.redacted++;
      }
    }
    counts.push(count);
  }
  return counts;
}
