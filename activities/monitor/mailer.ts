/** SMTP_URL's mailer (nodemailer), behind the small interface activities use. */
import nodemailer from 'nodemailer';

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  messageId: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function createSmtpMailer(smtp: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(smtp.url);
  return {
    async send(mail) {
      await transport.sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId });
    },
  };
}
