import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { DocumentKind } from '../forex-rules';

/** Metadata of a file's document; the sealed bytes live in stored_documents (src/documents). */
@Entity('forex_documents')
export class ForexDocument {
  @PrimaryColumn('text') id: string;
  @Column('text') fileId: string;
  /** null once the retention job deleted the bytes (purgedAt); the metadata stays. */
  @Column('text', { nullable: true }) storedDocumentId: string | null;
  @Column('text') kind: DocumentKind;
  @Column('text') contentType: 'application/pdf' | 'image/jpeg' | 'image/png';
  @Column('integer') sizeBytes: number;
  @Column('text') sha256: string;
  @Column('text', { nullable: true }) filename: string | null;
  /** The agent that uploaded it. */
  @Column('text') uploadedBy: string;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz', { nullable: true }) purgedAt: Date | null;
}
