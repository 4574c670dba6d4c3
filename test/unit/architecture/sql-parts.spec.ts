import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { accountParts } from '../../../src/accounts/accounts.repository';
import { agentParts } from '../../../src/accounts/agent.repository';
import { approvalParts } from '../../../src/approvals/approval.repository';
import { checkoutParts } from '../../../src/checkout/checkout-session.repository';
import { sql, SqlFragment } from '../../../src/database/fragment';
import { tokenParts } from '../../../src/delegate-payment/delegated-token.repository';
import { captureRefundParts } from '../../../src/gateway/capture-refund.repository';
import { mandateParts } from '../../../src/mandates/mandate.repository';
import { outboxParts } from '../../../src/outbox/outbox.repository';
import { intentParts } from '../../../src/payments/payment-intent.repository';
import { statusCheckParts } from '../../../src/payments/rail-status-check.repository';
import { protocolKeyParts } from '../../../src/protocol-keys/protocol-key.repository';
import { gatewayParts } from '../../../src/rails/gateway/gateway.repository';
import { offerParts } from '../../../src/seller/seller.repository';
import { ucpOrderWebhookParts } from '../../../src/ucp/orders/ucp-order.repository';
import { deliveryParts } from '../../../src/webhooks/webhook-delivery.repository';
import { endpointParts } from '../../../src/webhooks/webhook-endpoint.repository';
import { tsFilesUnder } from '../../support/source-files';

/**
 * SQL parts are fragments (docs/architecture.md "Table owners"): every member of every `*Parts`
 * object takes no string and returns a `SqlFragment`, so an owner's part can neither be handed SQL
 * text nor hand back text a caller splices. Checked by the compiler (`Checked` below: a member
 * returning `string`, or taking a parameter a string may be passed to, fails typecheck) and at run
 * time; and every `*Parts` object in src/ must be listed here.
 */
type Part<F> = F extends (...args: infer A) => infer R
  ? [R] extends [SqlFragment]
    ? string extends A[number]
      ? never
      : F
    : never
  : never;
type Checked<O> = { [K in keyof O]: Part<O[K]> };
function checked<O>(parts: O & Checked<O>): O {
  return parts;
}

const PARTS: Record<string, Record<string, (...args: never[]) => unknown>> = {
  accountParts: checked(accountParts),
  agentParts: checked(agentParts),
  approvalParts: checked(approvalParts),
  captureRefundParts: checked(captureRefundParts),
  checkoutParts: checked(checkoutParts),
  deliveryParts: checked(deliveryParts),
  endpointParts: checked(endpointParts),
  gatewayParts: checked(gatewayParts),
  intentParts: checked(intentParts),
  mandateParts: checked(mandateParts),
  offerParts: checked(offerParts),
  outboxParts: checked(outboxParts),
  protocolKeyParts: checked(protocolKeyParts),
  statusCheckParts: checked(statusCheckParts),
  tokenParts: checked(tokenParts),
  ucpOrderWebhookParts: checked(ucpOrderWebhookParts),
};

const ROOT = join(__dirname, '..', '..', '..');

describe('SQL parts are fragments', () => {
  it('lists every *Parts object in src/', () => {
    const found = tsFilesUnder(join(ROOT, 'src')).flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/export const (\w+Parts)\s*=/g)].map(
        (m) => `${m[1]} (${relative(ROOT, path)})`,
      ),
    );
    expect(found.map((f) => f.split(' ')[0]).sort()).toEqual(Object.keys(PARTS).sort());
  });

  it.each(Object.entries(PARTS))('%s returns fragments', (_, parts) => {
    for (const [name, part] of Object.entries(parts)) {
      const args = Array.from({ length: part.length }, () => sql`x`) as never[];
      expect([name, part(...args) instanceof SqlFragment]).toEqual([name, true]);
    }
  });

  it('a string-returning or text-taking part does not typecheck', () => {
    // Type-only: never run.
    const typeOnly = () => {
      // @ts-expect-error a part returning text
      checked({ nameOf: (id: string) => `(SELECT name FROM agents WHERE id = ${id})` });
      // @ts-expect-error a part taking text
      checked({ nameOf: (id: string | SqlFragment) => sql`(SELECT 1 WHERE ${id})` });
      checked({ nameOf: (id: SqlFragment) => sql`(SELECT 1 WHERE ${id})` });
    };
    expect(typeof typeOnly).toBe('function');
  });
});
