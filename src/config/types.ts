/**
 * What users write (`UserConfig`) and what flows inward after defaults (`Manifest`, schema_version 3),
 * whatever the kinds: the core every config has, plus one section per kind. The kinds' sections are
 * typed from their entry schemas where a registry is known (`ConfigSectionsOf`, `ManifestSectionsOf`;
 * rules/index.ts names the built-in ones); code in src/ reads sections through the registry.
 */
import type { ExecutorConfig } from './executor.js';
import type { Rule } from './rule.js';
import type { SandboxMode } from './sandbox.js';
import type { ManifestCore } from './schema.js';

export type { RuleRecord } from './schema.js';

/** What every config may write whatever its kinds. */
export interface ConfigCore {
  /** The sandbox of every check that does not name its own. @default "isolated" */
  sandbox?: SandboxMode;
  /** The shared remote cache: `{ url, read?, write? }` (docs/remote-cache.md). */
  remote?: { url: string; read?: boolean; write?: boolean };
  /** Who runs the jobs: `{ kind: 'local' }` (default) or `{ kind: 'nats', url, stream?, fallback? }` (docs/fleet.md). */
  executor?: ExecutorConfig;
  /** User rules, made with `defineRule`. */
  rules?: Rule[];
}

export type UserConfig = ConfigCore & {
  /** One section per kind (`checks`, `formal.components`, ...), each checked by its kind's schema. */
  [section: string]: unknown;
};

/** The manifest, schema_version 3. Its canonical digest is the policy digest. */
export type Manifest = ManifestCore & {
  schema_version: 3;
  /** One section per kind, defaults filled. */
  [section: string]: unknown;
};
