/**
 * The rule of a `kind = "chain"` requirement, as the stack check reads it: which relations, how
 * deep, at which level, whose acceptance counts and what an unaccepted library means.
 */
import { str, table, type Table } from '../toml.js';

export interface ChainRule {
  id: string;
  relations: string[];
  depth: number | 'all';
  level: 'C1' | 'C2';
  completeness: 'verified' | 'declared';
  acceptors: string[];
  allowConditions: boolean;
  unaccepted: 'refuse' | 'gap';
  maxElements: number;
}

/** The rule as written; the specification check reports malformed fields, here they fail closed. */
export function readRule(requirement: Table, errors: string[]): ChainRule {
  const chain = table(requirement, 'chain') ?? {};
  const id = str(requirement, 'id') ?? '?';
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const depth =
    chain.depth === 'all'
      ? 'all'
      : Number.isInteger(chain.depth) && (chain.depth as number) >= 1
        ? (chain.depth as number)
        : undefined;
  const max =
    Number.isInteger(chain.max_elements) && (chain.max_elements as number) >= 1
      ? (chain.max_elements as number)
      : undefined;
  const bad = (what: string) => errors.push(`chain requirement '${id}': ${what}`);
  if (depth === undefined) bad('depth must be "all" or a positive integer');
  if (max === undefined) bad('max_elements must be a positive integer');
  if (chain.level !== 'C1' && chain.level !== 'C2') bad('level must be C1 or C2');
  if (chain.completeness !== 'verified' && chain.completeness !== 'declared')
    bad('completeness must be verified or declared');
  if (chain.binds !== 'consumed') bad(`binds must be "consumed" (the only binding this vkit checks)`);
  if (chain.unaccepted !== 'refuse' && chain.unaccepted !== 'gap') bad('unaccepted must be refuse or gap');
  if (!strings(chain.relations).length) bad('relations must name at least one relation');
  return {
    id,
    relations: strings(chain.relations),
    depth: depth ?? 1,
    level: chain.level === 'C1' ? 'C1' : 'C2',
    completeness: chain.completeness === 'declared' ? 'declared' : 'verified',
    acceptors: strings(chain.acceptors),
    allowConditions: chain.allow_conditions === true,
    unaccepted: chain.unaccepted === 'gap' ? 'gap' : 'refuse',
    maxElements: max ?? 0,
  };
}
