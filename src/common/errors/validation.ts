import { ValidationError } from 'class-validator';

import { AppError } from './app-error';

/**
 * One member step of an RFC 9535 JSONPath: `.name` for plain names, otherwise a single-quoted
 * bracket selector with the RFC's escapes (control characters and lone surrogates as \uXXXX).
 */
export function jsonPathMember(base: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
    return `${base}.${key}`;
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  const escaped = key.replace(/[\\'\u0000-\u001f\u007f\ud800-\udfff]/g, (c) =>
    c === '\\' || c === "'" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${base}['${escaped}']`;
}

/** Builds an RFC 9535 JSONPath such as $.line_items[0].id from class-validator's property chain. */
function pathOf(parents: (string | number)[]): string {
  return parents.reduce<string>(
    (acc, p) =>
      typeof p === 'number' || /^\d+$/.test(String(p)) ? `${acc}[${p}]` : jsonPathMember(acc, p),
    '$',
  );
}

function firstLeaf(
  errors: ValidationError[],
  parents: (string | number)[],
): { path: string; message: string; unknown: boolean } | null {
  for (const e of errors) {
    const here = [...parents, e.property];
    if (e.constraints && Object.keys(e.constraints).length > 0) {
      const [key, message] = Object.entries(e.constraints)[0];
      const unknown = key === 'whitelistValidation';
      return {
        path: pathOf(here),
        message: unknown ? `Unknown field ${pathOf(here)}` : `${pathOf(here)}: ${message}`,
        unknown,
      };
    }
    if (e.children && e.children.length > 0) {
      const leaf = firstLeaf(e.children, here);
      if (leaf) {
        return leaf;
      }
    }
  }
  return null;
}

/**
 * A request refused by the global ValidationPipe (docs/acp.md §1 step 6). The idempotency
 * interceptor does not store it against the key: the handler never started, and the caller is
 * expected to fix the body and retry with the same key (Stripe's rule: results are saved only once
 * an endpoint has started executing).
 */
export class RequestValidationError extends AppError {}

/** exceptionFactory for the global ValidationPipe: the first failing field, as a JSONPath. */
export function validationErrorFactory(errors: ValidationError[]): AppError {
  const leaf = firstLeaf(errors, []);
  if (!leaf) {
    return new RequestValidationError(400, 'invalid_request', 'invalid', 'Request body is invalid');
  }
  const isMissing = /should not be (null or )?undefined|must be defined|should not be empty/.test(
    leaf.message,
  );
  return new RequestValidationError(
    400,
    'invalid_request',
    isMissing ? 'missing' : 'invalid',
    leaf.message,
    leaf.path,
  );
}
