import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';

import { setPrincipal } from '../common/auth/auth.decorators';
import { CredentialResolver } from '../common/auth/credential.resolver';
import { AppError } from '../common/errors/app-error';
import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { RequestSignatureVerifier } from '../common/signing/request-signature.verifier';
import { UcpExceptionFilter } from './ucp-errors';
import { Negotiated, UCP_AGENT_HEADER, UcpNegotiation } from './ucp-negotiation';
import { UcpRequestSignatures } from './ucp-request-signatures';

/**
 * The merchant protocol key ACP checkout uses (docs/acp.md §1 steps 1 and 3: key, role, and the
 * request signature when the key has a registered public key), without ACP's API-Version header:
 * UCP carries its version in the negotiated profiles instead.
 */
@Injectable()
export class UcpMerchantGuard implements CanActivate {
  constructor(
    private readonly credentials: CredentialResolver,
    private readonly signatures: RequestSignatureVerifier,
    private readonly messageSignatures: UcpRequestSignatures,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const principal = await this.credentials.requireBearer(req, ['protocol_key'], 'protocol key');
    if (principal.role !== 'merchant') {
      throw new AppError(
        403,
        'invalid_request',
        'wrong_role',
        `This route needs a merchant protocol key; this key's role is ${principal.role}`,
      );
    }
    if (principal.publicKey && req.header('signature-input') !== undefined) {
      // RFC 9421 (the schemes share the Signature header): keyid = this key's id (docs/ucp.md).
      await this.messageSignatures.verifyRegistered(req, principal.id, principal.publicKey);
    } else if (principal.publicKey) {
      await this.signatures.verify(req, principal.publicKey);
    }
    setPrincipal(req, principal);
    return true;
  }
}

const NEGOTIATED = Symbol('ucp-negotiated');

/** Negotiation (after authentication and the rate limit: only known callers make us fetch). */
@Injectable()
export class UcpAgentGuard implements CanActivate {
  constructor(private readonly negotiation: UcpNegotiation) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const negotiated = await this.negotiation.negotiate(req.header(UCP_AGENT_HEADER));
    (req as unknown as Record<symbol, Negotiated>)[NEGOTIATED] = negotiated;
    return true;
  }
}

/**
 * RFC 9421 request signature (docs/ucp.md "Request signatures"), after negotiation: required when
 * the negotiated platform profile publishes signing_keys. Before the idempotency interceptor and
 * the handler, so a refused request changes nothing.
 */
@Injectable()
export class UcpSignatureGuard implements CanActivate {
  constructor(private readonly signatures: UcpRequestSignatures) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const negotiated = (req as unknown as Record<symbol, Negotiated | undefined>)[NEGOTIATED];
    if (!negotiated) {
      throw new Error('UcpSignatureGuard runs after UcpAgentGuard');
    }
    await this.signatures.verify(req, negotiated);
    return true;
  }
}

/** Route parameter: what the request's UCP-Agent negotiated. */
export const NegotiatedUcp = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const n = (ctx.switchToHttp().getRequest<Request>() as unknown as Record<symbol, Negotiated>)[
    NEGOTIATED
  ];
  if (!n) {
    throw new Error('NegotiatedUcp used on a route without UcpAgentGuard');
  }
  return n;
});

/**
 * A UCP REST route: merchant protocol key, rate limit, negotiation, the platform's request
 * signature (when its profile has signing_keys), UCP error bodies.
 */
export function UcpRoute() {
  return applyDecorators(
    UseGuards(UcpMerchantGuard, CredentialRateLimitGuard, UcpAgentGuard, UcpSignatureGuard),
    UseFilters(UcpExceptionFilter),
    ApiBearerAuth('merchantProtocolKey'),
    ApiHeader({
      name: UCP_AGENT_HEADER,
      required: true,
      description: 'RFC 8941 dictionary naming the platform profile: profile="https://…"',
    }),
    ApiHeader({
      name: 'Signature',
      required: false,
      description:
        'Required when the key has a registered public key (docs/security.md "Signing requests")',
    }),
    ApiHeader({ name: 'Timestamp', required: false, description: 'RFC 3339; with Signature' }),
  );
}
