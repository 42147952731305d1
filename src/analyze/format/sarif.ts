/**
 * `-o sarif`: SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), for code-scanning
 * UIs. One run; the driver's rules are every code (ANALYSIS_CODES), each with its why (shortDescription), fix
 * (help) and severity (defaultConfiguration.level: error, warning, note); each result names its rule, level and
 * message, the file, line and column of the field it is about (region startLine, startColumn; SARIF 3.30), and the
 * object as a logical location (`MetaRouter shop/orders`). Artifact URIs are relative references resolved against
 * the `SRCROOT` base (`uriBaseId`, SARIF 3.4.4; `originalUriBaseIds` gives its absolute URI, 3.14.14), the
 * working directory: GitHub code scanning matches a result to a file of the repository by such a relative path
 * ("For the best results we recommend that this is a relative path from the root of the GitHub repository being
 * analyzed", https://docs.github.com/en/code-security/reference/code-scanning/sarif-files/sarif-support-for-code-scanning,
 * physicalLocation), so run analyze from the repository's root. A file outside it is named with `../` segments
 * (RFC 3986 5.2 resolves them against SRCROOT); only a path no relative reference can reach (another drive) is an
 * absolute `file:` URI.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { refString } from '../../model/result.ts';
import { ANALYSIS_CODES, referenceAnchor } from '../codes.ts';
import type { AnalysisCode, AnalysisMessage, AnalysisSeverity } from '../types.ts';

export interface SarifOptions {
  /** The tool's version (package.json). */
  readonly version: string;
  /** Where the tool is documented; the rules' helpUri are this with the reference page appended. */
  readonly informationUri: string;
  /** The directory relative file paths are relative to (absolute): the `SRCROOT` base of the artifacts. */
  readonly baseDirectory: string;
  /** The rules to list; default every code. */
  readonly codes?: readonly AnalysisCode[];
}

const LEVEL: Readonly<Record<AnalysisSeverity, string>> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

function rule(code: AnalysisCode, informationUri: string): Record<string, unknown> {
  return {
    id: code.code,
    name: code.name,
    shortDescription: { text: code.why },
    fullDescription: { text: `${code.why} ${code.fix}` },
    help: { text: code.fix },
    helpUri: new URL(referenceAnchor(code), informationUri).href,
    defaultConfiguration: { level: LEVEL[code.severity] },
    properties: { live: code.live },
  };
}

/** The artifact of a file: a relative reference against SRCROOT, or (another drive) an absolute file: URI. */
function artifactLocation(file: string, base: string): Record<string, unknown> {
  const abs = isAbsolute(file) ? file : `${base}${sep}${file}`;
  const rel = relative(base, abs);
  if (rel !== '' && !isAbsolute(rel)) {
    return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: 'SRCROOT' };
  }
  return { uri: pathToFileURL(abs).href };
}

function result(m: AnalysisMessage, ruleIndex: number | undefined, base: string): Record<string, unknown> {
  const location: Record<string, unknown> = {};
  // A physical location needs a region (SARIF2017): without a line (a file that cannot be read, an object not found
  // again in its file's text) the file is named in the logical location's properties only.
  if (m.file !== undefined && m.line !== undefined) {
    location['physicalLocation'] = {
      artifactLocation: artifactLocation(m.file, base),
      region: { startLine: m.line, ...(m.column !== undefined ? { startColumn: m.column } : {}) },
    };
  }
  if (m.ref !== undefined) {
    location['logicalLocations'] = [
      {
        name: m.ref.name,
        fullyQualifiedName: refString(m.ref) + (m.path ? ` ${m.path}` : ''),
        kind: 'resource',
        properties: {
          kind: m.ref.kind,
          namespace: m.ref.namespace,
          name: m.ref.name,
          path: m.path ?? '',
          ...(m.file !== undefined ? { file: m.file } : {}),
        },
      },
    ];
  }
  return {
    ruleId: m.code.code,
    ...(ruleIndex !== undefined ? { ruleIndex } : {}),
    level: LEVEL[m.code.severity],
    message: { text: m.message },
    ...(Object.keys(location).length > 0 ? { locations: [location] } : {}),
  };
}

export function sarifLog(messages: readonly AnalysisMessage[], o: SarifOptions): Record<string, unknown> {
  const codes = o.codes ?? ANALYSIS_CODES;
  const index = new Map(codes.map((c, i) => [c.code, i]));
  const base = o.baseDirectory;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'aeraki',
            version: o.version,
            informationUri: o.informationUri,
            rules: codes.map((c) => rule(c, o.informationUri)),
          },
        },
        originalUriBaseIds: {
          SRCROOT: { uri: pathToFileURL(base.endsWith(sep) ? base : `${base}${sep}`).href },
        },
        results: messages.map((m) => result(m, index.get(m.code.code), base)),
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
}

export function formatSarif(messages: readonly AnalysisMessage[], o: SarifOptions): string {
  return `${JSON.stringify(sarifLog(messages, o), null, 2)}\n`;
}
