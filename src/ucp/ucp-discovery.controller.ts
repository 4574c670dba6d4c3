import { Controller, Get, Header, Inject, UseFilters } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import { UcpExceptionFilter } from './ucp-errors';
import { businessProfile, UCP_PATHS, ucpHandlerSchema, ucpHandlerSpec } from './ucp-profile';

const OPEN_OBJECT = { schema: { type: 'object', additionalProperties: true } } as const;

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
  @ApiOkResponse({
    description: 'discovery/profile_schema.json (business_profile), UCP 2026-04-08',
    ...OPEN_OBJECT,
  })
  profile(): Record<string, unknown> {
    return businessProfile(this.config);
  }

  @Get(UCP_PATHS.handlerSpec.slice(1))
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getUcpUpiMandateHandlerSpec',
    summary: 'The com.svc.upi_mandate UCP payment handler: participants, acquisition, processing',
  })
  @ApiOkResponse(OPEN_OBJECT)
  handlerSpec(): Record<string, unknown> {
    return ucpHandlerSpec(this.config);
  }

  @Get(UCP_PATHS.handlerSchema.slice(1))
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getUcpUpiMandateHandlerSchema',
    summary: 'JSON Schema of the handler: config, instrument, credential',
  })
  @ApiOkResponse(OPEN_OBJECT)
  handlerSchema(): Record<string, unknown> {
    return ucpHandlerSchema(this.config);
  }
}
