/**
 * Containers an attempt started outside its process group (formal profiles name them
 * `vkit-<attempt id>-<step>`). Killing a process group cannot reach them, so a forced cancellation
 * and the recovery of a lost worker remove them here, by the attempt's own prefix and nothing else.
 * Best effort: no engine answering means no container can be running either.
 */
import { containerPrefix } from '../checkers/container-names.js';

export async function reapAttemptContainers(attempts: readonly string[]): Promise<string[]> {
  if (attempts.length === 0) return [];
  // Loaded only when there is something to reap: dockerode is not needed by any other job.
  const { openSandbox } = await import('../checkers/container.js');
  const sandbox = await openSandbox();
  if ('unavailable' in sandbox) return [];
  const removed: string[] = [];
  for (const attempt of attempts)
    removed.push(...(await sandbox.killByPrefix(containerPrefix(attempt)).catch(() => [])));
  return removed;
}
