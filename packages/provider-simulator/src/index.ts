export { createSimulator } from './create-simulator';
export type { Simulator } from './create-simulator';
export type { SimulatorOptions } from './simulator-options';
export type { ChannelRegistration } from './state/channel';
export { ChannelRegistrationSchema } from './state/channel';
export { escapeNonAscii, serializeWebhookBody, signPayload } from './outbound/sign-payload';
export { mintWamid, WAMID_PATTERN } from './domain/mint-ids';
export { createLogger, silentLogger } from './logger';
