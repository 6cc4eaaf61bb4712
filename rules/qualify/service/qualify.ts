/**
 * `vkit formal qualify`: a package is only as good as the wrong candidates it rejects. The
 * reference candidate and every mutant of the package's catalogue become formal components of one
 * scratch project, each checked by the profile as a real job in the restricted worker (its own run,
 * receipt and log in the caller's store); the report classifies each mutant from its receipt.
 *
 * The scratch project is rebuilt per invocation with fixed names and a lock written with a fixed
 * acceptance time, so a mutant whose bytes, package and checker did not change is a cache hit.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import PQueue from 'p-queue';
import * as v from 'valibot';
import { invalid } from '../../../src/errors.js';
import { loadPackage, readPackageDir } from '../../../src/formal/packages.js';
import { comparePackages, type PackageSnapshot, PackageSnapshotSchema, snapshotPackage } from '../lib/snapshot.js';
import { runAdequacy } from '../lib/adequacy.js';
import type { ResolvedComponent } from '../../../src/formal/component-schema.js';
import { candidateComponent, candidateSources, REFERENCE } from '../lib/candidates.js';
import { editDigest, installedCatalogueDir, readCatalogue } from '../lib/catalogue.js';
import { foldQualification, mutantResult, NOT_ESTABLISHED, type MutantRun, type Qualification } from '../lib/report.js';
import type { BuiltAction, KindHost } from '../../../src/kit/host.js';

export interface QualifyRequest {
  /** Package id (`vkit.resource-ledger`). */
  package: string;
  profile: string;
  /** Catalogue directory; default vkit's own for the package and profile. */
  catalogue?: string;
  /** Only these mutants (ids); default all. The report then covers only them. */
  mutants?: readonly string[];
  /** An earlier `vkit.qualification/1` report, or a package directory, to compare the package with. */
  comparePackage?: string;
  /** Where the caller's store is found (`--root`), and the store itself (`--store`). */
  root?: string;
  store?: string;
  jobs?: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Where the core's operations come from: the default root and store, accepting and building a project. */
  host: KindHost;
}

/** Every acceptance in the scratch lock is dated the same, so the lock's bytes (an input) stay put. */
const FIXED_ACCEPTANCE = new Date(0);

export async function qualifyPackage(req: QualifyRequest): Promise<Qualification> {
  const t0 = performance.now();
  const catalogue = readCatalogue(
    req.catalogue ? resolve(req.catalogue) : installedCatalogueDir(req.package, req.profile),
  );
  if (catalogue.package.id !== req.package)
    throw invalid('ERR_USAGE', `The catalogue is for package \`${catalogue.package.id}\`, not \`${req.package}\``, {
      path: '--package',
    });
  if (catalogue.profile !== req.profile)
    throw invalid('ERR_USAGE', `The catalogue is for profile \`${catalogue.profile}\`, not \`${req.profile}\``, {
      path: '--profile',
    });
  for (const id of req.mutants ?? [])
    if (!catalogue.mutants.some((m) => m.id === id))
      throw invalid('ERR_USAGE', `Expected --mutant to name a mutant of the catalogue, got \`${id}\``, {
        path: '--mutant',
      });
  if (req.mutants?.length) catalogue.mutants = catalogue.mutants.filter((m) => req.mutants!.includes(m.id));
  const pkg = loadPackage(catalogue.package.id, catalogue.package.version);
  // Read before anything runs: a bad PREVIOUS is a usage error, not a qualification that ran for nothing.
  const previous = req.comparePackage === undefined ? undefined : readPreviousSnapshot(resolve(req.comparePackage));
  const root = resolve(req.root ?? req.host.defaultRoot());
  const storeDir = req.store ? resolve(req.store) : await req.host.defaultStoreDir(root);
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-qualify-'));
  try {
    const contract = catalogue.contract ?? (pkg.contracts.length === 1 ? pkg.contracts[0]! : undefined);
    if (!contract)
      throw invalid(
        'ERR_CATALOGUE_INVALID',
        `The package has ${pkg.contracts.length} contracts: the catalogue must name one`,
        { path: 'contract' },
      );
    const pinned = { id: pkg.id, version: pkg.version, sha256: pkg.sha256 };
    const env = req.env ?? process.env;
    // Each candidate is its own project (its own lock): one mutant's edit never changes another's key.
    const queue = new PQueue({ concurrency: Math.max(1, req.jobs ?? 1) });
    const runs = new Map(
      await Promise.all(
        candidateSources(catalogue).map(([id, text]) =>
          queue.add(async () => {
            const dir = join(scratch, id);
            writeProject(dir, candidateComponent(id, catalogue, pinned, contract), text);
            return [id, await checkCandidate(dir, storeDir, env, req)] as const;
          }),
        ),
      ),
    );
    const adequacy = await runAdequacy({
      catalogueDir: catalogue.dir,
      profileId: catalogue.profile,
      pkg,
      env,
      signal: req.signal,
    });
    const ref = runs.get(REFERENCE)!;
    const snapshot = snapshotPackage(pkg, ref.checker);
    const reference = {
      status: ref.outcome ?? 'BLOCKED',
      reason: ref.reason ?? 'no result',
      run: ref.run,
      receipt: ref.receipt,
    } as const;
    const mutants = catalogue.mutants.map((m) => mutantResult(m, editDigest(m), runs.get(m.id)!));
    return {
      schema: 'vkit.qualification/1',
      ...foldQualification(reference, mutants, adequacy),
      package: pinned,
      profile: catalogue.profile,
      catalogue: { sha256: catalogue.sha256, mutants: catalogue.mutants.length },
      checker_sha256: ref.checker,
      reference,
      mutants,
      adequacy,
      not_established: NOT_ESTABLISHED,
      package_snapshot: snapshot,
      ...(previous ? { comparison: comparePackages(previous, snapshot) } : {}),
      ms: Math.round(performance.now() - t0),
    };
  } finally {
    // Every run has ended (each engine waited for its jobs), so the projects can go.
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Accepts one candidate's project and checks it: one formal job in the restricted worker. */
async function checkCandidate(
  dir: string,
  storeDir: string,
  env: NodeJS.ProcessEnv,
  req: QualifyRequest,
): Promise<MutantRun & { checker: string | null }> {
  const project = { root: dir, store: storeDir, env };
  const refusals = await req.host.accept(project, FIXED_ACCEPTANCE);
  const run = readRun((await req.host.build(project, { signal: req.signal }))[0]);
  // A refused acceptance (no image, no engine) is why the check could not run: say that.
  const refused = refusals[0]?.reasons.join('; ');
  return refused && run.outcome !== 'PASS' ? { ...run, reason: `not accepted: ${refused}` } : run;
}

/** PREVIOUS of `--compare-package`: an earlier report's snapshot, or a package directory's. */
function readPreviousSnapshot(path: string): PackageSnapshot {
  const bad = (message: string): never => {
    throw invalid('ERR_USAGE', message, { path: '--compare-package', file: path });
  };
  if (!existsSync(path)) bad('Expected an earlier qualification report or a package directory: no such file');
  if (statSync(path).isDirectory()) {
    try {
      return snapshotPackage(readPackageDir(path), null);
    } catch (error) {
      return bad(`Not a package directory: ${(error as Error).message}`);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return bad(`Cannot read the report: ${(error as Error).message}`);
  }
  const report = data as { schema?: unknown; package_snapshot?: unknown };
  if (report?.schema !== 'vkit.qualification/1') bad('Expected a `vkit.qualification/1` report');
  const parsed = v.safeParse(PackageSnapshotSchema, report.package_snapshot);
  if (!parsed.success) return bad('The report holds no package snapshot (written by an older vkit?)');
  return parsed.output;
}

/** A candidate's project: one required formal component of the package, named `id`. */
function writeProject(dir: string, component: ResolvedComponent, text: string): void {
  mkdirSync(dir);
  writeFileSync(join(dir, component.source.entry), text);
  writeFileSync(
    join(dir, 'vkit.manifest.json'),
    `${JSON.stringify({ formal: { components: [component] } }, null, 2)}\n`,
  );
}

/** What the engine and the receipt say of one component's check. */
function readRun(action: BuiltAction | undefined): MutantRun & { checker: string | null } {
  const none = {
    outcome: null,
    reason: null,
    run: null,
    receipt: null,
    intact: false,
    rejectedBy: null,
    checker: null,
  };
  if (!action) return none;
  const base = { ...none, outcome: action.outcome, reason: action.reason, run: action.run, receipt: action.receipt };
  if (!action.read) return base;
  // A receipt that is not intact stands for nothing: the mutant's result is inconclusive.
  if (action.read.state !== 'intact') return { ...base, receipt: null, reason: `receipt ${action.read.state}` };
  const formal = (action.read.subject as { formal?: Record<string, unknown> } | undefined)?.formal;
  const rejected = formal?.rejected_by as { kind?: unknown; name?: unknown } | null | undefined;
  return {
    ...base,
    intact: true,
    rejectedBy:
      rejected && typeof rejected.kind === 'string' && typeof rejected.name === 'string'
        ? { kind: rejected.kind, name: rejected.name }
        : null,
    checker: typeof formal?.checker_sha256 === 'string' ? formal.checker_sha256 : null,
  };
}
