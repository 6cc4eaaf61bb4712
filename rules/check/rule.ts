/**
 * `check`: a registered command whose exit code is evidence about its declared inputs. PASS when the
 * exit code is the expected one, FAIL otherwise; anything that stops the command from giving an
 * answer (cannot start, timeout, signal, cancellation, too many outputs) is BLOCKED, never FAIL and
 * never PASS.
 */
import { join } from 'node:path';
import { defineRule, type ActionResult } from '../../src/config/rule.js';
import { CheckSchema } from './schema.js';
import { toolOf } from '../../src/checkers/identity.js';
import { npmVisiblePaths } from '../../src/checkers/npm-deps.js';

/** Retained-evidence limits after execution (the reference's figures). */
export const OUTPUT_LIMITS = { entries: 10_000, bytes: 512 * 1024 * 1024 };

export const checkRule = defineRule({
  kind: 'check',
  version: 1,
  attrs: CheckSchema,
  tool: (attrs) => ({ ...toolOf(attrs.run), ...(attrs.deps ? { npm: attrs.deps.npm } : {}) }),
  plan(node) {
    const a = node.attrs;
    return {
      // The sandbox is part of the identity: evidence made without one never answers for a sandboxed check.
      // `line_endings: 'raw'` enters the definition (the default adds nothing, so keys made before it
      // existed stand): a raw and a normalising check over LF-only files capture the same digest, and
      // must still be two jobs, each re-hashed by the worker its own way.
      definition: {
        id: a.id,
        run: a.run,
        cwd: a.cwd,
        timeout_s: a.timeout_s,
        expect: a.expect,
        outputs: a.outputs,
        env: a.env,
        sandbox: a.sandbox ?? 'isolated',
        ...(a.line_endings === 'raw' ? { line_endings: 'raw' } : {}),
        // The installed bytes are in the checker identity; the definition names the directories.
        ...(a.deps ? { deps: a.deps } : {}),
      },
      env: a.env,
      writesOutputs: a.outputs.length > 0,
      async execute(io): Promise<ActionResult> {
        const argv = Array.isArray(a.run) ? a.run : ['/bin/sh', '-c', a.run];
        const proc = await io.runProcess({
          argv,
          cwd: join(io.root, a.cwd),
          env: io.env,
          timeoutMs: a.timeout_s * 1000,
          signal: io.signal,
          sandbox: a.sandbox ?? 'isolated',
          outputs: a.outputs,
          visible: a.deps ? npmVisiblePaths(io.root, a.deps.npm) : undefined,
        });
        const stdout = await io.putFile(proc.stdoutPath);
        const stderr = await io.putFile(proc.stderrPath);
        const artifacts = [
          { name: 'stdout', ...stdout },
          { name: 'stderr', ...stderr },
        ];
        const blocked = (reason: string): ActionResult => ({
          outcome: 'BLOCKED',
          reason,
          claim: 'unknown',
          artifacts,
          exitCode: proc.exitCode,
        });
        if (proc.spawnError) return blocked(`cannot start \`${argv[0]}\`: ${proc.spawnError}`);
        if (proc.cancelled) return blocked('cancelled');
        if (proc.timedOut) return blocked(`timeout after ${a.timeout_s} s`);
        if (proc.signal) return blocked(`killed by ${proc.signal}`);
        if (!Array.isArray(a.run) && proc.exitCode === 127) return blocked('command not found (the shell exited 127)');

        const outputs = await io.listOutputs(a.outputs);
        if (outputs.length > OUTPUT_LIMITS.entries)
          return blocked(`${outputs.length} outputs exceed the limit of ${OUTPUT_LIMITS.entries} entries`);
        let total = 0;
        for (const path of outputs) {
          const put = await io.putFile(join(io.root, path));
          total += put.size;
          if (total > OUTPUT_LIMITS.bytes) return blocked(`outputs exceed the limit of ${OUTPUT_LIMITS.bytes} bytes`);
          artifacts.push({ name: `outputs/${path}`, ...put });
        }
        const pass = proc.exitCode === a.expect.exit_code;
        return {
          outcome: pass ? 'PASS' : 'FAIL',
          reason: pass ? undefined : `exit code ${proc.exitCode}, expected ${a.expect.exit_code}`,
          claim: pass ? 'established' : 'refuted',
          artifacts,
          exitCode: proc.exitCode,
        };
      },
    };
  },
});
