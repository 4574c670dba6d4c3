import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Injectable, Logger, type Type, ValidationPipe } from '@nestjs/common';
import type { Request } from 'express';

import { VALIDATION_PIPE_OPTIONS } from '../../app.setup';
import { CheckoutController } from '../../checkout/checkout.controller';
import { CheckoutService } from '../../checkout/checkout.service';
import { CheckoutCompletionService } from '../../checkout/checkout-completion.service';
import type { AcpCheckoutSession } from '../../checkout/dto/checkout-session.response';
import { CompleteCheckoutSessionDto } from '../../checkout/dto/complete-checkout-session.dto';
import { CreateCheckoutSessionDto } from '../../checkout/dto/create-checkout-session.dto';
import { UpdateCheckoutSessionDto } from '../../checkout/dto/update-checkout-session.dto';
import { SUPPORTED_ACP_VERSIONS } from '../../common/auth/acp.guard';
import type { ProtocolKeyPrincipal } from '../../common/auth/principal';
import { ReplayedResponse, toAppError } from '../../common/errors/all-exceptions.filter';
import { AcpErrorBody, renderError } from '../../common/errors/error-body';
import { requestIdOf } from '../../common/http/request-id';
import { IdempotencyInterceptor } from '../../common/idempotency/idempotency.interceptor';
import type { KeyAnswerStore } from '../../common/idempotency/key-answer';
import { Eventually, finished, Tx } from '../../database/tx';
import { throughRestInterceptor } from '../rest-twin';
import { toolServer } from '../tool-server';
import { READ_ONLY, WRITES } from '../tools/tool-annotations';
import { AcpMcpError, acpMcpErrors, JsonRpcAcpError, withMcpParam } from './acp-mcp-errors';
import {
  ID_SCHEMA,
  JsonSchema,
  loadOpenApi,
  META_SCHEMA,
  requestBodySchema,
} from './acp-tool-schemas';

const SERVER_INFO = { name: 'agent-payments-acp-checkout', version: '0.1.0' };

const INSTRUCTIONS =
  'ACP 2026-04-17 merchant checkout (MCP binding). Every tool takes meta (api_version required; ' +
  'idempotency_key recommended on create and complete), id (the cs_… session) and payload (the REST ' +
  'request body). Results are the ACP CheckoutSession; errors are JSON-RPC -32000 with the ACP Error ' +
  'in error.data. Amounts are integer paise (INR × 100).';

/** Who calls: the merchant protocol key of the HTTP request, and the request itself (ids, logs). */
export interface AcpMcpContext {
  caller: ProtocolKeyPrincipal;
  req: Request;
}

type PayloadRule = 'required' | 'optional' | 'absent';

/** One checkout tool: the REST operation it binds, and the service call the controller makes. */
interface CheckoutToolDef {
  name: string;
  title: string;
  description: string;
  /** The REST operation (openapi.json operationId) whose request body is the payload. */
  operationId: string;
  /** The CheckoutController method: its HttpCode is the success status the idempotency store keeps. */
  handler: 'create' | 'get' | 'update' | 'complete' | 'cancel';
  method: 'GET' | 'POST';
  path: (id: string) => string;
  needsId: boolean;
  payload: PayloadRule;
  /** The REST body DTO, validated by the global pipe's options; none: the service checks the body. */
  dto?: Type<object>;
  idempotent: boolean;
  annotations: Tool['annotations'];
  /**
   * complete may answer AfterCommit (the payment's rail step); call() finishes it. `keyAnswer` is
   * the Idempotency-Key's store for such an answer (KeyAnswer; null without a key).
   */
  run: (
    caller: ProtocolKeyPrincipal,
    id: string,
    payload: unknown,
    keyAnswer: KeyAnswerStore | null,
  ) => Promise<Eventually<AcpCheckoutSession>>;
}

const BASE = '/acp/checkout_sessions';
const sessionPath = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The MCP binding of ACP checkout (docs/mcp-binding.md of the ACP repository), served at /mcp to a
 * merchant protocol key. Built on the SDK's low-level Server, not McpServer: the binding answers
 * failures as JSON-RPC errors (-32000 with the ACP Error in `data`), whereas McpServer turns every
 * thrown error into an `isError` result, and it needs raw JSON Schemas (bundled from openapi.json).
 *
 * Each tool runs the REST route's steps with the same code: API-Version check (meta.api_version),
 * the IdempotencyInterceptor itself (meta.idempotency_key, same records, same rules), the global
 * ValidationPipe's options on the DTO, then the controller's service call.
 */
@Injectable()
export class AcpCheckoutMcpFactory {
  private readonly logger = new Logger('McpCheckout');
  private readonly pipe = new ValidationPipe(VALIDATION_PIPE_OPTIONS);
  private readonly tools: CheckoutToolDef[];
  private readonly listed: Tool[];

  constructor(
    private readonly tx: Tx,
    private readonly idempotency: IdempotencyInterceptor,
    checkout: CheckoutService,
    completion: CheckoutCompletionService,
  ) {
    this.tools = [
      {
        name: 'create_checkout_session',
        title: 'Create a checkout session',
        description:
          'POST /checkout_sessions: create a session from published offers (line_items[].id is the SKU). Returns the CheckoutSession.',
        operationId: 'createCheckoutSession',
        handler: 'create',
        method: 'POST',
        path: () => BASE,
        needsId: false,
        payload: 'required',
        dto: CreateCheckoutSessionDto,
        idempotent: true,
        annotations: WRITES,
        run: (caller, _id, body) =>
          checkout.createSession(caller, body as CreateCheckoutSessionDto),
      },
      {
        name: 'get_checkout_session',
        title: 'Get a checkout session',
        description: 'GET /checkout_sessions/{id}: the current state of a session.',
        operationId: 'getCheckoutSession',
        handler: 'get',
        method: 'GET',
        path: sessionPath,
        needsId: true,
        payload: 'absent',
        idempotent: false,
        annotations: READ_ONLY,
        run: (caller, id) => checkout.getSession(caller, id),
      },
      {
        name: 'update_checkout_session',
        title: 'Update a checkout session',
        description:
          'POST /checkout_sessions/{id}: replace items, buyer or the fulfillment selection; the session is re-priced.',
        operationId: 'updateCheckoutSession',
        handler: 'update',
        method: 'POST',
        path: sessionPath,
        needsId: true,
        payload: 'required',
        dto: UpdateCheckoutSessionDto,
        idempotent: true,
        annotations: WRITES,
        run: (caller, id, body) =>
          checkout.updateSession(caller, id, body as UpdateCheckoutSessionDto),
      },
      {
        name: 'complete_checkout_session',
        title: 'Complete a checkout session',
        description:
          'POST /checkout_sessions/{id}/complete: pay with a delegated token (handler svc_upi_mandate). Completed at or below ₹2,000; above, pending_approval until a person approves.',
        operationId: 'completeCheckoutSession',
        handler: 'complete',
        method: 'POST',
        path: (id) => `${sessionPath(id)}/complete`,
        needsId: true,
        payload: 'required',
        dto: CompleteCheckoutSessionDto,
        idempotent: true,
        annotations: WRITES,
        run: (caller, id, body, keyAnswer) =>
          completion.completeSession(caller, id, body as CompleteCheckoutSessionDto, keyAnswer),
      },
      {
        name: 'cancel_checkout_session',
        title: 'Cancel a checkout session',
        description:
          'POST /checkout_sessions/{id}/cancel: cancel, optionally with an intent_trace. Refused once completed or canceled.',
        operationId: 'cancelCheckoutSession',
        handler: 'cancel',
        method: 'POST',
        path: (id) => `${sessionPath(id)}/cancel`,
        needsId: true,
        payload: 'optional',
        idempotent: true,
        annotations: { ...WRITES, destructiveHint: true },
        run: (caller, id, body) => checkout.cancelSession(caller, id, body),
      },
    ];
    const doc = loadOpenApi();
    this.listed = this.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputSchema(
        t,
        t.payload === 'absent' ? undefined : requestBodySchema(doc, t.operationId),
      ),
      annotations: { title: t.title, ...t.annotations },
    }));
  }

  create(ctx: AcpMcpContext): Server {
    return toolServer(SERVER_INFO, INSTRUCTIONS, this.listed, this.tools, async (tool, args) => {
      const session = await this.call(tool, args, ctx);
      // The binding's result is the session itself; content and structuredContent carry it too
      // for MCP clients that read only those.
      return {
        ...session,
        content: [{ type: 'text', text: JSON.stringify(session) }],
        structuredContent: session as unknown as Record<string, unknown>,
      };
    });
  }

  private async call(
    tool: CheckoutToolDef,
    args: Record<string, unknown>,
    ctx: AcpMcpContext,
  ): Promise<AcpCheckoutSession> {
    try {
      const meta = parseMeta(args.meta);
      const id = tool.needsId ? parseId(args.id) : '';
      const payload = args.payload;
      if (tool.payload === 'required' && payload === undefined) {
        throw acpMcpErrors.missing('$.payload', '$.payload: required (the REST request body)');
      }
      if (payload !== undefined && tool.payload !== 'absent' && !isObject(payload)) {
        throw acpMcpErrors.invalid('$.payload', '$.payload: must be a JSON object');
      }
      const handle = async (keyAnswer: KeyAnswerStore | null = null) => {
        const body = tool.dto
          ? ((await this.pipe.transform(payload, { type: 'body', metatype: tool.dto })) as unknown)
          : payload;
        return tool.run(ctx.caller, id, body, keyAnswer);
      };
      if (!tool.idempotent) {
        return await finished(await handle());
      }
      if (meta.idempotencyKey === undefined) {
        // Optional in MCP (unlike REST): without it the write still runs in one transaction.
        return await finished(await this.tx.run(() => handle()));
      }
      return await this.idempotent(tool, id, payload, meta, ctx, handle);
    } catch (err) {
      throw this.toJsonRpcError(err, tool.path(typeof args.id === 'string' ? args.id : ''), ctx);
    }
  }

  /**
   * Runs the call through the REST route's IdempotencyInterceptor, given the HTTP request the same
   * REST call would be: owner, method, path, key and body hash match, so the records (and replays)
   * are shared with REST.
   */
  private idempotent(
    tool: CheckoutToolDef,
    id: string,
    payload: unknown,
    meta: Meta,
    ctx: AcpMcpContext,
    handle: (keyAnswer: KeyAnswerStore | null) => Promise<Eventually<AcpCheckoutSession>>,
  ): Promise<AcpCheckoutSession> {
    return throughRestInterceptor<AcpCheckoutSession>(
      this.idempotency,
      {
        method: tool.method,
        path: tool.path(id),
        body: payload,
        headers: { 'idempotency-key': meta.idempotencyKey ?? '', 'api-version': meta.apiVersion },
        caller: ctx.caller,
        ip: ctx.req.ip,
        requestId: requestIdOf(ctx.req),
        controller: CheckoutController,
        // eslint-disable-next-line @typescript-eslint/unbound-method
        handler: CheckoutController.prototype[tool.handler],
      },
      handle,
    );
  }

  private toJsonRpcError(err: unknown, path: string, ctx: AcpMcpContext): Error {
    if (err instanceof AcpMcpError) {
      return new JsonRpcAcpError(err.body);
    }
    if (err instanceof ReplayedResponse) {
      // A stored 4xx replayed for the same key and payload: the body REST stored, flat ACP.
      return new JsonRpcAcpError(withMcpParam(err.body as AcpErrorBody));
    }
    if (err instanceof McpError) {
      return err;
    }
    // Outages become 503 service_unavailable; anything unknown is logged and an opaque 500.
    const appError = toAppError(err, ctx.req, this.logger);
    const body = renderError(appError, 'acp', requestIdOf(ctx.req), path) as AcpErrorBody;
    return new JsonRpcAcpError(withMcpParam(body));
  }
}

interface Meta {
  apiVersion: string;
  idempotencyKey?: string;
}

/** meta: an open object; api_version required and supported (REST's API-Version rules). */
function parseMeta(meta: unknown): Meta {
  if (meta === undefined) {
    throw acpMcpErrors.missingApiVersion();
  }
  if (!isObject(meta)) {
    throw acpMcpErrors.invalid('$.meta', '$.meta: must be an object');
  }
  const version = meta.api_version;
  if (version === undefined || version === '') {
    throw acpMcpErrors.missingApiVersion();
  }
  if (typeof version !== 'string') {
    throw acpMcpErrors.invalid('$.meta.api_version', '$.meta.api_version: must be a string');
  }
  if (!SUPPORTED_ACP_VERSIONS.includes(version)) {
    throw acpMcpErrors.unsupportedApiVersion(version);
  }
  const key = meta.idempotency_key;
  if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 255)) {
    throw acpMcpErrors.invalid(
      '$.meta.idempotency_key',
      'meta.idempotency_key must be a string of 1–255 characters',
    );
  }
  return { apiVersion: version, idempotencyKey: key };
}

function parseId(id: unknown): string {
  if (id === undefined) {
    throw acpMcpErrors.missing('$.id', '$.id: required (the checkout session id)');
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) {
    throw acpMcpErrors.invalid('$.id', '$.id: must be a checkout session id (cs_…)');
  }
  return id;
}

/** The binding's argument structure: meta, id (not on create), payload (required, optional or absent). */
function inputSchema(tool: CheckoutToolDef, payload: JsonSchema | undefined): Tool['inputSchema'] {
  const properties: Record<string, JsonSchema> = { meta: META_SCHEMA };
  const required = ['meta'];
  if (tool.needsId) {
    properties.id = ID_SCHEMA;
    required.push('id');
  }
  if (payload) {
    properties.payload = {
      ...payload,
      description:
        tool.payload === 'optional'
          ? 'The REST request body (optional: omit it for a plain cancel).'
          : 'The REST request body.',
    };
    if (tool.payload === 'required') {
      required.push('payload');
    }
  }
  return { type: 'object', properties, required };
}
