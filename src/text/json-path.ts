/**
 * JSON paths as issues name them: `$`, `$.before.rules[0].targets`, and bracket notation for member
 * names that are not plain identifiers (`$.before.state_observations["half open"]`).
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function memberPath(parent: string, key: string): string {
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
