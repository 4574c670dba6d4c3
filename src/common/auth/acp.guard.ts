import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { AppError } from '../errors/app-error';
import { RequestSignatureVerifier } from '../signing/request-signature.verifier';
import { ACP_ROLE, setPrincipal } from './auth.decorators';
import { CredentialResolver } from './credential.resolver';
import type { ProtocolKeyRole } from './roles';

export const ACP_VERSION = '2026-04-17';
/** Newest first (docs/acp.md §1). */
export const SUPPORTED_ACP_VERSIONS = [ACP_VERSION];

/**
 * The shared ACP request pipeline, steps 1–3 of docs/acp.md §1: protocol key and role (401/403),
 * API-Version (400 + supported_versions), Signature/Timestamp when the key has a public key
 * (401). Idempotency (steps 4–5) is the IdempotencyInterceptor; validation (6) the global pipe.
 */
@Injectable()
export class AcpGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly signatures: RequestSignatureVerifier,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const role = this.reflector.getAllAndOverride<ProtocolKeyRole>(ACP_ROLE, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    const principal = await this.credentials.requireBearer(req, ['protocol_key'], 'protocol key');
    if (principal.role !== role) {
      throw new AppError(
        403,
        'invalid_request',
        'wrong_role',
        `This route needs a ${role} protocol key; this key's role is ${principal.role}`,
      );
    }
    const version = req.header('api-version');
    if (!version) {
      throw new AppError(
        400,
        'invalid_request',
        'missing_api_version',
        'Send API-Version: 2026-04-17',
        undefined,
        {
          supportedVersions: SUPPORTED_ACP_VERSIONS,
        },
      );
    }
    if (!SUPPORTED_ACP_VERSIONS.includes(version)) {
      throw new AppError(
        400,
        'invalid_request',
        'unsupported_api_version',
        `API-Version ${version.slice(0, 40)} is not supported`,
        undefined,
        {
          supportedVersions: SUPPORTED_ACP_VERSIONS,
        },
      );
    }
    if (principal.publicKey) {
      await this.signatures.verify(req, principal.publicKey);
    }
    setPrincipal(req, principal);
    return true;
  }
}
