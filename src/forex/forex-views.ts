import { Inject, Injectable } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { HASH_RULE } from '../receipts/receipts.service';
import type { ForexFileResponse, ForexReceiptResponse } from './dto/forex-responses';
import type { ForexDocument } from './entities/forex-document.entity';
import type { ForexFile } from './entities/forex-file.entity';
import type { ForexPartner } from './entities/forex-partner.entity';
import type { ForexQuote } from './entities/forex-quote.entity';
import { toFileResponse } from './forex.mapper';
import { buildChecklist, Checklist } from './forex-checklist';
import { ForexFileRepository } from './forex-file.repository';
import { effectiveFileStatus, FileStatus } from './forex-file.state';
import { ForexPartnersService } from './forex-partners.service';
import { KIND_RULES } from './forex-rules';

/** Everything a file view needs, loaded once: for the API, the declaration page and the desk. */
export interface FileFacts {
  file: ForexFile;
  status: FileStatus;
  partner: ForexPartner;
  documents: ForexDocument[];
  quote: ForexQuote | null;
  lrsPriorUsdCents: number;
  checklist: Checklist;
  now: Date;
}

/** Reads a file with its parts and builds its checklist (forex-checklist.ts) and views. */
@Injectable()
export class ForexViews {
  constructor(
    private readonly clock: Clock,
    private readonly files: ForexFileRepository,
    private readonly partners: ForexPartnersService,
    private readonly chains: ChainService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async facts(file: ForexFile): Promise<FileFacts> {
    const now = this.clock.now();
    const status = effectiveFileStatus(file, now);
    // One after another: inside a request's transaction these share its one connection, which
    // takes one query at a time (pg deprecates queueing a second one on it).
    const partner = await this.partners.get(file.partnerId);
    const documents = await this.files.documents(file.id);
    const quote = file.currentQuoteId ? await this.files.findQuote(file.currentQuoteId) : null;
    const rule = KIND_RULES[file.kind];
    const prior =
      rule.lrs && quote
        ? (await this.files.lrsTotals(file.panHash, quote.financialYear, file.id, now)).usdCents
        : 0;
    return {
      file,
      status,
      partner,
      documents,
      quote,
      lrsPriorUsdCents: prior,
      checklist: this.checklist(file, status, documents, quote, prior, now),
      now,
    };
  }

  checklist(
    file: ForexFile,
    status: FileStatus,
    documents: ForexDocument[],
    quote: ForexQuote | null,
    lrsPriorUsdCents: number,
    now: Date,
  ): Checklist {
    return buildChecklist({
      file,
      status,
      documentKinds: documents.map((d) => d.kind),
      quote,
      lrsPriorUsdCents,
      now,
    });
  }

  async fileResponse(file: ForexFile): Promise<ForexFileResponse> {
    return this.toResponse(await this.facts(file));
  }

  toResponse(f: FileFacts): ForexFileResponse {
    return toFileResponse(f.file, {
      status: f.status,
      partner: f.partner,
      documents: f.documents,
      quote: f.quote,
      lrsPriorUsdCents: f.lrsPriorUsdCents,
      checklist: f.checklist,
      declarationUrl: this.declarationUrl(f.file.id),
      now: f.now,
    });
  }

  /** Where the file's person confirms the declaration: {app_url}/forex/declarations/<file id>. */
  declarationUrl(fileId: string): string {
    return `${this.config.appUrl}/forex/declarations/${fileId}`;
  }

  async receipt(file: ForexFile): Promise<ForexReceiptResponse> {
    return {
      id: file.receiptId,
      object: 'receipt',
      file_id: file.id,
      entries: await this.chains.entries(file.receiptId),
      verification: {
        jwks_url: `${this.config.baseUrl}/.well-known/jwks.json`,
        hash_rule: HASH_RULE,
        signature:
          'each entry.jws is a compact JWS (EdDSA, kid in header) whose payload is entry.hash',
      },
    };
  }
}
