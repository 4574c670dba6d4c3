/**
 * The forex file's states and moves (docs/forex.md "Forex files", docs/architecture.md "State machines"):
 *
 *   draft ──quote──▶ quoted ──quote──▶ quoted
 *   quoted ──submit (agent; checklist complete, rate lock live)──▶ awaiting_declaration
 *   awaiting_declaration ──declare (the file's person, in the app)──▶ submitted
 *   awaiting_declaration ──declaration window passes──▶ expired            (derived, then written)
 *   submitted ──book (dealer, deal reference, at the locked rate)──▶ booked
 *   submitted ──return (dealer, with a note)──▶ returned ──quote──▶ quoted  (fix, re-quote, resubmit)
 *   submitted ──reject (dealer, with a note)──▶ rejected
 *
 * booked, rejected and expired are final. Documents may be added while the file is draft, quoted
 * or returned. Every move is taken under the file's row lock and appended to its receipt.
 */
export const FILE_STATUSES = [
  'draft',
  'quoted',
  'awaiting_declaration',
  'submitted',
  'booked',
  'returned',
  'rejected',
  'expired',
] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export type FileMove = 'quote' | 'submit' | 'declare' | 'expire' | 'book' | 'return' | 'reject';

export const FILE_MOVES: Record<FileMove, { from: readonly FileStatus[]; to: FileStatus }> = {
  quote: { from: ['draft', 'quoted', 'returned'], to: 'quoted' },
  submit: { from: ['quoted'], to: 'awaiting_declaration' },
  declare: { from: ['awaiting_declaration'], to: 'submitted' },
  expire: { from: ['awaiting_declaration'], to: 'expired' },
  book: { from: ['submitted'], to: 'booked' },
  return: { from: ['submitted'], to: 'returned' },
  reject: { from: ['submitted'], to: 'rejected' },
};

export const FINAL_STATUSES: readonly FileStatus[] = ['booked', 'rejected', 'expired'];

/** States in which documents may be added (before submission, or after a return). */
export const EDITABLE_STATUSES: readonly FileStatus[] = ['draft', 'quoted', 'returned'];

/** States whose amounts count towards the person's LRS and TCS totals for the year. */
export const COMMITTED_STATUSES: readonly FileStatus[] = [
  'awaiting_declaration',
  'submitted',
  'booked',
];

export function canMove(from: FileStatus, move: FileMove): boolean {
  return FILE_MOVES[move].from.includes(from);
}

/** The person has this long after the agent submits to confirm the declaration in the app. */
export const DECLARATION_WINDOW_MS = 24 * 3600_000;

/** The rate lock of a quote (spec §8): submit before it lapses or request a fresh quote. */
export const RATE_LOCK_MS = 15 * 60_000;

/** A file waiting for its declaration past the window reads expired before the sweep writes it. */
export function effectiveFileStatus(
  f: { status: FileStatus; declarationDueAt: Date | null },
  now: Date,
): FileStatus {
  if (
    f.status === 'awaiting_declaration' &&
    f.declarationDueAt !== null &&
    now.getTime() >= f.declarationDueAt.getTime()
  ) {
    return 'expired';
  }
  return f.status;
}

export const STATUS_LABELS: Record<FileStatus, string> = {
  draft: 'Draft',
  quoted: 'Quoted',
  awaiting_declaration: 'Waiting for the declaration',
  submitted: 'With the dealer',
  booked: 'Booked',
  returned: 'Returned by the dealer',
  rejected: 'Rejected',
  expired: 'Expired',
};
