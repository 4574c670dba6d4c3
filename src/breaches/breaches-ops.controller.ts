import {
  Body,
  Controller,
  Get,
  Header,
  Param,
  Post,
  Redirect,
  Render,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';

import { commonErrors } from '../common/errors/app-error';
import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { OperatorGuard } from '../ops/operator.guard';
import { AppLayout } from '../web/app-layout.service';
import { CsrfGuard } from '../web/csrf.guard';
import { AppController, CurrentPerson } from '../web/current-person.decorator';
import { NoStoreInterceptor } from '../web/no-store.interceptor';
import type { SignedInPerson } from '../web/signed-in-person';
import type { BreachRow } from './breach-register.repository';
import { BreachRegisterService } from './breach-register.service';
import { BoardReportedForm, BreachDetailsForm, RecordBreachForm } from './dto/breach-forms.dto';

/** "2026-03-03T14:05" from a datetime-local field is IST; a full ISO time keeps its own zone. */
export function parseFormTime(field: string, v: string): Date {
  const local = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v.trim());
  const d = new Date(local ? `${v.trim()}:00+05:30` : v.trim());
  if (Number.isNaN(d.getTime())) {
    throw commonErrors.invalid(`$.${field}`, 'Enter a date and time like 2026-03-03T14:05 (IST)');
  }
  return d;
}

/** Ids typed one per line, or separated by spaces or commas. */
function ids(v: string | undefined): string[] {
  return [...new Set((v ?? '').split(/[\s,]+/).filter((s) => s !== ''))];
}

const optional = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : null);

/**
 * /app/ops/breaches: the breach register for operators (docs/personal-data.md "Breach register").
 * OperatorGuard (anyone else gets the app's 404 page), the session's rate limit, `_csrf` on every
 * form (CsrfGuard) and no caching. Record a breach, send its notices, fill in the detailed report,
 * open the report to the Board (page, print, JSON) and mark it sent; each step audited.
 */
@AppController()
@UseGuards(OperatorGuard, CredentialRateLimitGuard, CsrfGuard)
@UseInterceptors(NoStoreInterceptor)
@Controller('app/ops/breaches')
export class BreachesOpsController {
  constructor(
    private readonly breaches: BreachRegisterService,
    private readonly layout: AppLayout,
  ) {}

  @Get()
  @Render('app/ops-breaches')
  async list(@CurrentPerson() person: SignedInPerson) {
    const rows = await this.breaches.list();
    return this.layout.page(person, 'Breach register', {
      reportHours: this.breaches.reportHours,
      breaches: rows.map((b) => this.view(b)),
    });
  }

  @Post()
  @Redirect('/app/ops/breaches', 303)
  async record(@CurrentPerson() person: SignedInPerson, @Body() form: RecordBreachForm) {
    const b = await this.breaches.record(person, {
      summary: form.summary.trim(),
      extent: form.extent.trim(),
      location: form.location.trim(),
      dataCategories: form.data_categories.trim(),
      likelyConsequences: form.likely_consequences.trim(),
      mitigation: form.mitigation.trim(),
      personActions: form.person_actions.trim(),
      factsAndReasons: optional(form.facts_and_reasons),
      responsibleFindings: optional(form.responsible_findings),
      remedialMeasures: optional(form.remedial_measures),
      occurredAt: parseFormTime('occurred_at', form.occurred_at),
      awareAt: parseFormTime('aware_at', form.aware_at),
      scope: { person_ids: ids(form.person_ids), workspace_ids: ids(form.workspace_ids) },
    });
    return { url: `/app/ops/breaches/${b.id}` };
  }

  @Get(':id')
  @Render('app/ops-breach')
  async detail(@CurrentPerson() person: SignedInPerson, @Param('id') id: string) {
    const b = await this.breaches.get(id);
    const notices = await this.breaches.notices(id);
    return this.layout.page(person, `Breach ${b.id}`, {
      breach: this.view(b),
      notice: this.breaches.noticeSections(b),
      notices: notices.map((n) => ({
        id: n.id,
        personId: n.personId,
        workspaceId: n.workspaceId,
        webhook: n.outboxEventId !== null,
      })),
    });
  }

  @Post(':id/notices')
  @Redirect('/app/ops/breaches', 303)
  async sendNotices(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: BreachDetailsForm,
  ) {
    await this.breaches.sendNotices(person, id);
    return { url: `/app/ops/breaches/${id}` };
  }

  @Post(':id/details')
  @Redirect('/app/ops/breaches', 303)
  async details(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: BreachDetailsForm,
  ) {
    await this.breaches.updateDetails(person, id, {
      factsAndReasons: optional(form.facts_and_reasons),
      responsibleFindings: optional(form.responsible_findings),
      remedialMeasures: optional(form.remedial_measures),
    });
    return { url: `/app/ops/breaches/${id}` };
  }

  @Post(':id/reported')
  @Redirect('/app/ops/breaches', 303)
  async reported(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: BoardReportedForm,
  ) {
    await this.breaches.markReported(person, id, optional(form.board_reference));
    return { url: `/app/ops/breaches/${id}` };
  }

  /** The report to the Board, readable and printable (print from the browser). */
  @Get(':id/report')
  @Render('app/ops-breach-report')
  async report(@CurrentPerson() person: SignedInPerson, @Param('id') id: string) {
    const report = await this.breaches.report(person, id, 'page');
    return this.layout.page(person, `Report to the Data Protection Board: ${id}`, { report });
  }

  @Get(':id/report.json')
  @Header('Content-Disposition', 'attachment; filename="breach-report.json"')
  reportJson(@CurrentPerson() person: SignedInPerson, @Param('id') id: string) {
    return this.breaches.report(person, id, 'json');
  }

  private view(b: BreachRow) {
    const clock = this.breaches.clockOf(b);
    return {
      id: b.id,
      summary: b.summary,
      extent: b.extent,
      location: b.location,
      dataCategories: b.dataCategories,
      likelyConsequences: b.likelyConsequences,
      mitigation: b.mitigation,
      personActions: b.personActions,
      factsAndReasons: b.factsAndReasons ?? '',
      responsibleFindings: b.responsibleFindings ?? '',
      remedialMeasures: b.remedialMeasures ?? '',
      occurredAt: new Date(b.occurredAt).toISOString(),
      awareAt: new Date(b.awareAt).toISOString(),
      personIds: b.scope.person_ids,
      workspaceIds: b.scope.workspace_ids,
      noticesSentAt: b.noticesSentAt ? new Date(b.noticesSentAt).toISOString() : null,
      boardReportedAt: b.boardReportedAt ? new Date(b.boardReportedAt).toISOString() : null,
      boardReference: b.boardReference ?? '',
      dueAt: clock.dueAt.toISOString(),
      clockState: clock.state,
      clockWords: clock.words,
      late: clock.state === 'overdue' || clock.state === 'reported_late',
    };
  }
}
