import { Module } from '@nestjs/common';

import { DOCUMENT_STORE, PostgresDocumentStore } from './document-store';
import { StoredDocumentRepository } from './stored-document.repository';

/**
 * Documents at rest (docs/documents.md "Documents and outbound fetches"): the DOCUMENT_STORE port, backed by
 * Postgres. The content rules (document-content.ts) and URL fetches (document-fetch.ts) are
 * plain functions.
 */
@Module({
  providers: [
    StoredDocumentRepository,
    PostgresDocumentStore,
    { provide: DOCUMENT_STORE, useExisting: PostgresDocumentStore },
  ],
  exports: [DOCUMENT_STORE],
})
export class DocumentsModule {}
