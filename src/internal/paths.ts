// Places on the internal port that the operator CLI reaches too: kept apart from the endpoint's
// modules, which a command beside a running service never loads.

/** `cli backup`: a copy of the embedded database taken while the service runs (docs/operations.md, Backups) */
export const BACKUP_PATH = '/backup';
