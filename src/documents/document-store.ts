import { createHash } from 'node:crypto';

import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { openSealedBytes, sealBytes } from '../common/crypto/sealed';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig, ConfigError } from '../config/app.config';
import { Tx } from '../database/tx';
import { DOCUMENT_MAX_BYTES, isDocumentType } from './document-content';
import { documentErrors } from './documents.errors';
import { StoredDocumentRepository } from './stored-document.repository';

/** Injection token of the DocumentStore port (PostgresDocumentStore by default). */
export const DOCUMENT_STORE = Symbol('DOCUMENT_STORE');

export interface StoredDocumentRef {
  /** `doc_…` */
  id: string;
  /** Hex SHA-256 of the plaintext bytes: what goes on the receipt. */
  sha256: string;
  sizeBytes: number;
}

export interface StoredDocument {
  bytes: Buffer;
  contentType: string;
  sha256: string;
}

/**
 * Where documents live, addressed by id. Callers check the content first (document-content.ts);
 * the store takes bytes and a type and gives back the id and the SHA-256 of the bytes.
 */
export interface DocumentStore {
  put(bytes: Buffer, contentType: string): Promise<StoredDocumentRef>;
  get(id: string): Promise<StoredDocument | null>;
}

/** Key version written with every row; a rotation adds a key and bumps this. */
export const DOCUMENT_KEY_VERSION = 1;

export class StoredDocumentUnreadableError extends Error {}

/**
 * The AAD binds a ciphertext to its row and to what the row says about it: a ciphertext copied
 * onto another row, or a row whose content_type or sha256 was altered, does not open.
 */
function sealingContext(id: string, contentType: string, sha256: string): string {
  return `stored_documents\n${id}\n${contentType}\n${sha256}`;
}

/**
 * Documents encrypted at rest in `stored_documents` (docs/documents.md "Documents and outbound fetches"):
 * AES-256-GCM (src/common/crypto/sealed.ts) under DOCUMENT_ENCRYPTION_KEY, with the key version
 * on the row. `put` joins the ambient transaction when one is open (src/database/tx.ts), so a
 * document and the business row that points at it commit or roll back together.
 */
@Injectable()
export class PostgresDocumentStore implements DocumentStore, OnModuleInit {
  constructor(
    tx: Tx,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // Injected by Nest; built from `tx` when the store is constructed by hand (tests).
    private readonly documents: StoredDocumentRepository = new StoredDocumentRepository(tx),
  ) {}

  /** Live mode does not start without its own key (the dev key is public). */
  onModuleInit(): void {
    this.key();
  }

  async put(bytes: Buffer, contentType: string): Promise<StoredDocumentRef> {
    if (!isDocumentType(contentType)) {
      throw documentErrors.typeUnsupported();
    }
    if (bytes.length === 0) {
      throw documentErrors.empty();
    }
    if (bytes.length > DOCUMENT_MAX_BYTES) {
      throw documentErrors.tooLarge(DOCUMENT_MAX_BYTES);
    }
    const id = newId('doc');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ciphertext = sealBytes(this.key(), bytes, sealingContext(id, contentType, sha256));
    await this.documents.insert({
      id,
      contentType,
      sizeBytes: bytes.length,
      sha256,
      keyVersion: DOCUMENT_KEY_VERSION,
      ciphertext,
    });
    return { id, sha256, sizeBytes: bytes.length };
  }

  async get(id: string): Promise<StoredDocument | null> {
    const row = await this.documents.find(id);
    if (!row) {
      return null;
    }
    if (row.key_version !== DOCUMENT_KEY_VERSION) {
      throw new StoredDocumentUnreadableError(
        `document ${id} was sealed under key version ${row.key_version}; this service holds version ${DOCUMENT_KEY_VERSION}`,
      );
    }
    const bytes = openSealedBytes(
      this.key(),
      row.ciphertext,
      sealingContext(id, row.content_type, row.sha256),
    );
    return { bytes, contentType: row.content_type, sha256: row.sha256 };
  }

  private key(): Buffer {
    const key = this.config.documentEncryptionKey;
    if (!key) {
      throw new ConfigError(
        'DOCUMENT_ENCRYPTION_KEY is required in live mode (32 bytes, base64 or hex); stored documents are encrypted with it',
      );
    }
    return key;
  }
}
