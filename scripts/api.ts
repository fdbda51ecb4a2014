import { createLogger } from '../config/logger.ts';
import { parseSettingsOrExit } from '../config/settings.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { startApiServer } from '../api/server.ts';

/** `npm run api`: the HTTP API process alone (scale it horizontally beside `npm run worker`). */

const settings = parseSettingsOrExit();

const logger = createLogger({ level: settings.logLevel, base: { process: 'api' } });
const database = await openConfiguredDatabase(settings);
const api = await startApiServer({ settings, logger, database });
logger.info('api listening', { url: `${api.url}/v1`, console: `${api.url}/` });

const stop = async (signal: NodeJS.Signals) => {
  logger.info('api stopping', { signal });
  await api.close();
  await database.close();
  process.exit(0);
};
process.on('SIGINT', (signal) => void stop(signal));
process.on('SIGTERM', (signal) => void stop(signal));
