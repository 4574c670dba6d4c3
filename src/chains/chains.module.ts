import { Module } from '@nestjs/common';

import { ChainRepository } from './chain.repository';
import { ChainService } from './chain.service';
import { JwksController } from './jwks.controller';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeyService } from './signing-key.service';

/** Signed hash chains and the service signing key (JWKS at /.well-known/jwks.json). */
@Module({
  controllers: [JwksController],
  providers: [SigningKeyService, SigningKeyRepository, ChainService, ChainRepository],
  exports: [ChainService, SigningKeyService],
})
export class ChainsModule {}
