/**
 * The MCP tools: each a strict input schema (unknown keys are rejected) and a handler that calls the
 * service and returns its JSON. Like the CLI verbs, no logic of their own: durations arrive in seconds
 * and go to the service in milliseconds, `sections: ["all"]` means every section, and a run without a
 * wait is answered at once with its id.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import * as z from 'zod';
import { BackgroundBuilds } from '../service/background.js';
import * as service from '../service/index.js';
import { checkLabel } from '../graph/compile.js';
import { listDeclared } from '../service/checks.js';
import { defineTool, type ToolSpec as KitToolSpec, type ToolContextBase } from '../kit/tool.js';
import { MAX_WAIT_S, waitS } from '../kit/tool-args.js';

export interface ToolContext extends ToolContextBase {
  open: service.OpenOptions;
  builds: BackgroundBuilds;
}

const runId = z.string().min(1).describe('A run id (`run_...`) from build, verify, run_retry or runs_list.');
const only = z
  .array(z.string().min(1))
  .optional()
  .describe('Check ids or action labels to run (with what they run after); the gate still covers every requirement.');
const SECTION_NAMES = [...service.SECTIONS, 'all'] as const;

const jobs = () => availableParallelism();
const seconds = (s: number | undefined) => (s ?? 0) * 1000;
const labelOf = checkLabel;

async function withStore<T>(
  open: service.OpenOptions,
  fn: (store: Awaited<ReturnType<typeof service.openStore>>) => T,
): Promise<T> {
  const store = await service.openStore(open);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

export type ToolSpec<S extends z.ZodObject> = KitToolSpec<S, ToolContext>;

const spec = <S extends z.ZodObject>(s: ToolSpec<S>): ToolSpec<S> => defineTool(s);

export const TOOLS = {
  build: spec({
    description:
      'Run what changed, reuse the rest, fold the gate (like `vkit build`). Returns `{build, state: "running"}` at once, or with wait_s the `vkit.build/1` report when the build ends within it. Poll with run_wait using the build id.',
    input: z.strictObject({
      only,
      force: z.boolean().optional().describe('Rerun every selected action even when intact evidence exists.'),
      wait_s: waitS('the build'),
    }),
    handler: async (a, ctx) => {
      const started = ctx.builds.start(ctx.open, { only: a.only, force: a.force, jobs: jobs() });
      return a.wait_s === undefined ? started : ctx.builds.wait(started.build, seconds(a.wait_s));
    },
  }),

  verify: spec({
    description:
      'A fresh run of one check (like `vkit verify`), or with reuse intact identical passing evidence. Returns `{run, state, action, gate}`; without wait_s at once, the action then `pending` and the run `running` (wait with run_wait).',
    input: z
      .strictObject({
        check: z
          .string()
          .min(1)
          .optional()
          .describe('The check id (or its label `check:ID`, `formal:ID`). Give check or request.'),
        request: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'A formal request object (schema_version 2, claim.kind `package`, claim.component, claim.policy_sha256, claim.package_sha256, source {kind: working-tree} or {kind: git-commit, commit}); see schema/vkit.formal-request-2.schema.json.',
          ),
        reuse: z.boolean().optional().describe('Return intact identical passing evidence instead of running again.'),
        wait_s: waitS('the run'),
      })
      .refine((a) => (a.check === undefined) !== (a.request === undefined), {
        message: 'Expected exactly one of `check` and `request`',
      }),
    handler: async (a, ctx) => {
      const formal = a.request === undefined ? undefined : await import('../service/formal.js');
      const request = formal?.checkFormalRequest(a.request, 'request');
      const report =
        formal && request
          ? await formal.verifyFormalRequest(ctx.open, a.reuse ? { ...request, reuse: true } : request, {
              jobs: jobs(),
              waitMs: seconds(a.wait_s),
            })
          : await service.verify(ctx.open, {
              check: a.check!,
              reuse: a.reuse,
              jobs: jobs(),
              waitMs: seconds(a.wait_s),
            });
      const action = report.actions[0] ?? null;
      // The report says whether the wait ended first (`pending`), not whether an ended run is done
      // or interrupted: the run's own summary does.
      const state = !action?.run
        ? null
        : action.pending
          ? 'running'
          : (await service.waitRun(ctx.open, action.run, 0)).summary.state;
      return { run: action?.run ?? null, state, action, gate: report.gate };
    },
  }),

  run_wait: spec({
    description:
      'Wait (bounded) for a run to end and return its summary (`timed_out` when the wait ended first; the worker continues). Also takes a background build id (`build_...`) and then returns the build report when done.',
    readOnly: true,
    input: z.strictObject({
      run: z.string().min(1).describe('A run id (`run_...`) or a background build id (`build_...`) from this server.'),
      timeout_s: z
        .number()
        .min(0)
        .max(MAX_WAIT_S)
        .optional()
        .describe(`Seconds to wait, 0 to ${MAX_WAIT_S}; default 30.`),
    }),
    handler: async (a, ctx) => {
      const ms = (a.timeout_s ?? 30) * 1000;
      return BackgroundBuilds.isBuildId(a.run) ? ctx.builds.wait(a.run, ms) : service.waitRun(ctx.open, a.run, ms);
    },
  }),

  run_show: spec({
    description:
      'A run\'s summary (identities, state, obligation counts, next action) plus the asked sections (like `vkit run show`); coverage and compilation are "not applicable" to checks. The log (200 lines a page, lines cut at 4,000 characters) and the artifact list (100 a page) are paged.',
    readOnly: true,
    input: z.strictObject({
      run: runId,
      sections: z.array(z.enum(SECTION_NAMES)).optional().describe('Sections to include; `all` for every one.'),
      page: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Page of the log (200 lines) and of the artifact list (100 artifacts), from 1.'),
    }),
    handler: async (a, ctx) => {
      const asked = a.sections ?? [];
      const sections = asked.includes('all') ? [...service.SECTIONS] : (asked as service.Section[]);
      return withStore(ctx.open, (store) => service.showRun(store, a.run, sections, a.page ?? 1));
    },
  }),

  run_cancel: spec({
    description:
      "Cancel one run: a queued run ends at once, a running one is stopped (its own process group only) and ends interrupted with reason `cancelled`. Returns the run's summary.",
    input: z.strictObject({ run: runId }),
    handler: async (a, ctx) => service.cancelRun(ctx.open, a.run),
  }),

  run_retry: spec({
    description:
      "A new run for the same frozen job. Returns the new run's summary (`retried_from` names the old one); without wait_s at once, with `timed_out: true` while it runs.",
    input: z.strictObject({ run: runId, wait_s: waitS('the new run') }),
    handler: async (a, ctx) => service.retryRun(ctx.open, a.run, seconds(a.wait_s)),
  }),

  runs_list: spec({
    description: 'Retained runs, newest first (like `vkit runs`).',
    readOnly: true,
    input: z.strictObject({
      check: z.string().min(1).optional().describe('Only runs of this check id (or label).'),
      limit: z.number().int().min(1).max(500).optional().describe('At most this many runs, 1 to 500; default 50.'),
    }),
    handler: async (a, ctx) =>
      withStore(ctx.open, (store) => ({
        schema: 'vkit.runs/1',
        runs: service.listRuns(store, { label: a.check ? labelOf(a.check) : undefined, limit: a.limit ?? 50 }),
      })),
  }),

  gate: spec({
    description:
      'Evaluate the gate from retained evidence; runs nothing (like `vkit gate --json`). Returns the `vkit.gate/1` object: READY, REJECTED or BLOCKED with every item.',
    readOnly: true,
    input: z.strictObject({
      deep: z.boolean().optional().describe('Re-hash every blob instead of trusting unchanged stat fingerprints.'),
      only: z
        .array(z.string().min(1))
        .optional()
        .describe('Show only these items; the status still covers every requirement.'),
    }),
    handler: async (a, ctx) => (await service.gate(ctx.open, { deep: a.deep, only: a.only })).gate,
  }),

  checks_list: spec({
    description:
      'Call this first to learn what the repository checks: every item its config declares, in dependency order, with its label (`check:<id>`; build `only`, verify `check` and gate `only` take the id or the label), kind, command (`run`), inputs (globs), the labels it runs after, whether the gate requires it, and where the config declares it. Reads the config only; runs nothing.',
    readOnly: true,
    input: z.strictObject({}),
    handler: async (_a, ctx) => listDeclared(ctx.root),
  }),

  evidence_export: spec({
    description:
      "Write one finished run's evidence as a deterministic tar bundle (like `vkit evidence export`): a manifest of digests binding job, source, outcome, obligations, checker and artifacts; validated by reading it back. Returns the `vkit.evidence-export/1` summary. Hashes give integrity relative to trusted state, not authentication.",
    input: z.strictObject({
      run: runId,
      out: z
        .string()
        .min(1)
        .describe(
          'The bundle file to write, relative to the project root. Its real path (symlinks resolved) must be inside the root or a directory the host allowed (`vkit mcp --allow-write DIR`), and never in a `.git` directory or the evidence store.',
        ),
      overwrite: z
        .boolean()
        .optional()
        .describe('Replace the file at `out` if one exists (default: an existing file is refused).'),
      include_assets: z
        .boolean()
        .optional()
        .describe(
          'For a formal run, add a digest-bound capsule (the exact worker image, archives, tool trees); checks, comparisons and acceptance items have none, and the result says so.',
        ),
    }),
    handler: async (a, ctx) =>
      (await import('../service/evidence.js')).exportEvidence(ctx.open, {
        run: a.run,
        out: resolve(ctx.root, a.out),
        includeAssets: a.include_assets,
        target: {
          arg: 'out',
          overwrite: a.overwrite === true,
          within: ctx.writable,
          overwriteHint: 'Pass `overwrite: true` to replace it, or name another file.',
        },
      }),
  }),

  evidence_replay: spec({
    description:
      'Replay a bundle (like `vkit evidence replay`): refuses hostile bundles naming the entry, captures the candidate in this repository, requires matching accepted identities and runs the check again; the recorded outcome is never accepted. Returns the `vkit.evidence-replay/1` result with status PASS, FAIL or BLOCKED.',
    input: z.strictObject({
      bundle: z.string().min(1).describe('The bundle file, relative to the project root.'),
      restore_assets: z
        .boolean()
        .optional()
        .describe(
          "Load the bundle's capsule into the engine first; the loaded image must have the recorded id and tool-tree digest.",
        ),
    }),
    handler: async (a, ctx) =>
      (await import('../service/evidence.js')).replayEvidence(ctx.open, {
        file: resolve(ctx.root, a.bundle),
        restoreAssets: a.restore_assets,
        jobs: jobs(),
      }),
  }),

  feedback_add: spec({
    description:
      'Record a verification capability vkit lacked for a task (like `vkit feedback add`): one Markdown file named by a content digest; a duplicate keeps the existing file (`created: false`). Never affects results or gates.',
    input: z.strictObject({
      task: z.string().describe('What you were trying to do.'),
      missing: z.string().describe('The capability that was missing.'),
      benefit: z.string().describe('What verifying with it would establish or catch.'),
      kind: z
        .enum(service.FEEDBACK_KINDS)
        .optional()
        .describe('formal (formal verification, the default) or reliable (other rigorous checks).'),
      run: z.string().optional().describe('A run whose retained evidence the request refers to (`run_...`).'),
    }),
    handler: async (a, ctx) =>
      service.addFeedback(ctx.root, { task: a.task, missing: a.missing, benefit: a.benefit, kind: a.kind, run: a.run }),
  }),

  feedback_list: spec({
    description:
      'Bounded previews of recorded feedback, formal requests first, each kind newest first (like `vkit feedback list`).',
    readOnly: true,
    input: z.strictObject({
      limit: z
        .number()
        .int()
        .min(1)
        .max(service.FEEDBACK_MAX_LIMIT)
        .optional()
        .describe(`At most this many requests, 1 to ${service.FEEDBACK_MAX_LIMIT}; default 20.`),
    }),
    handler: async (a, ctx) => service.listFeedback(ctx.root, { limit: a.limit }),
  }),
};
