import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';

import { CheckoutService } from '../../checkout/checkout.service';
import { CheckoutCompletionService } from '../../checkout/checkout-completion.service';
import type { AcpCheckoutSession } from '../../checkout/dto/checkout-session.response';
import type { ProtocolKeyPrincipal } from '../../common/auth/principal';
import { ReplayedResponse, toAppError } from '../../common/errors/all-exceptions.filter';
import { AppError } from '../../common/errors/app-error';
import { requestIdOf } from '../../common/http/request-id';
import { IdempotencyInterceptor } from '../../common/idempotency/idempotency.interceptor';
import type { KeyAnswerStore } from '../../common/idempotency/key-answer';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AfterCommit, Eventually, finished, Tx } from '../../database/tx';
import type { AnswerStore } from '../../payments/payment-attempt';
import { UcpCheckoutController } from '../../ucp/ucp-checkout.controller';
import { checkoutEnvelope, toUcpCheckout, UcpCheckout } from '../../ucp/ucp-checkout.mapper';
import { parseUcpComplete, parseUcpCreate, parseUcpUpdate } from '../../ucp/ucp-checkout-input';
import {
  replayedError,
  ucpErrorOf,
  ucpErrors,
  UcpInputError,
  unavailableItemsAsOutcome,
} from '../../ucp/ucp-errors';
import { Negotiated, UcpNegotiation } from '../../ucp/ucp-negotiation';
import { UCP_VERSION } from '../../ucp/ucp-profile';
import { UcpRequestSignatures } from '../../ucp/ucp-request-signatures';
import { throughRestInterceptor } from '../rest-twin';
import { toolServer } from '../tool-server';
import { READ_ONLY, WRITES } from '../tools/tool-annotations';
import { CHECKOUT_INPUT, CHECKOUT_RESULT, inputSchema } from './ucp-mcp-schemas';

const SERVER_INFO = { name: 'agent-payments-ucp-checkout', version: '0.1.0' };

const INSTRUCTIONS =
  `UCP ${UCP_VERSION} business checkout (MCP binding). Every tool takes meta ({"ucp-agent": ` +
  '{"profile": your platform profile URL}, "idempotency-key": a UUID, required on complete and ' +
  'cancel}), id (the cs_… session; not on create) and checkout (the REST body; not on get and ' +
  'cancel). Results are the UCP checkout in structuredContent; refusals are a UCP error_response ' +
  '(ucp.status "error", messages[]) with isError, protocol failures JSON-RPC errors (-32001 ' +
  'negotiation, -32000 idempotency, -32603 internal). Amounts are integer paise (INR × 100).';

/** UCP's JSON-RPC codes (overview.md "Error Handling"): discovery/negotiation, protocol, internal. */
export const UCP_JSONRPC = { discovery: -32001, protocol: -32000, internal: -32603 } as const;

/** Negotiation refusals UCP sends as a JSON-RPC error on MCP (-32001), not as a result. */
const DISCOVERY_CODES = new Set([
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
]);

/** Our refusals UCP counts as protocol errors (-32000) besides 401, 403, 429 and 503. */
const PROTOCOL_CODES = new Set(['idempotency_conflict', 'idempotency_in_flight']);

/** A JSON-RPC error as the SDK's Protocol sends it: its code, message and data. */
export class UcpJsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: { code: string; content: string; retry_after?: number },
  ) {
    super(message);
  }
}

/** Who calls: the merchant protocol key of the HTTP request, and the request itself. */
export interface UcpMcpContext {
  caller: ProtocolKeyPrincipal;
  req: Request;
}

/** A refusal of the HTTP request's RFC 9421 signature: always a JSON-RPC protocol error (-32000). */
class SignatureRefusal extends Error {
  constructor(readonly refusal: unknown) {
    super('UCP request signature refused');
  }
}

type Present = (acp: AcpCheckoutSession) => UcpCheckout;

interface UcpToolDef {
  name:
    | 'create_checkout'
    | 'get_checkout'
    | 'update_checkout'
    | 'complete_checkout'
    | 'cancel_checkout';
  title: string;
  description: string;
  /** The UcpCheckoutController method: its HttpCode is the status the idempotency record keeps. */
  handler: 'create' | 'get' | 'update' | 'complete' | 'cancel';
  method: 'GET' | 'POST' | 'PUT';
  /** The REST path of the same call: records are keyed on it, so they are shared with REST. */
  path: (id: string) => string;
  needsId: boolean;
  checkout?: Record<string, unknown>;
  /** The binding requires meta.idempotency-key (complete, cancel). */
  keyRequired: boolean;
  idempotent: boolean;
  annotations: Tool['annotations'];
  run: (
    caller: ProtocolKeyPrincipal,
    id: string,
    checkout: unknown,
    present: Present,
    keyAnswer: KeyAnswerStore | null,
  ) => Promise<Eventually<UcpCheckout>>;
}

const BASE = '/ucp/checkout-sessions';
const sessionPath = (id: string) => `${BASE}/${encodeURIComponent(id)}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * UCP's MCP binding of checkout (docs/specification/checkout-mcp.md at 2026-04-08), served at
 * `/mcp?protocol=ucp` to a merchant protocol key: create_checkout, get_checkout, update_checkout,
 * complete_checkout and cancel_checkout. Each tool is the UCP REST route (UcpCheckoutController)
 * with `meta` for the headers, `id` for the path and `checkout` for the body: the same negotiation
 * (UcpNegotiation), the same body checks and translation (ucp-checkout-input.ts,
 * ucp-checkout.mapper.ts, ucp-errors.ts), the same IdempotencyInterceptor on the REST method and
 * path (records shared with REST), the same CheckoutService / CheckoutCompletionService calls.
 */
@Injectable()
export class UcpMcpFactory {
  private readonly logger = new Logger('McpUcp');
  private readonly tools: UcpToolDef[];
  private readonly listed: Tool[];

  constructor(
    private readonly tx: Tx,
    private readonly idempotency: IdempotencyInterceptor,
    private readonly negotiation: UcpNegotiation,
    private readonly signatures: UcpRequestSignatures,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    checkout: CheckoutService,
    completion: CheckoutCompletionService,
  ) {
    this.tools = [
      {
        name: 'create_checkout',
        title: 'Create a checkout',
        description:
          'Create a checkout session from published offers (line_items[].item.id is the SKU). Returns the UCP checkout.',
        handler: 'create',
        method: 'POST',
        path: () => BASE,
        needsId: false,
        checkout: CHECKOUT_INPUT.createOrUpdate,
        keyRequired: false,
        idempotent: true,
        annotations: WRITES,
        run: async (caller, _id, body, present) =>
          present(
            await unavailableItemsAsOutcome(() =>
              checkout.createSession(caller, parseUcpCreate(body)),
            ),
          ),
      },
      {
        name: 'get_checkout',
        title: 'Get a checkout',
        description: 'The current state of a checkout session.',
        handler: 'get',
        method: 'GET',
        path: sessionPath,
        needsId: true,
        keyRequired: false,
        idempotent: false,
        annotations: READ_ONLY,
        run: async (caller, id, _body, present) => present(await checkout.getSession(caller, id)),
      },
      {
        name: 'update_checkout',
        title: 'Update a checkout',
        description:
          'Replace the line items (and the buyer, when given); the session is re-priced.',
        handler: 'update',
        method: 'PUT',
        path: sessionPath,
        needsId: true,
        checkout: CHECKOUT_INPUT.createOrUpdate,
        keyRequired: false,
        idempotent: true,
        annotations: WRITES,
        run: async (caller, id, body, present) =>
          present(await checkout.updateSession(caller, id, parseUcpUpdate(body, id))),
      },
      {
        name: 'complete_checkout',
        title: 'Complete a checkout',
        description:
          'Pay with the svc_upi_mandate instrument (a delegated token from delegate_payment): completed at or below ₹2,000, complete_in_progress while a person approves above it.',
        handler: 'complete',
        method: 'POST',
        path: (id) => `${sessionPath(id)}/complete`,
        needsId: true,
        checkout: CHECKOUT_INPUT.complete,
        keyRequired: true,
        idempotent: true,
        annotations: WRITES,
        run: async (caller, id, body, present, keyAnswer) => {
          const request = parseUcpComplete(body);
          // As on REST: an answer the payment's second transaction makes final is stored in UCP's shape.
          const store: AnswerStore | null = keyAnswer
            ? {
                storeWithin: (answer) =>
                  keyAnswer.storeWithin(present(answer as AcpCheckoutSession)),
                payment: keyAnswer.payment,
              }
            : null;
          const outcome = await completion.completeSession(caller, id, request, store);
          return outcome instanceof AfterCommit
            ? new AfterCommit(async () => present(await outcome.finish()))
            : present(outcome);
        },
      },
      {
        name: 'cancel_checkout',
        title: 'Cancel a checkout',
        description: 'Cancel a checkout session. Refused once completed or canceled.',
        handler: 'cancel',
        method: 'POST',
        path: (id) => `${sessionPath(id)}/cancel`,
        needsId: true,
        keyRequired: true,
        idempotent: true,
        annotations: { ...WRITES, destructiveHint: true },
        run: async (caller, id, _body, present) =>
          present(await checkout.cancelSession(caller, id, {})),
      },
    ];
    this.listed = this.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputSchema(t),
      outputSchema: CHECKOUT_RESULT,
      annotations: { title: t.title, ...t.annotations },
    }));
  }

  create(ctx: UcpMcpContext): Server {
    // One HTTP request, one signature check per platform profile: the calls of a batch share it
    // (its nonce is claimed once), and a batch naming a second profile is checked against that one.
    const verified = new Map<string, Promise<void>>();
    const verify = (negotiated: Negotiated): Promise<void> => {
      let check = verified.get(negotiated.profileUrl);
      if (!check) {
        check = this.signatures.verify(ctx.req, negotiated);
        verified.set(negotiated.profileUrl, check);
      }
      return check.catch((err: unknown) => {
        throw new SignatureRefusal(err);
      });
    };
    return toolServer(SERVER_INFO, INSTRUCTIONS, this.listed, this.tools, (tool, args) =>
      this.call(tool, args, ctx, verify),
    );
  }

  private async call(
    tool: UcpToolDef,
    args: Record<string, unknown>,
    ctx: UcpMcpContext,
    verify: (negotiated: Negotiated) => Promise<void>,
  ): Promise<CallToolResult> {
    try {
      const meta = parseMeta(args.meta, tool.keyRequired);
      // As on REST: negotiation comes before the idempotency key and the body are looked at.
      const negotiated = await this.negotiation.negotiate(meta.agentHeader);
      // As UcpSignatureGuard on REST (docs/ucp.md "Request signatures"): a platform whose profile
      // publishes signing_keys signs the HTTP request (this JSON-RPC POST, its raw body, the
      // public URL with ?protocol=ucp); nothing runs, so nothing is written, until it verifies.
      await verify(negotiated);
      const id = tool.needsId ? parseId(args.id) : '';
      const body = tool.checkout ? parseCheckout(args.checkout) : undefined;
      const envelope = checkoutEnvelope(this.config, negotiated, ctx.caller.agentId);
      const present: Present = (acp) => toUcpCheckout(acp, envelope);
      const handle = (keyAnswer: KeyAnswerStore | null = null) =>
        tool.run(ctx.caller, id, body, present, keyAnswer);
      let checkout: UcpCheckout;
      if (!tool.idempotent) {
        checkout = await finished(await handle());
      } else if (meta.idempotencyKey === undefined) {
        // Optional on create and update (as on REST): the write still runs in one transaction.
        checkout = await finished(await this.tx.run(() => handle()));
      } else {
        checkout = await this.idempotent(tool, id, body, meta.idempotencyKey, ctx, handle);
      }
      return {
        content: [{ type: 'text', text: JSON.stringify(checkout) }],
        structuredContent: checkout,
      };
    } catch (err) {
      return this.refusal(err, ctx);
    }
  }

  /**
   * Runs the call through the REST route's IdempotencyInterceptor, handed the HTTP request the
   * same REST call would be (owner, method, path, key, body), so records and replays are REST's.
   */
  private idempotent(
    tool: UcpToolDef,
    id: string,
    body: unknown,
    key: string,
    ctx: UcpMcpContext,
    handle: (keyAnswer: KeyAnswerStore | null) => Promise<Eventually<UcpCheckout>>,
  ): Promise<UcpCheckout> {
    return throughRestInterceptor<UcpCheckout>(
      this.idempotency,
      {
        method: tool.method,
        path: tool.path(id),
        body,
        headers: { 'idempotency-key': key },
        caller: ctx.caller,
        ip: ctx.req.ip,
        requestId: requestIdOf(ctx.req),
        controller: UcpCheckoutController,
        // eslint-disable-next-line @typescript-eslint/unbound-method
        handler: UcpCheckoutController.prototype[tool.handler],
      },
      handle,
    );
  }

  /**
   * A refusal as the binding has it: negotiation failures are JSON-RPC -32001 and protocol
   * failures (idempotency conflict or in flight, 401, 403, 429, 503, any refusal of the platform's
   * request signature) -32000, with `{code, content}` in data; an unexpected failure -32603;
   * every other refusal (the REST 4xx) is a result whose structuredContent is the UCP
   * error_response REST sends, marked isError.
   */
  private refusal(err: unknown, ctx: UcpMcpContext): CallToolResult {
    if (err instanceof McpError) {
      throw err;
    }
    const signature = err instanceof SignatureRefusal;
    if (err instanceof SignatureRefusal) {
      err = err.refusal;
    }
    let appError: AppError;
    if (err instanceof ReplayedResponse) {
      const stored = replayedError(err);
      if (!stored) {
        throw new UcpJsonRpcError(UCP_JSONRPC.internal, 'Stored answer unreadable', {
          code: 'internal_error',
          content: `unexpected error, logged under request ${requestIdOf(ctx.req)}`,
        });
      }
      appError = stored;
    } else {
      appError = toAppError(err, ctx.req, this.logger);
    }
    const { status, body } = ucpErrorOf(appError);
    const data = {
      code: body.messages[0].code,
      content: body.messages[0].content,
      ...(appError.extra.retryAfterSeconds !== undefined
        ? { retry_after: appError.extra.retryAfterSeconds }
        : {}),
    };
    if (DISCOVERY_CODES.has(appError.code)) {
      throw new UcpJsonRpcError(UCP_JSONRPC.discovery, 'UCP negotiation failed', data);
    }
    // A signature refusal (401, or 400 digest_mismatch / algorithm_unsupported) is an auth failure.
    if (
      (signature && status < 500) ||
      PROTOCOL_CODES.has(appError.code) ||
      [401, 403, 429, 503].includes(status)
    ) {
      throw new UcpJsonRpcError(UCP_JSONRPC.protocol, appError.message, data);
    }
    if (status >= 500) {
      throw new UcpJsonRpcError(UCP_JSONRPC.internal, 'Internal error', data);
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body as unknown as Record<string, unknown>,
      isError: true,
    };
  }
}

interface Meta {
  agentHeader: string;
  idempotencyKey?: string;
}

/**
 * meta: `ucp-agent.profile` becomes the UCP-Agent header REST negotiates on (an RFC 8941
 * dictionary; a profile it cannot carry is invalid_profile_url, as a bad header is on REST).
 */
function parseMeta(meta: unknown, keyRequired: boolean): Meta {
  if (!isObject(meta)) {
    throw ucpErrors.invalidProfileUrl(
      'Send meta: {"ucp-agent": {"profile": "https://…"}} naming your platform profile',
    );
  }
  const agent = meta['ucp-agent'];
  const profile = isObject(agent) ? agent.profile : undefined;
  if (typeof profile !== 'string' || profile === '') {
    throw ucpErrors.invalidProfileUrl('meta["ucp-agent"].profile must be the profile URL');
  }
  if (!/^[\x20-\x7e]*$/.test(profile)) {
    throw ucpErrors.invalidProfileUrl('meta["ucp-agent"].profile must be an ASCII URL');
  }
  const agentHeader = `profile="${profile.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const key = meta['idempotency-key'];
  if (key === undefined) {
    if (keyRequired) {
      throw argumentError(
        'missing',
        'meta["idempotency-key"]',
        'required on complete_checkout and cancel_checkout (a UUID)',
      );
    }
    return { agentHeader };
  }
  if (typeof key !== 'string' || !UUID.test(key)) {
    throw argumentError('invalid', 'meta["idempotency-key"]', 'must be a UUID');
  }
  return { agentHeader, idempotencyKey: key };
}

/** A refusal of an argument outside `checkout` (so without a checkout JSONPath): never stored. */
function argumentError(code: 'missing' | 'invalid', argument: string, message: string): AppError {
  return new UcpInputError(400, 'invalid_request', code, `${argument}: ${message}`);
}

function parseId(id: unknown): string {
  if (id === undefined) {
    throw argumentError('missing', 'id', 'the checkout session id (cs_…)');
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) {
    throw argumentError('invalid', 'id', 'must be a checkout session id (cs_…)');
  }
  return id;
}

/** checkout: the REST body; the session is named by `id`, never inside it (the binding's rule). */
function parseCheckout(checkout: unknown): Record<string, unknown> {
  if (checkout === undefined) {
    throw argumentError('missing', 'checkout', 'the checkout object (the REST request body)');
  }
  if (!isObject(checkout)) {
    throw argumentError('invalid', 'checkout', 'must be an object');
  }
  if (checkout.id !== undefined) {
    throw ucpErrors.invalid('$.id', 'not allowed in checkout: the session is named by id');
  }
  return checkout;
}
