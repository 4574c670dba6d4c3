import type { Translator } from '../common/i18n/catalogue';
import type { GrievanceContact } from '../personal-data/grievance';
import type { BreachRow, NoticeRow, NoticeSection } from './breach-register.repository';

export interface NoticeView {
  id: string;
  sentAt: string;
  sections: NoticeSection[];
}

/**
 * One notice as its person reads it on /app/notices, in the page's language: our headings and
 * sentences from the catalogue (locales/<lang>/notices.json), the facts the operator recorded
 * (what happened, which data, what it may mean, what we did, what you can do) in the operator's
 * own words, as in the notice sent (BreachRegisterService.noticeSections, DPDP Rules 2025
 * r.7(1)(a)–(e)). Without its breach row the notice is shown as it was stored.
 */
export function noticeView(
  tr: Translator,
  n: NoticeRow,
  b: BreachRow | undefined,
  g: GrievanceContact,
): NoticeView {
  const sentAt = tr.t('notices.sent', { at: tr.ist(n.createdAt) });
  if (!b) {
    return { id: n.id, sentAt, sections: n.sections };
  }
  const s = (key: string) => tr.t(`notices.sections.${key}`);
  return {
    id: n.id,
    sentAt,
    sections: [
      {
        heading: s('what_happened'),
        text: [
          b.summary,
          tr.t('notices.sections.what_happened_when', {
            occurred: tr.ist(b.occurredAt),
            location: b.location,
            aware: tr.ist(b.awareAt),
          }),
          b.extent,
        ].join(' '),
      },
      { heading: s('which_data'), text: b.dataCategories },
      { heading: s('consequences'), text: b.likelyConsequences },
      { heading: s('what_we_did'), text: b.mitigation },
      { heading: s('what_you_can_do'), text: b.personActions },
      {
        heading: s('questions'),
        text: tr.t('notices.sections.questions_text', {
          name: g.name,
          email: g.email,
          days: g.responseDays,
        }),
      },
    ],
  };
}
