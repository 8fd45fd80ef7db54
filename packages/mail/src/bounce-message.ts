import MimeNode from 'nodemailer/lib/mime-node';
import { splitMessage } from './forwarded-message.ts';

/**
 * A delivery status notification (RFC 3464: multipart/report; report-type=delivery-status) for a
 * message we accepted and could not deliver. Built with nodemailer's MIME tree rather than by hand;
 * it carries the original header only (text/rfc822-headers), never the body.
 */
export async function composeBounce(options: {
  original: Buffer;
  envelopeFrom: string;
  failedRecipient: string;
  hostname: string;
  mailerDaemon: string;
  status: string;
  diagnostic: string;
  acceptedAt: Date;
  now: Date;
}): Promise<Buffer> {
  const root = new MimeNode('multipart/report; report-type=delivery-status');
  root.setHeader({
    From: `Mail Delivery System <${options.mailerDaemon}>`,
    To: options.envelopeFrom,
    Subject: 'Undelivered Mail Returned to Sender',
    'Auto-Submitted': 'auto-replied',
    Date: options.now.toUTCString().replace('GMT', '+0000'),
  });
  root
    .createChild('text/plain; charset=utf-8')
    .setContent(
      `This is the mail system at ${options.hostname}.\r\n\r\n` +
        `Your message could not be delivered to one or more recipients. The recipient is hidden;\r\n` +
        `the address you sent to is named below.\r\n\r\n` +
        `<${options.failedRecipient}>: ${options.diagnostic}\r\n`,
    );
  root
    .createChild('message/delivery-status')
    .setContent(
      `Reporting-MTA: dns; ${options.hostname}\r\n` +
        `Arrival-Date: ${options.acceptedAt.toUTCString().replace('GMT', '+0000')}\r\n\r\n` +
        `Final-Recipient: rfc822; ${options.failedRecipient}\r\n` +
        `Action: failed\r\n` +
        `Status: ${options.status}\r\n` +
        `Diagnostic-Code: smtp; ${options.diagnostic.replace(/[\r\n]+/g, ' ')}\r\n`,
    );
  root.createChild('text/rfc822-headers').setContent(splitMessage(options.original).header);
  return root.build();
}
