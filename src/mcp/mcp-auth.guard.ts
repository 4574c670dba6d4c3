import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';

import { setPrincipal } from '../common/auth/auth.decorators';
import { bearerOf } from '../common/auth/bearer';
import { CredentialResolver } from '../common/auth/credential.resolver';
import { RequestSignatureVerifier } from '../common/signing/request-signature.verifier';
import { mcpErrors } from './mcp.errors';

/**
 * /mcp takes an agent credential (`Bearer agc_…`: the agent tools) or a merchant protocol key
 * (`Bearer acpk_…`: the ACP checkout tools, the MCP binding of ACP). Everything else (no header,
 * unknown or revoked secret, an API key) is 401, and a buyer protocol key 403 `wrong_role` as on
 * the REST checkout routes, with a JSON error before the MCP layer runs, so a client without the
 * right credential never gets as far as `initialize`. As on /v1 and /acp, a caller with a
 * registered public key must sign every request (Signature + Timestamp headers).
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
      throw mcpErrors.unauthorized(
        'Send Authorization: Bearer <agent credential agc_… or merchant protocol key acpk_…>',
      );
    }
    const principal = await this.credentials.resolve(secret);
    if (!principal) {
      throw mcpErrors.unauthorized('Credential is unknown or revoked');
    }
    if (principal.kind === 'api_key') {
      throw mcpErrors.unauthorized(
        '/mcp takes an agent credential (agc_…) or a merchant protocol key (acpk_…), not an API key',
      );
    }
    if (principal.kind === 'protocol_key' && principal.role !== 'merchant') {
      throw mcpErrors.wrongRole(principal.role);
    }
    if (principal.publicKey) {
      await this.signatures.verify(req, principal.publicKey);
    }
    ctx.switchToHttp().getResponse<Response>().removeHeader('WWW-Authenticate');
    setPrincipal(req, principal);
    return true;
  }
}
