import type { NextFunction, Request, Response } from 'express';

import { fullPathOf } from '../http/content-type';
import { IDENTITY_CODES, IDENTITY_MESSAGES, identityRefused } from './identity.errors';
import {
  IdentityKind,
  identityNumberIn,
  identityNumberInPath,
  numberIsAadhaar,
} from './identity-numbers';
import {
  findIdentityNumber,
  hitPath,
  IdentityHit,
  IdentityPolicy,
  jsonPathOf,
  Steps,
} from './identity-walk';

/**
 * Identity numbers are refused at the edge (docs/personal-data.md "Personal data"; DOMAIN.md C.25–27): after
 * the body parsers and the hostile-input check, before routing, so no guard, idempotency record,
 * handler, log line or receipt chain sees them. Checked: the decoded path, every query value and
 * key, every header the service stores or fetches (STORED_HEADERS: Idempotency-Key, stored and
 * logged; UCP-Agent, whose profile URL is fetched and stored), and every string value, object key
 * and 12-digit integer of a JSON or form body. Aadhaar anywhere; a PAN anywhere but where one is
 * expected, named by route and JSON path, never by member name alone (docs/security.md
 * "Identity numbers at the edge"):
 * - `$.pan` of POST /v1/pay/forex/orders (PanDigestGuard replaces it by its keyed hash);
 * - `params.arguments.pan` of an MCP `tools/call` of `create_forex_file` (single or batch);
 * - the key material of the routes that take a public key (KEY_MATERIAL_ROUTES): the top-level
 *   `public_key` when it is a PEM string, and its `x` and `y` when it is a JWK (base64: not
 *   text). A `public_key` anywhere else (`$.metadata.public_key`) is text like any other.
 * The document bytes, `content_base64` of POST /v1/pay/forex/orders/{id}/documents and of the MCP
 * `upload_document` tool, are not text and are not scanned (their file name and type are), nor
 * is a form's top-level `password` (hashed only; see isPassword).
 *
 * The gateway's webhook (http-pipeline.ts RAW_JSON_ROUTES) is left out by the pipeline: its
 * body stays bytes until the signature is checked, and a 4xx would make the gateway retry.
 *
 * On /mcp a refused tool argument is answered as MCP answers any bad argument, a tool result
 * with isError naming the argument (HTTP 200), so agents read it like other tool errors; any
 * other hit in an MCP body (a batch, a non-tool message) is a JSON-RPC -32602 error with HTTP
 * 400. Nothing runs in either case.
 */

const FOREX_FILE_CREATE = /^\/v1\/pay\/forex\/orders\/?$/;
const FOREX_DOCUMENT_UPLOAD = /^\/v1\/pay\/forex\/orders\/[^/]+\/documents\/?$/;
const MCP = /^\/mcp\/?$/;

const SKIP_KEYS: ReadonlySet<string> = new Set(['content_base64', 'password']);

/**
 * A form's `password` (sign-up, sign-in) is a secret that is only ever hashed, never stored,
 * shown or logged: it is not scanned, so nobody whose password happens to look like a number is
 * locked out.
 */
const isPassword = (steps: Steps) => sameSteps(steps, ['password']);

/** JSON-RPC "Invalid params". */
const JSONRPC_INVALID_PARAMS = -32602;

function sameSteps(a: Steps, b: Steps): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** MCP: the message the steps start in, and the steps within it. */
function mcpMessage(body: unknown, steps: Steps): { message: unknown; rest: Steps } {
  if (Array.isArray(body)) {
    return { message: body[steps[0] as number], rest: steps.slice(1) };
  }
  return { message: body, rest: steps };
}

function toolCallOf(message: unknown): string | null {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  if (
    m &&
    typeof m === 'object' &&
    m.method === 'tools/call' &&
    typeof m.params?.name === 'string'
  ) {
    return m.params.name;
  }
  return null;
}

/**
 * The routes whose body carries a public key (the DTOs typed with PUBLIC_KEY_SCHEMA, and the
 * consent page's form): POST, path exact (after the origin, trailing slash allowed).
 */
const KEY_MATERIAL_ROUTES: readonly RegExp[] = [
  /^\/v1\/pay\/protocol-keys\/?$/,
  /^\/v1\/pay\/agents\/?$/,
  /^\/v1\/pay\/agents\/[^/]+\/public-key\/?$/,
  /^\/app\/consent\/protocol-keys\/?$/,
];

/** Within those bodies: a PEM string, or the base64url coordinates of a JWK. */
const KEY_MATERIAL_STEPS: readonly Steps[] = [
  ['public_key'],
  ['public_key', 'x'],
  ['public_key', 'y'],
];

const isKeyMaterial = (steps: Steps) => KEY_MATERIAL_STEPS.some((k) => sameSteps(steps, k));

/** What the request's body may hold (see above). */
function policyFor(req: Request, path: string): IdentityPolicy {
  const base: IdentityPolicy = { skipKeys: SKIP_KEYS, skip: isPassword };
  if (req.method !== 'POST') {
    return base;
  }
  if (KEY_MATERIAL_ROUTES.some((route) => route.test(path))) {
    return { ...base, allowsPan: isKeyMaterial };
  }
  if (FOREX_FILE_CREATE.test(path)) {
    return { ...base, allowsPan: (steps) => sameSteps(steps, ['pan']) };
  }
  if (FOREX_DOCUMENT_UPLOAD.test(path)) {
    return { ...base, skip: (steps) => sameSteps(steps, ['content_base64']) };
  }
  if (MCP.test(path)) {
    const body: unknown = req.body;
    const toolArgument = (steps: Steps, tool: string, name: string) => {
      const { message, rest } = mcpMessage(body, steps);
      return toolCallOf(message) === tool && sameSteps(rest, ['params', 'arguments', name]);
    };
    return {
      skipKeys: SKIP_KEYS,
      skip: (steps) => toolArgument(steps, 'upload_document', 'content_base64'),
      allowsPan: (steps) => toolArgument(steps, 'create_forex_file', 'pan'),
    };
  }
  return base;
}

/** The identity number kind a value (header, path) holds, or null. */
export function identityNumberOf(value: string | undefined): IdentityKind | null {
  return value === undefined ? null : identityNumberIn(value);
}

/**
 * Headers the service stores or fetches: the Idempotency-Key (idempotency records, logs) and
 * UCP-Agent (its profile URL is fetched, and stored for order webhooks: ucp_order_webhooks). The
 * other headers we read are checked against a fixed list (API-Version, Accept-Language), verified
 * and dropped (Authorization, Signature, Timestamp), or replaced when they hold an identity number
 * (Request-Id, request-id.ts); none of those is stored as sent.
 */
export const STORED_HEADERS: readonly string[] = ['Idempotency-Key', 'UCP-Agent'];

/**
 * A header value is read as sent and as a URL path is (identityNumberInPath: whole and segment by
 * segment, each percent-decoded), so a number in a profile URL (`profile="https://a.example/
 * %41BCPE1234F"`) is found however it is written. MCP reads the same profile from
 * `meta["ucp-agent"].profile`, a body member, and refuses it with the same code.
 */
function identityNumberInHeader(value: string | undefined): IdentityKind | null {
  if (value === undefined) {
    return null;
  }
  return identityNumberIn(value) ?? identityNumberInPath(value);
}

function echoableId(id: unknown): boolean {
  if (typeof id === 'number') {
    return Number.isFinite(id) && !numberIsAadhaar(id);
  }
  return typeof id === 'string' && identityNumberIn(id) === null;
}

/** Answers an MCP body holding an identity number; nothing of it runs. */
function answerMcp(res: Response, body: unknown, hit: IdentityHit): void {
  const code = IDENTITY_CODES[hit.kind];
  const message = body as { id?: unknown } | null;
  if (
    !Array.isArray(body) &&
    toolCallOf(body) !== null &&
    hit.steps[0] === 'params' &&
    hit.steps[1] === 'arguments' &&
    hit.steps.length > (hit.inKey ? 3 : 2) &&
    echoableId(message?.id)
  ) {
    const steps = hit.inKey ? hit.steps.slice(2, -1) : hit.steps.slice(2);
    const field = jsonPathOf('', steps).replace(/^\./, '');
    res.status(200).json({
      jsonrpc: '2.0',
      id: message!.id,
      result: {
        content: [
          { type: 'text', text: `${field}: ${IDENTITY_MESSAGES[hit.kind]} (code: ${code})` },
        ],
        isError: true,
      },
    });
    return;
  }
  const param = hitPath('$', hit);
  res.status(400).json({
    jsonrpc: '2.0',
    error: {
      code: JSONRPC_INVALID_PARAMS,
      message: `${param}: ${IDENTITY_MESSAGES[hit.kind]}; no message of this request was run (code: ${code})`,
      data: { code, param },
    },
    id: null,
  });
}

/**
 * Middleware after refuseHostileInput (http-pipeline.ts): refuses any request carrying an
 * identity number, naming where (never the value).
 */
export function refuseIdentityNumbers(req: Request, res: Response, next: NextFunction): void {
  const path = fullPathOf(req);
  const inPath = identityNumberInPath(fullPathOf(req));
  if (inPath) {
    return next(identityRefused(inPath, 'path'));
  }
  const query: unknown = req.query;
  if (query && typeof query === 'object') {
    const hit = findIdentityNumber(query);
    if (hit) {
      return next(identityRefused(hit.kind, hitPath('$.query', hit), hit.inKey));
    }
  }
  for (const name of STORED_HEADERS) {
    const kind = identityNumberInHeader(req.header(name));
    if (kind) {
      // The echo middleware ran first; a refused key is not sent back either.
      res.removeHeader(name);
      return next(identityRefused(kind, name));
    }
  }
  const body: unknown = req.body;
  if (body === undefined || body === null || typeof body !== 'object' || Buffer.isBuffer(body)) {
    return next();
  }
  const mcp = MCP.test(path) && req.method === 'POST';
  const hit = findIdentityNumber(body, policyFor(req, path)) ?? (mcp ? mcpHeaderHit(body) : null);
  if (!hit) {
    return next();
  }
  if (mcp) {
    return answerMcp(res, body, hit);
  }
  next(identityRefused(hit.kind, hitPath('$', hit), hit.inKey));
}

/** Where MCP carries what REST sends as the UCP-Agent header (src/mcp/ucp/ucp-mcp.factory.ts). */
const MCP_UCP_AGENT: Steps = ['params', 'arguments', 'meta', 'ucp-agent', 'profile'];

/**
 * The UCP-Agent profile of an MCP tool call, read as the REST header is (identityNumberInHeader,
 * percent-decoded too), so both bindings refuse the same profile URLs with the same code.
 */
function mcpHeaderHit(body: unknown): IdentityHit | null {
  const messages = Array.isArray(body) ? body : [body];
  for (let i = 0; i < messages.length; i++) {
    let value: unknown = messages[i];
    for (const step of MCP_UCP_AGENT) {
      value =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)[step as string]
          : undefined;
    }
    const kind = typeof value === 'string' ? identityNumberInHeader(value) : null;
    if (kind) {
      return {
        kind,
        steps: Array.isArray(body) ? [i, ...MCP_UCP_AGENT] : MCP_UCP_AGENT,
        inKey: false,
      };
    }
  }
  return null;
}
