/** An SMTP server on 127.0.0.1 (nodemailer's smtp-server) that keeps every message it is sent, raw. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent, with quoted-printable bodies decoded (soft line breaks joined). */
  raw: string;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export interface FakeSmtp {
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the first message whose raw text contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: decodeQuotedPrintable(Buffer.concat(chunks).toString('latin1')) });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(text, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.raw.includes(text));
        if (found) return found;
        if (Date.now() > until) throw new Error(`no email containing ${JSON.stringify(text)}; got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
