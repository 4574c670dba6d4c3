import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { RequestSignatureVerifier } from '../signing/request-signature.verifier';
import { AUTH_KINDS, setPrincipal } from './auth.decorators';
import { CredentialResolver } from './credential.resolver';
import type { PrincipalKind } from './principal';

/**
 * /v1 authentication: Bearer API key or agent credential. A valid credential of the wrong kind
 * (e.g. a protocol key on /v1) is 403; anything unknown or revoked is 401. An agent with a
 * registered public key must sign every request (same profile as ACP, docs/security.md "Signing requests").
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly signatures: RequestSignatureVerifier,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const kinds =
      this.reflector.getAllAndOverride<PrincipalKind[]>(AUTH_KINDS, [
        ctx.getHandler(),
        ctx.getClass(),
      ]) ?? [];
    const principal = await this.credentials.requireBearer(req, kinds, 'credential');
    if (principal.kind === 'agent' && principal.publicKey) {
      await this.signatures.verify(req, principal.publicKey);
    }
    setPrincipal(req, principal);
    return true;
  }
}
