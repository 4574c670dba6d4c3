import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { KeyAnswer, KeyAnswerStore } from '../common/idempotency/key-answer';
import type { Eventually } from '../database/tx';
import { CreateQuoteDto, CreateQuoteFromOfferDto, PayQuoteDto } from './dto/create-quote.dto';
import { PayQuoteResponse, QuoteResponse } from './dto/quote.response';
import { QuotesService } from './quotes.service';

@ApiTags('quotes')
@Controller('v1/pay')
@Auth('agent')
export class QuotesController {
  constructor(private readonly quotes: QuotesService) {}

  @Post('sellers/:agent_id/quotes')
  @Idempotent()
  @ApiOperation({
    operationId: 'requestQuote',
    summary:
      'Buyer agent: quote for one published offer of a listed seller (published price, quantity 1, valid 15 minutes, addressed to the caller)',
  })
  @ApiCreatedResponse({ type: QuoteResponse })
  requestQuote(
    @Caller() caller: AgentPrincipal,
    @Param('agent_id') sellerAgentId: string,
    @Body() body: CreateQuoteFromOfferDto,
  ): Promise<QuoteResponse> {
    return this.quotes.createFromOffer(caller, sellerAgentId, body.sku);
  }

  @Post('quotes')
  @Idempotent()
  @ApiOperation({
    operationId: 'createQuote',
    summary:
      'Seller agent: free-form quote to one buyer agent. Must be signed when the seller registered a public key.',
  })
  @ApiCreatedResponse({ type: QuoteResponse })
  create(@Caller() caller: AgentPrincipal, @Body() body: CreateQuoteDto): Promise<QuoteResponse> {
    return this.quotes.createFreeForm(caller, {
      buyerAgentId: body.buyer_agent_id,
      category: body.category,
      items: body.items.map((it) => ({
        name: it.name,
        unitPaise: it.unit_paise,
        quantity: it.quantity,
      })),
      expiresInSeconds: body.expires_in_seconds,
    });
  }

  @Get('quotes/:id')
  @ApiOperation({
    operationId: 'getQuote',
    summary: 'The quote, for its seller or its addressed buyer (404 for anyone else)',
  })
  @ApiOkResponse({ type: QuoteResponse })
  get(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<QuoteResponse> {
    return this.quotes.getForParty(caller.id, id);
  }

  @Post('quotes/:id/cancel')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'cancelQuote',
    summary: 'Seller agent: cancel an open quote (a payment waiting for approval is withdrawn)',
  })
  @ApiOkResponse({ type: QuoteResponse })
  cancel(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<QuoteResponse> {
    return this.quotes.cancel(caller, id);
  }

  @Post('quotes/:id/pay')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'payQuote',
    summary:
      'Addressed buyer agent: pay under its mandate. 200 with intent.status settled, requires_approval (above ₹2,000), declined or failed; processing (and the quote processing) when the rail has not answered yet.',
  })
  @ApiOkResponse({ type: PayQuoteResponse })
  pay(
    @Caller() caller: AgentPrincipal,
    @Param('id') id: string,
    @Body() body: PayQuoteDto,
    @KeyAnswer() keyAnswer: KeyAnswerStore | null,
  ): Promise<Eventually<PayQuoteResponse>> {
    // An AfterCommit answer is finished by the IdempotencyInterceptor after the rail answered; the
    // payment is kept on the key (keyAnswer), so a retry after a crash answers it.
    return this.quotes.payAsBuyer({
      buyerAgentId: caller.id,
      quoteId: id,
      mandateId: body.mandate_id,
      keyAnswer,
    });
  }
}
