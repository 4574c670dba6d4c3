import { Injectable } from '@nestjs/common';

import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ReplayedResponse } from '../common/errors/all-exceptions.filter';
import { AppError, ErrorType } from '../common/errors/app-error';
import { IdempotencyInterceptor } from '../common/idempotency/idempotency.interceptor';
import { findRecord } from '../common/idempotency/idempotency-record.repository';
import { Tx } from '../database/tx';
import { McpToolContext } from './mcp-tool';
import { throughRestInterceptor } from './rest-twin';

/** The REST operation a tool call stands for: its records are shared with that route. */
export interface RestTwin {
  method: 'POST';
  /** The route's path as a client sends it, e.g. `/v1/pay/forex/orders/fxo_…/submit`. */
  path: string;
  /** The REST request body: what the stored request hash is computed over. */
  body: object;
  /** The controller and method whose `@HttpCode` is the success status kept with the record. */
  controller: object;
  handler: (...args: never[]) => unknown;
}

/**
 * Idempotency for agent tool writes that have a REST twin (the forex tools): the call runs through
 * the REST route's own IdempotencyInterceptor, given the HTTP request the same REST call would be
 * (owner `agent:<id>`, method, path, Idempotency-Key = the tool's `idempotency_key`, body hash), so
 * the rules are REST's (docs/security.md "Idempotency"): the same key and arguments replay the stored result,
 * other arguments are `idempotency_conflict`, a concurrent twin `idempotency_in_flight`, a 4xx
 * refusal is stored and replayed, and records are shared with REST. Without a key the handler runs
 * as is (the service opens its own transaction).
 */
@Injectable()
export class McpIdempotency {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly interceptor: IdempotencyInterceptor,
  ) {}

  async run<T>(
    ctx: McpToolContext,
    key: string | undefined,
    twin: RestTwin,
    handle: () => Promise<T>,
  ): Promise<{ value: T; replayed: boolean }> {
    if (key === undefined) {
      return { value: await handle(), replayed: false };
    }
    let ran = false;
    try {
      const value = await throughRestInterceptor<T>(
        this.interceptor,
        {
          method: twin.method,
          path: twin.path,
          body: twin.body,
          headers: { 'idempotency-key': key },
          caller: ctx.caller,
          requestId: ctx.requestId,
          controller: twin.controller,
          handler: twin.handler,
        },
        async () => {
          ran = true;
          return handle();
        },
      );
      return { value, replayed: !ran };
    } catch (err) {
      throw err instanceof ReplayedResponse ? replayedError(err) : err;
    }
  }

  /**
   * True when `key` already has a live record for this caller and route: the call will replay, so
   * costly preparation (fetching a document URL) can be skipped. A miss proves nothing; the
   * interceptor decides under its lock.
   */
  async hasRecord(caller: AgentPrincipal, key: string | undefined, path: string): Promise<boolean> {
    if (key === undefined) {
      return false;
    }
    const found = await findRecord(this.tx.manager, {
      ownerId: `${caller.kind}:${caller.id}`,
      method: 'POST',
      path,
      key,
    });
    return found !== null && found.expiresAt.getTime() > this.clock.now().getTime();
  }
}

/** A stored 4xx replayed for the same key and arguments: the AppError it was. */
function replayedError(err: ReplayedResponse): AppError {
  const body = (
    err.body as {
      error?: { type?: string; code?: string; message?: string; param?: string };
    } | null
  )?.error;
  return new AppError(
    err.status,
    (body?.type as ErrorType | undefined) ?? 'invalid_request',
    body?.code ?? 'replayed_error',
    body?.message ?? 'The earlier call with this idempotency_key was refused',
    body?.param,
  );
}
