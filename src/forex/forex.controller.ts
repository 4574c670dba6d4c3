import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { Page, PageQuery } from '../common/pagination';
import { decodeBase64Document } from '../documents/document-content';
import {
  CreateForexFileDto,
  CreateForexQuoteDto,
  ListForexFilesQuery,
  UploadForexDocumentDto,
} from './dto/forex-requests.dto';
import {
  ForexDocumentResponse,
  ForexFileListResponse,
  ForexFileResponse,
  ForexFileSummary,
  ForexPartnerListResponse,
  ForexPartnerResponse,
  ForexQuoteResponse,
  ForexRatesResponse,
  ForexReceiptResponse,
} from './dto/forex-responses';
import { ForexService } from './forex.service';
import { PanDigestGuard, PanFromBody, RequireIdempotencyKey } from './forex-http';
import type { PanDigest } from './pan';

/**
 * Forex for agents (spec §4 "Forex"; docs/forex.md "Forex files"). A buyer agent prepares a file for one
 * of its people; only the partner's dealer, a person in the app, books it. Thin: one ForexService
 * call per route (the MCP tools call the same methods).
 */
@ApiTags('forex')
@Controller('v1/pay/forex')
@Auth('agent')
export class ForexController {
  constructor(private readonly forex: ForexService) {}

  @Get('partners')
  @ApiOperation({
    operationId: 'listForexPartners',
    summary: 'AD Category-II partners a file can go to (cursor pagination)',
  })
  @ApiOkResponse({ type: ForexPartnerListResponse })
  partners(
    @Caller() caller: AgentPrincipal,
    @Query() q: PageQuery,
  ): Promise<Page<ForexPartnerResponse>> {
    return this.forex.listPartners(caller, { limit: q.limit, startingAfter: q.starting_after });
  }

  @Get('partners/:id/rates')
  @ApiOperation({
    operationId: 'getForexRates',
    summary:
      "A partner's buy and sell rates per currency, for notes and for card/remittance: integer ten-thousandths of a rupee per ONE unit (JPY converted from per-100), with the time they were set",
  })
  @ApiOkResponse({ type: ForexRatesResponse })
  rates(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<ForexRatesResponse> {
    return this.forex.rates(caller, id);
  }

  @Post('orders')
  @RequireIdempotencyKey()
  @UseGuards(PanDigestGuard)
  @Idempotent()
  @ApiOperation({
    operationId: 'createForexFile',
    summary:
      'Buyer agent: open a forex file (fxo_…) for one of its people: kind, purpose code, traveller, destination, dates, PAN (stored only as a keyed hash and XXXXX1234X). Aadhaar is refused. Idempotency-Key required.',
  })
  @ApiCreatedResponse({ type: ForexFileResponse })
  create(
    @Caller() caller: AgentPrincipal,
    @PanFromBody() pan: PanDigest | undefined,
    @Body() body: CreateForexFileDto,
  ): Promise<ForexFileResponse> {
    return this.forex.createFile(caller, {
      partnerId: body.partner_id,
      kind: body.kind,
      purposeCode: body.purpose_code,
      personEmail: body.person_email,
      travellerName: body.traveller_name,
      beneficiaryName: body.beneficiary_name,
      companyName: body.company_name,
      destinationCountry: body.destination_country,
      departureDate: body.departure_date,
      returnDate: body.return_date,
      pan: pan ?? body.pan,
      educationLoanFunded: body.education_loan_funded,
      notes: body.notes,
    });
  }

  @Get('orders')
  @ApiOperation({
    operationId: 'listForexFiles',
    summary: "The calling agent's forex files, newest first (cursor pagination)",
  })
  @ApiOkResponse({ type: ForexFileListResponse })
  list(
    @Caller() caller: AgentPrincipal,
    @Query() q: ListForexFilesQuery,
  ): Promise<Page<ForexFileSummary>> {
    return this.forex.listFiles(caller, {
      status: q.status,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }

  @Get('orders/:id')
  @ApiOperation({
    operationId: 'getForexFile',
    summary:
      'Status of a file: state, checklist, documents (metadata only), quote, LRS use, declaration and dealer notes',
  })
  @ApiOkResponse({ type: ForexFileResponse })
  status(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<ForexFileResponse> {
    return this.forex.status(caller, id);
  }

  @Get('orders/:id/receipt')
  @ApiOperation({
    operationId: 'getForexFileReceipt',
    summary:
      "The file's signed hash-chained receipt (every step), verifiable offline with docs/verify-receipt.mjs",
  })
  @ApiOkResponse({ type: ForexReceiptResponse })
  receipt(
    @Caller() caller: AgentPrincipal,
    @Param('id') id: string,
  ): Promise<ForexReceiptResponse> {
    return this.forex.receipt(caller, id);
  }

  @Post('quotes')
  @RequireIdempotencyKey()
  @Idempotent()
  @ApiOperation({
    operationId: 'createForexQuote',
    summary:
      "Quote a file at the partner's current rates and lock them for 15 minutes: lines, rupees (paise, half up per line), fee, TCS, total. Idempotency-Key required.",
  })
  @ApiCreatedResponse({ type: ForexQuoteResponse })
  quote(
    @Caller() caller: AgentPrincipal,
    @Body() body: CreateForexQuoteDto,
  ): Promise<ForexQuoteResponse> {
    return this.forex.quote(caller, {
      fileId: body.file_id,
      lines: body.lines.map((l) => ({
        currency: l.currency,
        amount: l.amount,
        product: l.product,
      })),
    });
  }

  @Post('orders/:id/documents')
  @Idempotent()
  @ApiOperation({
    operationId: 'uploadForexDocument',
    summary:
      'Add a document (PDF, JPEG or PNG by magic bytes, matching content_type; at most 5 MB = 5,000,000 bytes decoded) to a draft, quoted or returned file. Stored encrypted; its SHA-256 goes on the receipt. Aadhaar is refused.',
  })
  @ApiCreatedResponse({ type: ForexDocumentResponse })
  upload(
    @Caller() caller: AgentPrincipal,
    @Param('id') id: string,
    @Body() body: UploadForexDocumentDto,
  ): Promise<ForexDocumentResponse> {
    return this.forex.uploadDocument(caller, id, {
      kind: body.kind,
      content_type: body.content_type,
      bytes: decodeBase64Document(body.content_base64, undefined, '$.content_base64'),
      filename: body.filename,
    });
  }

  @Post('orders/:id/submit')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'submitForexFile',
    summary:
      "Send the file towards the dealer: refused while the checklist is incomplete (409 checklist_incomplete, naming what is missing) or the rate lock has lapsed (409 rate_lock_lapsed: request a fresh quote). The file's person then confirms the declaration in the app (declaration.url).",
  })
  @ApiOkResponse({ type: ForexFileResponse })
  submit(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<ForexFileResponse> {
    return this.forex.submit(caller, id);
  }
}
