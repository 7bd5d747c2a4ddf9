// The order a run starts its test files in: within each project, the longest first by the duration
// vitest recorded for each on its last run, so that no long file starts late and runs on alone at
// the end. Vitest's own order would put every file that failed on its last run first, whatever its
// length. A fresh checkout (CI's) has no record: there, files that start child processes or a
// browser (through test/support/cli.ts or browser.ts), which take several times as long as the
// rest, come first, each group larger before smaller.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_PROCESSES = /from '(\.\.?\/)+support\/(cli|browser)\.js'/;

export class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (file: TestSpecification) => `${file.project.name}:${relative(config.root, file.moduleId)}`;
    const duration = (file: TestSpecification) => cache.getFileTestResults(key(file))?.duration;
    const size = (file: TestSpecification) => cache.getFileStats(key(file))?.size ?? 0;
    // read only for the files vitest has no record of, once each
    const starting = new Map<string, boolean>();
    const startsProcesses = (file: TestSpecification) => {
      if (!starting.has(file.moduleId)) starting.set(file.moduleId, STARTS_PROCESSES.test(readFileSync(file.moduleId, 'utf8')));
      return starting.get(file.moduleId)!;
    };
    const unrecorded = (a: TestSpecification, b: TestSpecification) =>
      startsProcesses(a) === startsProcesses(b) ? size(b) - size(a) : startsProcesses(a) ? -1 : 1;
    return Promise.resolve(
      [...files].sort((a, b) => {
        if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
        const [da, db] = [duration(a), duration(b)];
        if (da === undefined || db === undefined) return da === db ? unrecorded(a, b) : da === undefined ? -1 : 1;
        return db - da;
      }),
    );
  }
}
