/**
 * A node's way to its action key, with every check that holds it back first: a dependency that
 * did not pass, no rule for its kind, a secret-looking input of a raw capture, an input name that
 * is not UTF-8, an input vkit cannot capture, a tool not found. Each is a reason the node is
 * BLOCKED; only a node past all of them is planned by its rule and keyed.
 */
import { compileGlob, matchGlobs } from '../text/glob.js';
import { isSecretPath } from '../capture/secrets.js';
import { UndecodablePathError, type Refused, type SelectorCapture } from '../capture/selector.js';
import type { CheckerIdentity, DepResult, PlannedAction } from '../config/rule.js';
import type { GraphNode } from '../graph/compile.js';
import { actionKey, envDigests, type RuleIdentity } from '../jobs/job.js';
import type { KeyedNode, NodeResult } from './node-result.js';
import type { WalkState } from './walk-state.js';

/** A node past its checks: what its key was computed from, and the key. */
export interface PlannedNode extends KeyedNode {
  ruleId: RuleIdentity;
  capture: SelectorCapture;
  checker: CheckerIdentity | undefined;
  depResults: DepResult[];
  planned: PlannedAction;
}

/** The node planned and keyed, or why it is BLOCKED (the first check it fails, in the order above). */
export function planNode(
  walk: WalkState,
  label: string,
  node: GraphNode,
  depLabels: readonly string[],
  deps: readonly NodeResult[],
): PlannedNode | { blocked: string } {
  const { ctx } = walk;
  const notPassing = depLabels.map((d, i) => [d, deps[i]!] as const).filter(([, r]) => r.item.status !== 'PASS');
  if (notPassing.length) {
    const [d, r] = notPassing[0]!;
    return { blocked: `dependency ${d} is ${r.item.status}` };
  }
  const rule = ctx.rules.get(node.kind);
  if (!rule) return { blocked: `no rule registered for kind \`${node.kind}\`` };

  // Raw captures (acceptance records, their libraries and claims, formal components; checks with
  // `line_endings: 'raw'`, whose config check refuses such a file already) stand for whole
  // trees whose identity a secret-looking file would change, yet vkit never hashes one: its presence
  // is refused at every evaluation, so one added after a PASS cannot hide behind a cached key.
  if (node.hash === 'raw') {
    const secret = secretInputs(node.inputs, ctx.files);
    if (secret)
      return {
        blocked: `input \`${secret}\` is a secret-looking file: vkit never reads or hashes one, and this ${node.kind} result would depend on it; move it out of the inputs or ignore it in git`,
      };
  }
  // The capture taken before the walk is the tree as the user left it, before any job of this
  // build; a node downstream of a job captures again, now that the job has ended (it may have
  // rewritten the node's inputs). A node no job precedes keeps it (D54): capturing it again
  // while another node's job runs beside it would read a moment no better, and cost a stat per
  // input and a look at its evidence for every node evaluated after the first job was queued.
  const taken = walk.afterJob(label) ? undefined : walk.early.get(label);
  const capture = taken ?? walk.captureOf(label);
  if (capture instanceof UndecodablePathError)
    return {
      blocked: `input \`${JSON.stringify(capture.path).slice(1, -1)}\` has a name that is not valid UTF-8 (shown with U+FFFD): vkit cannot read it to capture it; rename it`,
    };
  const refusal = refusedReason(node, capture.refused);
  if (refusal) return { blocked: refusal };
  let checker: CheckerIdentity | undefined;
  const tool = rule.tool?.(node.attrs);
  if (tool) {
    const found = walk.checkerOf(tool.argv0, tool.shell, String(node.attrs.cwd ?? '.'), tool.npm);
    if (typeof found === 'string') return { blocked: found };
    checker = found;
  }
  const depResults = deps.map((r) => r.dep!);
  // A user rule's identity includes the digest of the config's module graph: vkit cannot tell
  // which code the rule runs, so any edit there re-identifies its actions (fail closed).
  const source = ctx.config.manifest.rules.find((r) => r.kind === rule.kind)?.source_sha256;
  const ruleId: RuleIdentity = source
    ? { kind: rule.kind, version: rule.version, source }
    : { kind: rule.kind, version: rule.version };
  const planned = rule.plan({ label, id: node.id, attrs: node.attrs, capture, checker }, depResults);
  const key = actionKey({
    rule: ruleId,
    capture: capture.digest,
    definition: planned.definition,
    env: envDigests(planned.env, ctx.env),
    checker: checker ?? null,
    deps: depResults,
  });
  return { label, node, rule, key, ruleId, capture, checker, depResults, planned };
}

/** Why a node cannot run on its capture, or undefined: special files always, unheld link targets where the config declares the inputs. */
function refusedReason(node: GraphNode, refused: readonly Refused[]): string | undefined {
  const special = refused.find((r) => r.kind === 'special');
  if (special)
    return `input \`${special.path.replace(/\/$/, '')}\` is not a regular file or symlink (${special.why}): vkit cannot capture it; exclude it with \`${special.exclude}\``;
  // Where the config entry names its inputs (checks, user actions), what they select must be what
  // the key covers. Comparisons name one plain file (a linked request is the compare rule's to
  // refuse), acceptance items check their own reads, and formal components show their checker only
  // the captured files (and refuse links themselves).
  const link = node.declared ? refused.find((r) => r.kind === 'link') : undefined;
  if (link)
    return `input \`${link.path}\` is ${link.why}: the check could read bytes its key does not see; capture the target too, or exclude the link with \`${link.exclude}\``;
  return undefined;
}

/** The first secret-looking path the globs select (selectors leave those out of captures), or undefined. */
function secretInputs(globs: readonly string[], files: readonly string[]): string | undefined {
  return matchGlobs(globs.map(compileGlob), files).find(isSecretPath);
}
