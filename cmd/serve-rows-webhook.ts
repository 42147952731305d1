/** `aeraki serve` options of the validating webhook. */
import type { WebhookOptions } from '../src/app/options.ts';
import type { ListenAddress } from '../src/util/address.ts';
import { text, parseOptionalAddress } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface WebhookFlags {
  readonly webhookAddress: ListenAddress | undefined;
  readonly webhookCertFile: string;
  readonly webhookKeyFile: string;
}

export const WEBHOOK_ROWS = {
  webhookAddress: {
    flag: '--webhook-address <host:port>',
    env: 'AERAKI_WEBHOOK_ADDRESS',
    default: undefined,
    description: "validating webhook (HTTPS, /validate) listen address, e.g. :15017 (default '': off)",
    parse: parseOptionalAddress,
  },
  webhookCertFile: {
    flag: '--webhook-cert-file <file>',
    env: 'AERAKI_WEBHOOK_CERT_FILE',
    default: '',
    description: 'webhook serving certificate (PEM; reloaded when it changes)',
    parse: text,
  },
  webhookKeyFile: {
    flag: '--webhook-key-file <file>',
    env: 'AERAKI_WEBHOOK_KEY_FILE',
    default: '',
    description: 'webhook serving key (PEM; reloaded when it changes)',
    parse: text,
  },
} satisfies RowTable<WebhookFlags>;

export function webhookOptions(f: WebhookFlags): WebhookOptions {
  return { address: f.webhookAddress, certFile: f.webhookCertFile, keyFile: f.webhookKeyFile };
}
