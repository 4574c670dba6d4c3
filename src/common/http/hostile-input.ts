import type { NextFunction, Request, Response } from 'express';

import { AppError } from '../errors/app-error';
import { jsonPathMember, RequestValidationError } from '../errors/validation';
import { firstFinding, WalkFrame, walkPath } from './body-walk';
import { fullPathOf } from './content-type';

/**
 * Input every route refuses before any guard, pipe or handler runs (docs/security.md "Input limits"):
 * bodies nested deeper than MAX_BODY_DEPTH, numbers that are not finite or lie beyond ±(2^53 − 1),
 * NUL characters and lone UTF-16 surrogates in any string or key (Postgres refuses the first in
 * text and the second in jsonb), and keys named like an Object.prototype member (`__proto__`,
 * `constructor`, `toString`, …), which are refused like any unknown field. The same string rules
 * apply to the path, the query string, cookies and the headers we read.
 *
 * The refusals are RequestValidationErrors: like the ValidationPipe's, they are never stored
 * against an Idempotency-Key, and nothing is written.
 */

/** Containers (objects and arrays) nested in one body, the body itself counting as level 1. */
export const MAX_BODY_DEPTH = 32;
/** The largest magnitude a number may have anywhere in a body: 2^53 − 1. */
export const MAX_SAFE_NUMBER = Number.MAX_SAFE_INTEGER;

/** Every Object.prototype member name (__proto__, constructor, hasOwnProperty, toString, …) and `prototype`. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
]);

/** Request headers a handler or guard reads; other headers never reach our code or storage. */
const READ_HEADERS = [
  'Idempotency-Key',
  'Authorization',
  'API-Version',
  'Request-Id',
  'Signature',
  'Timestamp',
  'Accept-Language',
  'User-Agent',
];

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL_IN_PATH = /[\u0001-\u001f\u007f]/;
/** HTAB is legal in a header value; every other control character is refused. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL_IN_HEADER = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuse(param: string | undefined, message: string): AppError {
  return new RequestValidationError(400, 'invalid_request', 'invalid', message, param);
}

/** What is wrong with a string, or null. */
export function badStringReason(s: string): string | null {
  if (s.includes('\u0000')) {
    return 'contains a NUL character (\\u0000)';
  }
  if (LONE_SURROGATE.test(s)) {
    return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  }
  return null;
}

export function isSafeNumber(n: number): boolean {
  return Number.isFinite(n) && Math.abs(n) <= MAX_SAFE_NUMBER;
}

/** What is wrong with one scalar (string, number, bigint), or null; the path is built only then. */
function scalarRefusal(
  v: unknown,
  root: string,
  frame: WalkFrame | null,
  member?: string | number,
): AppError | null {
  let problem: ((path: string) => string) | null = null;
  if (typeof v === 'string') {
    const reason = badStringReason(v);
    if (reason) {
      problem = (path) => `${path} ${reason}`;
    }
  } else if (typeof v === 'number') {
    if (!isSafeNumber(v)) {
      problem = (path) =>
        `${path}: numbers must be finite and between -${MAX_SAFE_NUMBER} and ${MAX_SAFE_NUMBER}`;
    }
  } else if (typeof v === 'bigint') {
    problem = (path) => `${path}: number out of range`;
  }
  if (problem === null) {
    return null;
  }
  const path = walkPath(root, frame, member);
  return refuse(path, problem(path));
}

/**
 * Walks a parsed value (firstFinding, body-walk.ts: no recursion, document order, an object's keys
 * before its values) and returns the first refusal, naming the field as an RFC 9535 JSONPath under
 * `root`. Linear and allocation-free per scalar, so a body of millions of small members (a 6.7 MB
 * document upload) is walked in milliseconds.
 */
export function findHostileValue(
  value: unknown,
  root = '$',
  maxDepth = MAX_BODY_DEPTH,
): AppError | null {
  if (value === null || typeof value !== 'object') {
    return scalarRefusal(value, root, null);
  }
  return firstFinding<AppError>(value, {
    enter: (frame) => {
      if (frame.level > maxDepth) {
        const path = walkPath(root, frame);
        return refuse(path, `${path}: the body nests deeper than ${maxDepth} levels`);
      }
      for (const key of frame.keys ?? []) {
        if (PROTOTYPE_KEYS.has(key)) {
          const path = walkPath(root, frame, key);
          return refuse(path, `Unknown field ${path}`);
        }
        const reason = badStringReason(key);
        if (reason) {
          const path = walkPath(root, frame, key);
          return refuse(path, `The key of ${path} ${reason}`);
        }
      }
      return null;
    },
    scalar: (child, frame, member) => scalarRefusal(child, root, frame, member),
  });
}

/**
 * Depth check on the raw UTF-8 text, before JSON.parse sees it: a single pass, no recursion, no
 * allocation per level beyond a small frame. Returns the JSONPath of the first container that lies
 * deeper than maxDepth, or null. Malformed JSON is left to the parser.
 */
export function tooDeepPathInJsonText(buf: Buffer, maxDepth = MAX_BODY_DEPTH): string | null {
  interface Frame {
    array: boolean;
    index: number;
    keyStart: number;
    keyEnd: number;
    expectKey: boolean;
  }
  const frames: Frame[] = [];
  let inString = false;
  let escaped = false;
  let stringStart = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c === 0x5c) {
        escaped = true;
      } else if (c === 0x22) {
        inString = false;
        const top = frames[frames.length - 1];
        if (top && !top.array && top.expectKey) {
          top.keyStart = stringStart;
          top.keyEnd = i + 1;
        }
      }
      continue;
    }
    switch (c) {
      case 0x22:
        inString = true;
        stringStart = i;
        break;
      case 0x7b:
      case 0x5b:
        if (frames.length >= maxDepth) {
          return framesPath(buf, frames);
        }
        frames.push({
          array: c === 0x5b,
          index: 0,
          keyStart: -1,
          keyEnd: -1,
          expectKey: c === 0x7b,
        });
        break;
      case 0x7d:
      case 0x5d:
        frames.pop();
        break;
      case 0x2c: {
        const top = frames[frames.length - 1];
        if (top?.array) {
          top.index++;
        } else if (top) {
          top.expectKey = true;
        }
        break;
      }
      case 0x3a: {
        const top = frames[frames.length - 1];
        if (top) {
          top.expectKey = false;
        }
        break;
      }
      default:
        break;
    }
  }
  return null;
}

function framesPath(
  buf: Buffer,
  frames: { array: boolean; index: number; keyStart: number; keyEnd: number }[],
): string {
  let path = '$';
  for (const f of frames) {
    if (f.array) {
      path = `${path}[${f.index}]`;
    } else {
      let key = '';
      try {
        key = JSON.parse(buf.toString('utf8', f.keyStart, f.keyEnd)) as string;
      } catch {
        key = buf.toString('utf8', f.keyStart + 1, Math.max(f.keyStart + 1, f.keyEnd - 1));
      }
      path = jsonPathMember(path, String(key));
    }
  }
  return path;
}

/** For express.json's verify hook: throws before the parser runs on a body nested too deep. */
export function refuseDeepJsonText(buf: Buffer, encoding: string | null): void {
  const enc = (encoding ?? 'utf-8').toLowerCase();
  if (enc !== 'utf-8' && enc !== 'utf8') {
    // Other charsets are decoded by the parser; the parsed-value walk still checks the depth,
    // and V8's JSON.parse is iterative.
    return;
  }
  const path = tooDeepPathInJsonText(buf);
  if (path !== null) {
    throw refuse(path, `${path}: the body nests deeper than ${MAX_BODY_DEPTH} levels`);
  }
}

/**
 * For express.urlencoded's verify hook. The form parser (qs, allowPrototypes: false) silently drops
 * fields named like Object.prototype members, so they are refused here, on the raw text, like any
 * unknown field; NUL in a field name is refused too (values are checked after parsing).
 */
export function refuseHostileFormText(buf: Buffer): void {
  for (const key of new URLSearchParams(buf.toString('utf8')).keys()) {
    const path = jsonPathMember('$', key);
    if (PROTOTYPE_KEYS.has(key)) {
      throw refuse(path, `Unknown field ${path}`);
    }
    const reason = badStringReason(key);
    if (reason) {
      throw refuse(path, `The key of ${path} ${reason}`);
    }
  }
}

/** Path, query string, cookies and the headers we read: the same string rules as bodies. */
function findHostileRequestParts(req: Request): AppError | null {
  const rawPath = fullPathOf(req);
  for (const segment of rawPath.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return refuse(undefined, 'The request path is not valid percent-encoded UTF-8');
    }
    const reason =
      badStringReason(decoded) ??
      (CONTROL_IN_PATH.test(decoded) ? 'contains a control character' : null);
    if (reason) {
      return refuse(undefined, `A path segment ${reason}`);
    }
  }
  const query: unknown = req.query;
  if (query && typeof query === 'object') {
    const bad = findHostileValue(query, '$.query', 8);
    if (bad) {
      return bad;
    }
  }
  const cookies: unknown = (req as Request & { cookies?: unknown }).cookies;
  if (cookies && typeof cookies === 'object') {
    for (const [name, value] of Object.entries(cookies)) {
      if (typeof value === 'string' && (badStringReason(value) || badStringReason(name))) {
        return refuse(undefined, 'A cookie contains a NUL character or a lone UTF-16 surrogate');
      }
    }
  }
  for (const name of READ_HEADERS) {
    const value = req.headers[name.toLowerCase()];
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    for (const v of values) {
      // Node's HTTP parser already refuses NUL in headers; other control characters are refused here.
      if (badStringReason(v) || CONTROL_IN_HEADER.test(v)) {
        return refuse(name, `${name} contains a control character`);
      }
    }
  }
  return null;
}

/**
 * Middleware after the body parsers (JSON and urlencoded forms alike) and the cookie parser: the
 * whole request is checked before routing, so no guard, interceptor or handler sees hostile input.
 */
export function refuseHostileInput(req: Request, _res: Response, next: NextFunction): void {
  const parts = findHostileRequestParts(req);
  if (parts) {
    return next(parts);
  }
  const body: unknown = req.body;
  if (body !== undefined && body !== null && typeof body === 'object') {
    const bad = findHostileValue(body);
    if (bad) {
      return next(bad);
    }
  }
  next();
}
