export * from './create-http-app';
export { requestId, requestLogger } from './request-context';
export * from './error-middleware';
export * from './health-routes';
export * from './internal-auth';
export * from './metrics-routes';
export * from './not-implemented';
export * from './serve-operation';
export * from './start-http-server';
