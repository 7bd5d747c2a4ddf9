// The order a run starts its test files in: within each project, the longest first by the duration
// vitest recorded for each on its last run, so that no long file starts late and runs on alone at
// the end; files it has no record of come first, larger before smaller. Vitest's own order would
// put every file that failed on its last run first, whatever its length.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (file: TestSpecification) => `${file.project.name}:${relative(config.root, file.moduleId)}`;
    const duration = (file: TestSpecification) => cache.getFileTestResults(key(file))?.duration;
    const size = (file: TestSpecification) => cache.getFileStats(key(file))?.size ?? 0;
    return Promise.resolve(
      [...files].sort((a, b) => {
        if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
        const [da, db] = [duration(a), duration(b)];
        if (da === undefined || db === undefined) return da === db ? size(b) - size(a) : da === undefined ? -1 : 1;
        return db - da;
      }),
    );
  }
}
