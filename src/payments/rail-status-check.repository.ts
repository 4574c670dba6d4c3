import { Injectable } from '@nestjs/common';

import { sql, SqlFragment, SqlOperand } from '../database/fragment';
import { Tx } from '../database/tx';

/** One AutoPay debit's status checks (table rail_status_checks; this file is its owner). */
export interface StatusCheckRow {
  intent_id: string;
  checks: number;
  last_asked_at: Date;
  next_ask_at: Date;
  left_at: Date | null;
}

/**
 * SQL parts (fragments) for the owner of payment_intents: `notPaced(intentId, now)` is true for an intent that
 * may be asked about now (no row: not paced; or a row whose next check is due and whose checks
 * have not run out).
 */
export const statusCheckParts = {
  notPaced: (intentId: SqlOperand, now: SqlOperand): SqlFragment =>
    sql`NOT EXISTS (SELECT 1 FROM rail_status_checks sc WHERE sc.intent_id = ${intentId}
                   AND (sc.left_at IS NOT NULL OR sc.next_ask_at > ${now}))`,
};

/**
 * The status checks of AutoPay debits whose outcome is unknown (src/payments/status-check-pacing.ts).
 * Every write is one statement whose WHERE enforces the limits, so two instances (or the Bull job
 * and the sweep) can never make a fourth check or two checks within the spacing.
 */
@Injectable()
export class RailStatusCheckRepository {
  constructor(private readonly tx: Tx) {}

  async find(intentId: string): Promise<StatusCheckRow | null> {
    const [row] = await this.tx.manager.query<StatusCheckRow[]>(
      `SELECT intent_id, checks, last_asked_at, next_ask_at, left_at
         FROM rail_status_checks WHERE intent_id = $1`,
      [intentId],
    );
    return row ?? null;
  }

  /** The debit was asked at `at` with no definite answer: the first check waits for `nextAskAt`. */
  async recordDebit(intentId: string, at: Date, nextAskAt: Date): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO rail_status_checks (intent_id, checks, last_asked_at, next_ask_at, created_at)
       VALUES ($1, 0, $2, $3, $2)
       ON CONFLICT (intent_id) DO UPDATE SET last_asked_at = EXCLUDED.last_asked_at,
         next_ask_at = EXCLUDED.next_ask_at
       WHERE rail_status_checks.left_at IS NULL`,
      [intentId, at, nextAskAt],
    );
  }

  /**
   * Takes the next check if one is left and it is due: returns its number (1…max), or null when
   * none may be made now. `nextAskAt` is when the one after it may go out.
   */
  async takeCheck(
    intentId: string,
    at: Date,
    nextAskAt: Date,
    maxChecks: number,
  ): Promise<number | null> {
    // An INSERT … RETURNING answers its rows (an UPDATE would answer [rows, count]).
    const rows = await this.tx.manager.query<{ checks: number }[]>(
      `INSERT INTO rail_status_checks (intent_id, checks, last_asked_at, next_ask_at, created_at)
       VALUES ($1, 1, $2, $3, $2)
       ON CONFLICT (intent_id) DO UPDATE SET checks = rail_status_checks.checks + 1,
         last_asked_at = EXCLUDED.last_asked_at, next_ask_at = EXCLUDED.next_ask_at
       WHERE rail_status_checks.left_at IS NULL AND rail_status_checks.checks < $4
         AND rail_status_checks.next_ask_at <= $2
       RETURNING checks`,
      [intentId, at, nextAskAt, maxChecks],
    );
    return rows[0]?.checks ?? null;
  }

  /** The checks ran out: left to the daily settlement reconciliation (once). */
  async markLeft(intentId: string, at: Date): Promise<boolean> {
    const [rows] = await this.tx.manager.query<[unknown[], number]>(
      `UPDATE rail_status_checks SET left_at = $2 WHERE intent_id = $1 AND left_at IS NULL
       RETURNING intent_id`,
      [intentId, at],
    );
    return rows.length > 0;
  }

  /** Operators: debits left to the daily reconciliation, newest first. */
  async left(limit: number): Promise<StatusCheckRow[]> {
    return this.tx.manager.query<StatusCheckRow[]>(
      `SELECT intent_id, checks, last_asked_at, next_ask_at, left_at FROM rail_status_checks
        WHERE left_at IS NOT NULL ORDER BY left_at DESC LIMIT $1`,
      [limit],
    );
  }
}
