/**
 * Formal requests (`vkit verify --request FILE`, MCP `verify` with `request`), schema_version 2.
 * A request names an accepted component and the digests it was accepted under, and selects a
 * candidate source; it can never change what is checked. Replacement formulas, checker commands,
 * smaller obligation sets, legacy `implements` goals and finite claims are refused by name before
 * the schema is applied, so each refusal says what it is and where. Pure: the lock comparison is
 * `requestLockIssues`, given the lock entry and the current digests.
 */
import * as v from 'valibot';
import { fieldPath, ID_PATTERN, sha256Field } from '../config/schema.js';
import type { Issue } from '../errors.js';
import type { LockEntry } from './lock.js';

const commit = v.pipe(
  v.string(),
  v.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'Expected a full commit id (40 or 64 lowercase hex digits)'),
);

export const FormalRequestSchema = v.strictObject({
  $schema: v.optional(v.string()),
  schema_version: v.literal(2, 'Expected schema_version 2'),
  claim: v.strictObject({
    kind: v.literal('package', 'Expected claim.kind `package`'),
    component: v.pipe(v.string(), v.regex(ID_PATTERN, 'Expected a component id')),
    policy_sha256: sha256Field,
    package_sha256: sha256Field,
  }),
  source: v.variant(
    'kind',
    [v.strictObject({ kind: v.literal('working-tree') }), v.strictObject({ kind: v.literal('git-commit'), commit })],
    'Expected source.kind `working-tree` or `git-commit`',
  ),
  /** Reuse intact passing evidence for the identical job (the CLI's --reuse). @default false */
  reuse: v.optional(v.boolean(), false),
});

export type FormalRequest = v.InferOutput<typeof FormalRequestSchema>;

/** Keys that would let a request change what is checked, anywhere in the request, and why each is refused. */
const FORBIDDEN: Array<{ keys: RegExp; why: string }> = [
  {
    keys: /^(formula|formulas|ensures|requires|spec|specification|contract|contracts|invariant|theorem|statement)$/,
    why: 'replacement formulas are rejected: the package owns the contracts',
  },
  {
    keys: /^(command|commands|checker|checker_command|argv|run|args|arguments|image|profile|tool)$/,
    why: 'checker commands are rejected: the accepted profile owns the procedure',
  },
  {
    keys: /^(obligations|obligation|only|skip|subset|bindings)$/,
    why: 'smaller obligation sets are rejected: every obligation of the package is checked',
  },
  {
    keys: /^(implements|goal|goals)$/,
    why: 'legacy `implements` goals are rejected: name an accepted component with claim.kind `package`',
  },
  {
    keys: /^(finite|finite_claim|model|models|delegation|baseline)$/,
    why: 'finite claims are rejected: formal requests check package claims only (see change certification for finite claims)',
  },
];

function forbiddenIssues(data: unknown, path = ''): Issue[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(data)) {
    const at = path ? `${path}.${key}` : key;
    const hit = FORBIDDEN.find((f) => f.keys.test(key));
    if (hit) issues.push({ path: at, message: hit.why });
    else issues.push(...forbiddenIssues(value, at));
  }
  return issues;
}

function kindIssue(data: unknown): Issue[] {
  const kind = (data as { claim?: { kind?: unknown } } | null)?.claim?.kind;
  if (kind === 'finite' || kind === 'finite-model' || kind === 'finite_model')
    return [{ path: 'claim.kind', message: 'finite claims are rejected: formal requests check package claims only' }];
  if (kind === 'implements')
    return [{ path: 'claim.kind', message: 'legacy `implements` goals are rejected: use claim.kind `package`' }];
  return [];
}

export function validateFormalRequest(data: unknown, file?: string): { value?: FormalRequest; issues: Issue[] } {
  const early = [...kindIssue(data), ...forbiddenIssues(data)].map((i) => ({ ...i, file }));
  if (early.length) return { issues: early };
  const parsed = v.safeParse(FormalRequestSchema, data);
  if (!parsed.success) {
    return {
      issues: parsed.issues.map((i) => ({
        file,
        path: fieldPath(i.path),
        message:
          i.kind === 'schema' && i.type === 'strict_object' && i.expected === 'never'
            ? `Unknown key ${i.received}; remove it`
            : i.message,
      })),
    };
  }
  return { value: parsed.output, issues: [] };
}

/** Whether a valid request matches the component's accepted entry and the current digests. */
export function requestLockIssues(
  req: FormalRequest,
  entry: LockEntry | undefined,
  current: { policy_sha256: string; package_sha256: string | null },
  file?: string,
): Issue[] {
  if (!entry)
    return [
      {
        file,
        path: 'claim.component',
        message: `component \`${req.claim.component}\` is not accepted: run \`vkit policy accept\``,
      },
    ];
  const issues = [
    digestIssue(file, 'policy_sha256', 'policy', req.claim.policy_sha256, entry.policy_sha256, current.policy_sha256),
    digestIssue(
      file,
      'package_sha256',
      'package',
      req.claim.package_sha256,
      entry.package_sha256,
      current.package_sha256,
    ),
  ];
  return issues.filter((i): i is Issue => i !== undefined);
}

const RENEWAL = {
  policy_sha256:
    "the component's policy changed since it was accepted: renewed acceptance required (vkit policy accept)",
  package_sha256:
    'the installed package differs from the accepted one: renewed acceptance required (vkit policy accept)',
};

/** The request must claim the accepted digest, and the accepted digest must still be the current one. */
function digestIssue(
  file: string | undefined,
  field: keyof typeof RENEWAL,
  what: string,
  claimed: string,
  accepted: string | undefined,
  current: string | null,
): Issue | undefined {
  const path = `claim.${field}`;
  if (claimed !== accepted)
    return { file, path, message: `Expected the accepted ${what} digest ${accepted}, got ${claimed}` };
  if (accepted !== current) return { file, path, message: RENEWAL[field] };
  return undefined;
}
