import { Body, Controller, Headers, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Caller } from '../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { DelegatePaymentService } from './delegate-payment.service';
import { DelegatePaymentDto } from './dto/delegate-payment.dto';
import { DelegatePaymentResponse } from './dto/delegate-payment.response';

@ApiTags('ACP delegate payment')
@Controller('acp/agentic_commerce')
export class DelegatePaymentController {
  constructor(private readonly delegatePayment: DelegatePaymentService) {}

  @Post('delegate_payment')
  @AcpRoute('buyer')
  @Idempotent({ pipelined: true })
  @ApiOperation({
    operationId: 'delegatePayment',
    summary:
      'Mint a one-time delegated token (vt_…) drawn on a UPI mandate; cards are refused (invalid_card)',
  })
  @ApiCreatedResponse({ type: DelegatePaymentResponse })
  create(
    @Caller() caller: ProtocolKeyPrincipal,
    @Body() body: DelegatePaymentDto,
    @Headers('idempotency-key') idempotencyKey: string,
  ): Promise<DelegatePaymentResponse> {
    return this.delegatePayment.delegatePayment(caller, body, idempotencyKey);
  }
}
