import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { JwksResponse } from './dto/jwks.response';
import { SigningKeyService } from './signing-key.service';

@ApiTags('receipts')
@Controller('.well-known')
export class JwksController {
  constructor(private readonly signingKeys: SigningKeyService) {}

  @Get('jwks.json')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getJwks',
    summary: 'Public keys that verify receipt and chain signatures (no auth)',
    description:
      'Every Ed25519 key the service has ever signed with, so old receipts keep verifying. Each chain ' +
      'entry carries a compact JWS (EdDSA) whose header kid names one of these keys.',
  })
  @ApiOkResponse({ type: JwksResponse })
  jwks(): Promise<JwksResponse> {
    return this.signingKeys.jwks();
  }
}
