import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';

import { findAadhaar } from './aadhaar';
import { forexErrors } from './forex.errors';
import type { PanDigest } from './pan';
import { PanVault } from './pan-vault';

/** Marks an operation whose Idempotency-Key is required (src/openapi/operations.ts reads it). */
export const IDEMPOTENCY_REQUIRED_EXTENSION = 'x-idempotency-key-required';

/** Refuses a request without Idempotency-Key (before the idempotency interceptor runs). */
@Injectable()
export class IdempotencyKeyRequiredGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.switchToHttp().getRequest<Request>().header('Idempotency-Key') === undefined) {
      throw forexErrors.idempotencyKeyRequired();
    }
    return true;
  }
}

/** A /v1 write whose retries must be safe: Idempotency-Key is required, not optional. */
export function RequireIdempotencyKey() {
  return applyDecorators(
    UseGuards(IdempotencyKeyRequiredGuard),
    ApiExtension(IDEMPOTENCY_REQUIRED_EXTENSION, true),
  );
}

type WithPan = Request & { forexPan?: PanDigest };

/**
 * Runs before the idempotency interceptor hashes the body: refuses an Aadhaar number anywhere in
 * it, then replaces the raw `pan` with its keyed digest (PanVault), so the stored request hash
 * (SHA-256 of the canonical body) is computed over the HMAC, never over the raw PAN, and the raw
 * value goes no further than this guard. A retry with the same PAN gives the same digest, so
 * replays and conflicts behave as usual.
 */
@Injectable()
export class PanDigestGuard implements CanActivate {
  constructor(private readonly pans: PanVault) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<WithPan>();
    const body = req.body as Record<string, unknown> | undefined;
    const hit = findAadhaar(body);
    if (hit) {
      throw forexErrors.aadhaarRefused(hit);
    }
    if (body && typeof body === 'object' && typeof body.pan === 'string') {
      const digest = this.pans.digestAnyHolder(body.pan);
      req.forexPan = digest;
      body.pan = `hmac:${digest.keyVersion}:${digest.hash}`;
    }
    return true;
  }
}

/**
 * The PAN digest PanDigestGuard made of the body's `pan`; undefined when the body had no string
 * `pan` (the body's validation then refuses it).
 */
export const PanFromBody = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): PanDigest | undefined =>
    ctx.switchToHttp().getRequest<WithPan>().forexPan,
);
