/**
 * Pure validation of a comparison request: `validateRequest(data, source?)` -> `{ value, issues }`.
 * Issues come out in document order (the order of the text when the request arrived as text, else the
 * objects' own key order, where JavaScript puts integer-like keys first), each naming its JSON path,
 * so the first one is the first problem a reader would meet. A missing key is reported where its
 * object ends.
 *
 * `source` is present only for requests parsed from text (`src/text/json-text.ts`): it adds the two checks
 * only text can support, duplicate member names and the integer form of `schema_version` and
 * `max_contexts`. Every other rule applies to both entry points.
 */
import type { Issue } from '../../../src/errors.js';
import { indexPath, memberPath } from '../../../src/text/json-path.js';
import type { JsonMember, JsonTextSource } from '../../../src/text/json-text.js';
import { hasLoneSurrogate } from '../../../src/text/utf16.js';
import {
  ALPHABETS,
  DEFAULT_MAX_CONTEXTS,
  type AlphabetName,
  type Assumption,
  type CompareRequest,
  type Model,
  type Rule,
} from './types.js';

/**
 * Where a value sits in the document: its parent, its member name or element index (for the path),
 * and its position among the parent's members in document order (for sorting). Built only for
 * containers and for values with a problem, so valid tokens cost no allocation.
 */
class Loc {
  constructor(
    readonly parent: Loc | null,
    readonly seg: string | number,
    readonly order: number,
  ) {}

  static root = new Loc(null, '$', 0);

  child(seg: string | number, order: number = typeof seg === 'number' ? seg : 0): Loc {
    return new Loc(this, seg, order);
  }

  get path(): string {
    if (!this.parent) return '$';
    return typeof this.seg === 'number'
      ? indexPath(this.parent.path, this.seg)
      : memberPath(this.parent.path, this.seg);
  }

  get pos(): number[] {
    const out: number[] = [];
    for (let l: Loc | null = this; l?.parent; l = l.parent) out.push(l.order);
    return out.reverse();
  }
}

interface Found {
  pos: number[];
  issue: Issue;
}

const REQUEST_KEYS = ['schema_version', 'before', 'after', 'max_contexts'] as const;
const REQUIRED_REQUEST_KEYS = ['schema_version', 'before', 'after'] as const;
const MODEL_KEYS = [
  'states',
  'actions',
  'inputs',
  'observations',
  'initial_states',
  'assumptions',
  'rules',
  'state_observations',
] as const;
const ASSUMPTION_KEYS = ['action', 'input'] as const;
const RULE_KEYS = ['source', 'action', 'inputs', 'targets'] as const;
const INTEGER_FORM = /^-?(?:0|[1-9][0-9]*)$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function validateRequest(data: unknown, source?: JsonTextSource): { value?: CompareRequest; issues: Issue[] } {
  const v = new Walk(source);
  const value = v.request(data);
  const issues = v.sorted();
  return issues.length || !value ? { issues } : { value, issues };
}

/** A present member: its value, location and document facts. */
interface Slot {
  value: unknown;
  loc: Loc;
  member: JsonMember;
}

type Declared = Record<AlphabetName, Set<string> | undefined>;

class Walk {
  private readonly found: Found[] = [];

  constructor(private readonly source?: JsonTextSource) {
    // Repeated member names are reported from the parser, which saw all of them, even inside values
    // no schema below reads; the walk itself just skips the repeats.
    for (const d of source?.duplicates() ?? []) {
      this.found.push({
        pos: d.pos,
        issue: {
          path: d.path,
          message: `Duplicate key \`${d.key}\`: a JSON object may name each member only once`,
          line: d.line,
        },
      });
    }
  }

  sorted(): Issue[] {
    // Array.prototype.sort is stable, so issues at one position keep the order they were found in.
    return [...this.found].sort((a, b) => comparePos(a.pos, b.pos)).map((f) => f.issue);
  }

  private add(loc: Loc, message: string, line?: number): void {
    const path = loc.path;
    this.found.push({ pos: loc.pos, issue: line === undefined ? { path, message } : { path, message, line } });
  }

  /** Members in document order; for objects not parsed from text, their own keys (line 0: unknown). */
  private membersOf(obj: Record<string, unknown>): readonly JsonMember[] {
    return this.source?.members(obj) ?? Object.keys(obj).map((key) => ({ key, duplicate: false, line: 0 }));
  }

  /**
   * The members of `obj` in document order: known keys are returned as slots, anything else is an
   * unknown key, repeats are skipped (the parser reports them). A missing key is placed after the
   * last member.
   */
  private object<K extends string>(
    obj: Record<string, unknown>,
    loc: Loc,
    known: readonly K[],
    required: readonly K[],
    what: string,
  ): Map<K, Slot> {
    const members = this.membersOf(obj);
    const slots = new Map<K, Slot>();
    members.forEach((m, k) => {
      const line = m.line > 0 ? m.line : undefined;
      if (m.duplicate) return;
      if ((known as readonly string[]).includes(m.key))
        slots.set(m.key as K, { value: obj[m.key], loc: loc.child(m.key, k), member: m });
      else
        this.add(
          loc.child(m.key, k),
          `Unknown key \`${m.key}\` in ${what}; expected only ${known.map((x) => `\`${x}\``).join(', ')}`,
          line,
        );
    });
    for (const key of required) {
      if (!slots.has(key) && !members.some((m) => m.key === key))
        this.add(loc.child(key, members.length), `Missing required key \`${key}\` in ${what}`);
    }
    return slots;
  }

  request(data: unknown): CompareRequest | undefined {
    if (!isPlainObject(data)) {
      this.add(Loc.root, `Expected the request to be a JSON object, got ${describe(data)}`);
      return undefined;
    }
    const slots = this.object(data, Loc.root, REQUEST_KEYS, REQUIRED_REQUEST_KEYS, 'the request');
    let ok = true;
    const sv = slots.get('schema_version');
    if (sv && !this.integer(sv, 'schema_version', (n) => n === 1n, 'Expected `schema_version` to be the integer 1'))
      ok = false;
    const mc = slots.get('max_contexts');
    if (
      mc &&
      !this.integer(
        mc,
        'max_contexts',
        (n) => n >= 1n && n <= MAX_SAFE,
        `Expected \`max_contexts\` to be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (2^53-1)`,
      )
    )
      ok = false;
    const before = slots.get('before');
    const after = slots.get('after');
    const b = before ? this.model(before) : undefined;
    const a = after ? this.model(after) : undefined;
    if (!ok || !b || !a || !sv) return undefined;
    return { schema_version: 1, before: b, after: a, max_contexts: mc ? (mc.value as number) : DEFAULT_MAX_CONTEXTS };
  }

  /**
   * An integer field. From text, the source must be written in integer form and its exact value is
   * read from the text (BigInt), so `9007199254740993` is never mistaken for its rounded double.
   */
  private integer(slot: Slot, name: string, inRange: (n: bigint) => boolean, expected: string): boolean {
    const text = slot.member.numberText;
    const line = slot.member.line > 0 ? slot.member.line : undefined;
    if (text !== undefined) {
      if (!INTEGER_FORM.test(text)) {
        this.add(
          slot.loc,
          `Expected \`${name}\` written in integer form (no fraction, no exponent), got \`${text}\``,
          line,
        );
        return false;
      }
      if (!inRange(BigInt(text))) {
        this.add(slot.loc, `${expected}, got ${text}`, line);
        return false;
      }
      return true;
    }
    const v = slot.value;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || !inRange(BigInt(v))) {
      this.add(slot.loc, `${expected}, got ${describe(v)}`, line);
      return false;
    }
    return true;
  }

  private model(slot: Slot): Model | undefined {
    const count = this.found.length;
    const data = slot.value;
    if (!isPlainObject(data)) {
      this.add(slot.loc, `Expected a model object, got ${describe(data)}`);
      return undefined;
    }
    const slots = this.object(data, slot.loc, MODEL_KEYS, MODEL_KEYS, 'a model');
    const declared = {} as Declared;
    const lists = {} as Record<AlphabetName, string[]>;
    for (const name of ALPHABETS) {
      const s = slots.get(name);
      const set = s ? this.alphabet(s, name) : undefined;
      declared[name] = set;
      lists[name] = set ? [...set] : [];
    }
    const initial = slots.get('initial_states');
    const initialStates = initial ? this.tokens(initial, 'initial_states', declared.states, 'state') : undefined;
    const assumptions = this.assumptions(slots.get('assumptions'), declared);
    const rules = this.rules(slots.get('rules'), declared);
    const observed = this.stateObservations(slots.get('state_observations'), declared);
    if (this.found.length > count || !initialStates || !assumptions || !rules || !observed) return undefined;
    return { ...lists, initial_states: initialStates, assumptions, rules, state_observations: observed };
  }

  /** An alphabet: tokens without repeats. Returns the declared set even when some entries are bad. */
  private alphabet(slot: Slot, name: AlphabetName): Set<string> | undefined {
    const list = slot.value;
    if (!Array.isArray(list)) {
      this.add(slot.loc, `Expected \`${name}\` to be an array of tokens, got ${describe(list)}`);
      return undefined;
    }
    const seen = new Map<string, number>();
    for (let k = 0; k < list.length; k++) {
      const t: unknown = list[k];
      const bad = tokenProblem(t);
      if (bad) this.add(slot.loc.child(k), bad);
      else if (seen.has(t as string))
        this.add(
          slot.loc.child(k),
          `Duplicate token ${describe(t)} in \`${name}\` (already at index ${seen.get(t as string)}); an alphabet lists each token once`,
        );
      else seen.set(t as string, k);
    }
    return new Set(seen.keys());
  }

  /** A declared token of one alphabet (the membership check is skipped when that alphabet is unusable). */
  private member(t: unknown, loc: () => Loc, declared: Set<string> | undefined, what: string): t is string {
    const bad = tokenProblem(t);
    if (bad) {
      this.add(loc(), bad);
      return false;
    }
    if (declared && !declared.has(t as string)) {
      this.add(loc(), `Expected a declared ${what}, got ${describe(t)}`);
      return false;
    }
    return true;
  }

  /** A non-empty list of declared tokens (a set: repeats are harmless). */
  private tokens(slot: Slot, key: string, declared: Set<string> | undefined, what: string): string[] | undefined {
    const list = slot.value;
    if (!Array.isArray(list)) {
      this.add(slot.loc, `Expected \`${key}\` to be an array of declared ${what} tokens, got ${describe(list)}`);
      return undefined;
    }
    if (list.length === 0) {
      this.add(slot.loc, `Expected \`${key}\` to list at least one declared ${what}, got an empty array`);
      return undefined;
    }
    let ok = true;
    for (let k = 0; k < list.length; k++)
      if (!this.member(list[k], () => slot.loc.child(k), declared, what)) ok = false;
    return ok ? (list as string[]).slice() : undefined;
  }

  private list(slot: Slot | undefined, what: string): unknown[] | undefined {
    if (!slot) return undefined;
    if (!Array.isArray(slot.value)) {
      this.add(slot.loc, `${what}, got ${describe(slot.value)}`);
      return undefined;
    }
    return slot.value;
  }

  private assumptions(slot: Slot | undefined, declared: Declared): Assumption[] | undefined {
    const list = this.list(slot, 'Expected `assumptions` to be an array of {action, input} objects');
    if (!slot || !list) return undefined;
    const out: Assumption[] = [];
    let ok = true;
    list.forEach((item: unknown, k: number) => {
      const loc = slot.loc.child(k);
      if (!isPlainObject(item)) {
        this.add(loc, `Expected an assumption object {action, input}, got ${describe(item)}`);
        ok = false;
        return;
      }
      const count = this.found.length;
      const s = this.object(item, loc, ASSUMPTION_KEYS, ASSUMPTION_KEYS, 'an assumption');
      const action = s.get('action');
      const input = s.get('input');
      const a = action && this.member(action.value, () => action.loc, declared.actions, 'action');
      const i = input && this.member(input.value, () => input.loc, declared.inputs, 'input');
      if (a && i && this.found.length === count)
        out.push({ action: action.value as string, input: input.value as string });
      else ok = false;
    });
    return ok ? out : undefined;
  }

  private rules(slot: Slot | undefined, declared: Declared): Rule[] | undefined {
    const list = this.list(slot, 'Expected `rules` to be an array of rule objects');
    if (!slot || !list) return undefined;
    const out: Rule[] = [];
    let ok = true;
    list.forEach((item: unknown, k: number) => {
      const loc = slot.loc.child(k);
      if (!isPlainObject(item)) {
        this.add(loc, `Expected a rule object {source, action, inputs, targets}, got ${describe(item)}`);
        ok = false;
        return;
      }
      const count = this.found.length;
      const s = this.object(item, loc, RULE_KEYS, RULE_KEYS, 'a rule');
      const source = s.get('source');
      const action = s.get('action');
      const inputs = s.get('inputs');
      const targets = s.get('targets');
      const src = source && this.member(source.value, () => source.loc, declared.states, 'state');
      const act = action && this.member(action.value, () => action.loc, declared.actions, 'action');
      const ins = inputs && this.tokens(inputs, 'inputs', declared.inputs, 'input');
      const tgs = targets && this.tokens(targets, 'targets', declared.states, 'state');
      if (src && act && ins && tgs && this.found.length === count)
        out.push({ source: source.value as string, action: action.value as string, inputs: ins, targets: tgs });
      else ok = false;
    });
    return ok ? out : undefined;
  }

  private stateObservations(slot: Slot | undefined, declared: Declared): Record<string, string> | undefined {
    if (!slot) return undefined;
    const data = slot.value;
    if (!isPlainObject(data)) {
      this.add(
        slot.loc,
        `Expected \`state_observations\` to be an object from each declared state to a declared observation, got ${describe(data)}`,
      );
      return undefined;
    }
    const members = this.membersOf(data);
    const out = Object.create(null) as Record<string, string>;
    const count = this.found.length;
    members.forEach((m, k) => {
      const loc = () => slot.loc.child(m.key, k);
      const line = m.line > 0 ? m.line : undefined;
      if (m.duplicate) return;
      if (declared.states && !declared.states.has(m.key)) {
        this.add(
          loc(),
          `Expected the keys of \`state_observations\` to be declared states, got ${describe(m.key)}`,
          line,
        );
        return;
      }
      const value = data[m.key];
      if (this.member(value, loc, declared.observations, 'observation')) out[m.key] = value;
    });
    if (declared.states) {
      let k = members.length;
      for (const state of declared.states) {
        if (!Object.hasOwn(data, state)) {
          this.add(
            slot.loc.child(state, k++),
            `Missing declared state ${describe(state)} in \`state_observations\`; it must map every declared state`,
          );
        }
      }
    }
    return this.found.length === count ? out : undefined;
  }
}

/** Why `t` is not a token (a non-empty string of Unicode scalar values), or null when it is one. */
function tokenProblem(t: unknown): string | null {
  if (typeof t !== 'string' || t === '') return `Expected a token (a non-empty string), got ${describe(t)}`;
  if (hasLoneSurrogate(t))
    return `Expected a token of Unicode scalar values, got a string with a lone surrogate: ${describe(t)}`;
  return null;
}

function comparePos(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) if (a[k] !== b[k]) return (a[k] as number) - (b[k] as number);
  return a.length - b.length;
}

/** A JSON object: not an array, not a class instance, not a Map. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A short rendering of a value for messages. */
function describe(v: unknown): string {
  if (typeof v === 'string') {
    const cps = [...v];
    return cps.length > 48 ? `${JSON.stringify(cps.slice(0, 44).join(''))}...` : JSON.stringify(v);
  }
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}
