// Types for verify.mjs, so TypeScript projects (and the docs tests) can import the recipe as it is.
export declare class VerificationError extends Error {
  readonly reason: string;
  constructor(reason: string);
}

export declare function verifySignature(options: {
  header: string | undefined;
  body: Uint8Array;
  secrets: readonly string[];
  toleranceSeconds?: number;
  nowSeconds?: number;
}): void;
