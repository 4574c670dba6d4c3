import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';

import { IdempotencyInterceptor, PIPELINED_CLAIM } from './idempotency.interceptor';

/**
 * Marks a mutating route: Idempotency-Key (required on /acp, optional on /v1), one transaction.
 * `pipelined`: the handler starts beside the key's claim, its first statements sharing the claim's
 * round trip (docs/architecture.md "Round trips"); only for a handler whose every effect before
 * commit is a statement of the request's transaction.
 */
export function Idempotent(opts: { pipelined?: boolean } = {}) {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    SetMetadata(PIPELINED_CLAIM, opts.pipelined === true),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 chars. Required on /acp POSTs. Same key + same body replays the stored response (Idempotent-Replayed: true); a different body is 422; a concurrent twin is 409 with Retry-After. Kept 24 h.',
    }),
  );
}
