/**
 * `self-verify`: one claim's `[claim.self_verify]` recipe of an acceptance record run as a cached
 * check (`run_commands: true`; node `accept:<id>/run:<claim id>`, made by lib/graph.ts).
 * The key covers the whole subject root and the package (raw bytes), the recipe and the shell's
 * and tool's identity; the command runs in the subject root with only the action's environment.
 *
 * Outcomes: EXECUTED-PASS -> PASS; EXECUTED-FAIL and EXPECT-MISMATCH -> FAIL; SELF-FULFILLING-SUSPECT
 * (never run) and NOT-RUN -> BLOCKED. As for `check`, whatever stops the command from giving an
 * answer (cannot start, exit 127, time-out, signal, cancellation) is BLOCKED, never cached, and a
 * package whose recipe is no longer the one the graph was compiled from is BLOCKED too.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { defineRule, type ActionResult } from '../../src/config/rule.js';
import { toolOf } from '../../src/checkers/identity.js';
import { subjectRootOf } from './lib/inputs.js';
import {
  DEFAULT_TIMEOUT_MS,
  judgeRun,
  notRunnable,
  readCapped,
  readSelfVerify,
  shellScript,
} from './lib/selfverify.js';
import { readDoc, str, tables } from './lib/toml.js';

/** Bumped whenever what a self-verify PASS means changes. */
export const SELF_VERIFY_SEMANTICS = 'vkit.self-verify/1';
/** Output read back for judging; a longer stream is cut (a cut stream can fail, never newly pass). */

const text = v.pipe(v.string(), v.minLength(1));
export const SelfVerifyAttrs = v.strictObject({
  /** `<acceptance id>/run:<claim id>`. */
  id: text,
  /** The acceptance root (`root` of the item), which `[subject] root` is relative to. */
  root: v.string(),
  /** The package, relative to the project root. */
  package: text,
  claim: text,
  /** The subject root the command runs in, relative to the project root. */
  cwd: v.string(),
  command: text,
  expect: v.string(),
  expect_stream: v.picklist(['stdout', 'stderr', 'combined']),
});

export const selfVerifyRule = defineRule({
  kind: 'self-verify',
  version: 1,
  attrs: SelfVerifyAttrs,
  tool: (attrs) => toolOf(attrs.command),
  plan(node) {
    const a = node.attrs;
    return {
      definition: {
        id: a.id,
        package: a.package,
        claim: a.claim,
        cwd: a.cwd,
        command: a.command,
        expect: a.expect,
        expect_stream: a.expect_stream,
        timeout_ms: DEFAULT_TIMEOUT_MS,
        semantics: SELF_VERIFY_SEMANTICS,
        sandbox: 'isolated',
      },
      env: [],
      async execute(io): Promise<ActionResult> {
        const blocked = (reason: string, artifacts: ActionResult['artifacts'] = []): ActionResult => ({
          outcome: 'BLOCKED',
          claim: 'unknown',
          reason: `${a.claim}: ${reason}`,
          artifacts,
          subject: { claim: a.claim },
        });
        // The captured package must still hold the recipe the key was computed over.
        let sv;
        try {
          const doc = await readDoc(join(io.root, a.package), a.package);
          const index = tables(doc.data, 'claim').findIndex((c) => str(c, 'id') === a.claim);
          if (index < 0) return blocked(`NOT-RUN: the package no longer has claim '${a.claim}'; rerun the build`);
          sv = readSelfVerify(doc, index);
        } catch (error) {
          return blocked(`NOT-RUN: ${(error as Error).message}`);
        }
        if (!sv || sv.command !== a.command || sv.expect !== a.expect || sv.expect_stream !== a.expect_stream)
          return blocked("NOT-RUN: the claim's self_verify changed since the graph was compiled; rerun the build");
        if (subjectRootOf(io.root, a) !== a.cwd)
          return blocked("NOT-RUN: the package's [subject] root changed since the graph was compiled; rerun the build");
        const refused = notRunnable(sv);
        if (refused) return blocked(`${refused.status}: ${refused.reason}`);

        // A claim's command is a check like any other: sandboxed (`isolated`), which its key records.
        const proc = await io.runProcess({
          argv: ['/bin/sh', '-c', shellScript(sv)],
          cwd: join(io.root, a.cwd),
          env: io.env,
          timeoutMs: DEFAULT_TIMEOUT_MS,
          signal: io.signal,
          sandbox: 'isolated',
        });
        const artifacts: ActionResult['artifacts'] = [
          { name: 'stdout', ...(await io.putFile(proc.stdoutPath)) },
          { name: 'stderr', ...(await io.putFile(proc.stderrPath)) },
        ];
        if (proc.spawnError) return blocked(`cannot start the shell: ${proc.spawnError}`, artifacts);
        if (proc.cancelled) return blocked('cancelled', artifacts);
        if (proc.timedOut) return blocked(`timeout after ${DEFAULT_TIMEOUT_MS / 1000} s`, artifacts);
        if (proc.signal) return blocked(`killed by ${proc.signal}`, artifacts);
        if (proc.exitCode === 127) return blocked('command not found (the shell exited 127)', artifacts);

        const judged = judgeRun(sv, {
          exitCode: proc.exitCode,
          signal: proc.signal,
          timedOut: false,
          stdout: await readCapped(proc.stdoutPath),
          stderr: await readCapped(proc.stderrPath),
        });
        const run = {
          claim: a.claim,
          status: judged.status,
          exit_code: proc.exitCode,
          output_summary: judged.output_summary,
        };
        artifacts.push({ name: 'run.json', ...(await io.putBytes(`${JSON.stringify(run, null, 2)}\n`)) });
        const base = { artifacts, exitCode: proc.exitCode, subject: run, assurance: 'empirical' as const };
        if (judged.status === 'EXECUTED-PASS') return { ...base, outcome: 'PASS', claim: 'established' };
        if (judged.status === 'EXECUTED-FAIL' || judged.status === 'EXPECT-MISMATCH')
          return {
            ...base,
            outcome: 'FAIL',
            claim: 'refuted',
            reason: `${a.claim} ${judged.status}: ${judged.output_summary}`,
          };
        return {
          ...base,
          outcome: 'BLOCKED',
          claim: 'unknown',
          reason: `${a.claim} ${judged.status}: ${judged.output_summary}`,
        };
      },
    };
  },
});
