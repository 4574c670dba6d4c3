import { ApiProperty } from '@nestjs/swagger';

/** GET /.well-known/acp.json (docs/acp.md §8): ACP `DiscoveryResponse` as we serve it. */
export class AcpDiscoveryProtocol {
  @ApiProperty({ enum: ['acp'] }) name: 'acp';
  @ApiProperty({ example: '2026-04-17' }) version: string;
  @ApiProperty({
    type: [String],
    description: 'Oldest first (API-Version errors list them newest first)',
    example: ['2026-04-17'],
  })
  supported_versions: string[];
  @ApiProperty({ format: 'uri' }) documentation_url: string;
}

export class AcpDiscoveryCapabilities {
  @ApiProperty({ enum: ['checkout', 'orders', 'delegate_payment'], isArray: true })
  services: string[];
  @ApiProperty({ type: [String], example: ['inr'] }) supported_currencies: string[];
  @ApiProperty({ type: [String], example: ['en-IN'] }) supported_locales: string[];
}

export class AcpDiscoveryResponse {
  @ApiProperty({ type: () => AcpDiscoveryProtocol }) protocol: AcpDiscoveryProtocol;
  @ApiProperty({ format: 'uri', description: 'Base of every /acp route' }) api_base_url: string;
  @ApiProperty({
    enum: ['rest', 'mcp'],
    isArray: true,
    description: 'mcp: the MCP binding at /mcp',
  })
  transports: string[];
  @ApiProperty({ type: () => AcpDiscoveryCapabilities }) capabilities: AcpDiscoveryCapabilities;
}
