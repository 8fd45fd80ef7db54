/**
 * The Node options a `mail` process runs with: `NODE_OPTIONS` of the mail service in
 * docker-compose.yml and infra/k8s/mail.yaml, the options of `npm start`'s one process of every
 * role (scripts/start.sh), and of the process the mailboxes bench starts.
 *
 * V8 sizes its young generation from the memory it sees: on a host of 24 GB, two semi-spaces of
 * 64 MB, all of it resident once a thousand IMAP sessions have logged in. One process watching
 * 1,000 accounts (mailboxes bench) held 300 MB idle and up to 530 MB during a burst of mail, of
 * which under 100 MB was live. With semi-spaces of 16 MB it holds about 230 MB idle and 380 MB at
 * the peak, for no more CPU per message (ADR 0037).
 */
export const mailProcessNodeOptions = '--max-semi-space-size=16';
