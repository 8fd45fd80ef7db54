/**
 * A column holding sealed values: the purpose its key is derived for, where it lives, and the SQL
 * expression of a row's identity (what `SealedFor.row` is). The rotation walks this list, so a
 * column sealed anywhere must be listed here.
 */
export type SealedColumn = {
  purpose: string;
  table: string;
  column: string;
  rowKey: string;
  /** The column the value is bound to, when not its own: a value SQL moves from that column to this one. */
  boundTo?: string;
  /** At most this many rows per re-sealing transaction: values large enough that 500 of them would weigh on the process. */
  maxBatch?: number;
};

/** Every column sealed at rest with the keyring (the card vault's keep keys of their own: `vaultCardColumn` of packages/vault, `quarry vault rotate`). */
export const sealedColumns = {
  clientJwtSecret: { purpose: 'clients.jwt-secret', table: 'clients', column: 'jwt_secret_ciphertext', rowKey: 'client_id' },
  pushApiKey: { purpose: 'rates.push-api-key', table: 'push_subscriptions', column: 'api_key_ciphertext', rowKey: 'subscription_id::text' },
  mailboxSecret: { purpose: 'mail.mailbox-secret', table: 'mail_outlook_accounts', column: 'sealed_secret', rowKey: 'email' },
  mailboxAccessToken: {
    purpose: 'mail.mailbox-access-token',
    table: 'mail_outlook_accounts',
    column: 'sealed_access_token',
    rowKey: 'email',
  },
  application: { purpose: 'applications.candidate', table: 'applications', column: 'sealed', rowKey: 'application_id::text' },
  applicationConfirmation: {
    purpose: 'applications.confirmation',
    table: 'applications',
    column: 'confirmation_sealed',
    rowKey: 'application_id::text',
  },
  // A PNG (base64) of up to a few hundred kilobytes each.
  applicationScreenshot: {
    purpose: 'applications.screenshot',
    table: 'applications',
    column: 'screenshot_sealed',
    rowKey: 'application_id::text',
    maxBatch: 20,
  },
  // A composite key: the three parts joined by "/" (none of an ATS name, a board or a client id holds one alone).
  atsCredential: {
    purpose: 'applications.ats-key',
    table: 'ats_credentials',
    column: 'key_sealed',
    rowKey: "client_id || '/' || ats || '/' || board",
  },
  bookingDetails: { purpose: 'bookings.details', table: 'bookings', column: 'details_sealed', rowKey: 'booking_id::text' },
  bookingPanToken: { purpose: 'bookings.pan-token', table: 'bookings', column: 'pan_token_sealed', rowKey: 'booking_id::text' },
  bookingWebhookSecret: {
    purpose: 'bookings.webhook-secret',
    table: 'bookings',
    column: 'webhook_secret_sealed',
    rowKey: 'booking_id::text',
  },
  callbackSecret: { purpose: 'callbacks.secret', table: 'callback_clients', column: 'secret_sealed', rowKey: 'client_id' },
  // A callback secret rotation moves secret_sealed here in SQL: the value stays bound to secret_sealed.
  callbackPreviousSecret: {
    purpose: 'callbacks.secret',
    table: 'callback_clients',
    column: 'previous_secret_sealed',
    rowKey: 'client_id',
    boundTo: 'secret_sealed',
  },
} as const satisfies Record<string, SealedColumn>;

/** The row identity of an ATS credential, as `sealedColumns.atsCredential.rowKey` computes it in SQL. */
export const atsCredentialRow = (clientId: string, ats: string, board: string): string => `${clientId}/${ats}/${board}`;
