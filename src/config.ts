// Configuration is read from the environment once at start-up, validated, and passed down;
// tests build their own with `parseConfig({...})`.
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

const schema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  INTERNAL_PORT: port.default(8081),
  INTERNAL_HOST: z.string().min(1).default('127.0.0.1'),
  OPERATOR_TOKEN: z.string().min(24, 'OPERATOR_TOKEN must be at least 24 characters').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  DOCUMENTATION_URL: z.url().default('https://aud-rates.invalid/docs'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
