/**
 * The packages only some verbs need: optional peer dependencies (package.json), so installing vkit
 * does not bring them into a project that never uses those verbs. Each is imported on first use
 * (through `importModule`, which the bundled script needs), and a missing one is named together with
 * the exact command that installs it: containers then turn items BLOCKED, `vkit mcp` refuses to start,
 * and the terminal UI falls back to plain lines. A missing package never passes for a present one.
 */
import { EXIT, VkitError } from '../errors.js';
import { importModule } from './import-module.js';

/** Each optional package and its range, as package.json's `peerDependencies` says (a test keeps them equal). */
export const OPTIONAL_PACKAGES = {
  dockerode: '^5.0.1',
  '@modelcontextprotocol/sdk': '~1.32',
  zod: '^4.6.7',
  ink: '^6.8.0',
  react: '^19.3.1',
  '@nats-io/transport-node': '^3.4.0',
  '@nats-io/jetstream': '^3.4.0',
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** A use of optional packages: what it is called in messages, what it imports, and the packages they are. */
export interface OptionalUse {
  what: string;
  specifiers: readonly string[];
  packages: readonly OptionalPackage[];
}

/** Formal components, model checkers and qualification run in containers through the Docker API. */
export const CONTAINERS: OptionalUse = {
  what: 'running checks in containers',
  specifiers: ['dockerode'],
  packages: ['dockerode'],
};

/** `vkit mcp`: the protocol server, and the tools' input schemas it advertises. */
export const MCP: OptionalUse = {
  what: '`vkit mcp`',
  specifiers: ['@modelcontextprotocol/sdk/server/mcp.js', 'zod'],
  packages: ['@modelcontextprotocol/sdk', 'zod'],
};

/** The terminal UI of `vkit watch` and `vkit tui` (plain lines need neither). */
export const TERMINAL_UI: OptionalUse = {
  what: 'the terminal UI',
  specifiers: ['ink', 'react'],
  packages: ['ink', 'react'],
};

/** `executor: nats` and `vkit worker`: the NATS client and its JetStream API (docs/fleet.md). */
export const FLEET: OptionalUse = {
  what: 'the NATS executor (`executor: nats`, `vkit worker`)',
  specifiers: ['@nats-io/transport-node', '@nats-io/jetstream'],
  packages: ['@nats-io/transport-node', '@nats-io/jetstream'],
};

/** The command that installs `packages` at the ranges vkit is tested with. */
export function installCommand(packages: readonly OptionalPackage[]): string {
  return `npm i -D ${packages.map((p) => `${p}@${OPTIONAL_PACKAGES[p]}`).join(' ')}`;
}

const NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * Imports every specifier of `use`: the modules, or one line saying which packages are missing (or
 * failed to load) and what to run. Never throws.
 */
export async function importOptional(use: OptionalUse): Promise<{ modules: unknown[] } | { missing: string }> {
  const modules: unknown[] = [];
  for (const specifier of use.specifiers) {
    try {
      modules.push(await importModule(specifier));
    } catch (error) {
      const names = use.packages.join(' and ');
      const why = NOT_FOUND.has((error as NodeJS.ErrnoException).code ?? '')
        ? `${names}, not installed in this project`
        : `${names}, which failed to load (${String((error as Error).message).split('\n')[0]})`;
      return { missing: `${use.what} needs ${why}: run \`${installCommand(use.packages)}\`` };
    }
  }
  return { modules };
}

/** Throws, exit 5 (this installation lacks the interface), when `use`'s packages cannot be imported. */
export async function requireOptional(use: OptionalUse): Promise<void> {
  const loaded = await importOptional(use);
  if ('missing' in loaded) throw new VkitError('ERR_PACKAGE_MISSING', EXIT.unavailable, loaded.missing);
}
