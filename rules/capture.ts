/**
 * `capture`: the selector capture of a node's declared inputs. Inline: evaluated in-process on every
 * build (the file-state cache makes that a stat per file), never cached, never a job, because its
 * result is exactly what tells the engine whether anything else must run.
 */
import * as v from 'valibot';
import { defineRule } from '../src/config/rule.js';

export const captureRule = defineRule({
  kind: 'capture',
  version: 1,
  inline: true,
  attrs: v.strictObject({ inputs: v.array(v.string()) }),
  plan(node) {
    return {
      definition: { inputs: node.attrs.inputs },
      env: [],
      async execute(io) {
        const capture = io.captureSelector(node.attrs.inputs);
        return { outcome: 'PASS', claim: 'established', artifacts: [], capture };
      },
    };
  },
});
