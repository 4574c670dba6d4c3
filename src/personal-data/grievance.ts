import { AppConfig, DEFAULT_DATA_RIGHTS } from '../config/app.config';

/** Who a person complains to (DPDP Act 2023 s.13; docs/personal-data.md), as every notice shows it. */
export interface GrievanceContact {
  name: string;
  email: string;
  responseDays: number;
}

export function grievanceContact(config: AppConfig): GrievanceContact {
  const r = config.dataRights ?? DEFAULT_DATA_RIGHTS;
  return {
    name: r.grievanceOfficerName,
    email: r.grievanceOfficerEmail,
    responseDays: r.grievanceResponseDays,
  };
}
