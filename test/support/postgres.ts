// Databases on the Postgres server named by DATABASE_URL: the run's template and one copy per test file.
import pg from 'pg';

export function templateName(url: string): string {
  return `${new URL(url).pathname.slice(1) || 'postgres'}_template`;
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
