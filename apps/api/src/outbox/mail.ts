/**
 * The mail channel: nodemailer over SMTP when SMTP_URL is set; otherwise the mail is kept in dev_mail and shown at
 * /dev/mail (development only). Either way the outbox runner calls send() and retries on failure.
 *
 * Every wait on the SMTP server is bounded by `timeoutMs` (SMTP_TIMEOUT_MS, decision 0037): nodemailer's DNS,
 * connection, greeting and socket-idle timeouts (its defaults are 30 s, 2 min, 30 s and 10 min), and the whole send
 * (a server that trickles its answers never goes idle). A send that outlives it fails — the row is retried later, at
 * least once, with the same Message-ID — and nodemailer's own timeouts close its connection.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type { Database } from "../db/client";
import { devMail } from "../db/schema";
import { withDeadline } from "../lib/peer-waits";
import type { RenderedMail } from "./mail-templates";

export interface MailSender {
  readonly kind: "smtp" | "dev";
  send(eventId: string, to: string, mail: RenderedMail): Promise<void>;
  close(): void;
}

/** SMTP_URL with nodemailer's timeouts set to `timeoutMs` (nodemailer reads them from the URL's query). */
function boundedSmtpUrl(smtpUrl: string, timeoutMs: number): string {
  const url = new URL(smtpUrl);
  for (const option of ["dnsTimeout", "connectionTimeout", "greetingTimeout", "socketTimeout"]) {
    url.searchParams.set(option, String(timeoutMs));
  }
  return url.toString();
}

export function createMailSender(options: {
  smtpUrl: string | null;
  from: string;
  db: Database;
  timeoutMs: number;
}): MailSender {
  if (!options.smtpUrl) {
    return {
      kind: "dev",
      async send(eventId, to, mail) {
        await options.db.insert(devMail).values({
          eventId,
          recipient: to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
        });
      },
      close() {},
    };
  }
  const transport: Transporter = nodemailer.createTransport(boundedSmtpUrl(options.smtpUrl, options.timeoutMs));
  return {
    kind: "smtp",
    async send(eventId, to, mail) {
      const sending = transport.sendMail({
        from: options.from,
        to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { ...mail.headers, "X-Flotilla-Event-Id": eventId },
        // The event id makes a retried send recognisable as the same message.
        messageId: `<${eventId}@${options.from.replace(/^.*@/, "").replace(/>.*$/, "")}>`,
      });
      await withDeadline(sending, options.timeoutMs, "SMTP server");
    },
    close() {
      transport.close();
    },
  };
}
