import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  LIVE_EVENTS_PATH,
  type CampaignProgressEvent,
  type CampaignsResponse,
  type LiveEvent,
} from '@switchboard/contracts';

/**
 * The console's live updates: one EventSource per signed-in tab on the gateway's event stream.
 * Each event only invalidates (or, for campaign progress, patches) the TanStack Query keys whose
 * answers it changes; the pages keep reading the API as before. While the stream is down the
 * pages fall back to a slow poll (`fallbackPoll`).
 */

/** How often a page reads again while the stream is down; the stream is the usual way. */
export const FALLBACK_POLL_MS = 60_000;
/** A stream the browser gave up on (a 429, 503 or network failure) is opened again after this. */
const REOPEN_DELAYS_MS = [2_000, 5_000, 15_000, 30_000];

const MESSAGE_EVENTS = [
  'message_received',
  'message_sent',
  'message_failed',
  'message_status_updated',
] as const;
const CAMPAIGN_EVENTS = ['campaign_started', 'campaign_completed'] as const;
const EVENT_NAMES = [
  ...MESSAGE_EVENTS,
  ...CAMPAIGN_EVENTS,
  'conversation_updated',
  'campaign_progress',
] as const;

let connected = false;
const listeners = new Set<() => void>();
function setConnected(value: boolean) {
  if (connected === value) return;
  connected = value;
  for (const listener of listeners) listener();
}
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** True while the stream is open. */
export const useLiveConnected = () => useSyncExternalStore(subscribe, () => connected);

/**
 * A `refetchInterval` for the queries the stream keeps fresh: none while it is open, the slow
 * fallback while it is down.
 */
export const useFallbackPoll = (): number | false =>
  useLiveConnected() ? false : FALLBACK_POLL_MS;

/** Puts a campaign's new counts into the cached list at once: progress moves without a read. */
function patchCampaign(queryClient: QueryClient, event: CampaignProgressEvent) {
  const { campaign_id, status, total, sent, delivered, read, failed } = event.data;
  let found = false;
  queryClient.setQueriesData<CampaignsResponse>({ queryKey: ['campaigns'] }, (answer) => {
    if (!answer?.campaigns) return answer;
    return {
      ...answer,
      campaigns: answer.campaigns.map((campaign) => {
        if (campaign.id !== campaign_id) return campaign;
        found = true;
        return {
          ...campaign,
          status: status as typeof campaign.status,
          total_contacts: total,
          sent,
          delivered,
          read,
          failed,
        };
      }),
    };
  });
  if (!found) void queryClient.invalidateQueries({ queryKey: ['campaigns'] });
}

export function applyLiveEvent(queryClient: QueryClient, event: LiveEvent) {
  const invalidate = (queryKey: unknown[]) => void queryClient.invalidateQueries({ queryKey });
  switch (event.event) {
    case 'message_received':
    case 'message_sent':
    case 'message_failed':
    case 'message_status_updated':
      invalidate(['messages', event.data.contact_id]);
      invalidate(['conversations']);
      return;
    case 'conversation_updated':
      invalidate(['conversations']);
      return;
    case 'campaign_progress':
      patchCampaign(queryClient, event);
      return;
    case 'campaign_started':
    case 'campaign_completed':
      invalidate(['campaigns']);
      return;
    default:
      return;
  }
}

/** Opens the stream for as long as the signed-in shell is shown, and keeps it open. */
export function useLiveUpdates(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let source: EventSource | null = null;
    let lastId: string | null = null;
    let failures = 0;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const open = () => {
      // EventSource resumes by itself with Last-Event-ID; a stream opened again by hand says
      // where it stopped in the query.
      const url = lastId
        ? `${LIVE_EVENTS_PATH}?last_event_id=${encodeURIComponent(lastId)}`
        : LIVE_EVENTS_PATH;
      const stream = new EventSource(url, { withCredentials: true });
      source = stream;
      const remember = (frame: MessageEvent) => {
        if (frame.lastEventId) lastId = frame.lastEventId;
      };
      stream.addEventListener('ready', (frame) => {
        const reopened = lastId !== null;
        remember(frame);
        failures = 0;
        // Back after a break: what the fallback poll may have missed is read again once.
        if (reopened) void queryClient.invalidateQueries();
        setConnected(true);
      });
      stream.addEventListener('reset', (frame) => {
        remember(frame);
        setConnected(true);
        void queryClient.invalidateQueries();
      });
      for (const name of EVENT_NAMES) {
        stream.addEventListener(name, (frame) => {
          remember(frame);
          try {
            applyLiveEvent(queryClient, JSON.parse(frame.data as string) as LiveEvent);
          } catch {
            // A frame that does not parse changes nothing; the next read corrects the view.
          }
        });
      }
      stream.onerror = () => {
        setConnected(false);
        // The browser reconnects by itself after a dropped connection; after a refusal (not
        // 200, e.g. 429 or 503) it gives up, and the stream is opened again a while later.
        if (stream.readyState === EventSource.CLOSED && !stopped) {
          const delay = REOPEN_DELAYS_MS[Math.min(failures, REOPEN_DELAYS_MS.length - 1)];
          failures += 1;
          reopenTimer = setTimeout(open, delay);
        }
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(reopenTimer);
      source?.close();
      setConnected(false);
    };
  }, [queryClient]);
}
