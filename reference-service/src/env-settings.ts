/** A setting the service refuses to start with; the message names it and what it takes. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Readers of the settings in `env`, each throwing ConfigError with the setting's name. */
export function settingsIn(env: NodeJS.ProcessEnv) {
  return {
    /** A whole number from `min` to `max`, `fallback` when unset or empty. */
    whole<F extends number | undefined>(name: string, fallback: F, min: number, max: number, unit = '') {
      const text = env[name] || (fallback === undefined ? undefined : String(fallback));
      if (text === undefined) return fallback;
      const value = Number(text);
      if (!/^(0|[1-9]\d*)$/.test(text) || value < min || value > max) {
        throw new ConfigError(`${name} must be a whole number${unit} from ${min} to ${max}`);
      }
      return value;
    },
    /** One of `choices`; `undefined` when unset or empty. */
    choice<C extends string>(name: string, choices: readonly C[]): C | undefined {
      const value = env[name] || undefined;
      if (value !== undefined && !(choices as readonly string[]).includes(value)) {
        throw new ConfigError(`${name} must be ${choices.join(' or ')}`);
      }
      return value as C | undefined;
    },
  };
}
