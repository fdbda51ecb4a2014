/** Builds the browser console (console/dist) when it is missing or stale; the image build runs it. */
import { ensureConsoleBundle } from '../console/build.ts';

const { built } = await ensureConsoleBundle((message) => console.log(message));
if (!built) console.log('console bundle is up to date');
