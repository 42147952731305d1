export { errorFields, silentLogger, type Logger } from '../util/logger.ts';
