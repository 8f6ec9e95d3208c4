// Bootstrap of the PGlite thread: registers tsx's loader in this thread (Node 20 does not carry the main thread's
// loader into workers), then loads the TypeScript worker body.
import { register } from 'tsx/esm/api';

register();
await import('./pgliteWorker.ts');
