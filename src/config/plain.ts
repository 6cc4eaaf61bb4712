/**
 * What may cross from config code to vkit: plain JSON-like data, and a printable description of
 * anything config code throws. Both are written for hostile values (getters that throw, proxies,
 * objects without a prototype, cycles): they never throw anything but a `PlainDataError` naming
 * the path, and `describeThrown` never throws at all.
 */

export class PlainDataError extends Error {}

const MAX_DEPTH = 100;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_MESSAGE = 500;

/**
 * A deep copy holding only strings (without lone surrogates), finite numbers, booleans, null, arrays
 * and plain objects (undefined members are dropped, as JSON drops them). `path` names the value in messages.
 */
export function plainData(value: unknown, path: string): unknown {
  return copy(value, path, new Set());
}

function copy(value: unknown, path: string, ancestors: Set<object>): unknown {
  const at = path || 'the value';
  if (ancestors.size > MAX_DEPTH) throw new PlainDataError(`${at} is nested deeper than ${MAX_DEPTH} levels`);
  switch (typeof value) {
    case 'string':
      // No UTF-8 form, so no canonical JSON either (the policy digest would refuse it later, as a crash).
      if (LONE_SURROGATE.test(value))
        throw new PlainDataError(
          `${at} holds a lone surrogate (${JSON.stringify(value.slice(0, 40))}), which no UTF-8 text can`,
        );
      return value;
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new PlainDataError(`${at} is ${String(value)}, not a finite number`);
      return value;
    case 'undefined':
      return undefined;
    case 'object':
      break;
    default:
      throw new PlainDataError(`${at} is a ${typeof value}, not JSON data`);
  }
  if (value === null) return null;
  if (ancestors.has(value)) throw new PlainDataError(`${at} is a cycle: it contains itself`);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        const item = copy(value[i], `${path}[${i}]`, ancestors);
        if (item === undefined) throw new PlainDataError(`${path}[${i}] is undefined, not JSON data`);
        out.push(item);
      }
      return out;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new PlainDataError(`${at} is ${kindOf(value)}, not a plain object`);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = copy((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, ancestors);
      if (item !== undefined) out[key] = item;
    }
    return out;
  } catch (error) {
    if (error instanceof PlainDataError) throw error;
    throw new PlainDataError(`${at} cannot be read: ${describeThrown(error)}`);
  } finally {
    ancestors.delete(value);
  }
}

function kindOf(value: object): string {
  try {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name ? `a ${name}` : 'an object with a prototype';
  } catch {
    return 'an object with a prototype';
  }
}

/** A message for anything config code throws (an Error, a string, `Object.create(null)`, a Proxy). */
export function describeThrown(error: unknown): string {
  let text: string;
  try {
    if (error instanceof Error && typeof error.message === 'string')
      text = error.message || error.name || 'an Error without a message';
    else if (typeof error === 'string') text = error;
    else if (error === null || typeof error !== 'object') text = String(error);
    else text = `a thrown ${kindOf(error)} (${safeJson(error)})`;
  } catch {
    text = 'a thrown value that cannot be printed';
  }
  return text.length > MAX_MESSAGE
    ? `${text.slice(0, MAX_MESSAGE)}… (${text.length - MAX_MESSAGE} more characters)`
    : text;
}

function safeJson(value: object): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? 'no JSON form';
  } catch {
    return 'no JSON form';
  }
}
