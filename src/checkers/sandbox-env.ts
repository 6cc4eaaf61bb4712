/**
 * A check's environment kept from the sandbox's own programs. bubblewrap, and the built-in
 * sandbox's `unshare`, `sh`, `mount`, `cat` and `setpriv`, run with capabilities in the check's
 * namespaces before they are dropped: a variable that the dynamic loader, the C library, a shell or
 * util-linux reads (`LD_PRELOAD` the plainest) would run code there, or change what they do. Such
 * variables are passed under another name and given back to the check by a shell that starts after
 * the capabilities are gone; a check that declares none pays nothing.
 */

/** Names read by ld.so, glibc, a POSIX shell or bash, and util-linux's libraries. */
const READ_BY_SANDBOX =
  /^(LD_\w*|GLIBC_\w*|MALLOC_\w*|LIBMOUNT_\w*|LIBBLKID_\w*|LIBSMARTCOLS_\w*|BASH\w*|SHELLOPTS|ENV|CDPATH|IFS|PS4|GCONV_PATH|GETCONF_DIR|HOSTALIASES|LOCALDOMAIN|LOCPATH|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TMPDIR|TZDIR)$/;

const HIDDEN_PREFIX = 'VKIT_HIDDEN_';

/** Gives each hidden variable back, then becomes the check. Names are identifiers (the config's rule). */
const RESTORE = `for n in $1; do eval "export $n=\\"\\\${${HIDDEN_PREFIX}$n}\\""; unset "${HIDDEN_PREFIX}$n"; done; shift; exec "$@"`;

/**
 * The environment to start the sandbox with, and the argv that must come between the sandbox's
 * own and the check's (empty when nothing was hidden).
 */
export function hideFromSandbox(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  restore: string[];
} {
  const names = Object.keys(env).filter((n) => env[n] !== undefined && READ_BY_SANDBOX.test(n));
  if (names.length === 0) return { env, restore: [] };
  const hidden: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env))
    hidden[names.includes(name) ? `${HIDDEN_PREFIX}${name}` : name] = value;
  return { env: hidden, restore: ['/bin/sh', '-c', RESTORE, 'vkit-env', names.join(' ')] };
}
