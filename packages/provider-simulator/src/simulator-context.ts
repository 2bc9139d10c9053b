import type { Logger } from './logger';
import type { ResolvedOptions } from './simulator-options';
import type { Scheduler } from './state/scheduler';
import type { SimulatorState } from './state/simulator-state';
import type { WebhookRecord } from './state/records';

export interface WebhookTarget {
  url: string;
  appSecret: string;
}

export interface PostWebhookInput {
  target: WebhookTarget;
  field: string;
  wabaId: string;
  phoneNumberId?: string;
  payload: unknown;
}

/** What domain functions get instead of globals: state, options, time and the webhook poster. */
export interface SimulatorContext {
  state: SimulatorState;
  options: ResolvedOptions;
  scheduler: Scheduler;
  log: Logger;
  now(): number;
  /** Posts a signed webhook with retries; resolves with its record once settled; never rejects. */
  postWebhook(input: PostWebhookInput): Promise<WebhookRecord>;
}
