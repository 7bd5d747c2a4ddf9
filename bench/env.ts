// The bench's numeric settings, read from the environment and refused with their name when not a number.

export function numberFromEnv(name: string, fallback: number, allowZero = false): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
    throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(text)}`);
  }
  return value;
}
