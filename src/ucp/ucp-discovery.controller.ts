import { Controller, Get, Header, Inject, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import { UcpExceptionFilter } from './ucp-errors';
import {
  UCP_BUSINESS_PROFILE,
  UCP_HANDLER_SCHEMA,
  UCP_HANDLER_SPEC,
  UcpDocumentResponses,
} from './ucp-openapi';
import { businessProfile, UCP_PATHS, ucpHandlerSchema, ucpHandlerSpec } from './ucp-profile';

/** UCP discovery (docs/ucp.md "Discovery"): public, cacheable, no auth. */
@ApiTags('ucp')
@Controller()
@UseFilters(UcpExceptionFilter)
export class UcpDiscoveryController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('.well-known/ucp')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getUcpProfile',
    summary: 'UCP business profile: version, REST service, checkout capability, payment handler',
  })
  @UcpDocumentResponses(UCP_BUSINESS_PROFILE, 'Our UCP business profile')
  profile(): Record<string, unknown> {
    return businessProfile(this.config);
  }

  @Get(UCP_PATHS.handlerSpec.slice(1))
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getUcpUpiMandateHandlerSpec',
    summary: 'The com.svc.upi_mandate UCP payment handler: participants, acquisition, processing',
  })
  @UcpDocumentResponses(UCP_HANDLER_SPEC, 'The handler specification')
  handlerSpec(): Record<string, unknown> {
    return ucpHandlerSpec(this.config);
  }

  @Get(UCP_PATHS.handlerSchema.slice(1))
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getUcpUpiMandateHandlerSchema',
    summary: 'JSON Schema of the handler: config, instrument, credential',
  })
  @UcpDocumentResponses(UCP_HANDLER_SCHEMA, 'The handler JSON Schema (2020-12)')
  handlerSchema(): Record<string, unknown> {
    return ucpHandlerSchema(this.config);
  }
}
