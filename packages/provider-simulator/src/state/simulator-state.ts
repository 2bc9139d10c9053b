import { randomBytes } from 'node:crypto';
import type { FaultRule } from '../domain/faults/fault-rules';
import type { TokenBucket } from '../domain/faults/token-bucket';
import type { Channel } from './channel';
import type {
  InboundRecord,
  MediaRecord,
  SentRecord,
  TemplateRecord,
  WabaState,
  WebhookRecord,
} from './records';

/** Everything the simulator knows. In memory only; `reset()` returns to the configured start. */
export class SimulatorState {
  readonly channels = new Map<string, Channel>();
  readonly wabas = new Map<string, WabaState>();
  readonly templates = new Map<string, TemplateRecord>();
  readonly media = new Map<string, MediaRecord>();
  readonly sent: SentRecord[] = [];
  /** Messages users sent, by wamid (bounded like the logs: the oldest are forgotten first). */
  readonly inbound = new Map<string, InboundRecord>();
  readonly webhooks: WebhookRecord[] = [];
  readonly faults: FaultRule[] = [];
  /** Throughput buckets per phone number id; rebuilt when a limit changes. */
  readonly throughputBuckets = new Map<string, TokenBucket>();
  /** Pair-rate buckets per `phone_number_id:wa_id`. */
  readonly pairBuckets = new Map<string, TokenBucket>();
  /** Last inbound message per `phone_number_id:wa_id` (ms), which opens the 24 h window. */
  readonly lastInboundAt = new Map<string, number>();
  /** Last outgoing wamid per `phone_number_id:wa_id`, the default `context` of injected replies. */
  readonly lastOutgoingWamid = new Map<string, string>();
  /** When an approved template's `waba:name:language` was deleted (its name is locked 30 days). */
  readonly deletedTemplateNames = new Map<string, number>();
  /** Resumable upload sessions (`upload:<id>`) and the handles their files became. */
  readonly uploadSessions = new Map<
    string,
    { file_type: string; file_length: number; token: string }
  >();
  readonly uploadHandles = new Map<string, { file_type: string; file_size: number }>();
  /** Signs media download URLs. */
  readonly mediaUrlSecret = randomBytes(16).toString('hex');
  private sequence = 0;

  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  channelsOfWaba(wabaId: string): Channel[] {
    return [...this.channels.values()].filter((c) => c.registration.waba_id === wabaId);
  }

  findSentByWamid(wamid: string): SentRecord | undefined {
    return this.sent.find((record) => record.wamid === wamid);
  }

  rememberInbound(record: InboundRecord, limit = 20_000): void {
    this.inbound.set(record.wamid, record);
    if (this.inbound.size > limit) this.inbound.delete(this.inbound.keys().next().value!);
  }

  /** Forget everything but channels; registered (not preconfigured) channels too if asked. */
  reset(options: { dropRegisteredChannels: boolean }): void {
    this.templates.clear();
    this.media.clear();
    this.sent.length = 0;
    this.inbound.clear();
    this.webhooks.length = 0;
    this.faults.length = 0;
    this.throughputBuckets.clear();
    this.pairBuckets.clear();
    this.lastInboundAt.clear();
    this.lastOutgoingWamid.clear();
    this.deletedTemplateNames.clear();
    if (options.dropRegisteredChannels) {
      for (const [id, channel] of this.channels) {
        if (!channel.preconfigured) this.channels.delete(id);
      }
    }
  }
}

export const pairKey = (phoneNumberId: string, waId: string): string => `${phoneNumberId}:${waId}`;
