/**
 * The mail channel: nodemailer over SMTP when SMTP_URL is set; otherwise the mail is kept in dev_mail and shown at
 * /dev/mail (development only). Either way the outbox runner calls send() and retries on failure.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type { Database } from "../db/client";
import { devMail } from "../db/schema";
import type { RenderedMail } from "./mail-templates";

export interface MailSender {
  readonly kind: "smtp" | "dev";
  send(eventId: string, to: string, mail: RenderedMail): Promise<void>;
  close(): void;
}

export function createMailSender(options: { smtpUrl: string | null; from: string; db: Database }): MailSender {
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
  const transport: Transporter = nodemailer.createTransport(options.smtpUrl);
  return {
    kind: "smtp",
    async send(eventId, to, mail) {
      await transport.sendMail({
        from: options.from,
        to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { ...mail.headers, "X-Flotilla-Event-Id": eventId },
        // The event id makes a retried send recognisable as the same message.
        messageId: `<${eventId}@${options.from.replace(/^.*@/, "").replace(/>.*$/, "")}>`,
      });
    },
    close() {
      transport.close();
    },
  };
}
