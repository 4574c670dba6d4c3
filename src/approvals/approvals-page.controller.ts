import { Body, Controller, Get, Inject, OnModuleInit, Param, Post, Query, Redirect, Render } from '@nestjs/common';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import type { Approval } from './approval.entity';
import { ApprovalsService } from './approvals.service';

function view(a: Approval) {
  return {
    id: a.id,
    kind: a.kind,
    summary: a.summary,
    amount_paise: a.amountPaise,
    status: a.status,
    expires_at: a.expiresAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    note: a.note,
  };
}

/**
 * The approvals inbox: the only place a payment above the threshold or a refund is approved.
 * Signed-in person + CSRF token (SignedIn); no bearer credential of any kind reaches these routes.
 */
@AppController()
@SignedIn()
@Controller('app/approvals')
export class ApprovalsPageController implements OnModuleInit {
  constructor(
    private readonly approvals: ApprovalsService,
    @Inject(AppLayout) private readonly layout: AppLayout,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({ key: 'approvals', label: 'Approvals', href: '/app/approvals', order: 10 });
  }

  @Get()
  @Render('app/approvals')
  async inbox(@CurrentPerson() person: SignedInPerson, @Query('done') done?: string) {
    const all = await this.approvals.list(person.workspaceId, 'all');
    const doneId = typeof done === 'string' ? done.slice(0, 100) : null;
    return this.layout.page(person, 'Approvals', {
      pending: all.filter((a) => a.status === 'pending').map(view),
      decided: all.filter((a) => a.status !== 'pending').slice(0, 20).map(view),
      done: doneId,
      doneNote: all.find((a) => a.id === doneId)?.note ?? null,
    });
  }

  @Post(':id/approve')
  @Idempotent()
  @Redirect('/app/approvals', 303)
  async approve(@CurrentPerson() person: SignedInPerson, @Param('id') id: string, @Body() _form: CsrfForm) {
    await this.approvals.decide(person.workspaceId, id, person.personId, 'approved');
    return { url: `/app/approvals?done=${encodeURIComponent(id)}` };
  }

  @Post(':id/deny')
  @Idempotent()
  @Redirect('/app/approvals', 303)
  async deny(@CurrentPerson() person: SignedInPerson, @Param('id') id: string, @Body() _form: CsrfForm) {
    await this.approvals.decide(person.workspaceId, id, person.personId, 'denied');
    return { url: `/app/approvals?done=${encodeURIComponent(id)}` };
  }
}
