/** Building the job the engine would submit, for tests that drive the job service directly. */
import { captureSelector } from '../../src/capture/selector.js';
import { checkerIdentity } from '../../src/checkers/identity.js';
import { actionKey, envDigests, type Job } from '../../src/jobs/job.js';
import type { Workspace } from '../../src/service/index.js';

/** The job the engine would submit for a check with no dependencies. */
export function jobFor(ws: Workspace, label: string): Job {
  const node = ws.graph.graph.getNodeAttributes(label);
  const rule = ws.rules.get(node.kind)!;
  const { inputs } = node;
  const capture = captureSelector({
    root: ws.root,
    globs: inputs,
    files: ws.files,
    cache: ws.store.fileStates,
    now: ws.store.now,
  });
  const tool = rule.tool!(node.attrs)!;
  const checker = checkerIdentity(tool.argv0, tool.shell, { cwd: ws.root, path: ws.env.PATH });
  const planned = rule.plan({ label, id: node.id, attrs: node.attrs, capture, checker }, []);
  const key = actionKey({
    rule: { kind: rule.kind, version: rule.version },
    capture: capture.digest,
    definition: planned.definition,
    env: envDigests(planned.env, ws.env),
    checker,
    deps: [],
  });
  const files = capture.files.map(({ path, mode, sha256 }) => ({ path, mode, sha256 }));
  return {
    schema: 'vkit.job/1',
    key,
    label,
    rule: { kind: rule.kind, version: rule.version },
    id: node.id,
    attrs: node.attrs,
    capture: { digest: capture.digest, files },
    checker,
    deps: [],
    policy: ws.config.policyDigest,
    env: [...planned.env].sort(),
  };
}
