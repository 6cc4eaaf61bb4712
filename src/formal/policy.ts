/**
 * Component policy: what a `formal.components` entry binds, and its identity. The policy slice of a
 * component is its resolved manifest entry (defaults applied); its digest is sha256 over that entry's
 * canonical JSON, so a change to any field (inputs, bindings, parameters, profile, package pin)
 * needs renewed acceptance, while an edit elsewhere in the manifest does not.
 */
import type { ResolvedComponent } from './component-schema.js';
import { jsonId } from '../hash/index.js';
import type { MathPackage, Profile } from './types.js';

export function policySliceDigest(component: ResolvedComponent): string {
  return jsonId(component);
}

/**
 * Whether a component's declaration fits its package and profile, as a list of problems (empty
 * when it does). Pure: the package and profile are looked up by the caller.
 */
export function policyProblems(component: ResolvedComponent, pkg: MathPackage, profile: Profile): string[] {
  const problems: string[] = [];
  if (component.package.sha256 !== pkg.sha256) {
    problems.push(
      `package.sha256 is ${component.package.sha256} but the installed ${pkg.id} ${pkg.version} is ${pkg.sha256} (vkit formal package digest ${pkg.id})`,
    );
  }
  if (!pkg.contracts.includes(component.contract))
    problems.push(
      `contract \`${component.contract}\` is not defined by ${pkg.id} ${pkg.version} (it defines ${pkg.contracts.join(', ')})`,
    );
  if (!profile.contracts.includes(component.contract))
    problems.push(
      `profile ${profile.id} cannot check contract \`${component.contract}\` (it checks ${profile.contracts.join(', ')})`,
    );
  const bound = Object.keys(component.bindings);
  // A represented component (its own state type) also binds the package's representation names.
  const represented = component.representation !== undefined;
  const required = represented ? [...pkg.bindings, ...(pkg.representationBindings ?? [])] : pkg.bindings;
  const unbound = required.filter((b) => !bound.includes(b));
  const unknown = bound.filter((b) => !required.includes(b));
  if (represented && !pkg.representationBindings?.length)
    problems.push(
      `representation \`${component.representation}\` is declared but ${pkg.id} defines no representation bindings`,
    );
  if (unbound.length)
    problems.push(
      `bindings lack ${unbound.map((b) => `\`${b}\``).join(', ')} (the package requires all of ${required.join(', ')}${represented ? ' for a represented component' : ''})`,
    );
  if (unknown.length)
    problems.push(`bindings name ${unknown.map((b) => `\`${b}\``).join(', ')}, which ${pkg.id} does not define`);
  return problems;
}
