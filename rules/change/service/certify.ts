/**
 * `vkit change certify` and MCP `change_certify`: one request against the host's target commit. The
 * request is parsed, its basis found in the target's registry and typed, then every obligation is
 * checked: the basis (target registry, candidate preservation), the logic (Z3), the code (Kani:
 * BLOCKED here). An invalid request or basis throws (exit 2); otherwise the report and its exit code.
 */
import { resolveCommit } from '../../../src/capture/git.js';
import { InvalidInputError, invalid, type Issue } from '../../../src/errors.js';
import { sha256Id } from '../../../src/hash/index.js';
import { claimsRecords, recordBytes, recordChanges } from '../lib/commits.js';
import { blockedCode, kaniMissing } from '../lib/kani/blocked.js';
import { logicObligations, type Obligation } from '../lib/logic.js';
import {
  type Basis,
  CLAIMS_DIR,
  jsonOf,
  parseBasis,
  parseRegistry,
  REGISTRY_FILE,
  type RegistryEntry,
} from '../lib/records.js';
import { buildReport, type CertificationReport, exitCodeOf } from '../lib/report.js';
import { parseEnvelope, typeRequest } from '../lib/request.js';
import { z3Identity } from '../lib/z3.js';

const HINT = 'See docs/change-certification.md in vkit for the request and record formats.';

export interface CertifyOptions {
  /** The repository root. */
  root: string;
  /** The host's target commit or ref (never the request's). */
  target: string;
  /** Per-query solver limit. @default 60000 */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** How the request is named in messages (its file). */
  shown?: string;
}

const fail = (issues: Issue[], shown?: string) =>
  new InvalidInputError(
    'ERR_CHANGE_REQUEST',
    issues.map((i) => ({ ...i, file: i.file ?? shown })),
    HINT,
  );

async function commitOf(root: string, ref: string, what: string, path: string, shown?: string): Promise<string> {
  const commit = await resolveCommit(root, ref);
  if (!commit)
    throw invalid(
      'ERR_CHANGE_COMMIT',
      `The ${what} \`${ref}\` names no commit in ${root}`,
      { file: shown, path },
      'Name a commit or ref of this repository.',
    );
  return commit;
}

/** The registered basis the request names, read from the target commit; any problem is exit 2. */
function registeredBasis(
  records: Map<string, Buffer>,
  digest: string,
  target: string,
): { basis: Basis; entry: RegistryEntry } {
  const registryPath = `${CLAIMS_DIR}/${REGISTRY_FILE}`;
  const raw = records.get(registryPath);
  if (!raw)
    throw invalid(
      'ERR_CHANGE_BASIS',
      `The target ${target} has no ${registryPath}: no basis is accepted there`,
      { path: 'basis' },
      HINT,
    );
  const json = jsonOf(recordBytes(raw).toString('utf8'), `${target}:${registryPath}`);
  const registry = json.issues.length ? json : parseRegistry(json.value, `${target}:${registryPath}`);
  if (registry.issues.length || !('entries' in registry) || !registry.entries) throw fail(registry.issues);
  const entry = registry.entries.find((e) => e.digest === digest);
  if (!entry)
    throw invalid(
      'ERR_CHANGE_BASIS',
      `Basis ${digest} is not in the target's registry (${registry.entries.map((e) => `${e.digest} ${e.function}`).join(', ') || 'empty'})`,
      { path: 'basis' },
      'Name the digest of a basis the target commit accepts.',
    );
  const file = `${CLAIMS_DIR}/${entry.file}`;
  const bytes = records.get(file);
  const actual = bytes && sha256Id(recordBytes(bytes));
  if (actual !== digest)
    throw invalid(
      'ERR_CHANGE_BASIS',
      bytes
        ? `${file} in the target has digest ${actual}, not the registered ${digest}`
        : `${file}, registered for ${digest}, is not in the target`,
      { path: 'basis' },
      "The target commit's records disagree; fix them there.",
    );
  const parsed = jsonOf(recordBytes(bytes!).toString('utf8'), `${target}:${file}`);
  const basis = parsed.issues.length ? parsed : parseBasis(parsed.value, `${target}:${file}`);
  if (basis.issues.length || !('basis' in basis) || !basis.basis) throw fail(basis.issues);
  return { basis: basis.basis, entry };
}

function preservation(target: Map<string, Buffer>, candidate: Map<string, Buffer>, digest: string): Obligation[] {
  const changes = recordChanges(target, candidate);
  return [
    {
      id: 'basis.registered',
      status: 'holds',
      statement: `basis ${digest} is in the target's registry with exactly those bytes`,
    },
    changes.length
      ? {
          id: 'basis.preserved',
          status: 'refuted',
          statement: 'the candidate holds the change-claims records byte for byte',
          reason: `the candidate edits the records: ${changes.join(', ')}`,
        }
      : {
          id: 'basis.preserved',
          status: 'holds',
          statement: 'the candidate holds the change-claims records byte for byte',
        },
  ];
}

export async function certify(
  request: unknown,
  opts: CertifyOptions,
): Promise<{ report: CertificationReport; exitCode: number }> {
  const started = new Date();
  const env = parseEnvelope(request);
  if (!env.envelope) throw fail(env.issues, opts.shown);
  const e = env.envelope;
  const target = await commitOf(opts.root, opts.target, 'target', '--target');
  if (e.target !== undefined) {
    const named = await resolveCommit(opts.root, e.target);
    if (named !== target)
      throw invalid(
        'ERR_CHANGE_TARGET',
        `The request names target \`${e.target}\`, but the host chose ${target}: the target is the host's choice, never the request's`,
        { file: opts.shown, path: 'target' },
        'Drop `target` from the request; the host passes --target.',
      );
  }
  const candidate = await commitOf(opts.root, e.candidate, 'candidate', 'candidate', opts.shown);
  const targetRecords = await claimsRecords(opts.root, target);
  const { basis, entry } = registeredBasis(targetRecords, e.basis, target);
  const typed = typeRequest(e, basis);
  if (!typed.request) throw fail(typed.issues, opts.shown);
  const solver = z3Identity(opts.env);
  const logic = await logicObligations(
    { basis, claim: typed.request.claim, witness: typed.request.witness },
    solver,
    opts.timeoutMs ?? 60_000,
  );
  const code = blockedCode(kaniMissing(opts.env ?? process.env));
  const obligations = [
    ...preservation(targetRecords, await claimsRecords(opts.root, candidate), e.basis),
    ...logic,
    ...code.code,
  ];
  const report = buildReport({
    target,
    candidate,
    basis: e.basis,
    function: entry.function,
    obligations,
    shadow: code.shadow,
    samples: typed.request.samples,
    started,
    ...(typeof solver === 'string' ? {} : { solver }),
  });
  // Acceptance needs the sealed record, which this vkit cannot write yet: never report it unsealed.
  if (report.acceptance === 'accepted') report.acceptance = 'unknown';
  return { report, exitCode: exitCodeOf(report.acceptance) };
}
