import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const IDEMPOTENCY_KEY = 'Idempotency-Key';

function isParameter(p: ParameterObject | ReferenceObject): p is ParameterObject {
  return !('$ref' in p);
}

/**
 * Contract-wide rules the decorators cannot express per route:
 * - every operation states `security`; public routes say `security: []` explicitly;
 * - header parameters are unique case-insensitively (a handler reading `@Headers('idempotency-key')`
 *   adds a second, lower-case copy of the one `Idempotency-Key` the Idempotent() decorator documents);
 * - `Idempotency-Key` is required on every /acp POST (the service answers 400
 *   idempotency_key_required without it, docs/acp.md §2) and on the /v1 operations marked
 *   `x-idempotency-key-required` (forex file and quote creation, src/forex/forex-http.ts; the
 *   marker is removed here), optional on the rest of /v1.
 */
export function finaliseOperations(doc: OpenAPIObject): void {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op: OperationObject | undefined = item[method];
      if (!op) {
        continue;
      }
      op.security ??= [];
      const ext = op as OperationObject & { 'x-idempotency-key-required'?: boolean };
      const keyRequired = ext['x-idempotency-key-required'] === true;
      delete ext['x-idempotency-key-required'];
      // Keep one header per name, preferring the documented copy (the one with a description).
      const keep = new Map<string, ParameterObject>();
      for (const p of op.parameters ?? []) {
        if (isParameter(p) && p.in === 'header') {
          const key = p.name.toLowerCase();
          const held = keep.get(key);
          if (!held || (!held.description && p.description)) {
            keep.set(key, p);
          }
        }
      }
      op.parameters = (op.parameters ?? []).filter(
        (p) => !isParameter(p) || p.in !== 'header' || keep.get(p.name.toLowerCase()) === p,
      );
      for (const p of op.parameters) {
        if (!isParameter(p) || p.in !== 'header') {
          continue;
        }
        if (p.name.toLowerCase() === IDEMPOTENCY_KEY.toLowerCase()) {
          p.name = IDEMPOTENCY_KEY;
          p.required = keyRequired || (method === 'post' && path.startsWith('/acp'));
          p.schema = { type: 'string', minLength: 1, maxLength: 255 };
        }
      }
    }
  }
}
