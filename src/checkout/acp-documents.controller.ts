import { Controller, Get, Header, Inject, Render } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';

import { ACP_VERSION, SUPPORTED_ACP_VERSIONS } from '../common/auth/acp.guard';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AcpDiscoveryResponse } from './dto/discovery.response';
import {
  configSchema,
  HANDLER_ID,
  HANDLER_PATHS,
  HANDLER_VERSION,
  instrumentSchema,
  upiMandateHandler,
} from './upi-mandate-handler';

const CACHE_HOUR = 'public, max-age=3600';

/** A JSON Schema document: an object with $schema, $id, type, properties… */
const JSON_SCHEMA_CONTENT = {
  'application/schema+json': {
    schema: {
      type: 'object',
      required: ['$schema', '$id', 'title', 'type'],
      properties: {
        $schema: { type: 'string', format: 'uri' },
        $id: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        description: { type: 'string' },
        type: { type: 'string', enum: ['object'] },
      },
      additionalProperties: true,
    },
  },
};

/**
 * Public ACP documents: discovery and the svc_upi_mandate handler's spec and schemas
 * (docs/acp.md §8: the URIs in every session must resolve). No auth, no API-Version.
 */
@ApiTags('acp-discovery')
@Controller()
export class AcpDocumentsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('.well-known/acp.json')
  @Header('Cache-Control', CACHE_HOUR)
  @ApiOperation({
    operationId: 'getAcpDiscovery',
    summary: 'ACP discovery document (no merchant ids; handlers are per session)',
  })
  @ApiOkResponse({ type: AcpDiscoveryResponse })
  discovery(): AcpDiscoveryResponse {
    return {
      protocol: {
        name: 'acp',
        version: ACP_VERSION,
        // Oldest first here, newest first in Error.supported_versions (docs/acp.md §1, §8).
        supported_versions: [...SUPPORTED_ACP_VERSIONS].reverse(),
        documentation_url: `${this.config.baseUrl}/docs`,
      },
      api_base_url: `${this.config.baseUrl}/acp`,
      // mcp: the MCP binding of checkout at /mcp, for a merchant protocol key (docs/mcp.md "MCP server").
      transports: ['rest', 'mcp'],
      capabilities: {
        // orders: order webhooks + GET /acp/orders/{id} (docs/webhooks.md "Order webhooks").
        services: ['checkout', 'orders', 'delegate_payment'],
        supported_currencies: ['inr'],
        supported_locales: ['en-IN'],
      },
    };
  }

  @Get(HANDLER_PATHS.spec.slice(1))
  @Header('Cache-Control', CACHE_HOUR)
  @Render('checkout/upi-mandate-handler')
  @ApiOperation({
    operationId: 'getUpiMandateHandlerSpec',
    summary: 'The svc_upi_mandate payment handler specification (HTML)',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({
    description: 'HTML page',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  handlerSpec() {
    const example = upiMandateHandler(this.config, 'agt_…');
    return {
      // A developer's document, like the ACP API it describes: English only (docs/languages.md),
      // so the page says so and offers no switch, whatever the reader's browser asks for.
      lang: 'en',
      htmlLang: 'en-IN',
      languageSwitch: null,
      title: 'svc_upi_mandate payment handler',
      handlerId: HANDLER_ID,
      version: HANDLER_VERSION,
      handlerJson: JSON.stringify(example, null, 2),
      configSchemaUrl: `${this.config.baseUrl}${HANDLER_PATHS.configSchema}`,
      instrumentSchemaUrl: `${this.config.baseUrl}${HANDLER_PATHS.instrumentSchema}`,
      delegateUrl: `${this.config.baseUrl}/acp/agentic_commerce/delegate_payment`,
      jwksUrl: `${this.config.baseUrl}/.well-known/jwks.json`,
    };
  }

  @Get(HANDLER_PATHS.configSchema.slice(1))
  @Header('Cache-Control', CACHE_HOUR)
  @Header('Content-Type', 'application/schema+json')
  @ApiOperation({
    operationId: 'getUpiMandateHandlerConfigSchema',
    summary: 'JSON Schema (2020-12) of the handler config object',
  })
  @ApiProduces('application/schema+json')
  @ApiOkResponse({ description: 'JSON Schema document', content: JSON_SCHEMA_CONTENT })
  handlerConfigSchema() {
    return configSchema(this.config);
  }

  @Get(HANDLER_PATHS.instrumentSchema.slice(1))
  @Header('Cache-Control', CACHE_HOUR)
  @Header('Content-Type', 'application/schema+json')
  @ApiOperation({
    operationId: 'getUpiMandateHandlerInstrumentSchema',
    summary: 'JSON Schema (2020-12) of payment_data.instrument for this handler',
  })
  @ApiProduces('application/schema+json')
  @ApiOkResponse({ description: 'JSON Schema document', content: JSON_SCHEMA_CONTENT })
  handlerInstrumentSchema() {
    return instrumentSchema(this.config);
  }
}
