/**
 * Whether a build uses a remote cache, and which: flags first, then the environment, then the
 * config; `read: false` turns the config's remote off. Kept apart from `context.ts` so that a build
 * without a remote never loads the HTTP client (node's http, https and tls modules with it).
 */

export interface RemoteRequest {
  url?: string;
  readOnly?: boolean;
}

/** The config's `remote` entry. */
export interface RemoteConfig {
  url: string;
  read: boolean;
  write: boolean;
}

export function remoteChoice(
  req: RemoteRequest | undefined,
  env: NodeJS.ProcessEnv,
  config?: RemoteConfig,
): { url: string; readOnly: boolean } | undefined {
  const chosen = req?.url ?? env.VKIT_REMOTE?.trim();
  const url = chosen || (config?.read === false ? undefined : config?.url);
  if (!url) return undefined;
  // Publishing is off when asked, or when the config's own remote says `write: false`.
  const readOnly = Boolean(req?.readOnly || env.VKIT_REMOTE_READ_ONLY === '1' || (!chosen && config?.write === false));
  return { url, readOnly };
}
