import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';

import { CredentialRateLimitGuard } from '../rate-limit/credential-rate-limit.guard';
import { AcpGuard } from './acp.guard';
import { BearerAuthGuard } from './bearer-auth.guard';
import type { Principal, PrincipalKind } from './principal';
import type { ProtocolKeyRole } from './roles';

export const AUTH_KINDS = 'auth:kinds';
export const ACP_ROLE = 'auth:acp-role';

/** /v1 route: which credential kinds may call it. */
export function Auth(...kinds: Exclude<PrincipalKind, 'protocol_key'>[]) {
  return applyDecorators(
    SetMetadata(AUTH_KINDS, kinds),
    UseGuards(BearerAuthGuard, CredentialRateLimitGuard),
    // One security requirement per accepted kind: either credential works (OpenAPI ORs them).
    ...kinds.map((k) => ApiBearerAuth(k === 'agent' ? 'agentCredential' : 'apiKey')),
  );
}

/** /acp route: protocol key of this role, API-Version, and signature when a key is registered. */
export function AcpRoute(role: ProtocolKeyRole) {
  return applyDecorators(
    SetMetadata(ACP_ROLE, role),
    UseGuards(AcpGuard, CredentialRateLimitGuard),
    ApiBearerAuth(role === 'merchant' ? 'merchantProtocolKey' : 'buyerProtocolKey'),
    ApiHeader({
      name: 'API-Version',
      required: true,
      schema: { type: 'string', enum: ['2026-04-17'] },
    }),
    ApiHeader({ name: 'Request-Id', required: false }),
    ApiHeader({
      name: 'Signature',
      required: false,
      description:
        'Required when the key has a registered public key (docs/security.md "Signing requests")',
    }),
    ApiHeader({
      name: 'Timestamp',
      required: false,
      description: 'RFC 3339; required with Signature',
    }),
  );
}

export function principalOf(req: Request): Principal | undefined {
  return (req as Request & { principal?: Principal }).principal;
}

export function setPrincipal(req: Request, p: Principal): void {
  (req as Request & { principal?: Principal }).principal = p;
}

/** The authenticated caller (set by BearerAuthGuard / AcpGuard). */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const p = principalOf(ctx.switchToHttp().getRequest<Request>());
  if (!p) {
    throw new Error('Caller used on a route without an auth guard');
  }
  return p;
});
