// The place in the pipeline where quotas and rate limits decide (D11: after the data is known to
// exist, before it is sent). Plans and quotas plug in here; until then every request is admitted.
import type { Viewer } from '../schema/context.js';
import type { Route } from './routes.js';

export interface AdmissionRequest {
  route: Route;
  viewer: Viewer | null;
  request: Request;
}

export interface Admission {
  /** Throws a DomainError (429) to refuse; returns the headers to add to the response. */
  admit(request: AdmissionRequest): Promise<Record<string, string>>;
}

export const admitAll: Admission = { admit: async () => ({}) };
