// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), applied to plain JSON values.
import { isDeepStrictEqual } from 'node:util';
import { ApiError, failure } from './status.ts';

type Json = unknown;

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. Returns a new value. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unprocessable(message: string): ApiError {
  return new ApiError(failure(422, 'Invalid', message));
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw unprocessable(`invalid JSON pointer: ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function container(doc: Json, tokens: string[], op: string): Record<string, unknown> | unknown[] {
  let cur: Json = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObj(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined)
      throw unprocessable(`${op} operation does not apply: doc is missing path: /${tokens.join('/')}`);
  }
  if (!Array.isArray(cur) && !isObj(cur)) throw unprocessable(`${op}: path parent is not a container`);
  return cur;
}

function getAt(doc: Json, path: string): Json {
  let cur: Json = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObj(cur)) cur = cur[t];
    else return undefined;
  }
  return cur;
}

function removeAt(doc: Json, path: string): Json {
  const tokens = parsePointer(path);
  const last = tokens.pop();
  if (last === undefined) throw unprocessable('cannot remove the whole document');
  const parent = container(doc, tokens, 'remove');
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!(i >= 0 && i < parent.length)) throw unprocessable(`remove: index out of range: ${path}`);
    return parent.splice(i, 1)[0];
  }
  if (!(last in parent)) throw unprocessable(`remove operation does not apply: doc is missing key: ${path}`);
  const v = parent[last];
  delete parent[last];
  return v;
}

function addAt(doc: Json, path: string, value: Json, replace: boolean): Json {
  const tokens = parsePointer(path);
  const last = tokens.pop();
  if (last === undefined) return structuredClone(value);
  const parent = container(doc, tokens, replace ? 'replace' : 'add');
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!(i >= 0 && i <= parent.length - (replace ? 1 : 0)))
      throw unprocessable(`index out of range: ${path}`);
    parent.splice(i, replace ? 1 : 0, structuredClone(value));
  } else {
    if (replace && !(last in parent))
      throw unprocessable(`replace operation does not apply: doc is missing key: ${path}`);
    parent[last] = structuredClone(value);
  }
  return doc;
}

/** RFC 6902. Throws ApiError 422 when an operation does not apply (the document is left unchanged). */
export function jsonPatch(doc: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw new ApiError(failure(400, 'BadRequest', 'json patch must be an array'));
  let out: Json = structuredClone(doc);
  for (const raw of ops) {
    if (!isObj(raw)) throw unprocessable('json patch operation must be an object');
    const op = raw.op;
    const path = typeof raw.path === 'string' ? raw.path : '';
    const from = typeof raw.from === 'string' ? raw.from : '';
    switch (op) {
      case 'add':
        out = addAt(out, path, raw.value, false);
        break;
      case 'replace':
        out = addAt(out, path, raw.value, true);
        break;
      case 'remove':
        removeAt(out, path);
        break;
      case 'move': {
        const v = removeAt(out, from);
        out = addAt(out, path, v, false);
        break;
      }
      case 'copy':
        out = addAt(out, path, getAt(out, from), false);
        break;
      case 'test':
        if (!isDeepStrictEqual(getAt(out, path), raw.value))
          throw unprocessable(`testing value ${path} failed`);
        break;
      default:
        throw unprocessable(`Unexpected kind: ${String(op)}`);
    }
  }
  return out;
}
