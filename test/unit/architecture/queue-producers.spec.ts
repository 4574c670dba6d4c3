import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { JOB_PRESETS, QUEUES } from '../../../src/common/queues/queues';
import { tsFilesUnder } from '../../support/source-files';

/**
 * One producer per queue (docs/architecture.md "Queues"): only a `*.producer.ts` file calls `add`
 * (or `addBulk`) on a Bull queue, each producer injects one queue, each queue has one producer,
 * and a producer takes its job options from a named JOB_PRESETS entry instead of spelling them.
 * Pure source scans of src/.
 */

const ROOT = join(__dirname, '..', '..', '..');
const SRC = join(ROOT, 'src');

/** The producer of each queue that has jobs enqueued. */
const PRODUCERS: Record<string, string> = {
  [QUEUES.approvals]: 'src/approvals/approval-expiry.producer.ts',
  [QUEUES.payments]: 'src/payments/rail-reconcile.producer.ts',
  [QUEUES.recurring]: 'src/recurring/recurring-debit.producer.ts',
  [QUEUES.webhooks]: 'src/webhooks/webhook-delivery.producer.ts',
  settlements: 'src/settlements/settlement-reconcile.producer.ts',
};

/**
 * Queues nobody enqueues on today: maintenance only has its old repeat removed at start-up
 * (IdempotencyCleanup) and its client pinged by the health checks.
 */
const WITHOUT_PRODUCER: readonly string[] = [QUEUES.maintenance];

const files = tsFilesUnder(SRC).map((path) => ({
  path: relative(ROOT, path).split('\\').join('/'),
  text: readFileSync(path, 'utf8'),
}));

/** A file that can reach a Bull queue object: it imports bull or @nestjs/bull. */
function usesBull(text: string): boolean {
  return /from '(bull|@nestjs\/bull)'/.test(text);
}

/** `.add(` / `.addBulk(` on a receiver named like a queue, or anywhere in a file that uses Bull. */
function addsToQueue(text: string): boolean {
  if (/\bqueue\w*\s*\)?\s*\.\s*add(Bulk)?\s*\(/i.test(text)) {
    return true;
  }
  return usesBull(text) && /\.\s*add(Bulk)?\s*\(/.test(text);
}

/** Queue names a producer injects: `@InjectQueue(QUEUES.x)` or `@InjectQueue(SOME_CONST)`. */
function injectedQueues(text: string): string[] {
  return [...text.matchAll(/@InjectQueue\(\s*([\w.]+)\s*\)/g)].map((m) => {
    const ref = m[1];
    if (ref.startsWith('QUEUES.')) {
      return QUEUES[ref.slice('QUEUES.'.length) as keyof typeof QUEUES];
    }
    const constant = new RegExp(`export const ${ref} = '([^']+)'`).exec(text);
    return constant ? constant[1] : ref;
  });
}

describe('queue producers', () => {
  it('the scan sees the files it should (sanity)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(addsToQueue('this.queue.add(JOBS.x, {}, {})')).toBe(true);
    expect(addsToQueue('this.queue\n      .add(JOBS.x, {})')).toBe(true);
    expect(addsToQueue("import type { Queue } from 'bull';\nq.addBulk([])")).toBe(true);
    expect(addsToQueue('this.seen.add(id); this.outbox.add({})')).toBe(false);
  });

  it('no file but a *.producer.ts calls add on a Bull queue', () => {
    const offenders = files
      .filter((f) => !f.path.endsWith('.producer.ts') && addsToQueue(f.text))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('each producer injects exactly one queue, and each queue has one producer', () => {
    const producers = files.filter((f) => f.path.endsWith('.producer.ts'));
    const byQueue: Record<string, string[]> = {};
    for (const p of producers) {
      const queues = injectedQueues(p.text);
      expect({ file: p.path, queues: queues.length }).toEqual({ file: p.path, queues: 1 });
      (byQueue[queues[0]] ??= []).push(p.path);
    }
    expect(byQueue).toEqual(
      Object.fromEntries(Object.entries(PRODUCERS).map(([queue, file]) => [queue, [file]])),
    );
  });

  it('every queue in QUEUES has a producer or is listed as having none', () => {
    const missing = Object.values(QUEUES).filter(
      (q) => !(q in PRODUCERS) && !WITHOUT_PRODUCER.includes(q),
    );
    expect(missing).toEqual([]);
    for (const q of WITHOUT_PRODUCER) {
      expect(PRODUCERS[q]).toBeUndefined();
    }
  });

  it.each(Object.entries(PRODUCERS))(
    'the %s producer takes its options from a named JOB_PRESETS entry',
    (_queue, file) => {
      const text = files.find((f) => f.path === file)?.text ?? '';
      expect(text).toMatch(/\.\.\.JOB_PRESETS\.\w+/);
      // Retry and retention options live in the preset, not in the call.
      expect(text).not.toMatch(/\b(attempts|backoff|removeOnComplete|removeOnFail)\s*:/);
    },
  );

  it('the presets keep the options each job had before it had a producer', () => {
    expect(JOB_PRESETS).toEqual({
      approvalExpiry: {
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: 1000,
      },
      railReconcile: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
      recurringDebit: {
        attempts: 3,
        backoff: { type: 'exponential', delay: 5000 },
        removeOnComplete: true,
        removeOnFail: 100,
      },
      settlementReconcile: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
      webhookAttempt: { attempts: 1, removeOnComplete: true, removeOnFail: true },
    });
  });
});
