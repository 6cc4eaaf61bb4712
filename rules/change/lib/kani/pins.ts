/**
 * The Kani toolchain the code step runs, pinned by digest. No digest is recorded yet: until one is,
 * the code step is BLOCKED naming each asset (a version without its digest pins nothing).
 */
export interface Pin {
  asset: string;
  version: string;
  what: string;
  sha256: string | null;
}

export const KANI_PINS: readonly Pin[] = [
  { asset: 'kani', version: '0.56.0', what: 'the Kani Rust verifier (kani-driver, kani-compiler)', sha256: null },
  { asset: 'cbmc', version: '6.4.1', what: 'CBMC, the bounded model checker Kani drives', sha256: null },
  {
    asset: 'rust-toolchain',
    version: 'nightly-2024-11-21',
    what: "the Rust toolchain Kani's compiler is built on",
    sha256: null,
  },
];
