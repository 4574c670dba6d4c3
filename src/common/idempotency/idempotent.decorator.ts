import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';

import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Marks a mutating route: Idempotency-Key (required on /acp, optional on /v1), one transaction. */
export function Idempotent() {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 chars. Required on /acp POSTs. Same key + same body replays the stored response (Idempotent-Replayed: true); a different body is 422; a concurrent twin is 409 with Retry-After. Kept 24 h.',
    }),
  );
}
