import { Module } from '@nestjs/common';

import { DelegatedTokenRepository } from './delegated-token.repository';

/**
 * The owner of delegated_tokens (docs/architecture.md "Table owners"), in a module of its own so
 * that mandates (revocation) and the payment pipeline (a waiting payment's token) use it without
 * importing the PSP module.
 */
@Module({
  providers: [DelegatedTokenRepository],
  exports: [DelegatedTokenRepository],
})
export class TokensStoreModule {}
