import { ApiProperty } from '@nestjs/swagger';

/** An Ed25519 public key as a JWK (RFC 8037); kid is its RFC 7638 SHA-256 thumbprint. */
export class JwkResponse {
  @ApiProperty({ enum: ['OKP'] }) kty: 'OKP';
  @ApiProperty({ enum: ['Ed25519'] }) crv: 'Ed25519';
  @ApiProperty({
    description: 'Public key, base64url',
    example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  })
  x: string;
  @ApiProperty({ description: 'RFC 7638 JWK thumbprint (SHA-256, base64url)' }) kid: string;
  @ApiProperty({ enum: ['EdDSA'] }) alg: 'EdDSA';
  @ApiProperty({ enum: ['sig'] }) use: 'sig';
}

export class JwksResponse {
  @ApiProperty({
    type: [JwkResponse],
    description: 'Every key the service has signed with, oldest first',
  })
  keys: JwkResponse[];
}
