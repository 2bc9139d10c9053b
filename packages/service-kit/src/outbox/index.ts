export * from './event-outbox';
export * from './event-relay';
