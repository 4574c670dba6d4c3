import { Inject, Injectable } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { Tx } from '../database/tx';
import {
  checkDocumentType,
  DOCUMENT_MAX_BYTES,
  isDocumentType,
} from '../documents/document-content';
import { DOCUMENT_STORE, DocumentStore } from '../documents/document-store';
import { findAadhaar, isAadhaarKind } from './aadhaar';
import type { ForexDocumentResponse } from './dto/forex-responses';
import { ForexDocument } from './entities/forex-document.entity';
import { forexErrors } from './forex.errors';
import { toDocumentResponse } from './forex.mapper';
import { ForexFileRepository } from './forex-file.repository';
import { EDITABLE_STATUSES, effectiveFileStatus } from './forex-file.state';
import { DOCUMENT_KINDS, DocumentKind } from './forex-rules';

export interface DocumentInput {
  kind: string;
  /** The declared type; the bytes must be of it (magic bytes). */
  contentType: string;
  bytes: Buffer;
  filename?: string;
}

/**
 * A file's documents: PDF, JPEG or PNG, at most 5 MB (5,000,000 bytes), sealed at rest behind the
 * DocumentStore port (src/documents), with their metadata and SHA-256 in forex_documents and on
 * the file's receipt. Aadhaar, as a kind or anywhere in the metadata, is refused before anything
 * is stored.
 */
@Injectable()
export class ForexDocumentsService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly files: ForexFileRepository,
    private readonly chains: ChainService,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  async upload(
    agent: AgentPrincipal,
    fileId: string,
    input: DocumentInput,
  ): Promise<ForexDocumentResponse> {
    if (isAadhaarKind(input.kind)) {
      throw forexErrors.aadhaarDocument('$.kind');
    }
    const hit = findAadhaar({
      kind: input.kind,
      content_type: input.contentType,
      filename: input.filename,
    });
    if (hit) {
      throw forexErrors.aadhaarRefused(hit);
    }
    if (!(DOCUMENT_KINDS as readonly string[]).includes(input.kind)) {
      throw forexErrors.invalid(
        '$.kind',
        'invalid_document_kind',
        `kind must be one of ${DOCUMENT_KINDS.join(', ')}`,
      );
    }
    if (!isDocumentType(input.contentType)) {
      throw forexErrors.documentTypeNotAccepted();
    }
    if (input.bytes.length > DOCUMENT_MAX_BYTES) {
      throw forexErrors.documentTooLarge(DOCUMENT_MAX_BYTES);
    }
    const contentType = checkDocumentType(input.bytes, input.contentType, '$.content_base64');
    const filename = input.filename?.trim() || null;
    return this.tx.run(async () => {
      const file = await this.files.lock(fileId);
      if (!file || file.agentId !== agent.id) {
        throw forexErrors.fileNotFound(fileId);
      }
      const now = this.clock.now();
      const status = effectiveFileStatus(file, now);
      if (!EDITABLE_STATUSES.includes(status)) {
        throw forexErrors.notInState(file.id, status, 'take documents');
      }
      const stored = await this.store.put(input.bytes, contentType);
      const doc = Object.assign(new ForexDocument(), {
        id: newId('fxd'),
        fileId: file.id,
        storedDocumentId: stored.id,
        kind: input.kind as DocumentKind,
        contentType,
        sizeBytes: stored.sizeBytes,
        sha256: stored.sha256,
        filename,
        uploadedBy: agent.id,
        createdAt: now,
      });
      await this.files.insertDocument(doc);
      await this.files.update(file.id, { updatedAt: now });
      await this.audit.record(
        agent.workspaceId,
        { type: 'agent', id: agent.id },
        'forex.document_added',
        file.id,
        {
          document_id: doc.id,
          kind: doc.kind,
        },
      );
      await this.chains.append(file.receiptId, {
        type: 'forex.document_added',
        file_id: file.id,
        document_id: doc.id,
        kind: doc.kind,
        content_type: contentType,
        size_bytes: doc.sizeBytes,
        sha256: doc.sha256,
      });
      return toDocumentResponse(doc);
    });
  }

  /** The bytes of a document, for the dealer desk (the caller has checked the dealer may see the file). */
  async content(
    fileId: string,
    documentId: string,
  ): Promise<{ doc: ForexDocument; bytes: Buffer }> {
    const doc = await this.files.findDocument(fileId, documentId);
    // Bytes deleted under the retention schedule (storedDocumentId null) are not found either.
    const stored = doc?.storedDocumentId ? await this.store.get(doc.storedDocumentId) : null;
    if (!doc || !stored) {
      throw forexErrors.documentNotFound(documentId);
    }
    return { doc, bytes: stored.bytes };
  }
}
