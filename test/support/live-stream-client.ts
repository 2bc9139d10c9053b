import { LIVE_EVENTS_PATH } from '@switchboard/contracts';

/** One server-sent event as EventSource would hand it over. */
export interface StreamFrame {
  id: string | undefined;
  event: string;
  data: string;
}

export interface LiveStreamClient {
  status: number;
  contentType: string | null;
  /** The error body of a refused stream. */
  body: string;
  frames: StreamFrame[];
  /** Comment lines (heartbeats) seen so far. */
  comments: number;
  /** Resolves once the server ended the stream. */
  ended: Promise<void>;
  /** Waits until `count` frames match, or fails after `timeoutMs`. */
  waitFor(
    match: (frame: StreamFrame) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<StreamFrame[]>;
  /** The last `id:` received, as EventSource keeps it for a reconnect. */
  lastEventId(): string | undefined;
  close(): void;
}

/** Parses frames out of an event stream as the HTML standard's EventSource does. */
function parseFrames(text: string, onFrame: (frame: StreamFrame) => void, onComment: () => void) {
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        onComment();
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') id = value;
      else if (name === 'event') event = value;
      else if (name === 'data') data.push(value);
    }
    if (data.length > 0) onFrame({ id, event, data: data.join('\n') });
  }
}

/** Opens the live stream as the console's EventSource would (cookie, optional Last-Event-ID). */
export async function openLiveStream(
  baseUrl: string,
  options: { cookie?: string; lastEventId?: string; query?: string } = {},
): Promise<LiveStreamClient> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const response = await fetch(`${baseUrl}${LIVE_EVENTS_PATH}${options.query ?? ''}`, {
    headers,
    signal: controller.signal,
  });
  const frames: StreamFrame[] = [];
  let comments = 0;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  let endedFlag = false;
  let body = '';

  const ended = (async () => {
    if (response.status !== 200 || !response.body) {
      body = await response.text();
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        const cut = buffered.lastIndexOf('\n\n');
        if (cut === -1) continue;
        parseFrames(
          buffered.slice(0, cut + 2),
          (frame) => frames.push(frame),
          () => (comments += 1),
        );
        buffered = buffered.slice(cut + 2);
        notify();
      }
    } catch {
      // aborted by close(), or the connection dropped: either way the stream has ended
    }
  })().finally(() => {
    endedFlag = true;
    notify();
  });

  const client: LiveStreamClient = {
    status: response.status,
    contentType: response.headers.get('content-type'),
    get body() {
      return body;
    },
    frames,
    get comments() {
      return comments;
    },
    ended,
    waitFor(match, count = 1, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matched = frames.filter(match);
          if (matched.length >= count) {
            cleanup();
            resolve(matched);
          } else if (endedFlag) {
            cleanup();
            reject(
              new Error(`stream ended with ${matched.length} of ${count} frames: ${describe()}`),
            );
          }
        };
        const describe = () => JSON.stringify(frames.map((f) => [f.id, f.event]));
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`timed out with ${frames.filter(match).length} of ${count}: ${describe()}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    lastEventId() {
      for (let i = frames.length - 1; i >= 0; i--)
        if (frames[i]!.id !== undefined) return frames[i]!.id;
      return undefined;
    },
    close() {
      controller.abort();
    },
  };
  if (response.status !== 200) await ended;
  return client;
}
