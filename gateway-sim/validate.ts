import { badRequest } from './errors';

/** Small readers for request bodies; each throws the gateway's 400 naming the field. */

/** Upper bound for amounts: keeps amount × 18 (tax maths) far below 2^53. */
export const MAX_AMOUNT = 10_000_000_000_000;

export type Body = Record<string, unknown>;

export function asBody(value: unknown): Body {
  if (value === undefined || value === null) {
    return {};
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The request body must be a JSON object');
  }
  return value as Body;
}

export function int(body: Body, field: string, opts: { min: number; max?: number }): number {
  const v = body[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw badRequest(`The ${field} must be an integer (paise)`, field);
  }
  const max = opts.max ?? MAX_AMOUNT;
  if (v < opts.min || v > max) {
    throw badRequest(`The ${field} must be between ${opts.min} and ${max}`, field);
  }
  return v;
}

export function optInt(
  body: Body,
  field: string,
  opts: { min: number; max?: number },
): number | undefined {
  return body[field] === undefined || body[field] === null ? undefined : int(body, field, opts);
}

export function str(body: Body, field: string, opts: { max: number; min?: number }): string {
  const v = body[field];
  if (typeof v !== 'string' || v.length < (opts.min ?? 1)) {
    throw badRequest(`The ${field} field is required`, field);
  }
  if (v.length > opts.max) {
    throw badRequest(`The ${field} may not be greater than ${opts.max} characters`, field);
  }
  return v;
}

export function optStr(body: Body, field: string, opts: { max: number }): string | undefined {
  return body[field] === undefined || body[field] === null ? undefined : str(body, field, opts);
}

export function currency(body: Body): 'INR' {
  if (body.currency !== 'INR') {
    throw badRequest('The currency must be INR', 'currency');
  }
  return 'INR';
}

/** Notes: at most 15 string (or number) values of ≤ 256 characters, as the real gateway allows. */
export function notes(body: Body): Record<string, string> {
  const v = body.notes;
  if (v === undefined || v === null) {
    return {};
  }
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw badRequest('The notes field must be an object', 'notes');
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 15) {
    throw badRequest('The notes may have at most 15 keys', 'notes');
  }
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if ((typeof val !== 'string' && typeof val !== 'number') || String(val).length > 256) {
      throw badRequest(`The notes.${k} value must be a string of at most 256 characters`, 'notes');
    }
    out[k] = String(val);
  }
  return out;
}

/** `handle@psp` (DOMAIN.md A.9's community pattern); the simulator's own VPAs fit it. */
export function optVpa(body: Body, field = 'vpa'): string | undefined {
  const v = optStr(body, field, { max: 320 });
  if (v !== undefined && !/^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z][a-zA-Z]{2,64}$/.test(v)) {
    throw badRequest('The vpa is not a valid UPI id', field);
  }
  return v;
}

export function oneOf<T extends string>(body: Body, field: string, values: readonly T[]): T {
  const v = body[field];
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw badRequest(`The ${field} must be one of: ${values.join(', ')}`, field);
  }
  return v as T;
}
