// Child process of workflowBundlePath: bundle-workflows <out file> <workflows path> [interceptor module...]
import { writeBundle } from './workflow-bundle.js';

const [out, workflowsPath, ...modules] = process.argv.slice(2);
if (!out || !workflowsPath) {
  process.stderr.write('usage: bundle-workflows <out file> <workflows path> [interceptor module...]\n');
  process.exit(2);
}
await writeBundle(out, workflowsPath, modules);
