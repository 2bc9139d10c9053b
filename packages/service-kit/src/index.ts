export * from './batcher';
export * from './broker';
export * from './config';
export * from './counters';
export * from './duplicate-key-error';
export * from './errors';
export * from './http';
export * from './insert-documents';
export * from './internal-client';
export * from './keyed-outbound-clients';
export * from './logger';
export * from './metrics';
export * from './mongo';
export * from './outbound-client';
export {
  CountedAnswer,
  createRemoteGuard,
  type RemoteGuard,
  type RemoteGuardOptions,
} from './remote-guard';
export * from './outbox';
export * from './leases';
export * from './periodic-job';
export * from './quota-counter';
export * from './reseal-job';
export * from './secret-box';
export * from './shard-keys';
export * from './url-policy';
export * from './service-runtime';
export * from './telemetry';
export * from './trace-context';
export * from './ttl-cache';
