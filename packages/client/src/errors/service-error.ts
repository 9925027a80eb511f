/**
 * Every instance records the `kind` of each class in its chain under a registry-wide symbol, and
 * `instanceof` checks that record. So `instanceof` holds even when an error built by the CommonJS copy
 * of the package meets a class from the ESM copy (a dependency loaded one way, the app the other).
 */
const KINDS = Symbol.for('@svc-kit/client/error-kinds');

/** The root of every error this package throws. */
export class ServiceError extends Error {
  /** Stable class name, shared by every copy of the package. */
  static readonly kind: string = 'ServiceError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const kinds: string[] = [];
    for (let c: unknown = new.target; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'kind')) kinds.push((c as unknown as { kind: string }).kind);
    }
    Object.defineProperty(this, KINDS, { value: Object.freeze(kinds) });
    this.name = new.target.kind;
  }

  // `this` is the class on the right of `instanceof` (a subclass included), which is the point here.
  // biome-ignore-start lint/complexity/noThisInStatic: see above.
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A user's own subclass has no `kind` of its own: ordinary prototype rules apply to it.
    if (!Object.hasOwn(this, 'kind')) return Function.prototype[Symbol.hasInstance].call(this, value);
    if (typeof value !== 'object' || value === null) return false;
    try {
      const kinds = (value as Record<symbol, unknown>)[KINDS];
      return Array.isArray(kinds) && kinds.includes(this.kind);
    } catch {
      // A hostile proxy must not turn a type check into a crash.
      return false;
    }
  }
  // biome-ignore-end lint/complexity/noThisInStatic: see above.
}
