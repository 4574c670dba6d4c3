import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { istDate } from '../../src/forex/financial-year';
import { ForexPartnersService } from '../../src/forex/forex-partners.service';
import type { TestApp } from '../support/app';
import { withoutIdentityNumber } from '../support/no-identity-number';
import type { SeededWorkspace } from '../support/seed';

export interface SeededPartner {
  partnerId: string;
  workspaceId: string;
  dealer: { email: string; password: string; personId: string };
}

/** A partner with its own workspace, one dealer and the sandbox rates table. */
export async function registerPartner(
  t: TestApp,
  opts: { serviceFeePaise?: number } = {},
): Promise<SeededPartner> {
  const email = withoutIdentityNumber(() => `dealer-${randomToken(10).toLowerCase()}@partner.test`);
  const password = `pw-${randomToken(16)}`;
  const { partner, dealerPersonId } = await t.get(ForexPartnersService).register(
    {
      name: `Partner ${randomToken(4)}`,
      licenceNumber: `FE.MUM.${randomToken(8)}`,
      serviceFeePaise: opts.serviceFeePaise ?? 50_000,
      dealer: { email, name: 'Dee Dealer', password },
    },
    { type: 'system', id: 'test' },
  );
  return {
    partnerId: partner.id,
    workspaceId: partner.workspaceId,
    dealer: { email, password, personId: dealerPersonId },
  };
}

const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A well-formed PAN nobody else in the run uses: holder type `type` (4th letter). */
export function randomPan(type = 'P'): string {
  const l = () => LETTERS[Math.floor(Math.random() * LETTERS.length)];
  const digits = String(Math.floor(Math.random() * 9000) + 1000);
  return `${l()}${l()}${l()}${type}${l()}${digits}${l()}`;
}

/** A date `days` from the test clock's today, IST. */
export function daysAhead(t: TestApp, days: number): string {
  return istDate(new Date(t.clock.now().getTime() + days * 86_400_000));
}

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n', 'latin1');
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
export const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

/** HTTP helpers for one buyer agent. */
export function forexClient(t: TestApp, credential: string) {
  const auth = { Authorization: `Bearer ${credential}` };
  const post = (path: string, body: object, key: string | null = `k-${randomUUID()}`) =>
    request(t.url)
      .post(path)
      .set(auth)
      .set(key ? { 'Idempotency-Key': key } : {})
      .send(body);
  const get = (path: string) => request(t.url).get(path).set(auth);
  return {
    get,
    post,
    createFile: (body: object, key?: string | null) => post('/v1/pay/forex/orders', body, key),
    quote: (fileId: string, lines: object[], key?: string | null) =>
      post('/v1/pay/forex/quotes', { file_id: fileId, lines }, key),
    upload: (fileId: string, kind: string, bytes: Buffer, contentType = 'application/pdf') =>
      post(`/v1/pay/forex/orders/${fileId}/documents`, {
        kind,
        content_type: contentType,
        content_base64: bytes.toString('base64'),
      }),
    submit: (fileId: string) => post(`/v1/pay/forex/orders/${fileId}/submit`, {}),
    status: (fileId: string) => get(`/v1/pay/forex/orders/${fileId}`),
  };
}

export type ForexClient = ReturnType<typeof forexClient>;

/** A travel file body for the seeded workspace's person. */
export function travelFile(
  t: TestApp,
  ws: SeededWorkspace,
  partnerId: string,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    partner_id: partnerId,
    kind: 'travel',
    purpose_code: 'S0306',
    person_email: ws.email,
    traveller_name: 'Asha Rao',
    destination_country: 'AE',
    departure_date: daysAhead(t, 20),
    return_date: daysAhead(t, 30),
    pan: randomPan(),
    ...over,
  };
}

/** A travel file with its passport and visa, quoted: ready to submit. */
export async function readyTravelFile(
  t: TestApp,
  ws: SeededWorkspace,
  partnerId: string,
  lines: object[] = [{ currency: 'USD', amount: '1000', product: 'card' }],
  over: Record<string, unknown> = {},
): Promise<{ fileId: string; fx: ForexClient; quote: Record<string, unknown> }> {
  const fx = forexClient(t, ws.buyer.credential);
  const created = await fx.createFile(travelFile(t, ws, partnerId, over));
  if (created.status !== 201) {
    throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const fileId = created.body.id as string;
  for (const kind of ['passport', 'visa']) {
    const up = await fx.upload(fileId, kind, PDF);
    if (up.status !== 201) {
      throw new Error(`upload failed: ${up.status} ${JSON.stringify(up.body)}`);
    }
  }
  const q = await fx.quote(fileId, lines);
  if (q.status !== 201) {
    throw new Error(`quote failed: ${q.status} ${JSON.stringify(q.body)}`);
  }
  return { fileId, fx, quote: q.body as Record<string, unknown> };
}
