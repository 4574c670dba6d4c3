import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { AcpRoute, Auth, Caller } from '../../src/common/auth/auth.decorators';
import type { AgentPrincipal, ProtocolKeyPrincipal } from '../../src/common/auth/principal';
import { AppError } from '../../src/common/errors/app-error';
import { Idempotent } from '../../src/common/idempotency/idempotent.decorator';
import { randomToken } from '../../src/common/ids';
import { Tx } from '../../src/database/tx';

export class ProbeDto {
  @IsString() note: string;
  @IsOptional() @IsInt() @Min(1) amount?: number;
  @IsOptional() @IsIn(['ok', 'fail4xx', 'fail5xx', 'slow']) mode?:
    'ok' | 'fail4xx' | 'fail5xx' | 'slow';
}

/**
 * A minimal protected ACP route used only by the pipeline tests: it writes one audit row (a
 * business write) and can be told to fail with a 4xx or a 5xx, or to take a while. POST /acp/_probe/alt
 * is the same handler under a second path.
 */
@Controller('acp/_probe')
export class ProbeController {
  constructor(private readonly tx: Tx) {}

  // Two concrete paths on one handler, so the tests can show the idempotency scope includes the path.
  @Post(['/', 'alt'])
  @AcpRoute('merchant')
  @Idempotent()
  async create(@Caller() caller: ProtocolKeyPrincipal, @Body() body: ProbeDto) {
    const id = `probe_${randomToken(10)}`;
    await this.tx.manager.query(
      `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action, subject_id, data) VALUES ($1, 'protocol_key', $2, 'probe', $3, $4)`,
      [caller.workspaceId, caller.id, id, JSON.stringify({ note: body.note })],
    );
    if (body.mode === 'slow') {
      await new Promise((r) => setTimeout(r, 700));
    }
    if (body.mode === 'fail4xx') {
      throw new AppError(400, 'invalid_request', 'probe_refused', 'refused on purpose');
    }
    if (body.mode === 'fail5xx') {
      throw new Error('boom');
    }
    return { id, note: body.note };
  }

  @Get()
  @AcpRoute('merchant')
  get(@Caller() caller: ProtocolKeyPrincipal) {
    return { ok: true, key: caller.id };
  }

  @Post('buyer')
  @HttpCode(200)
  @AcpRoute('buyer')
  @Idempotent()
  buyer() {
    return { ok: true };
  }
}

export class AgentProbeDto {
  @IsString() note: string;
}

/**
 * The /v1 counterpart for agent credentials (no production /v1 route takes one yet): shows the
 * BearerAuthGuard's kind check and that an agent with a registered public key must sign.
 */
@Controller('v1/_probe')
@Auth('agent')
export class AgentProbeController {
  @Get()
  get(@Caller() caller: AgentPrincipal) {
    return { ok: true, agent: caller.id };
  }

  @Post()
  @Idempotent()
  create(@Caller() caller: AgentPrincipal, @Body() body: AgentProbeDto) {
    return { agent: caller.id, note: body.note };
  }
}
