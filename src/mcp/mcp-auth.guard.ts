import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';

import { setPrincipal } from '../common/auth/auth.decorators';
import { bearerOf } from '../common/auth/bearer';
import { CredentialResolver } from '../common/auth/credential.resolver';
import { RequestSignatureVerifier } from '../common/signing/request-signature.verifier';
import { mcpErrors } from './mcp.errors';

/**
 * /mcp takes an agent credential only (`Bearer agc_…`). Everything else (no header, unknown or
 * revoked secret, an API key, a protocol key) is 401 with a JSON error before the MCP layer runs,
 * so a client without the right credential never gets as far as `initialize`. As on /v1, an agent
 * with a registered public key must sign every request (Signature + Timestamp headers).
 */
@Injectable()
export class McpAuthGuard implements CanActivate {
  constructor(
    private readonly credentials: CredentialResolver,
    private readonly signatures: RequestSignatureVerifier,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    // RFC 6750 §3: a 401 names the scheme it wants.
    ctx.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="mcp"');
    const secret = bearerOf(req);
    if (!secret) {
      throw mcpErrors.unauthorized('Send Authorization: Bearer <agent credential agc_…>');
    }
    const principal = await this.credentials.resolve(secret);
    if (!principal) {
      throw mcpErrors.unauthorized('Agent credential is unknown or revoked');
    }
    if (principal.kind !== 'agent') {
      throw mcpErrors.unauthorized(
        '/mcp takes an agent credential (agc_…), not an API key or a protocol key',
      );
    }
    if (principal.publicKey) {
      await this.signatures.verify(req, principal.publicKey);
    }
    ctx.switchToHttp().getResponse<Response>().removeHeader('WWW-Authenticate');
    setPrincipal(req, principal);
    return true;
  }
}
