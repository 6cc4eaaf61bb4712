/**
 * What a verifier's output parsers find (verus.ts here, the Coq profile in src/formal): proof
 * obligations and diagnostics, as the formal sections of a receipt keep them (src/formal/types.ts).
 */
export interface Obligation {
  id: string;
  /** What it checks, in words. */
  description: string;
  status: 'proved' | 'failed' | 'unknown';
  /** Which binding or package claim it belongs to. */
  binding?: string;
}

/** The obligations section of a formal result. */
export interface Obligations {
  /** Null denominators when the run did not report them (partial). */
  total: number | null;
  proved: number;
  failed: number;
  unknown: number | null;
  items: Obligation[];
}

export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** Path inside the captured source (or the package), with one-based line and column. */
  file?: string;
  line?: number;
  column?: number;
}
