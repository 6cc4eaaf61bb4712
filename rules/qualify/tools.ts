/**
 * The MCP tool the qualify kind adds: `formal_qualify`, a package qualification started in the
 * server's background (an id at once, the `vkit.qualification/1` report through `run_wait`), listed
 * after vkit's `build`.
 */
import { availableParallelism } from 'node:os';
import * as z from 'zod';
import { defineTool } from '../../src/kit/tool.js';
import { waitS } from '../../src/kit/tool-args.js';
import { qualifyPackage } from './service/qualify.js';

export const qualifyTools = {
  formal_qualify: defineTool({
    forSections: ['formal.components', 'formal.models', 'formal.qualifications'],
    listedAfter: 'build',
    description:
      'Qualify a mathematical package (like `vkit formal qualify`): its catalogue\'s reference and each mutant checked as its own run, each mutant classified detected (the checker rejected it), survivor (it passed) or inconclusive (never counted as detected), and the adequacy checks. Returns `{build, state: "running"}` at once, or with wait_s the `vkit.qualification/1` report (status PASS, FAIL on a survivor, BLOCKED on an inconclusive mutant) when it ends within it. Poll with run_wait using the id.',
    input: z.strictObject({
      package: z.string().min(1).describe('The package id, e.g. `vkit.resource-ledger`.'),
      profile: z.string().min(1).describe('The profile, e.g. `coq-linux-x86_64-v1`.'),
      catalogue: z
        .string()
        .min(1)
        .optional()
        .describe("A catalogue directory (default: vkit's own for the package and profile)."),
      mutants: z.array(z.string().min(1)).optional().describe('Only these mutant ids.'),
      wait_s: waitS('the qualification'),
    }),
    handler: async (a, ctx) => {
      const started = ctx.builds.startWork(
        qualifyPackage({
          package: a.package,
          profile: a.profile,
          catalogue: a.catalogue,
          mutants: a.mutants,
          root: ctx.open.root,
          store: ctx.open.store,
          env: ctx.open.env,
          jobs: availableParallelism(),
          host: ctx.host,
        }),
      );
      return a.wait_s === undefined ? started : ctx.builds.wait(started.build, a.wait_s * 1000);
    },
  }),
};
