/**
 * The source a connection is counted against when handshake slots are shared between sources
 * (handshake-guard.ts): the remote IP address, normalised so that one client cannot appear as many.
 *
 * - IPv4: the address itself (`10.0.0.7`).
 * - IPv4-mapped IPv6 (`::ffff:10.0.0.7`, what a dual-stack `::` listener reports for an IPv4 client): the IPv4
 *   address, so the same client counts once whichever way the listener is bound.
 * - Other IPv6: its /64 prefix in RFC 5952 form (`2001:db8:0:7::/64`). One host is commonly given a whole /64
 *   (SLAAC, RFC 4291's 64-bit interface identifiers; privacy addresses, RFC 8981, rotate inside it), so counting
 *   single addresses would let one host pose as 2^64 sources. The price: Kubernetes gives each node a /64 of pod
 *   addresses by default (kube-controller-manager `--node-cidr-mask-size-ipv6` 64), so the pods of one IPv6 node
 *   share one source; they finish their handshakes in milliseconds, far from the per-source cap.
 * - No address (the socket closed before it was read): `unknown`, one source for all of them.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Hextets of an IPv6 address, or undefined when `text` is not one. Zone ids (`%eth0`) are dropped. */
function hextets(text: string): number[] | undefined {
  const address = text.split('%')[0]!;
  if (!isIPv6(address)) return undefined;
  let head = address;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    head = address.slice(0, dotted.index + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const gap = head.indexOf('::');
  let words: number[];
  if (gap < 0) {
    words = [...parse(head), ...tail];
  } else {
    const left = parse(head.slice(0, gap));
    const right = [...parse(head.slice(gap + 2)), ...tail];
    words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  }
  return words.length === 8 ? words : undefined;
}

/** `words` (8 hextets) in RFC 5952's form: lowercase, the longest run of two or more zero hextets as `::`. */
function formatIPv6(words: readonly number[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < words.length;) {
    let j = i;
    while (j < words.length && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = (ws: readonly number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best.at < 0) return hex(words);
  return `${hex(words.slice(0, best.at))}::${hex(words.slice(best.at + best.length))}`;
}

/** The source of a connection from `remoteAddress` (see the module comment). */
export function sourceOf(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  if (isIPv4(remoteAddress)) return remoteAddress;
  const words = hextets(remoteAddress);
  if (!words) return remoteAddress;
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  if (mapped) return [words[6]! >> 8, words[6]! & 0xff, words[7]! >> 8, words[7]! & 0xff].join('.');
  return `${formatIPv6([...words.slice(0, 4), 0, 0, 0, 0])}/64`;
}
