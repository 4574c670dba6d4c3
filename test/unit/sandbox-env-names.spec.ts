import type { SandboxResult } from '../../src/sandbox/sandbox.service';
import { formatEnvFile, keepFromEnv, OLD_NAMES, parseEnvFile } from '../../src/sandbox/sandbox-env';

/** The env file names each credential by role; the old names follow for one release (docs/credentials.md). */
describe('sandbox env file: credentials named by role', () => {
  const result = {
    base_url: 'http://localhost:3000',
    app_url: 'http://localhost:3000/app',
    workspace_id: 'ws_1',
    api_key: 'sk_test_a',
    person: { email: 'p@example.com', password: 'pw' },
    seller: { agent_id: 'agt_s', credential: 'agc_s' },
    buyer: { agent_id: 'agt_b', credential: 'agc_b' },
    merchant_protocol_key: 'acpk_m',
    buyer_protocol_key: 'acpk_b',
    mandate_id: 'mdt_1',
    offers: [
      { sku: 'sku_a', name: 'A', unit_paise: 45_000 },
      { sku: 'sku_b', name: 'B', unit_paise: 350_000 },
    ],
    forex: {
      partner_id: 'fxp_1',
      partner_name: 'P',
      licence_number: 'L',
      dealer: { email: 'd@example.com', password: 'dpw' },
    },
    operator: { email: 'o@example.com', password: 'opw', sign_in_url: 'x' },
  } as unknown as SandboxResult;

  it('writes the role names and the old names with the same values', () => {
    const vars = parseEnvFile(formatEnvFile(result));
    expect(vars).toMatchObject({
      API_KEY: 'sk_test_a',
      SELLER_AGENT_CREDENTIAL: 'agc_s',
      BUYER_AGENT_CREDENTIAL: 'agc_b',
      MERCHANT_PROTOCOL_KEY: 'acpk_m',
      BUYER_PROTOCOL_KEY: 'acpk_b',
    });
    for (const [name, old] of Object.entries(OLD_NAMES)) {
      expect(vars[old]).toBe(vars[name]);
    }
  });

  it('keeps the credentials of a file with the new names, or with only the old ones', () => {
    const fromNew = keepFromEnv(parseEnvFile(formatEnvFile(result)));
    const fromOld = keepFromEnv({
      API_KEY: 'sk_test_a',
      MK: 'acpk_m',
      BK: 'acpk_b',
      SELLER_CRED: 'agc_s',
      BUYER_CRED: 'agc_b',
    });
    for (const keep of [fromNew, fromOld]) {
      expect(keep).toMatchObject({
        seller_credential: 'agc_s',
        buyer_credential: 'agc_b',
        merchant_protocol_key: 'acpk_m',
        buyer_protocol_key: 'acpk_b',
      });
    }
  });
});
