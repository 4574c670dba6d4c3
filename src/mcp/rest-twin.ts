import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Request, Response } from 'express';
import { defer, lastValueFrom } from 'rxjs';

import { setPrincipal } from '../common/auth/auth.decorators';
import type { Principal } from '../common/auth/principal';
import { IdempotencyInterceptor } from '../common/idempotency/idempotency.interceptor';
import { keyAnswerOf, KeyAnswerStore } from '../common/idempotency/key-answer';

/**
 * The REST call a tool call stands for (docs/mcp.md): its route, body and headers, who calls, and
 * the controller method whose `@HttpCode` is the success status kept with the record.
 */
export interface RestTwinCall {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
  caller: Principal;
  ip?: string;
  requestId: string;
  controller: object;
  handler: (...args: never[]) => unknown;
}

/**
 * Runs `handle` through the REST route's own IdempotencyInterceptor, given the HTTP request the
 * same REST call would be (owner, method, path, Idempotency-Key, body hash), so the records and
 * replays are shared with REST. `handle` is given the key's answer store (KeyAnswer) as a route
 * would be. Answers what the interceptor answers: the handler's value, or a replay's stored text
 * parsed back to JSON.
 */
export async function throughRestInterceptor<T>(
  interceptor: IdempotencyInterceptor,
  twin: RestTwinCall,
  handle: (keyAnswer: KeyAnswerStore | null) => Promise<unknown>,
): Promise<T> {
  const req = {
    method: twin.method,
    path: twin.path,
    url: twin.path,
    originalUrl: twin.path,
    body: twin.body,
    ip: twin.ip,
    headers: twin.headers,
    header: (name: string) => twin.headers[name.toLowerCase()],
    requestId: twin.requestId,
  } as unknown as Request;
  setPrincipal(req, twin.caller);
  const res = { setHeader: () => res } as unknown as Response;
  // Only the handler's metadata (HttpCode) is read, never the handler itself.
  const context = new ExecutionContextHost(
    [req, res, undefined],
    twin.controller as never,
    twin.handler,
  );
  context.setType('http');
  const out = await lastValueFrom(
    interceptor.intercept(context, { handle: () => defer(() => handle(keyAnswerOf(req))) }),
  );
  // A replay is the stored response text (what REST sends byte for byte); we answer its JSON.
  return (typeof out === 'string' ? JSON.parse(out) : out) as T;
}
