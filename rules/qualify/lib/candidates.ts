/**
 * Checks a catalogue's reference and mutants with a profile, each in its own source directory
 * (materialised for uid 65534) and its own containers, N at a time, inside the calling job: what the
 * `qualify:<id>` gate item runs. (`vkit formal qualify` instead makes each candidate its own job.)
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import PQueue from 'p-queue';
import type { Sandbox } from '../../../src/checkers/container.js';
import type { ResolvedComponent } from '../../../src/formal/component-schema.js';
import type { FormalOutcome, MathPackage, Profile, SharedWork } from '../../../src/formal/types.js';
import { type Catalogue, mutate } from './catalogue.js';

/** The reference candidate's id (no mutant may take it). */
export const REFERENCE = 'reference';

/**
 * A candidate's file, with the reference's extension (`.v`, `.rs`): its stem is an identifier, as a
 * Coq library name must be (`m_reserve_off_by_one.v`).
 */
const candidateFile = (id: string, catalogue: Pick<Catalogue, 'reference'>) =>
  `${id === REFERENCE ? id : `m_${id.replace(/-/g, '_')}`}${extname(catalogue.reference)}`;

/** The component a candidate is checked as: the package, contract, bindings, representation and parameters of the catalogue. */
export function candidateComponent(
  id: string,
  catalogue: Catalogue,
  pkg: Pick<MathPackage, 'id' | 'version' | 'sha256'>,
  contract: string,
): ResolvedComponent {
  const file = candidateFile(id, catalogue);
  return {
    id,
    package: { id: pkg.id, version: pkg.version, sha256: pkg.sha256 },
    contract,
    source: { entry: file },
    profile: catalogue.profile,
    parameters: catalogue.parameters,
    bindings: catalogue.bindings,
    ...(catalogue.representation === undefined ? {} : { representation: catalogue.representation }),
    required: true,
    inputs: [file],
  };
}

/** Every candidate's text: the reference first, then each mutant. */
export function candidateSources(catalogue: Catalogue): [string, string][] {
  return [
    [REFERENCE, catalogue.referenceText],
    ...catalogue.mutants.map((m): [string, string] => [m.id, mutate(catalogue.referenceText, m) as string]),
  ];
}

export async function checkCandidates(opts: {
  catalogue: Catalogue;
  pkg: MathPackage;
  contract: string;
  profile: Profile;
  sandbox: Sandbox;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  containerPrefix: string;
  concurrency: number;
}): Promise<Map<string, FormalOutcome>> {
  const queue = new PQueue({ concurrency: Math.max(1, opts.concurrency) });
  const shared = sharedWork();
  try {
    return await checkEach(opts, queue, shared);
  } finally {
    // Not while a candidate still reads the shared directories (one failing must not pull them away).
    await queue.onIdle();
    shared.dispose();
  }
}

async function checkEach(
  opts: Parameters<typeof checkCandidates>[0],
  queue: PQueue,
  shared: SharedWork,
): Promise<Map<string, FormalOutcome>> {
  const results = await Promise.all(
    candidateSources(opts.catalogue).map(([id, text], i) =>
      queue.add(async (): Promise<[string, FormalOutcome]> => {
        const component = candidateComponent(id, opts.catalogue, opts.pkg, opts.contract);
        const source = mkdtempSync(join(tmpdir(), 'vkit-candidate-'));
        const out = mkdtempSync(join(tmpdir(), 'vkit-candidate-out-'));
        try {
          chmodSync(source, 0o755);
          writeFileSync(join(source, component.source.entry), text, { mode: 0o644 });
          chmodSync(join(source, component.source.entry), 0o644);
          // The profile's containers run as uid 65534: its private output directory must be writable by it.
          chmodSync(out, 0o777);
          const outcome = await opts.profile.run({
            component,
            pkg: opts.pkg,
            source,
            out,
            sandbox: opts.sandbox,
            env: opts.env,
            signal: opts.signal,
            containerPrefix: `${opts.containerPrefix}-c${i}`,
            shared,
          });
          return [id, outcome];
        } finally {
          rmSync(source, { recursive: true, force: true });
          rmSync(out, { recursive: true, force: true });
        }
      }),
    ),
  );
  return new Map(results);
}

/** The candidates' shared work (the package compiled once), its directories removed at the end. */
function sharedWork(): SharedWork & { dispose(): void } {
  const made = new Map<string, Promise<unknown>>();
  const dirs: string[] = [];
  return {
    once<T>(key: string, make: (dir: string) => Promise<T>): Promise<T> {
      let result = made.get(key) as Promise<T> | undefined;
      if (!result) {
        const dir = mkdtempSync(join(tmpdir(), 'vkit-shared-'));
        dirs.push(dir);
        chmodSync(dir, 0o777);
        result = make(dir);
        made.set(key, result);
      }
      return result;
    },
    dispose() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
