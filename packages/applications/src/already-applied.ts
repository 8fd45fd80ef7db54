/**
 * Why an application was refused before anything was sent: our own ledger holds a success of this
 * client for this candidate (by email) and this job (by its ATS's id, or the same job post). Most
 * vendors merge a repeat silently, so this ledger, not the vendor, is what answers AlreadyApplied.
 */
export const alreadyAppliedMessage =
  'This candidate already applied to this job successfully through this service (the same ATS job, or the same job post); nothing was sent';
