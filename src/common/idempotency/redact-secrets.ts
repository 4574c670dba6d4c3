/** What a stored (and so a replayed) response shows in place of a credential. */
export const SHOWN_ONCE = '[shown once]';

const SECRET_FIELDS = new Set(['secret', 'key', 'credential']);
const SECRET_PREFIXES = ['sk_', 'agc_', 'acpk_', 'whsec_'];

function isSecret(field: string, value: unknown): boolean {
  return (
    SECRET_FIELDS.has(field) &&
    typeof value === 'string' &&
    SECRET_PREFIXES.some((p) => value.startsWith(p))
  );
}

/**
 * A response body as JSON text with every issued credential replaced by SHOWN_ONCE: fields named
 * `secret`, `key` or `credential` whose value starts with sk_ (API key), agc_ (agent
 * credential), acpk_ (protocol key) or whsec_ (webhook signing secret), at any depth. One pass:
 * the replacer sees each value as JSON.stringify writes it (after any toJSON).
 *
 * Why: the idempotency record keeps the response for 24 h so a retry can be answered without
 * running the handler again. Storing the create response verbatim would put the plaintext secret
 * in the database, next to tables that only ever hold its SHA-256. So a secret is shown once, in
 * the original response; a replay of that create returns the redacted body. A caller that lost
 * the original response rotates or re-issues the credential.
 */
export function redactedJson(body: unknown): string {
  return JSON.stringify(body, (field: string, value: unknown) =>
    isSecret(field, value) ? SHOWN_ONCE : value,
  );
}
